#include "sm/manager/LightSweeper.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "sm/manager/SubnetEdit.h"

namespace ibsm::sm::manager {

bool LightLook::onlyLinksLost() const {
  if (incomplete || plan.needsHeavy()) return false;
  return std::ranges::all_of(
      deltas, [](const fsm::PortDelta& d) { return d.change == fsm::PortChange::LinkLost; });
}

LightSweeper::LightSweeper(MadEngine& engine, std::shared_ptr<spdlog::logger> logger)
    : engine_(engine), log_(logger ? std::move(logger) : spdlog::default_logger()) {}

namespace {

const char* changeName(fsm::PortChange c) {
  switch (c) {
    case fsm::PortChange::LinkLost:
      return "cable lost";
    case fsm::PortChange::LinkNew:
      return "new link";
    case fsm::PortChange::LinkUp:
      return "link up without the SM";
    case fsm::PortChange::Silent:
      return "port silent";
  }
  return "port change";
}

// One light sweep's asking, stage 1 and 2. It lives in LightSweeper::look()'s
// frame; the engine runs every callback before runUntilIdle() returns, so
// the callbacks may point into it.
class Look {
 public:
  Look(MadEngine& engine, spdlog::logger& log, const discovery::DiscoveredSubnet& last,
       std::span<const NodeId> first)
      : engine_(engine), log_(log), last_(last), switches_(last.fabric.switches()) {
    for (const NodeId sw : switches_) {
      paths_[sw] = sw < last.pathTo.size() ? last.pathTo[sw] : DrPath{};
      fsm::SwitchReply r;
      r.node = sw;
      if (auto held = last.switchInfo.find(sw); held != last.switchInfo.end())
        r.programmedFdbTop = held->second.linearFdbTop;
      replies_.push_back(r);
    }
    for (std::size_t i = 0; i < switches_.size(); ++i) pending_.push_back(i);
    asked_.assign(switches_.size(), 0);
    for (const NodeId sw : first) addWithRoute(sw);
  }

  // Stage 1 goes out one hop count at a time, nearest switches first: a
  // lost cable is then found (stage 2) before the switches behind it are
  // asked, and those are asked by a route around it instead of timing out
  // on the old one. A quiet subnet still costs one SMP per switch.
  Result<void> run() {
    if (auto early = askFirst(); !early || partial_) return early;
    while (!pending_.empty()) {
      const auto batch = takeNearest(pending_);
      for (const std::size_t i : batch) askSwitchInfo(i);
      if (auto done = engine_.runUntilIdle(); !done) return done;
      for (const std::size_t i : batch) readFlaggedPorts(i);
      if (auto done = engine_.runUntilIdle(); !done) return done;
      routeAroundLostCables();
    }
    return {};
  }

  LightLook result();

 private:
  // The trapping switches, one hop count at a time, nearest first: the look
  // ends (partial_) at the first of them that shows cables lost and nothing
  // else. One that did not answer is asked again with the others.
  Result<void> askFirst() {
    while (!first_.empty()) {
      const std::vector<std::size_t> batch = takeNearest(first_);
      for (const std::size_t i : batch) std::erase(pending_, i);
      for (const std::size_t i : batch) askSwitchInfo(i);
      if (auto done = engine_.runUntilIdle(); !done) return done;
      for (const std::size_t i : batch) readFlaggedPorts(i);
      if (auto done = engine_.runUntilIdle(); !done) return done;
      askedFirst_ += batch.size();
      if (onlyCablesLost(batch)) {
        partial_ = true;
        return {};
      }
      for (const std::size_t i : batch)
        if (!replies_[i].info) pending_.push_back(i);
    }
    return {};
  }

