// analyseRoutes: one pass per destination LID over the resolved next hops
// (see NextHops.h); pair counts, hop figures, link loads and channel
// dependencies are all accumulated from that one resolution.
#include <fmt/format.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <array>
#include <numeric>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"

namespace ibsm {
namespace {

using analysis::ChannelId;
using analysis::Destination;
using analysis::ForwardingView;
using analysis::kNoChannel;
using analysis::kNoSwitch;
using analysis::NextHops;
using analysis::Outcome;
using analysis::SwitchIndex;

PairKind kindOf(bool fromSwitch, bool toSwitch) {
  if (fromSwitch) return toSwitch ? PairKind::SwitchToSwitch : PairKind::SwitchToCa;
  return toSwitch ? PairKind::CaToSwitch : PairKind::CaToCa;
}

EndpointName nameOf(const Fabric& fabric, PortRef ref) {
  const Node& node = fabric.node(ref.node);
  const Port& port = node.ports[ref.port];
  return EndpointName{node.description, port.guid, port.lid, ref.port};
}

// Candidate examples, kept per reason so that the few shown cover every
// reason that occurred rather than the first one found many times.
class ExampleCollector {
 public:
  explicit ExampleCollector(const ForwardingView& view) : view_(view) {}

  bool wants(UnreachableReason reason) const {
    return byReason_[static_cast<std::size_t>(reason)].size() < RouteReport::kMaxExamples;
  }

  void add(SwitchIndex from, const Destination& d) {
    const Fabric& fabric = view_.fabric();
    // Prefer a CA as the source: that is the traffic operators care about.
    PortRef source{view_.graph().nodeId(from), 0};
    for (const auto& e : view_.graph().endpoints(from).subspan(1)) {
      if (e.base.value != 0 && e.owner != d.owner) {
        source = e.owner;
        break;
      }
    }
    const analysis::Trace trace = analysis::traceRoute(view_, from, d);
    UnreachableExample ex{nameOf(fabric, source),
                          nameOf(fabric, d.owner),
                          analysis::reasonOf(trace.outcome),
                          stoppedAt(trace, d),
                          {}};
    ex.destination.lid = d.lid;
    for (const SwitchIndex s : trace.path)
      ex.path.push_back(fabric.node(view_.graph().nodeId(s)).description);
    byReason_[static_cast<std::size_t>(ex.reason)].push_back(std::move(ex));
  }

  // Round-robin over the reasons, up to kMaxExamples in all.
  std::vector<UnreachableExample> take() {
    std::vector<UnreachableExample> out;
    for (std::size_t i = 0; out.size() < RouteReport::kMaxExamples; ++i) {
      bool any = false;
      for (auto& bucket : byReason_) {
        if (i >= bucket.size() || out.size() >= RouteReport::kMaxExamples) continue;
        out.push_back(std::move(bucket[i]));
        any = true;
      }
      if (!any) break;
    }
    return out;
  }

 private:
  std::string stoppedAt(const analysis::Trace& trace, const Destination& d) const {
    const Fabric& fabric = view_.fabric();
    const SwitchIndex last = trace.path.back();
    const NodeId id = view_.graph().nodeId(last);
    const PortRef at{id, trace.lastPort};
    switch (trace.outcome) {
      case Outcome::NoEntry:
        return fmt::format("{} has no entry for LID {}", view_.switchName(last), d.lid);
      case Outcome::DeadPort:
        if (trace.lastPort > view_.numPorts(last))
          return fmt::format("{} sends LID {} to port {}, which it does not have",
                             view_.switchName(last), d.lid, trace.lastPort);
        return fmt::format("{} sends LID {} to a port with no cable", fabric.describe(at), d.lid);
      case Outcome::WrongPort:
        if (trace.lastPort == 0)
          return fmt::format("{} delivers LID {} to itself", view_.switchName(last), d.lid);
        return fmt::format("{} delivers LID {} to {}", fabric.describe(at), d.lid,
                           fabric.describe(*fabric.port(at).remote));
      case Outcome::Loop:
        return fmt::format("{} is visited twice", view_.switchName(last));
      case Outcome::Delivered:
        break;
    }
    return "delivered";
  }

