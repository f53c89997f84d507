// The other SMs of the subnet, as this SM deals with them (IBA 14.4): who
// they are and how to reach them (learnPeers after each discovery and each
// sweep), their SMInfo (readPeers), foreign SMs (another SM_Key, reported
// once), polling the master as a standby, Trap 144, handover and
// acknowledge. The state machine decides when: the core performs its
// PollMaster, NotifyMaster, SendHandover and SendAcknowledge actions by
// calling poll, notify, handover and acknowledge here.
//
// The MADs themselves are PeerSms.h's free functions and the foreign-SM
// bookkeeping is ForeignSms.h's: pure parts, tested on their own; this
// service holds what they read between calls.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sm/control/StatusFormat.h"
#include "sm/fsm/SmMachine.h"
#include "sm/manager/ForeignSms.h"
#include "sm/manager/PeerSms.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

class PeerService final : public Service {
 public:
  // What the service needs of the core, by reference: it outlives none of it.
  struct Core {
    MadEngine& engine;
    fsm::SmMachine& machine;         // fed the answers of polls and handovers
    const SmInfo& self;              // what this SM shows (SmInfoAgent::self())
    const DaemonSettings& settings;  // smKey, pollingTimeout, pollingRetries (reloads change them)
    const bool& stopping;            // SIGTERM seen: failures are not reported
    std::function<std::chrono::system_clock::time_point()> wall;
    std::shared_ptr<spdlog::logger> log;
  };
  explicit PeerService(Core core);

  std::string_view name() const override { return "peers"; }
  // sms, foreignSms, foreignReports, handovers, missedPolls, masterView and
  // our port's LID.
  void describe(control::DaemonStatus& status) const override;

  // After a discovery or a sweep: the SM ports it saw and our port's LID.
  void learnPeers(const discovery::DiscoveredSubnet& subnet);
  // After a discovery: the ports linked and Active, for masterView.
  void notePorts(const discovery::DiscoveredSubnet& subnet);
  // Their SMInfo now (empty when the transport failed, SM-0112); foreign
  // SMs found are reported (SM-0115).
  std::vector<SmInfo> readPeers();
  // After a discovery that left us STANDBY: SM-0102 once per master.
  void noteMaster(Guid master, const std::vector<SmInfo>& sms);

  // The machine's actions.
  void poll(Guid master);
  void notify(Guid master);
  void handover(Guid to);
  void acknowledge(Guid to, SmState as);

  Lid ownLid() const { return ownLid_; }
  // Their SMInfo as last read.
  const std::vector<SmInfo>& lastSms() const { return lastSms_; }
  // Not master, with a master known: what this SM sees of its subnet.
  std::optional<control::MasterView> masterView() const;

 private:
  const PeerSm* peer(Guid guid) const;
  void countMissed(Guid master, const fsm::State& before, bool silent);

  Core core_;
  // How to reach every SM port the last discovery saw, by port GUID.
  std::unordered_map<Guid, PeerSm> peers_;
  std::vector<SmInfo> lastSms_;
  ForeignSms foreign_;
  Lid ownLid_{};
  Guid lastMasterLogged_{};
  std::optional<SmInfo> masterAnswer_;  // the master's SMInfo, as its last poll answered
  control::MasterView portsSeen_;       // portsLinked, portsActive, seenAt of the last discovery
  std::uint64_t missedPolls_{0};
  std::uint64_t foreignReports_{0};
  std::uint64_t handoversSent_{0};
  std::uint64_t handoversAccepted_{0};
};

}  // namespace ibsm::sm::manager
