// SmDaemon's MADs to other SMs: who they are, their SMInfo, polling the
// master, Trap 144, handover and acknowledge (IBA 14.4; PeerSms.h sends them).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

using fsm::Event;

void SmDaemon::Impl::learnPeers(const discovery::DiscoveredSubnet& subnet) {
  peers.clear();
  for (auto& p : findPeerSms(subnet)) peers.emplace(p.portGuid, p);
  if (auto it = subnet.portInfo.find(subnet.smPort);
      it != subnet.portInfo.end() && it->second.lid.isUnicast())
    ownLid = it->second.lid;
}

std::vector<SmInfo> SmDaemon::Impl::readPeers() {
  std::vector<PeerSm> list;
  for (const auto& [guid, p] : peers) list.push_back(p);
  auto infos = readPeerSmInfos(engine, list, agent.self());
  std::vector<SmInfo> sms;
  if (!infos) {
    if (!stopping) log->warn("SM-0112 could not read other SMs' SMInfo: {}", infos.error().message);
    return sms;
  }
  for (const auto& i : *infos) sms.push_back(i.info);
  lastSms = sms;
  const bool weAreMaster = agent.self().smState == SmState::Master;
  for (const auto& f : foreign.update(*infos, settings.smKey, weAreMaster)) {
    log->warn("SM-0115 {}", describeForeignSm(f, weAreMaster));
    ++foreignReports;
  }
  return sms;
}

const PeerSm* SmDaemon::Impl::peer(Guid guid) const {
  auto it = peers.find(guid);
  return it == peers.end() ? nullptr : &it->second;
}

void SmDaemon::Impl::poll(Guid master) {
  const auto* p = peer(master);
  if (!p) {
    machine.feed(Event::masterSilent());
    return;
  }
  auto answer = pollSmInfo(engine, *p, agent.self());
  if (!answer) {
    if (stopping) return;
    log->error("SM-0119 could not poll master {}: {}", master, answer.error().message);
    machine.feed(Event::masterSilent());
    return;
  }
  const auto missedBefore = machine.state().missedPolls;
  if (*answer) masterAnswer = **answer;
  if (*answer)
    machine.feed(Event::masterAnswered(**answer));
  else
    machine.feed(Event::masterSilent());
  const auto& st = machine.state();
  if (st.missedPolls > missedBefore) ++missedPolls;
  if (st.missedPolls > missedBefore)
    log->warn("SM-0103 master {} silent ({} of {} polls)", master, st.missedPolls,
              std::max(settings.pollingRetries, 1U));
}

void SmDaemon::Impl::notify(Guid master) {
  const auto* p = peer(master);
  if (!p || !ownLid.isUnicast()) {
    log->warn("SM-0124 cannot tell master {} that we outrank it: {}", master,
              p ? "our port has no LID yet" : "no path to it known");
    return;
  }
  if (auto ok = notifyMaster(engine, *p, ownLid, agent.self()); !ok)
    log->warn("SM-0123 Trap 144 to {} failed: {}", master, ok.error().message);
  else
    log->info("SM-0106 Trap 144 sent to master {}: we outrank it", master);
}

void SmDaemon::Impl::handover(Guid to) {
  const auto* p = peer(to);
  log->info("SM-0104 handing over to {}", to);
  ++handoversSent;
  bool ok = false;
  if (p) {
    SmInfo self = agent.self();
    self.smState = SmState::Master;
    auto answered = sendSmControl(engine, *p, fsm::sminfo::kHandover, self);
    ok = answered && *answered;
  }
  if (ok) ++handoversAccepted;
  if (!ok) log->warn("SM-0120 handover to {} not accepted; keeping the subnet", to);
  machine.feed(Event::handoverAnswered(ok));
}

void SmDaemon::Impl::acknowledge(Guid to, SmState as) {
  const auto* p = peer(to);
  if (!p) {
    log->warn("SM-0121 cannot acknowledge the handover of {}: no path to it known", to);
    return;
  }
  SmInfo self = agent.self();
  self.smState = as;
  if (auto ok = sendSmControl(engine, *p, fsm::sminfo::kAcknowledge, self); !ok || !*ok)
    log->warn("SM-0122 acknowledge to {} not answered", to);
}

void SmDaemon::Impl::notePorts(const discovery::DiscoveredSubnet& subnet) {
  portsSeen.portsLinked = 0;
  portsSeen.portsActive = 0;
  for (const auto& [port, info] : subnet.portInfo) {
    if (port.port == 0 || info.portState == PortState::Down ||
        info.portState == PortState::NoChange)
      continue;
    ++portsSeen.portsLinked;
    portsSeen.portsActive += info.portState == PortState::Active;
  }
  portsSeen.seenAt = wall();
}

std::optional<control::MasterView> SmDaemon::Impl::masterView() const {
  const Guid master = machine.state().master;
  if (agent.self().smState == SmState::Master || master == Guid{}) return std::nullopt;
  control::MasterView v = portsSeen;
  v.guid = master;
  if (const PeerSm* p = peer(master)) v.lid = p->lid;
  std::optional<SmInfo> info =
      masterAnswer && masterAnswer->guid == master ? masterAnswer : std::optional<SmInfo>{};
  if (!info) {
    auto it = std::ranges::find_if(lastSms, [&](const SmInfo& s) { return s.guid == master; });
    if (it != lastSms.end()) info = *it;
  }
  if (info) {
    v.priority = info->priority;
    v.state = std::string(fsm::name(info->smState));
  } else {
    v.state = "unknown";
  }
  v.fabricUp = v.portsLinked > 0 && v.portsActive == v.portsLinked;
  return v;
}

}  // namespace ibsm::sm::manager
