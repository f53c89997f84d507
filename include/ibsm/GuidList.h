// Lists of GUIDs in files, one per line, '#' comments: OpenSM's root_guid_file
// and friends, so operators can reuse theirs.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>

#include <string_view>
#include <vector>

namespace ibsm {

[[nodiscard]] Result<std::vector<Guid>> parseGuidList(std::string_view text,
                                                      std::string_view fileName);

}  // namespace ibsm
