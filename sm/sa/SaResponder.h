// The SA: the GmpResponder the daemon hands each SA MAD to while it is
// MASTER. It decodes the request, checks versions, method and attribute,
// picks the records the component mask selects from the current snapshot
// and returns the whole answer; it never blocks and never sends.
//
//   SaResponder sa;                                   // answers NO_RESOURCES until...
//   sa.setSubnet(SaSubnet::build(source, settings));  // ...each sweep, atomically
//   if (auto reply = sa.answer(mad, from)) transport.send(*reply, from);
//   sa.counters().byAttribute.at(saAttr::kPathRecord);
//
// ServiceRecords are the one record clients write: Set registers (the
// requester owns it), Get/GetTable find, Delete withdraws the requester's
// own; they outlive snapshots. MCMemberRecords (McGroups.h): Set joins or
// creates a multicast group, Delete leaves it, Get/GetTable list groups and
// members; the groups outlive snapshots too. Set(InformInfo) subscribes a port to notices
// (subscriptions()) and InformInfoRecords list the subscriptions.
//
// Answers follow OpenSM where the IBA leaves room: an empty GetTable is a
// GetTableResp of no records; a Get that matches several records is
// TOO_MANY_RECORDS; PKeyTableRecords go only to a requester presenting the
// SA key (else REQ_INVALID); an error answer echoes the request's data.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "sm/mad/Gmp.h"
#include "sm/sa/McGroups.h"
#include "sm/sa/SaCounters.h"
#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/SaSubnet.h"
#include "sm/sa/ServiceRegistry.h"
#include "sm/sa/Subscriptions.h"

namespace ibsm::sm::sa {

class SaResponder final : public GmpResponder {
 public:
  using Clock = ServiceRegistry::Clock;
  // `clock` times service leases (tests pass a fake one).
  explicit SaResponder(std::shared_ptr<const SaSubnet> subnet = nullptr,
                       std::function<Clock::time_point()> clock = Clock::now);

  // The snapshot later queries answer from; safe beside a running answer()
  // on another thread (that one finishes on the snapshot it started with).
  void setSubnet(std::shared_ptr<const SaSubnet> subnet);
  std::shared_ptr<const SaSubnet> subnet() const { return subnet_.load(); }

  [[nodiscard]] std::optional<std::vector<std::uint8_t>> answer(
      std::span<const std::uint8_t> request, const GmpAddress& from) override;

  // Counted by answer(), so read them on its thread.
  const SaCounters& counters() const { return counters_; }
  // ServiceRecords registered and not expired at the last query.
  std::size_t serviceRecords() const { return services_.size(); }
  // Who asked for notices (Set(InformInfo)): the daemon sends them Reports.
  const std::vector<Subscription>& subscriptions() const { return subscriptions_.all(); }
  // A port left the subnet: its subscriptions go with it.
  std::size_t dropSubscriber(const Gid& subscriber) { return subscriptions_.drop(subscriber); }

  // Multicast groups, for the daemon: groups().routes() to plan the MFTs
  // (again when groups().generation() moved), takeGroupEvents() for traps
  // 66/67 (Notifier::groupsChanged), setPrecreated() with the groups the
  // configuration creates (load, reload), dropPort() for a port a sweep no
  // longer finds. Like answer(), on one thread.
  const McGroups& groups() const { return groups_; }
  std::vector<McGroupEvent> takeGroupEvents() { return groups_.takeEvents(); }
  // Returns the groups not created for want of a free MLID.
  std::size_t setPrecreated(const std::vector<McGroupSpec>& specs);
  // The memberships of the port go as if it had left; returns how many.
  std::size_t dropPort(Guid portGuid);
  // No longer master: McGroups::forgetJoins().
  std::size_t forgetJoins();

 private:
  std::vector<std::uint8_t> refuse(const SaHeader& request,
                                   std::span<const std::uint8_t> requestData, std::uint16_t status);
  std::vector<std::uint8_t> respond(const SaSubnet& subnet, const SaMad& request,
                                    std::uint16_t recordSize, std::span<const std::uint8_t> records,
                                    std::size_t count);
  std::vector<std::uint8_t> serve(const SaSubnet& subnet, const SaMad& request,
                                  const GmpAddress& from);
  std::vector<std::uint8_t> serveTable(const SaSubnet& subnet, const SaMad& request);
  std::vector<std::uint8_t> servePaths(const SaSubnet& subnet, const SaMad& request,
                                       const GmpAddress& from);
  std::vector<std::uint8_t> serveMultiPaths(const SaSubnet& subnet, const SaMad& request,
                                            const GmpAddress& from);
  std::vector<std::uint8_t> serveServices(const SaSubnet& subnet, const SaMad& request,
                                          const GmpAddress& from);
  std::vector<std::uint8_t> serveInformInfo(const SaSubnet& subnet, const SaMad& request,
                                            const GmpAddress& from);
  std::vector<std::uint8_t> serveMcMembers(const SaSubnet& subnet, const SaMad& request,
                                           const GmpAddress& from);
  void countGroups();
  void releaseLargeBuffers();
  std::vector<std::uint8_t> registerService(const SaSubnet& subnet, const SaMad& request,
                                            Guid requester);

  std::atomic<std::shared_ptr<const SaSubnet>> subnet_;
  std::function<Clock::time_point()> clock_;
  ServiceRegistry services_;
  Subscriptions subscriptions_;
  McGroups groups_;
  SaCounters counters_;
  // Kept from query to query (issue 32: no allocation per PathRecord Get
  // but the answer): the request decoded, the paths found, their records.
  SaMad request_;
  std::vector<PathRecord> paths_;
  std::vector<std::uint8_t> records_;
};

}  // namespace ibsm::sm::sa
