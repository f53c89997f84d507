// Lists of GUIDs in files, in OpenSM's format for root_guid_file,
// cn_guid_file and io_guid_file (its parse_node_map()), so operators reuse
// theirs: one GUID a line, optionally followed by blanks and a node name,
// which is ignored; '#' starts a comment; blank lines are skipped. One
// difference: a GUID without "0x" is read as hex, where OpenSM's strtoull
// would read it as decimal (or octal with a leading 0).
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>

#include <optional>
#include <string_view>
#include <vector>

namespace ibsm {

// A 64-bit hex number as operators write GUIDs and LIDs, with or without
// "0x"; nullopt unless the whole text is one.
std::optional<std::uint64_t> parseHex64(std::string_view text);

[[nodiscard]] Result<std::vector<Guid>> parseGuidList(std::string_view text,
                                                      std::string_view fileName);

}  // namespace ibsm
