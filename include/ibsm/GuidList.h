// Lists of GUIDs in files, one per line, '#' comments: OpenSM's root_guid_file
// and friends, so operators can reuse theirs.
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
