// The other SMs: who they are, their SMInfo, polling the master, Trap 144,
// handover and acknowledge (IBA 14.4; PeerSms.h sends the MADs).
#include "sm/manager/PeerService.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace ibsm::sm::manager {

using fsm::Event;

PeerService::PeerService(Core core) : core_(std::move(core)) {}

void PeerService::learnPeers(const discovery::DiscoveredSubnet& subnet) {
  peers_.clear();
  for (auto& p : findPeerSms(subnet)) peers_.emplace(p.portGuid, p);
  if (auto it = subnet.portInfo.find(subnet.smPort);
      it != subnet.portInfo.end() && it->second.lid.isUnicast())
    ownLid_ = it->second.lid;
}

std::vector<SmInfo> PeerService::readPeers() {
  std::vector<PeerSm> list;
  for (const auto& [guid, p] : peers_) list.push_back(p);
  auto infos = readPeerSmInfos(core_.engine, list, core_.self);
  std::vector<SmInfo> sms;
  if (!infos) {
    if (!core_.stopping)
      core_.log->warn("SM-0112 could not read other SMs' SMInfo: {}", infos.error().message);
    return sms;
  }
  for (const auto& i : *infos) sms.push_back(i.info);
  lastSms_ = sms;
  const bool weAreMaster = core_.self.smState == SmState::Master;
  for (const auto& f : foreign_.update(*infos, core_.settings.smKey, weAreMaster)) {
    core_.log->warn("SM-0115 {}", describeForeignSm(f, weAreMaster));
    ++foreignReports_;
  }
  return sms;
}

void PeerService::noteMaster(Guid master, const std::vector<SmInfo>& sms) {
  if (master == lastMasterLogged_) return;
  lastMasterLogged_ = master;
  auto it = std::ranges::find_if(sms, [&](const SmInfo& s) { return s.guid == master; });
  core_.log->info("SM-0102 master is {} (priority {})", master,
                  it == sms.end() ? -1 : static_cast<int>(it->priority));
}

const PeerSm* PeerService::peer(Guid guid) const {
  auto it = peers_.find(guid);
  return it == peers_.end() ? nullptr : &it->second;
}

