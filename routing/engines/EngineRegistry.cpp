#include <fmt/format.h>
#include <ibsm/Routing.h>

#include <algorithm>

namespace ibsm {

void EngineRegistry::add(std::string name, Factory factory) {
  factories_.emplace_back(std::move(name), std::move(factory));
}

std::vector<std::string> EngineRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) out.push_back(name);
  return out;
}

Result<RoutingResult> EngineRegistry::route(const Fabric& fabric,
                                            const std::vector<std::string>& engines,
                                            const RoutingOptions& options) const {
  if (engines.empty()) return fail("no routing engine named");
  std::vector<std::string> refusals;
  for (const auto& wanted : engines) {
    const auto it = std::ranges::find(factories_, wanted, &std::pair<std::string, Factory>::first);
    if (it == factories_.end())
      return fail(
          fmt::format("unknown routing engine '{}' (known: {})", wanted, fmt::join(names(), ", ")));
    auto result = it->second()->route(fabric, options);
    if (result) {
      result->fallbacks = std::move(refusals);
      return result;
    }
    refusals.push_back(fmt::format("{}: {}", wanted, result.error().message));
  }
  return fail(fmt::format("every routing engine refused: {}", fmt::join(refusals, "; ")));
}

}  // namespace ibsm