  // A trapping switch and the switches its directed route crosses: asked
  // nearest first, the near end of a lost cable on that route shows the
  // loss before the trapper is asked over it (and times out).
  void addWithRoute(NodeId trapper) {
    const auto add = [&](NodeId sw) {
      const auto at = std::ranges::find(switches_, sw);
      if (at == switches_.end()) return;
      const auto i = static_cast<std::size_t>(at - switches_.begin());
      if (std::ranges::find(first_, i) == first_.end()) first_.push_back(i);
    };
    const auto path = paths_.find(trapper);
    if (path == paths_.end()) return;
    NodeId at = last_.smPort.node;
    for (const std::uint8_t exit : path->second.ports()) {
      const Node& node = last_.fabric.node(at);
      if (exit > node.numPorts() || !node.ports[exit].remote) return;
      at = node.ports[exit].remote->node;
      if (last_.fabric.node(at).isSwitch()) add(at);
    }
  }

  // Every switch of `batch` answered, kept its tables, and what its ports
  // show changed is cables lost, at least one.
  bool onlyCablesLost(const std::vector<std::size_t>& batch) const {
    if (incomplete_) return false;
    bool lost = false;
    for (const std::size_t i : batch) {
      const auto& r = replies_[i];
      if (!r.info) return false;
      if (r.programmedFdbTop && r.info->linearFdbTop != *r.programmedFdbTop) return false;
      const auto it = readings_.find(switches_[i]);
      if (it == readings_.end()) continue;
      for (const auto& d : fsm::comparePorts(last_.fabric, switches_[i], it->second)) {
        if (d.change != fsm::PortChange::LinkLost) return false;
        lost = true;
      }
    }
    return lost;
  }

  // A partial look's plan judges only the switches it asked.
  fsm::LightSweepPlan partialPlan() const {
    fsm::LightSweepPlan plan;
    for (std::size_t i = 0; i < switches_.size(); ++i) {
      if (asked_[i] == 0) continue;
      ++plan.switches;
      if (replies_[i].info && replies_[i].info->portStateChange)
        plan.reread.push_back(switches_[i]);
    }
    return plan;
  }

  std::size_t hops(std::size_t i) const { return paths_.at(switches_[i]).ports().size(); }

  // The switches of `from` fewest hops away, taken out of it.
  std::vector<std::size_t> takeNearest(std::vector<std::size_t>& from) const {
    const std::size_t level = hops(*std::ranges::min_element(
        from, [&](std::size_t a, std::size_t b) { return hops(a) < hops(b); }));
    std::vector<std::size_t> batch;
    std::erase_if(from, [&](std::size_t i) {
      if (hops(i) != level) return false;
      batch.push_back(i);
      return true;
    });
    return batch;
  }

  void askSwitchInfo(std::size_t i) {
    ++asked_[i];
    engine_.submit(SmpRequest::get(AttributeId::SwitchInfo, 0, paths_[switches_[i]]),
                   [this, i](const SmpRequest&, const SmpReply& reply) {
                     if (reply.ok()) replies_[i].info = decodeSwitchInfo(reply.smp->data);
                   });
  }

  // Stage 2: clear PortStateChange first (a change after the read sets it
  // again), then read every port of a switch that flagged one.
  void readFlaggedPorts(std::size_t i) {
    const NodeId sw = switches_[i];
    const auto& info = replies_[i].info;
    if (!info || !info->portStateChange || readings_.contains(sw)) return;
    log_.debug("SM-0409 {} flags a port state change", last_.fabric.node(sw).description);
    SwitchInfo clear = *info;
    clear.portStateChange = true;  // write 1 to clear
    readings_[sw];
    engine_.submit(SmpRequest::set(AttributeId::SwitchInfo, 0, paths_[sw], encode(clear)),
                   [this, sw](const SmpRequest&, const SmpReply& reply) {
                     if (!reply.ok()) {
                       incomplete_ = true;
                       return;
                     }
                     readPorts(sw);
                   });
  }

  void readPorts(NodeId sw) {
    const std::uint8_t ports = last_.fabric.node(sw).numPorts();
    auto& mine = readings_[sw];
    mine.resize(ports);
    for (std::uint8_t p = 1; p <= ports; ++p) {
      mine[p - 1].port = p;
      engine_.submit(SmpRequest::get(AttributeId::PortInfo, p, paths_[sw]),
                     [this, sw, p](const SmpRequest&, const SmpReply& r) {
                       if (r.ok())
                         readings_[sw][p - 1].state = decodePortInfo(r.smp->data).portState;
                     });
    }
  }

