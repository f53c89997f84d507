#include "LightSweeper.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "SubnetEdit.h"

namespace ibsm::sm {

bool LightLook::onlyLinksLost() const {
  if (incomplete || plan.needsHeavy()) return false;
  return std::ranges::all_of(
      deltas, [](const fsm::PortDelta& d) { return d.change == fsm::PortChange::LinkLost; });
}

LightSweeper::LightSweeper(MadEngine& engine, std::shared_ptr<spdlog::logger> logger)
    : engine_(engine), log_(logger ? std::move(logger) : spdlog::default_logger()) {}

namespace {

DrPath pathOf(const DiscoveredSubnet& last, NodeId n) {
  return n < last.pathTo.size() ? last.pathTo[n] : DrPath{};
}

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

}  // namespace

Result<LightLook> LightSweeper::look(const DiscoveredSubnet& last) {
  const Fabric& fabric = last.fabric;
  const std::vector<NodeId> switches = fabric.switches();
  std::map<NodeId, DrPath> paths;
  for (const NodeId sw : switches) paths[sw] = pathOf(last, sw);

  std::vector<fsm::SwitchReply> replies;
  replies.reserve(switches.size());
  for (const NodeId sw : switches) {
    fsm::SwitchReply r;
    r.node = sw;
    if (auto held = last.switchInfo.find(sw); held != last.switchInfo.end())
      r.programmedFdbTop = held->second.linearFdbTop;
    replies.push_back(r);
  }
  auto hops = [&](std::size_t i) { return paths[switches[i]].ports().size(); };
  std::vector<std::size_t> pending(switches.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  std::vector<unsigned> asked(switches.size(), 0);

  LightLook out;
  std::map<NodeId, std::vector<fsm::PortReading>> readings;
  std::size_t lostKnown = 0;
  // Stage 1 goes out one hop count at a time, nearest switches first: a
  // lost cable is then found (stage 2) before the switches behind it are
  // asked, and those are asked by a route around it instead of timing out
  // on the old one. A quiet subnet still costs one SMP per switch.
  while (!pending.empty()) {
    const std::size_t level = hops(*std::ranges::min_element(
        pending, [&](std::size_t a, std::size_t b) { return hops(a) < hops(b); }));
    std::vector<std::size_t> batch;
    std::erase_if(pending, [&](std::size_t i) {
      if (hops(i) != level) return false;
      batch.push_back(i);
      return true;
    });
    for (const std::size_t i : batch) {
      ++asked[i];
      engine_.submit(SmpRequest::get(AttributeId::SwitchInfo, 0, paths[switches[i]]),
                     [&replies, i](const SmpRequest&, const SmpReply& reply) {
                       if (reply.ok()) replies[i].info = decodeSwitchInfo(reply.smp->data);
                     });
    }
    if (auto done = engine_.runUntilIdle(); !done) return std::unexpected(done.error());

    // Stage 2: clear PortStateChange first (a change after the read sets
    // it again), then read every port of the switches that flagged one.
    for (const std::size_t i : batch) {
      const NodeId sw = switches[i];
      if (!replies[i].info || !replies[i].info->portStateChange || readings.contains(sw)) continue;
      log_->debug("SM-0409 {} flags a port state change", fabric.node(sw).description);
      SwitchInfo clear = *replies[i].info;
      clear.portStateChange = true;  // write 1 to clear
      const DrPath path = paths[sw];
      const std::uint8_t ports = fabric.node(sw).numPorts();
      auto& mine = readings[sw];
      engine_.submit(SmpRequest::set(AttributeId::SwitchInfo, 0, path, encode(clear)),
                     [this, &mine, &out, path, ports](const SmpRequest&, const SmpReply& reply) {
                       if (!reply.ok()) {
                         out.incomplete = true;
                         return;
                       }
                       mine.resize(ports);
                       for (std::uint8_t p = 1; p <= ports; ++p) {
                         mine[p - 1].port = p;
                         engine_.submit(SmpRequest::get(AttributeId::PortInfo, p, path),
                                        [&mine, p](const SmpRequest&, const SmpReply& r) {
                                          if (r.ok())
                                            mine[p - 1].state =
                                                decodePortInfo(r.smp->data).portState;
                                        });
                       }
                     });
    }
    if (auto done = engine_.runUntilIdle(); !done) return std::unexpected(done.error());

    std::vector<PortRef> lost;
    for (const auto& [sw, mine] : readings)
      for (const auto& d : fsm::comparePorts(fabric, sw, mine))
        if (d.change == fsm::PortChange::LinkLost) lost.push_back(d.port);
    if (lost.size() == lostKnown) continue;
    lostKnown = lost.size();
    auto around = withoutLinks(last, lost);
    if (!around) continue;
    // New routes for the switches not asked yet, and another try for the
    // ones that stayed silent on a route through a lost cable.
    for (std::size_t i = 0; i < switches.size(); ++i) {
      const NodeId sw = switches[i];
      const bool waiting = std::ranges::find(pending, i) != pending.end();
      const bool retry = asked[i] > 0 && !replies[i].info && asked[i] < 3;
      if (!waiting && !retry) continue;
      auto now = around->fabric.findNode(fabric.node(sw).guid);
      if (!now || std::ranges::equal(around->pathTo[*now].ports(), paths[sw].ports())) continue;
      paths[sw] = around->pathTo[*now];
      if (retry) pending.push_back(i);
    }
  }
  out.plan = fsm::planLightSweep(fabric, replies);

  for (const NodeId sw : out.plan.silent)
    out.changes.push_back(fmt::format("switch silent: {}", fabric.node(sw).description));
  for (const NodeId sw : out.plan.lostTables)
    out.changes.push_back(fmt::format("switch lost its tables: {}", fabric.node(sw).description));

  std::vector<PortRef> seen;
  for (const auto& [sw, mine] : readings) {
    for (const auto& d : fsm::comparePorts(fabric, sw, mine)) {
      out.deltas.push_back(d);
      if (d.change == fsm::PortChange::Silent) out.incomplete = true;
      const auto& remote = fabric.port(d.port).remote;
      if (d.change == fsm::PortChange::LinkLost && remote) {
        if (std::ranges::find(seen, *remote) != seen.end()) continue;  // the other end told us
        seen.push_back(d.port);
        out.lostPorts.push_back(d.port);
        out.changes.push_back(
            fmt::format("cable lost: {} - {}", fabric.describe(d.port), fabric.describe(*remote)));
      } else {
        out.changes.push_back(fmt::format("{}: {}", changeName(d.change), fabric.describe(d.port)));
      }
      log_->info("SM-0410 {}", out.changes.back());
    }
  }
  return out;
}

}  // namespace ibsm::sm