// The poll's answer may take most of the polling timeout: a live master
// answers from its loop, which a sweep keeps busy, and its answer queues
// behind the sweep's SMPs (issue 32: answers seen 1.1 s late at load 7);
// the rest of the interval keeps the polls on their cadence. A poll that
// took more than two polling timeouts means this process itself stood
// still (starved, stopped): the master was not given the wait, so the poll
// is repeated at once rather than counted.
void PeerService::poll(Guid master) {
  fsm::SmMachine& machine = core_.machine;
  const fsm::State before = machine.state();
  const auto interval = core_.settings.pollingTimeout;
  std::optional<SmInfo> answered;
  if (const auto* p = peer(master)) {
    const auto start = core_.engine.options().clock();
    auto answer = pollSmInfo(core_.engine, *p, core_.self, interval * 4 / 5);
    if (!answer && core_.stopping) return;
    if (!answer)
      core_.log->error("SM-0119 could not poll master {}: {}", master, answer.error().message);
    else
      answered = *answer;
    const auto took = core_.engine.options().clock() - start;
    if (!answered && took > 2 * interval) {
      core_.log->warn(
          "SM-0128 poll of master {} unanswered but took {} ms, over twice the "
          "polling timeout: this SM was late, not the master; polling again",
          master, std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
      machine.feed(Event::pollTimer());
      return;
    }
  }
  if (answered) masterAnswer_ = *answered;
  machine.feed(answered ? Event::masterAnswered(*answered) : Event::masterSilent());
  countMissed(master, before, !answered);
}

// A poll is missed when it went unanswered or the machine counted it (an
// answer not showing the master alive); the one that ends a standby's
// polling is missed too, though the machine's count starts afresh there.
void PeerService::countMissed(Guid master, const fsm::State& before, bool silent) {
  const fsm::State& st = core_.machine.state();
  const bool leftStandby = before.phase == fsm::Phase::Standby && st.phase != before.phase;
  if (!silent && st.missedPolls <= before.missedPolls && !leftStandby) return;
  ++missedPolls_;
  const auto allowed = std::max(core_.settings.pollingRetries, 1U);
  const bool takingOver = st.phase != before.phase;
  core_.log->warn("SM-0103 master {} silent ({} of {} polls){}", master,
                  takingOver ? before.missedPolls + 1 : st.missedPolls, allowed,
                  takingOver ? ": taking over" : "");
}

void PeerService::notify(Guid master) {
  const auto* p = peer(master);
  if (!p || !ownLid_.isUnicast()) {
    core_.log->warn("SM-0124 cannot tell master {} that we outrank it: {}", master,
                    p ? "our port has no LID yet" : "no path to it known");
    return;
  }
  if (auto ok = notifyMaster(core_.engine, *p, ownLid_, core_.self); !ok)
    core_.log->warn("SM-0123 Trap 144 to {} failed: {}", master, ok.error().message);
  else
    core_.log->info("SM-0106 Trap 144 sent to master {}: we outrank it", master);
}

void PeerService::handover(Guid to) {
  const auto* p = peer(to);
  core_.log->info("SM-0104 handing over to {}", to);
  ++handoversSent_;
  bool ok = false;
  if (p) {
    SmInfo self = core_.self;
    self.smState = SmState::Master;
    auto answered = sendSmControl(core_.engine, *p, fsm::sminfo::kHandover, self);
    ok = answered && *answered;
  }
  if (ok) ++handoversAccepted_;
  if (!ok) core_.log->warn("SM-0120 handover to {} not accepted; keeping the subnet", to);
  core_.machine.feed(Event::handoverAnswered(ok));
}

void PeerService::acknowledge(Guid to, SmState as) {
  const auto* p = peer(to);
  if (!p) {
    core_.log->warn("SM-0121 cannot acknowledge the handover of {}: no path to it known", to);
    return;
  }
  SmInfo self = core_.self;
  self.smState = as;
  if (auto ok = sendSmControl(core_.engine, *p, fsm::sminfo::kAcknowledge, self); !ok || !*ok)
    core_.log->warn("SM-0122 acknowledge to {} not answered", to);
}

void PeerService::notePorts(const discovery::DiscoveredSubnet& subnet) {
  portsSeen_.portsLinked = 0;
  portsSeen_.portsActive = 0;
  for (const auto& [port, info] : subnet.portInfo) {
    if (port.port == 0 || info.portState == PortState::Down ||
        info.portState == PortState::NoChange)
      continue;
    ++portsSeen_.portsLinked;
    portsSeen_.portsActive += info.portState == PortState::Active;
  }
  portsSeen_.seenAt = core_.wall();
}

std::optional<control::MasterView> PeerService::masterView() const {
  const Guid master = core_.machine.state().master;
  if (core_.self.smState == SmState::Master || master == Guid{}) return std::nullopt;
  control::MasterView v = portsSeen_;
  v.guid = master;
  if (const PeerSm* p = peer(master)) v.lid = p->lid;
  std::optional<SmInfo> info =
      masterAnswer_ && masterAnswer_->guid == master ? masterAnswer_ : std::optional<SmInfo>{};
  if (!info) {
    auto it = std::ranges::find_if(lastSms_, [&](const SmInfo& s) { return s.guid == master; });
    if (it != lastSms_.end()) info = *it;
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

void PeerService::describe(control::DaemonStatus& s) const {
  s.lid = ownLid_;
  s.masterView = masterView();
  s.peers.missedPolls = missedPolls_;
  s.peers.handoversSent = handoversSent_;
  s.peers.handoversAccepted = handoversAccepted_;
  for (const SmInfo& m : lastSms_)
    s.peers.sms.push_back(
        {.guid = m.guid, .priority = m.priority, .state = std::string(fsm::name(m.smState))});
  s.peers.foreignSms = foreign_.current();
  s.peers.foreignReports = foreignReports_;
}

}  // namespace ibsm::sm::manager