  const ForwardingView& view_;
  std::array<std::vector<UnreachableExample>, kUnreachableReasons> byReason_;
};

struct HopSums {
  std::uint64_t pairs{0};
  std::uint64_t hops{0};
  std::uint64_t stretch{0};
};

class Analysis {
 public:
  Analysis(const ForwardingView& view, RouteReport& report)
      : view_(view),
        report_(report),
        hops_(view),
        deps_(view),
        examples_(view),
        load_(view.channelCount(), 0),
        pushed_(view.switches(), 0) {}

  void run(std::uint8_t vlsNeeded) {
    SwitchIndex shortestFor = kNoSwitch;
    for (const Destination& d : view_.destinations()) {
      hops_.resolve(d);
      deps_.add(hops_);
      if (hops_.hasLoop()) ++report_.lidsWithLoops;
      const bool toCa = !d.ownerIsSwitch && d.sw != kNoSwitch;
      if (toCa && shortestFor != d.sw) {  // destinations come grouped by switch
        shortest_ = view_.graph().hopsFrom(d.sw);
        shortestFor = d.sw;
      }
      visitSources(d, toCa);
      if (toCa && d.isBase) pushLoads();
    }
    finishHops(sums_, report_.hops);
    finishHops(apartSums_, report_.apartHops);
    finishLoads();
    report_.unreachableExamples = examples_.take();
    report_.creditLoops = deps_.report(vlsNeeded);
  }

 private:
  // One pass over the source switches of destination d: pair counts,
  // unreachable reasons and examples, hop figures, and each switch's CA
  // count for the link loads (routes from CAs attached to it).
  void visitSources(const Destination& d, bool toCa) {
    auto& fromCa = report_.pairs[static_cast<std::size_t>(kindOf(false, d.ownerIsSwitch))];
    auto& fromSwitch = report_.pairs[static_cast<std::size_t>(kindOf(true, d.ownerIsSwitch))];
    unsigned shown = 0;  // reasons this LID already gave an example for
    for (SwitchIndex s = 0; s < view_.switches(); ++s) {
      // The destination port is no source of its own LID.
      const std::uint64_t ca = view_.caSources(s) - (!d.ownerIsSwitch && d.sw == s ? 1u : 0u);
      const std::uint64_t sw = view_.switchIsSource(s) && !(d.ownerIsSwitch && d.sw == s);
      pushed_[s] = 0;
      if (hops_.outcome(s) == Outcome::Delivered) {
        fromCa.routed += ca;
        fromSwitch.routed += sw;
        if (!toCa || ca == 0) continue;
        // Pairs with an end routed apart count in their own hop figures
        // and load no link: the compute balance is the compute pairs'.
        const std::uint64_t apart = d.apart ? ca : view_.apartSources(s);
        const std::uint64_t compute = ca - std::min(ca, apart);
        pushed_[s] = compute;
        addHops(s, compute, sums_, report_.hops);
        addHops(s, ca - compute, apartSums_, report_.apartHops);
        continue;
      }
      fromCa.unreachable += ca;
      fromSwitch.unreachable += sw;
      const UnreachableReason reason = analysis::reasonOf(hops_.outcome(s));
      report_.unreachableByReason[static_cast<std::size_t>(reason)] += ca + sw;
      const unsigned bit = 1u << static_cast<unsigned>(reason);
      if (ca + sw > 0 && (shown & bit) == 0 && examples_.wants(reason)) {
        examples_.add(s, d);
        shown |= bit;
      }
    }
  }

  void addHops(SwitchIndex s, std::uint64_t pairs, HopSums& sums, HopStats& h) {
    if (pairs == 0) return;
    const std::uint16_t hops = hops_.hops(s);
    const std::uint16_t best = shortest_[s];
    const std::uint32_t stretch = hops > best ? hops - best : 0;
    sums.pairs += pairs;
    sums.hops += pairs * hops;
    sums.stretch += pairs * stretch;
    h.max = std::max<std::uint32_t>(h.max, hops);
    h.maxStretch = std::max(h.maxStretch, stretch);
    if (stretch > 0) h.longerThanShortest += pairs;
  }

