// auto: ftree when the fabric is a fat tree, updn otherwise. ftree refuses
// exactly the fabrics that are not fat trees (and says why), so auto asks it
// first and hands the refusal's reason to the operator in a note.
#include <fmt/format.h>
#include <ibsm/Engines.h>

namespace ibsm {
namespace {

class AutoEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "auto"; }

  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    auto ftree = makeFatTreeEngine()->route(fabric, options);
    if (ftree) {
      ftree->notes.insert(ftree->notes.begin(), "auto chose ftree: the fabric is a fat tree");
      return ftree;
    }
    auto updn = makeUpDownEngine()->route(fabric, options);
    if (!updn)
      return fail(fmt::format("not a fat tree ({}) and updn failed: {}", ftree.error().message,
                              updn.error().message));
    updn->notes.insert(updn->notes.begin(),
                       fmt::format("auto chose updn: not a fat tree: {}", ftree.error().message));
    return updn;
  }
};

}  // namespace

std::unique_ptr<RoutingEngine> makeAutoEngine() {
  return std::make_unique<AutoEngine>();
}

}  // namespace ibsm
