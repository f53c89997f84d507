// What ibsm says about each OpenSM option it has no key for: the list of
// options OpenSM 3.3 knows (its opt_tbl, as `opensm -c` writes them) and,
// for each, why ibsm has no equivalent or what it does instead. Kept apart
// from the mapping (OpenSmConfImport.cpp) so that file stays about keys.
#pragma once

#include <string_view>

namespace ibsm::sm::config {

// Whether OpenSM 3.3.x reads an option of this name.
bool isOpenSmOption(std::string_view name);

// Why an OpenSM option has no ibsm key, one line, for the imported file.
std::string_view whyNoEquivalent(std::string_view name);

}  // namespace ibsm::sm::config