  // Every route toward d follows the tree the next hops form; pushing each
  // switch's source count down it, farthest first, loads each link once.
  void pushLoads() {
    const auto order = hops_.order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const SwitchIndex s = *it;
      if (pushed_[s] == 0) continue;
      const ChannelId c = hops_.channel(s);
      if (c == kNoChannel) continue;  // delivered here
      load_[c] += pushed_[s];
      pushed_[hops_.next(s)] += pushed_[s];
    }
  }

  static void finishHops(const HopSums& sums, HopStats& h) {
    h.pairs = sums.pairs;
    if (sums.pairs == 0) return;
    h.mean = static_cast<double>(sums.hops) / static_cast<double>(sums.pairs);
    h.meanStretch = static_cast<double>(sums.stretch) / static_cast<double>(sums.pairs);
  }

  void finishLoads() {
    auto& l = report_.linkLoad;
    l.links = load_.size();
    if (load_.empty()) return;
    const auto [lo, hi] = std::ranges::minmax(load_);
    l.min = lo;
    l.max = hi;
    const std::uint64_t total = std::accumulate(load_.begin(), load_.end(), std::uint64_t{0});
    l.mean = static_cast<double>(total) / static_cast<double>(load_.size());
    l.maxOverMean = total == 0 ? 0.0 : static_cast<double>(hi) / l.mean;

    std::vector<ChannelId> byLoad(load_.size());
    std::iota(byLoad.begin(), byLoad.end(), ChannelId{0});
    const std::size_t top = std::min(RouteReport::kBusiestLinks, byLoad.size());
    std::partial_sort(byLoad.begin(), byLoad.begin() + static_cast<std::ptrdiff_t>(top),
                      byLoad.end(), [&](ChannelId a, ChannelId b) {
                        return load_[a] != load_[b] ? load_[a] > load_[b] : a < b;
                      });
    const Fabric& fabric = view_.fabric();
    l.perLink.reserve(load_.size());
    for (ChannelId c = 0; c < load_.size(); ++c) {
      const analysis::Channel& ch = view_.channel(c);
      l.perLink.push_back({fabric.node(view_.graph().nodeId(ch.from)).guid, ch.port, load_[c]});
    }
    for (std::size_t i = 0; i < top; ++i) {
      const analysis::Channel& ch = view_.channel(byLoad[i]);
      l.busiest.push_back(LinkLoad{
          view_.channelName(byLoad[i]), fabric.node(view_.graph().nodeId(ch.from)).guid, ch.port,
          fabric.node(view_.graph().nodeId(ch.to)).guid, ch.remotePort, load_[byLoad[i]]});
    }
  }

  const ForwardingView& view_;
  RouteReport& report_;
  NextHops hops_;
  analysis::ChannelDependencies deps_;
  ExampleCollector examples_;
  std::vector<std::uint64_t> load_;
  std::vector<std::uint64_t> pushed_;
  std::vector<std::uint16_t> shortest_;
  HopSums sums_;
  HopSums apartSums_;
};

}  // namespace

RouteReport analyseRoutes(const Fabric& fabric, const RoutingResult& result) {
  const ForwardingView view(fabric, result);
  RouteReport report;
  report.engine = result.engine;
  report.engineNotes = result.notes;
  report.fallbacks = result.fallbacks;
  for (const auto& [a, b] : result.loopbacks)
    report.loopbacks.push_back(fmt::format("{} -- {}", fabric.describe(a), fabric.describe(b)));
  report.switches = view.switches();
  report.caPorts = view.caPorts();
  report.destinationLids = view.destinations().size();
  report.apartPorts = view.apartPorts();
  Analysis(view, report).run(result.vlsUsed);
  return report;
}

}  // namespace ibsm
