#include "sm/config/ConfigCheck.h"

#include <fmt/format.h>
#include <ibsm/Engines.h>
#include <toml++/toml.h>

#include "sm/config/ConfigInUse.h"
#include "sm/config/PartitionSources.h"
#include "sm/config/PlanSettings.h"
#include "sm/config/QosPolicySource.h"
#include "sm/files/FileIo.h"
#include "sm/security/Secret.h"

namespace ibsm::sm::config {
namespace {

std::size_t countKeys(const std::string& text) {
  std::size_t n = 0;
  try {
    const toml::table root = toml::parse(text);
    for (const auto& [section, node] : root)
      if (const auto* t = node.as_table()) n += t->size();
  } catch (const toml::parse_error&) {
    // parseConfig() has accepted the text already.
  }
  return n;
}

}  // namespace

Result<ConfigCheckSummary> checkConfigFile(const std::filesystem::path& path) {
  auto text = files::readFile(path);
  if (!text) return std::unexpected(text.error());
  auto config = parseConfig(*text, path.string());
  if (!config) return std::unexpected(config.error());
  ConfigCheckSummary summary;
  summary.keys = countKeys(*text);
  // Engine names and the root GUID list, as `ibsm run` reads them.
  auto plan = planInputs(*config, {}, defaultRegistry());
  if (!plan) {
    // An error in the root GUID list names its own file and line; one in
    // the engine names is the config's.
    const std::string roots = config->routing.rootGuidFile.value_or("").string();
    if (!roots.empty() && plan.error().message.starts_with(roots + ":"))
      return std::unexpected(plan.error());
    return fail(fmt::format("{}: {}", path.string(), plan.error().message));
  }
  summary.rootGuids = plan->routing.rootGuids.size();
  if (config->routing.rootGuidFile && !config->routing.rootGuidFile->empty()) ++summary.filesRead;
  auto health = healthSettings(config->health);
  if (!health) return std::unexpected(health.error());
  summary.filesRead += !config->health.thresholdFile.empty();
  summary.filesRead += !config->health.rateThresholdFile.empty();
  auto partitions = readPartitionSources(ConfigInUse{*config, path}, std::nullopt);
  if (!partitions) return std::unexpected(partitions.error());
  summary.partitions = partitions->partitions.size();
  summary.partitionsIgnored = partitions->ignored;
  summary.filesRead += !config->sm.partitionsFile.empty();
  // The QoS policy, as `ibsm run` reads it: a broken one names its line.
  if (auto qos = readQosPolicySource(*config, std::nullopt); !qos)
    return std::unexpected(qos.error());
  summary.filesRead += !config->sm.qosPolicyFile.empty();
  // A secret file the config names must exist and be guarded as `ibsm run`
  // insists; the state directory's own is made at the first start.
  if (config->sm.mKey.enabled && config->sm.mKey.secretFile) {
    if (auto secret = security::loadSecret(*config->sm.mKey.secretFile, false); !secret)
      return fail(secret.error());
    ++summary.filesRead;
  }
  return summary;
}

}  // namespace ibsm::sm::config
