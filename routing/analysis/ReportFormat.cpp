// The report as JSON (stable keys for scripts) and as lines for people.
#include <fmt/format.h>
#include <ibsm/Report.h>

#include <numeric>

#include "routing/analysis/JsonWriter.h"
#include "routing/analysis/MultipathDisjointness.h"
#include "routing/analysis/PreviousFormat.h"

namespace ibsm {
namespace {

using analysis::JsonWriter;

constexpr std::array<std::string_view, kPairKinds> kKindKeys{"ca-to-ca", "ca-to-switch",
                                                             "switch-to-ca", "switch-to-switch"};
constexpr std::array<std::string_view, kUnreachableReasons> kReasonKeys{"no-entry", "dead-port",
                                                                        "loop", "wrong-port"};

void writeEndpoint(JsonWriter& w, const EndpointName& e) {
  w.beginObject()
      .key("description")
      .value(e.description)
      .key("portGuid")
      .value(fmt::format("{}", e.portGuid))
      .key("port")
      .value(e.port)
      .key("lid")
      .value(e.lid.value)
      .endObject();
}

void writePairs(JsonWriter& w, const RouteReport& r) {
  w.key("pairs").beginObject();
  w.key("routed").value(r.routedPairs()).key("unreachable").value(r.unreachablePairs());
  for (std::size_t k = 0; k < kPairKinds; ++k) {
    w.key(kKindKeys[k]).beginObject();
    w.key("routed").value(r.pairs[k].routed).key("unreachable").value(r.pairs[k].unreachable);
    w.endObject();
  }
  w.endObject();
  w.key("unreachableByReason").beginObject();
  for (std::size_t k = 0; k < kUnreachableReasons; ++k)
    w.key(kReasonKeys[k]).value(r.unreachableByReason[k]);
  w.endObject();
  w.key("unreachableExamples").beginArray();
  for (const auto& ex : r.unreachableExamples) {
    w.beginObject().key("source");
    writeEndpoint(w, ex.source);
    w.key("destination");
    writeEndpoint(w, ex.destination);
    w.key("reason").value(kReasonKeys[static_cast<std::size_t>(ex.reason)]);
    w.key("stoppedAt").value(ex.stoppedAt).key("path").value(ex.path);
    w.endObject();
  }
  w.endArray();
  w.key("lidsWithLoops").value(r.lidsWithLoops);
}

void writeHopsAndLoads(JsonWriter& w, const RouteReport& r) {
  const HopStats& h = r.hops;
  w.key("switchHops").beginObject();
  w.key("pairs").value(h.pairs).key("max").value(h.max).key("mean").value(h.mean);
  w.key("maxStretch").value(h.maxStretch).key("meanStretch").value(h.meanStretch);
  w.key("longerThanShortest").value(h.longerThanShortest);
  w.endObject();
  const HopStats& a = r.apartHops;
  w.key("apartPorts").value(r.apartPorts);
  w.key("apartSwitchHops").beginObject();
  w.key("pairs").value(a.pairs).key("max").value(a.max).key("mean").value(a.mean);
  w.key("maxStretch").value(a.maxStretch).key("meanStretch").value(a.meanStretch);
  w.key("longerThanShortest").value(a.longerThanShortest);
  w.endObject();

  const LinkLoadStats& l = r.linkLoad;
  w.key("linkLoad").beginObject();
  w.key("links").value(l.links).key("max").value(l.max).key("min").value(l.min);
  w.key("mean").value(l.mean).key("maxOverMean").value(l.maxOverMean);
  w.key("busiest").beginArray();
  for (const auto& b : l.busiest) {
    w.beginObject().key("link").value(b.name);
    w.key("fromGuid").value(fmt::format("{}", b.fromGuid)).key("fromPort").value(b.fromPort);
    w.key("toGuid").value(fmt::format("{}", b.toGuid)).key("toPort").value(b.toPort);
    w.key("routes").value(b.routes).endObject();
  }
  w.endArray();
  // [fromGuid, fromPort, routes] per directed cable: arrays, not objects, so
  // that 60,000 cables of a large tree stay a couple of megabytes.
  w.key("perLink").beginArray();
  for (const auto& p : l.perLink)
    w.beginArray()
        .value(fmt::format("{}", p.fromGuid))
        .value(p.fromPort)
        .value(p.routes)
        .endArray();
  w.endArray().endObject();
}

void writeCreditLoops(JsonWriter& w, const CreditLoopReport& c) {
  w.key("creditLoops").beginObject();
  w.key("acyclic").value(c.acyclic).key("vlsNeeded").value(c.vlsNeeded);
  w.key("vlsAnalysed").value(c.vlsAnalysed).key("channels").value(c.channels);
  w.key("dependencies").value(c.dependencies).key("cycle").value(c.cycle);
  w.key("sls").beginArray();
  for (const std::uint8_t sl : c.sls) w.value(sl);
  w.endArray();
  if (c.perPairSls) {
    w.key("perPairSls").value(true).key("vlsCarrying").beginArray();
    for (const std::uint8_t v : c.vlsCarrying) w.value(v);
    w.endArray();
  }
  w.key("perVl").beginArray();
  for (const auto& v : c.perVl) {
    w.beginObject().key("vl").value(v.vl).key("acyclic").value(v.acyclic);
    w.key("dependencies").value(v.dependencies).endObject();
  }
  w.endArray().endObject();
}

void writeMulticast(JsonWriter& w, const MulticastReport& m) {
  w.key("multicast").beginObject();
  w.key("groups").value(m.groups).key("groupsWithTree").value(m.groupsWithTree);
  w.key("receivers").value(m.receivers).key("treeSwitches").value(m.treeSwitches);
  w.key("maxTreeSwitches").value(m.maxTreeSwitches).key("mftEntries").value(m.mftEntries);
  w.key("roots").value(m.roots).key("maxTreesPerRoot").value(m.maxTreesPerRoot);
  w.key("minTreesPerRoot").value(m.minTreesPerRoot).key("linksUsed").value(m.linksUsed);
  w.key("maxTreesPerLink").value(m.maxTreesPerLink).key("busiestLink").value(m.busiestLink);
  w.key("warnings").value(m.warnings).key("problems").value(m.problems);
  w.key("alongUpDown").value(m.alongUpDown);
  w.endObject();
}

void summariseMulticast(const MulticastReport& m, std::string& out) {
  out += fmt::format(
      "multicast: {} groups ({} with a tree), {} receiving ports, {} tree switches (largest "
      "tree {}), {} MFT entries\n",
      m.groups, m.groupsWithTree, m.receivers, m.treeSwitches, m.maxTreeSwitches, m.mftEntries);
  out += fmt::format(
      "  roots: {} switches, {} to {} trees each; cables used {}, at most {} trees on one{}\n",
      m.roots, m.minTreesPerRoot, m.maxTreesPerRoot, m.linksUsed, m.maxTreesPerLink,
      m.busiestLink.empty() ? "" : fmt::format(" ({})", m.busiestLink));
  if (m.alongUpDown > 0)
    out += fmt::format(
        "  trees: {} of {} part of one rooted at the first switch of the order the routes climb "
        "then descend in (updn's, ftree's hub order), each switch's parent before it (spread over "
        "the central switches, those groups' trees could pass copies down into a switch and up out "
        "of it: a credit loop with the routes on one VL)\n",
        m.alongUpDown, m.groupsWithTree);
  for (const auto& wn : m.warnings) out += fmt::format("  warning: {}\n", wn);
  out += fmt::format("  check: {}\n", m.problems.empty()
                                          ? std::string("every receiver reached once, no loop, "
                                                        "no non-member port")
                                          : fmt::format("{} PROBLEMS", m.problems.size()));
  for (const auto& p : m.problems) out += fmt::format("  problem: {}\n", p);
}

void writeQos(JsonWriter& w, const QosReport& q) {
  w.key("qos").beginObject();
  w.key("policy").value(q.policyFile).key("caPairs").value(q.pairs);
  w.key("noSharedPKey").value(q.noSharedPKey).key("noLevel").value(q.noLevel);
  w.key("levels").beginArray();
  for (const auto& l : q.levels)
    w.beginObject()
        .key("name")
        .value(l.level)
        .key("sl")
        .value(l.sl)
        .key("pairs")
        .value(l.pairs)
        .endObject();
  w.endArray().endObject();
}

// "SLs 0-7, 9"
std::string slList(std::uint16_t sls) {
  std::vector<std::string> parts;
  for (int s = 0; s < 16; ++s) {
    if (((sls >> s) & 1U) == 0) continue;
    int last = s;
    while (last + 1 < 16 && ((sls >> (last + 1)) & 1U) != 0) ++last;
    parts.push_back(last == s ? fmt::format("{}", s) : fmt::format("{}-{}", s, last));
    s = last;
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

void writeQosVlLayers(JsonWriter& w, const qos::QosVlLayers& v) {
  w.key("qosVls").beginObject();
  w.key("classes").value(v.classes.size()).key("layers").value(v.layers);
  w.key("vlsNeeded").value(v.vlsNeeded).key("perClass").beginArray();
  for (const auto& c : v.classes) {
    w.beginObject().key("qosVl").value(c.qosVl).key("sls").value(slList(c.sls));
    w.key("firstVl").value(c.firstVl).key("lastVl").value(
        static_cast<std::uint64_t>(c.firstVl + v.layers - 1));
    w.endObject();
  }
  w.endArray().endObject();
}

// "qos VLs: 2 classes x 2 routing VL layers = 4 VLs; class of VL 0 (SLs 0-7): VLs 0-1, ..."
void summariseQosVlLayers(const qos::QosVlLayers& v, std::string& out) {
  out += fmt::format("qos VLs: {} class{} x {} routing VL layer{} = {} VLs\n", v.classes.size(),
                     v.classes.size() == 1 ? "" : "es", v.layers, v.layers == 1 ? "" : "s",
                     v.vlsNeeded);
  for (const auto& c : v.classes)
    out += fmt::format("  class of QoS VL {} (SLs {}): VLs {}-{}\n", c.qosVl, slList(c.sls),
                       c.firstVl, c.firstVl + v.layers - 1);
}

// "qos (policy.conf): 90 CA port pairs, a plain PathRecord each: DEFAULT (SL 0) 72, ..."
void summariseQos(const QosReport& q, std::string& out) {
  std::string levels;
  for (const auto& l : q.levels)
    levels += fmt::format("{}{} (SL {}) {}", levels.empty() ? "" : ", ", l.level, l.sl, l.pairs);
  out += fmt::format("qos ({}): {} CA port pairs, a plain PathRecord each: {}\n", q.policyFile,
                     q.pairs, levels);
  if (q.noSharedPKey > 0) out += fmt::format("  no PKey in common (no path): {}\n", q.noSharedPKey);
  if (q.noLevel > 0) out += fmt::format("  no level (no rule, no DEFAULT): {}\n", q.noLevel);
}

std::string endpointText(const EndpointName& e) {
  return fmt::format("\"{}\"[{}] ({}) LID {}", e.description, e.port, e.portGuid, e.lid);
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  return fmt::format("{}", fmt::join(parts, sep));
}

}  // namespace

std::string_view toString(PairKind kind) {
  static constexpr std::array<std::string_view, kPairKinds> kText{"CA->CA", "CA->switch",
                                                                  "switch->CA", "switch->switch"};
  return kText[static_cast<std::size_t>(kind)];
}

std::string_view toString(UnreachableReason reason) {
  static constexpr std::array<std::string_view, kUnreachableReasons> kText{
      "no LFT entry", "entry into a dead or unconnected port", "forwarding loop",
      "delivered to the wrong port"};
  return kText[static_cast<std::size_t>(reason)];
}

std::uint64_t RouteReport::routedPairs() const {
  return std::accumulate(pairs.begin(), pairs.end(), std::uint64_t{0},
                         [](std::uint64_t n, const PairCounts& p) { return n + p.routed; });
}

std::uint64_t RouteReport::unreachablePairs() const {
  return std::accumulate(pairs.begin(), pairs.end(), std::uint64_t{0},
                         [](std::uint64_t n, const PairCounts& p) { return n + p.unreachable; });
}

std::string reportJson(const RouteReport& r) {
  JsonWriter w;
  w.beginObject();
  w.key("engine").value(r.engine).key("engineNotes").value(r.engineNotes);
  w.key("fallbacks").value(r.fallbacks);
  w.key("loopbackCables").value(r.loopbacks);
  w.key("warnings").value(r.inputWarnings);
  w.key("fabric").beginObject();
  w.key("switches").value(r.switches).key("caPorts").value(r.caPorts);
  w.key("destinationLids").value(r.destinationLids).endObject();
  writePairs(w, r);
  writeHopsAndLoads(w, r);
  writeCreditLoops(w, r.creditLoops);
  if (r.multipath) analysis::writeMultipath(w, *r.multipath);
  if (!r.pairsBySl.empty()) {
    w.key("pairsBySl").beginArray();
    for (const std::uint64_t n : r.pairsBySl) w.value(n);
    w.endArray();
  }
  if (r.multicast) writeMulticast(w, *r.multicast);
  if (r.qos) writeQos(w, *r.qos);
  if (r.qosVlLayers) writeQosVlLayers(w, *r.qosVlLayers);
  if (r.previous) analysis::writePrevious(w, *r.previous, r.linkLoad);
  w.key("routeSeconds").value(r.routeSeconds).key("reportSeconds").value(r.reportSeconds);
  w.key("analysisSeconds").value(r.analysisSeconds);
  w.key("peakRssKiB").value(r.peakRssKiB);
  w.endObject();
  return w.take() + "\n";
}

std::string reportSummary(const RouteReport& r) {
  std::string out;
  auto line = [&out](std::string text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("routing engine: {}", r.engine));
  for (const auto& f : r.fallbacks) line(fmt::format("  refused first: {}", f));
  for (const auto& n : r.engineNotes) line(fmt::format("  note: {}", n));
  for (const auto& l : r.loopbacks)
    line(fmt::format("  loopback cable, carries no route, left out of routing: {}", l));
  if (!r.inputWarnings.empty())
    line(fmt::format("input: {} warning{} about the topology file (on stderr, in report.json)",
                     r.inputWarnings.size(), r.inputWarnings.size() == 1 ? "" : "s"));
  line(fmt::format("fabric: {} switches, {} CA ports, {} destination LIDs", r.switches, r.caPorts,
                   r.destinationLids));
  line(fmt::format("pairs: {} routed, {} unreachable", r.routedPairs(), r.unreachablePairs()));
  for (std::size_t k = 0; k < kPairKinds; ++k)
    line(fmt::format("  {:<15} {} routed, {} unreachable", toString(static_cast<PairKind>(k)),
                     r.pairs[k].routed, r.pairs[k].unreachable));
  for (std::size_t k = 0; k < kUnreachableReasons; ++k)
    if (r.unreachableByReason[k] > 0)
      line(fmt::format("  unreachable, {}: {} pairs", toString(static_cast<UnreachableReason>(k)),
                       r.unreachableByReason[k]));
  for (const auto& ex : r.unreachableExamples) {
    line(fmt::format("  e.g. {} -> {}: {}: {}", endpointText(ex.source),
                     endpointText(ex.destination), toString(ex.reason), ex.stoppedAt));
    line(fmt::format("       path: {}", joined(ex.path, " -> ")));
  }
  if (r.lidsWithLoops > 0)
    line(fmt::format("forwarding loops: toward {} destination LIDs", r.lidsWithLoops));

  const HopStats& h = r.hops;
  line(fmt::format(
      "switch hops (CA->CA, {} pairs): max {}, mean {:.2f}; stretch max {}, mean {:.3f}, {} pairs "
      "longer than shortest",
      h.pairs, h.max, h.mean, h.maxStretch, h.meanStretch, h.longerThanShortest));
  if (r.apartPorts > 0) {
    const HopStats& a = r.apartHops;
    line(fmt::format(
        "  not counted above: {} pairs with one of the {} CA ports the engine routed apart "
        "(aggregation nodes, hosts above the leaves): max {}, mean {:.2f}; stretch max {}, "
        "mean {:.3f}, {} longer than shortest",
        a.pairs, r.apartPorts, a.max, a.mean, a.maxStretch, a.meanStretch, a.longerThanShortest));
  }
  const LinkLoadStats& l = r.linkLoad;
  line(fmt::format(
      "routes per inter-switch link (CA->CA, {} directed links): max {}, min {}, mean {:.1f}, "
      "max/mean {:.2f}",
      l.links, l.max, l.min, l.mean, l.maxOverMean));
  for (const auto& b : l.busiest) line(fmt::format("  {:>10}  {}", b.routes, b.name));

  const CreditLoopReport& c = r.creditLoops;
  line(fmt::format("credit loops: {} ({} channels, {} dependencies, {} VLs needed, {} analysed)",
                   c.acyclic ? "none" : "CYCLE FOUND", c.channels, c.dependencies, c.vlsNeeded,
                   c.vlsAnalysed));
  if (c.perVl.size() > 1)
    for (const auto& v : c.perVl)
      line(fmt::format("  VL{}: {} ({} dependencies)", v.vl, v.acyclic ? "acyclic" : "CYCLIC",
                       v.dependencies));
  if (c.perPairSls)
    line(
        fmt::format("  SLs walked: {} (each pair on the SL the engine gave it; unnamed pairs SL 0)",
                    fmt::join(c.sls, ", ")));
  else if (c.sls.size() > 1)
    line(fmt::format("  SLs walked: {} (one of each set of SLs the SL2VL tables map alike)",
                     fmt::join(c.sls, ", ")));
  // `ibsm route`, the one caller that plans multicast, judges the trees with
  // the routes (CreditLoopsMulticast.h): the verdict above counts them.
  if (r.multicast && r.multicast->groupsWithTree > 0)
    line(fmt::format("  multicast trees judged with the routes: {} groups', each on its SL's VLs",
                     r.multicast->groupsWithTree));
  if (!c.cycle.empty()) line(fmt::format("  cycle: {}", joined(c.cycle, " => ")));
  if (!r.pairsBySl.empty()) {
    std::vector<std::string> bySl;
    for (std::size_t sl = 0; sl < r.pairsBySl.size(); ++sl)
      if (r.pairsBySl[sl] != 0) bySl.push_back(fmt::format("SL{} {}", sl, r.pairsBySl[sl]));
    line(
        fmt::format("pairs by SL (as the engine gave them): {}; VLs carrying them between "
                    "switches: {}",
                    joined(bySl, ", "), fmt::join(c.vlsCarrying, ", ")));
  }
  // The rule of routing/plan/CreditLoopJudge.h, as the live SM applies it.
  if (!c.acyclic)
    line(fmt::format(
        "  taken: no engine after {} was left to route the fabric; `ibsm run` programs these "
        "tables and reports the subnet up with routes_credit_loop: yes. For loop-free tables "
        "name an engine after it (-R {},updn)",
        r.engine, r.engine));
  if (r.multipath) analysis::summariseMultipath(*r.multipath, out);
  if (r.multicast) summariseMulticast(*r.multicast, out);
  if (r.qos) summariseQos(*r.qos, out);
  if (r.qosVlLayers) summariseQosVlLayers(*r.qosVlLayers, out);
  if (r.previous) analysis::summarisePrevious(*r.previous, r.linkLoad, out);
  if (r.routeSeconds > 0 || r.reportSeconds > 0 || r.peakRssKiB > 0)
    line(fmt::format(
        "time: routing {:.3f} s, report {:.3f} s (analysis {:.3f} s); peak memory {:.1f} MiB",
        r.routeSeconds, r.reportSeconds, r.analysisSeconds,
        static_cast<double>(r.peakRssKiB) / 1024.0));
  return out;
}

}  // namespace ibsm
