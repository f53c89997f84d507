#include <fmt/format.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <optional>

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
                                            const RoutingOptions& options,
                                            const TablesJudge& judge) const {
  if (engines.empty()) return fail("no routing engine named");
  std::vector<std::string> refusals;
  // The first tables the judge objected to, kept in case nothing after
  // them routes the fabric at all: tables with a flaw beat no tables.
  std::optional<RoutingResult> objected;
  std::size_t objectedAt = 0;
  for (std::size_t i = 0; i < engines.size(); ++i) {
    const std::string& wanted = engines[i];
    const auto it = std::ranges::find(factories_, wanted, &std::pair<std::string, Factory>::first);
    if (it == factories_.end())
      return fail(
          fmt::format("unknown routing engine '{}' (known: {})", wanted, fmt::join(names(), ", ")));
    auto result = it->second()->route(fabric, options);
    if (!result) {
      refusals.push_back(fmt::format("{}: {}", wanted, result.error().message));
      continue;
    }
    const bool last = i + 1 == engines.size();
    if (judge && !last) {
      if (auto objection = judge(fabric, *result)) {
        refusals.push_back(fmt::format("{}: {}", wanted, *objection));
        if (!objected) {
          result->objection = std::move(*objection);
          objected = std::move(*result);
          objectedAt = refusals.size() - 1;
        }
        continue;
      }
    }
    result->fallbacks = std::move(refusals);
    return result;
  }
  if (objected) {
    refusals.erase(refusals.begin() + static_cast<std::ptrdiff_t>(objectedAt));
    objected->fallbacks = std::move(refusals);
    return std::move(*objected);
  }
  return fail(fmt::format("every routing engine refused: {}", fmt::join(refusals, "; ")));
}

}  // namespace ibsm
