// Who hears what happens on the subnet: the SA's notice path. Notices come
// from two places -- the SM's own traps 64/65 (an end port came into or
// went out of service between two sweeps that programmed; 66/67 when a
// multicast group is created or deleted) and the traps the SM receives
// (128, 144, ...), forwarded as OpenSM does -- and go, as Report(Notice),
// to every subscription (Set(InformInfo), kept by the SaResponder) that
// asks for them. Pure: no I/O, no clock of its own; the daemon feeds it,
// sends what due() returns and wakes it at nextDeadline() (DaemonSa.cpp).
//
//   Notifier notices(sa, prefix);
//   notices.inService(portsAfterSweep, smLid, smGuid, now);  // 64/65 from the 2nd on
//   notices.trapReceived(notice, lid, now);                  // forwarded
//   notices.groupsChanged(sa->takeGroupEvents(), smLid, smGuid, now);  // 66/67
//   for (auto& out : notices.due(now)) port.sendGmp(out.mad, out.to);
//   notices.acknowledge(reportResp.mad);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/MadAttributes.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "sm/sa/Reports.h"
#include "sm/sa/SaResponder.h"

namespace ibsm::sm::sa {

class Notifier {
 public:
  using Clock = Reports::Clock;
  Notifier(std::shared_ptr<SaResponder> sa, std::uint64_t subnetPrefix,
           ReportSettings reports = {});

  // The end ports in service after a sweep that programmed, as master (CA
  // and router ports ACTIVE with a LID, switch ports 0 with a LID): each
  // port that was not in service at the previous call is a trap 64, each
  // that no longer is a trap 65 -- issued by the SM port (`smLid`,
  // `smGuid`). The first call after construction or reset() only records:
  // no subscriber can have asked a previous SA of ours. The subscriptions
  // of a port that went out of service are dropped after its trap 65.
  // Returns the notices issued (for the log).
  std::vector<SaNotice> inService(const std::set<Guid>& ports, Lid smLid, Guid smGuid,
                                  Clock::time_point now);
  // Multicast groups created (trap 66) and deleted (trap 67), as
  // SaResponder::takeGroupEvents() lists them, issued by the SM port. The
  // notice names the MGID as its GIDADDR (IBA 14.2.5.1). A subscriber hears
  // of a group only if its port belongs to the group's partition. Returns
  // the notices issued.
  std::vector<SaNotice> groupsChanged(const std::vector<McGroupEvent>& events, Lid smLid,
                                      Guid smGuid, Clock::time_point now);
  // A trap this SM received (SMP Notice) from the port of LID `from`:
  // forwarded with the IssuerGID of the issuer's port, when the SA's
  // snapshot knows it.
  void trapReceived(const Notice& notice, Lid from, Clock::time_point now);
  // Any notice: a Report to each matching subscription.
  void notify(const SaNotice& notice, Clock::time_point now);
  // No longer master: nothing in flight, nothing known of what is in
  // service (the subscriptions stay with the SaResponder).
  void reset();

  // A response GMP from the port: true when it acknowledged a Report.
  bool acknowledge(std::span<const std::uint8_t> mad) { return reports_.acknowledge(mad); }
  // Reports to send now (first sends and retries); see Reports.
  std::vector<OutgoingGmp> due(Clock::time_point now) { return reports_.due(now); }
  std::optional<Clock::time_point> nextDeadline() const { return reports_.nextDeadline(); }

  const ReportCounters& reportCounters() const { return reports_.counters(); }
  // Notices by trap number (DeviceID for vendor notices): generated and
  // forwarded, whether or not anyone subscribed.
  const std::map<std::uint16_t, std::uint64_t>& noticesByTrap() const { return byTrap_; }
  std::uint64_t subscribersDropped() const { return subscribersDropped_; }

 private:
  // o13-17.1.1: a subscriber hears of a port only if they share a
  // partition (when the snapshot knows both).
  bool mayHear(const Subscription& s, const SaNotice& notice) const;
  // o13-17.1.1 for a group: the subscriber's port is in its partition.
  bool mayHearOfGroup(const Subscription& s, std::uint16_t pkey) const;

  std::shared_ptr<SaResponder> sa_;
  std::uint64_t prefix_;
  Reports reports_;
  std::optional<std::set<Guid>> inService_;
  std::map<std::uint16_t, std::uint64_t> byTrap_;
  std::uint64_t subscribersDropped_{0};
};

}  // namespace ibsm::sm::sa
