#include "sm/config/PlanSettings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ibsm/GuidList.h>
#include <ibsm/Lids.h>

#include <algorithm>

#include "sm/files/FileIo.h"

namespace ibsm::sm::config {
namespace {

Result<void> checkEngines(const std::vector<std::string>& engines, const EngineRegistry& registry) {
  const auto known = registry.names();
  for (const auto& e : engines)
    if (std::ranges::find(known, e) == known.end())
      return fail(fmt::format("unknown routing engine '{}': expected one of {}", e,
                              fmt::join(known, ", ")));
  return {};
}

Result<std::vector<Guid>> readRootGuids(const std::filesystem::path& file) {
  auto text = files::readFile(file);
  if (!text) return std::unexpected(text.error());
  return parseGuidList(*text, file.string());
}

Result<Guid2Lid> readGuid2Lid(const std::filesystem::path& file) {
  auto text = files::readFile(file);
  if (!text) return std::unexpected(text.error());
  return parseGuid2Lid(*text, file.string());
}

}  // namespace

Result<PlanInputs> planInputs(const Config& config, const PlanOverrides& overrides,
                              const EngineRegistry& registry) {
  PlanInputs plan;
  plan.engines = overrides.engines.empty() ? config.routing.engines : overrides.engines;
  plan.lmc = config.routing.lmc;
  if (overrides.lmc) {
    if (*overrides.lmc < 0 || *overrides.lmc > 7)
      return fail(fmt::format("--lmc {}: expected 0 to 7", *overrides.lmc));
    plan.lmc = static_cast<std::uint8_t>(*overrides.lmc);
  }
  if (auto ok = checkEngines(plan.engines, registry); !ok) return std::unexpected(ok.error());
  // Engines that need VLs (dragonfly) take the lower of this budget and what
  // the ports declare (PortInfo:VLCap): the dry run then predicts the live
  // SL2VL tables.
  plan.routing.maxVls = config.routing.maxVls;
  plan.routing.threads = overrides.threads.value_or(config.routing.threads);
  const auto rootFile =
      overrides.rootGuidFile ? overrides.rootGuidFile : config.routing.rootGuidFile;
  if (rootFile && !rootFile->empty()) {
    auto roots = readRootGuids(*rootFile);
    if (!roots) return std::unexpected(roots.error());
    plan.routing.rootGuids = std::move(*roots);
  }
  if (overrides.guid2lid) {
    auto saved = readGuid2Lid(*overrides.guid2lid);
    if (!saved) return std::unexpected(saved.error());
    plan.guid2lid = std::move(*saved);
  }
  return plan;
}

}  // namespace ibsm::sm::config
