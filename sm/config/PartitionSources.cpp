#include "sm/config/PartitionSources.h"

namespace ibsm::sm::config {

Result<partition::PartitionConfig> readPartitionSources(
    const ConfigInUse& config, const std::optional<std::filesystem::path>& partitionsFile) {
  const std::filesystem::path file = partitionsFile.value_or(config.config.sm.partitionsFile);
  partition::PartitionConfig merged;
  bool managed = false;
  if (!file.empty()) {
    auto read = partition::readPartitionsFile(
        file, partition::PartitionsFileOptions{.strict = config.config.partitions.strict});
    if (!read) return std::unexpected(read.error());
    merged = std::move(*read);
    managed = true;
  }
  if (config.file) {
    auto toml = partition::loadTomlPartitions(*config.file);
    if (!toml) return std::unexpected(toml.error());
    if (!toml->partitions.empty()) {
      auto both = partition::mergeSources(merged, *toml);
      if (!both) return std::unexpected(both.error());
      merged = std::move(*both);
      managed = true;
    }
  }
  if (!managed) return partition::defaultPartitionConfig();
  return merged;
}

}  // namespace ibsm::sm::config
