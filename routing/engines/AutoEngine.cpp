// auto: dragonfly when the cabling is a dragonfly or dragonfly+, ftree when
// it is a fat tree, updn otherwise. dragonfly and ftree each refuse exactly
// the fabrics that are not their shape (and say why), so auto asks them in
// that order and hands the refusals' reasons to the operator in a note. A fat
// tree has no triangles and no spine-to-spine cables, so dragonfly never
// takes one.
#include <fmt/format.h>
#include <ibsm/Engines.h>

namespace ibsm {
namespace {

class AutoEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "auto"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    auto dragonfly = makeDragonflyEngine()->route(fabric, options);
    if (dragonfly) {
      dragonfly->notes.insert(dragonfly->notes.begin(),
                              "auto chose dragonfly: the fabric is a dragonfly");
      return dragonfly;
    }
    auto ftree = makeFatTreeEngine()->route(fabric, options);
    if (ftree) {
      ftree->notes.insert(ftree->notes.begin(), "auto chose ftree: the fabric is a fat tree");
      return ftree;
    }
    auto updn = makeUpDownEngine()->route(fabric, options);
    if (!updn)
      return fail(fmt::format("{}; not a fat tree ({}) and updn failed: {}",
                              dragonfly.error().message, ftree.error().message,
                              updn.error().message));
    updn->notes.insert(updn->notes.begin(),
                       {fmt::format("auto chose updn: not a fat tree: {}", ftree.error().message),
                        fmt::format("and {}", dragonfly.error().message)});
    return updn;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeAutoEngine() {
  return std::make_unique<AutoEngine>();
}

}  // namespace ibsm
