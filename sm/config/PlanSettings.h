// The one step from configuration (plus command-line flags) to the inputs of
// planSubnet(), shared by `ibsm route` and `ibsm run`. The dry run predicts
// the live SM only if both plan from the same inputs; deriving them in one
// function is what keeps a new routing key from reaching one and not the
// other.
//
//   auto plan = config::planInputs(in->config, {.engines = args.engines, .lmc = args.lmc},
//                                  defaultRegistry());
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Routing.h>
#include <ibsm/SubnetPlan.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

// Flags that override a config value; unset (or empty) leaves the config's.
// Every member has an initializer so that designated initializers may name
// any subset without GCC's missing-field warning.
struct PlanOverrides {
  std::vector<std::string> engines{};                   // --engine over routing.engine
  std::optional<int> lmc{};                             // --lmc over routing.lmc
  std::optional<std::filesystem::path> rootGuidFile{};  // --root-guids over routing.root_guid_file
  // --guid2lid of the dry run: LIDs to keep. The SM takes its own from the
  // state directory at every sweep, so `ibsm run` leaves this unset.
  std::optional<std::filesystem::path> guid2lid{};
  std::optional<unsigned> threads{};  // --threads over routing.threads
};

// Checks the flags and engine names and reads the files named (root GUIDs,
// guid2lid); errors name the flag or file:line. Sends and writes nothing.
[[nodiscard]] Result<PlanInputs> planInputs(const Config& config, const PlanOverrides& overrides,
                                            const EngineRegistry& registry);

}  // namespace ibsm::sm::config
