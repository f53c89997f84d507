// The [sa] keys of the SA's fair queue (sm/sa/FairQueue.h): how many
// requests one requester and all of them may have waiting, and how many are
// read in a row before a turn is served. Kept apart from Config.cpp because
// two of them bound each other, which a key's own apply cannot check.
// Private to sm/config.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "sm/config/Config.h"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace ibsm::sm::config {

std::span<const OptionSpec> saQueueOptions();

// sa.queue_total below sa.queue_per_requester, with the file and line of
// the key that makes it so (the total's when the file sets it); both keys
// are then put back to their defaults, so a lenient reader runs with a
// queue the file did not half set.
std::optional<KeyProblem> checkSaQueue(const toml::table& root, Config& config,
                                       const std::string& file);

}  // namespace ibsm::sm::config