  // New routes for the switches not asked yet, and another try for those
  // that stayed silent on a route through a lost cable.
  void routeAroundLostCables() {
    std::vector<PortRef> lost;
    for (const auto& [sw, mine] : readings_)
      for (const auto& d : fsm::comparePorts(last_.fabric, sw, mine))
        if (d.change == fsm::PortChange::LinkLost) lost.push_back(d.port);
    if (lost.size() == lostKnown_) return;
    lostKnown_ = lost.size();
    auto around = withoutLinks(last_, lost);
    if (!around) return;
    for (std::size_t i = 0; i < switches_.size(); ++i) {
      const NodeId sw = switches_[i];
      const bool waiting = std::ranges::find(pending_, i) != pending_.end();
      const bool retry = asked_[i] > 0 && !replies_[i].info && asked_[i] < 3;
      if (!waiting && !retry) continue;
      auto now = around->fabric.findNode(last_.fabric.node(sw).guid);
      if (!now || std::ranges::equal(around->pathTo[*now].ports(), paths_[sw].ports())) continue;
      paths_[sw] = around->pathTo[*now];
      if (retry) pending_.push_back(i);
    }
  }

  MadEngine& engine_;
  spdlog::logger& log_;
  const discovery::DiscoveredSubnet& last_;
  const std::vector<NodeId> switches_;
  std::map<NodeId, DrPath> paths_;
  std::vector<fsm::SwitchReply> replies_;
  std::vector<std::size_t> pending_;
  std::vector<unsigned> asked_;
  std::map<NodeId, std::vector<fsm::PortReading>> readings_;
  std::size_t lostKnown_{0};
  bool incomplete_{false};
  std::vector<std::size_t> first_;  // trapping switches not asked yet
  std::size_t askedFirst_{0};
  bool partial_{false};
};

LightLook Look::result() {
  LightLook out;
  out.incomplete = incomplete_;
  out.partial = partial_;
  out.askedFirst = askedFirst_;
  out.plan = partial_ ? partialPlan() : fsm::planLightSweep(last_.fabric, replies_);
  const Fabric& fabric = last_.fabric;
  for (const NodeId sw : out.plan.silent)
    out.changes.push_back(fmt::format("switch silent: {}", fabric.node(sw).description));
  for (const NodeId sw : out.plan.lostTables)
    out.changes.push_back(fmt::format("switch lost its tables: {}", fabric.node(sw).description));
  std::vector<PortRef> told;
  for (const auto& [sw, mine] : readings_) {
    for (const auto& d : fsm::comparePorts(fabric, sw, mine)) {
      out.deltas.push_back(d);
      if (d.change == fsm::PortChange::Silent) out.incomplete = true;
      const auto& remote = fabric.port(d.port).remote;
      if (d.change == fsm::PortChange::LinkLost && remote) {
        if (std::ranges::find(told, *remote) != told.end()) continue;  // the other end told us
        told.push_back(d.port);
        out.lostPorts.push_back(d.port);
        out.changes.push_back(
            fmt::format("cable lost: {} - {}", fabric.describe(d.port), fabric.describe(*remote)));
      } else {
        out.changes.push_back(fmt::format("{}: {}", changeName(d.change), fabric.describe(d.port)));
      }
      log_.info("SM-0410 {}", out.changes.back());
    }
  }
  return out;
}

}  // namespace

Result<LightLook> LightSweeper::look(const discovery::DiscoveredSubnet& last,
                                     std::span<const NodeId> first) {
  Look asking(engine_, *log_, last, first);
  if (auto ran = asking.run(); !ran) return std::unexpected(ran.error());
  return asking.result();
}

}  // namespace ibsm::sm::manager
