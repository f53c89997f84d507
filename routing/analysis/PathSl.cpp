#include "routing/analysis/PathSl.h"

#include <fmt/format.h>

namespace ibsm::analysis {

PathSl pathSl(const qos::ResolvedQos* qos, const Fabric& fabric, PortRef from,
              std::optional<PortRef> to, const PathSlQuery& query) {
  PathSl out{.sl = query.sl.value_or(0), .level = nullptr, .note = {}};
  if (qos == nullptr || !to) return out;
  // The SA's ends: a switch by its port 0, as the LID names it.
  const qos::QosQuery match{.source = fabric.port(from).guid,
                            .destination = fabric.port(*to).guid,
                            .serviceId = query.serviceId,
                            .pkey = query.pkey,
                            .qosClass = query.qosClass};
  out.level = qos::matchQos(*qos, match);
  if (out.level == nullptr) return out;
  if (query.sl && *query.sl != out.level->sl) {
    out.note = fmt::format(
        "QoS level {} gives SL {}: the SA answers no path for SL {} (walked on SL {} as asked)",
        out.level->name, out.level->sl, *query.sl, *query.sl);
    return out;
  }
  out.sl = out.level->sl;
  return out;
}

}  // namespace ibsm::analysis
