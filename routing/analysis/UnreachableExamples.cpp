#include "routing/analysis/UnreachableExamples.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/analysis/NextHops.h"

namespace ibsm::analysis {
namespace {

EndpointName nameOf(const Fabric& fabric, PortRef ref) {
  const Node& node = fabric.node(ref.node);
  const Port& port = node.ports[ref.port];
  return EndpointName{node.description, port.guid, port.lid, ref.port};
}

std::string stoppedAt(const ForwardingView& view, const Trace& trace, const Destination& d) {
  const Fabric& fabric = view.fabric();
  const SwitchIndex last = trace.path.back();
  const PortRef at{view.graph().nodeId(last), trace.lastPort};
  switch (trace.outcome) {
    case Outcome::NoEntry:
      return fmt::format("{} has no entry for LID {}", view.switchName(last), d.lid);
    case Outcome::DeadPort:
      if (trace.lastPort > view.numPorts(last))
        return fmt::format("{} sends LID {} to port {}, which it does not have",
                           view.switchName(last), d.lid, trace.lastPort);
      return fmt::format("{} sends LID {} to a port with no cable", fabric.describe(at), d.lid);
    case Outcome::WrongPort:
      if (trace.lastPort == 0)
        return fmt::format("{} delivers LID {} to itself", view.switchName(last), d.lid);
      return fmt::format("{} delivers LID {} to {}", fabric.describe(at), d.lid,
                         fabric.describe(*fabric.port(at).remote));
    case Outcome::Loop:
      return fmt::format("{} is visited twice", view.switchName(last));
    case Outcome::Delivered:
      break;
  }
  return "delivered";
}

UnreachableExample traced(const ForwardingView& view, ExampleAt at) {
  const Fabric& fabric = view.fabric();
  const Destination& d = view.destinations()[at.destination];
  // Prefer a CA as the source: that is the traffic operators care about.
  PortRef source{view.graph().nodeId(at.from), 0};
  for (const auto& e : view.graph().endpoints(at.from).subspan(1)) {
    if (e.base.value != 0 && e.owner != d.owner) {
      source = e.owner;
      break;
    }
  }
  const Trace trace = traceRoute(view, at.from, d);
  UnreachableExample ex{nameOf(fabric, source),
                        nameOf(fabric, d.owner),
                        reasonOf(trace.outcome),
                        stoppedAt(view, trace, d),
                        {}};
  ex.destination.lid = d.lid;
  for (const SwitchIndex s : trace.path)
    ex.path.push_back(fabric.node(view.graph().nodeId(s)).description);
  return ex;
}

bool before(const ExampleAt& a, const ExampleAt& b) {
  return a.destination < b.destination;
}

}  // namespace

void ExampleCandidates::offer(UnreachableReason reason, ExampleAt at) {
  auto& bucket = byReason_[static_cast<std::size_t>(reason)];
  if (bucket.size() == RouteReport::kMaxExamples) {
    if (!before(at, bucket.back())) return;
    bucket.pop_back();
  }
  bucket.insert(std::ranges::upper_bound(bucket, at, before), at);
}

void ExampleCandidates::merge(const ExampleCandidates& other) {
  for (std::size_t r = 0; r < kUnreachableReasons; ++r)
    for (const ExampleAt& at : other.byReason_[r]) offer(static_cast<UnreachableReason>(r), at);
}

std::vector<UnreachableExample> unreachableExamples(const ForwardingView& view,
                                                    const ExampleCandidates& candidates) {
  std::vector<UnreachableExample> out;
  for (std::size_t i = 0; out.size() < RouteReport::kMaxExamples; ++i) {
    bool any = false;
    for (std::size_t r = 0; r < kUnreachableReasons; ++r) {
      const auto& bucket = candidates.of(static_cast<UnreachableReason>(r));
      if (i >= bucket.size() || out.size() >= RouteReport::kMaxExamples) continue;
      out.push_back(traced(view, bucket[i]));
      any = true;
    }
    if (!any) break;
  }
  return out;
}

}  // namespace ibsm::analysis
