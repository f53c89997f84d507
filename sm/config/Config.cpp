#include "Config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ibsm::config {
namespace {

std::string lineOf(const toml::node& n, const std::string& file) {
  return fmt::format("{}:{}", file, n.source().begin.line);
}

Result<void> expected(const std::string& where, std::string_view what) {
  return fail(fmt::format("{}: expected {}", where, what));
}

Result<void> applyEngines(Config& c, const toml::node& v, const std::string& where) {
  std::vector<std::string> names;
  if (auto s = v.value<std::string>()) {
    names.push_back(*s);
  } else if (const auto* arr = v.as_array()) {
    for (const auto& item : *arr) {
      auto s2 = item.value<std::string>();
      if (!s2) return expected(where, "routing.engine to be a list of engine names (strings)");
      names.push_back(*s2);
    }
  } else {
    return expected(where, "routing.engine to be an engine name or a list of names");
  }
  if (names.empty()) return expected(where, "at least one engine in routing.engine");
  c.routing.engines = std::move(names);
  return {};
}

Result<void> applyRootGuidFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  if (!s) return expected(where, "routing.root_guid_file to be a path (string)");
  c.routing.rootGuidFile = *s;
  return {};
}

Result<void> applyLmc(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < 0 || *n > 7) return expected(where, "routing.lmc to be an integer from 0 to 7");
  c.routing.lmc = static_cast<std::uint8_t>(*n);
  return {};
}

constexpr OptionSpec kOptions[] = {
    {"routing.engine", "string or list of strings", R"(["auto"])",
     "Routing engines to try in order: minhop, updn, ftree, auto. The first that accepts the "
     "fabric routes it; the report names it and why the ones before it refused.",
     applyEngines},
    {"routing.root_guid_file", "path", R"("")",
     "File of root switch node GUIDs, one per line, for updn and ftree (default: detect roots).",
     applyRootGuidFile},
    {"routing.lmc", "integer 0-7", "0",
     "LID Mask Control: each CA port gets 2^lmc LIDs, each routed on its own path where possible.",
     applyLmc},
};

}  // namespace

std::span<const OptionSpec> optionTable() {
  return kOptions;
}

Result<Config> parseConfig(std::string_view text, std::string_view fileName) {
  const std::string file(fileName);
  toml::table root;
  try {
    root = toml::parse(text, fileName);
  } catch (const toml::parse_error& e) {
    return fail(fmt::format("{}:{}: {}", file, e.source().begin.line, e.description()));
  }
  Config config;
  for (const auto& [section, sectionNode] : root) {
    const auto* table = sectionNode.as_table();
    if (!table)
      return fail(fmt::format("{}: expected a [section] table, found key '{}'",
                              lineOf(sectionNode, file), section.str()));
    for (const auto& [key, value] : *table) {
      const std::string full = fmt::format("{}.{}", section.str(), key.str());
      const auto* spec = std::ranges::find(kOptions, full, &OptionSpec::key);
      if (spec == std::end(kOptions))
        return fail(
            fmt::format("{}: unknown key '{}' (see man ibsm.toml)", lineOf(value, file), full));
      if (auto ok = spec->apply(config, value, lineOf(value, file)); !ok)
        return std::unexpected(ok.error());
    }
  }
  return config;
}

Result<Config> loadConfig(const std::filesystem::path& path, bool required) {
  std::ifstream in(path);
  if (!in) {
    if (!required) return Config{};
    return fail(fmt::format("{}: cannot read config file", path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseConfig(text.str(), path.string());
}

}  // namespace ibsm::config
