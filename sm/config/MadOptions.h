// The [mad] keys of the learnt timeouts (sm/mad/MadRto.h): the floor and
// cap of every SMP's timeout, kept apart from Config.cpp because they
// bound each other, which a key's own apply cannot check; and the window
// per node (sm/mad/NodeQueues.h). Private to sm/config.
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

std::span<const OptionSpec> madOptions();

// mad.timeout_min_ms above mad.timeout_max_ms, with the file and line of
// the key that makes it so (the floor's when the file sets it); both keys
// are then put back to their defaults.
std::optional<KeyProblem> checkMadTimeouts(const toml::table& root, Config& config,
                                           const std::string& file);

}  // namespace ibsm::sm::config
