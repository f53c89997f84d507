#include "sm/sa/Notifier.h"

#include <algorithm>

#include "sm/sa/McRules.h"
#include "sm/sa/Notices.h"

namespace ibsm::sm::sa {

Notifier::Notifier(std::shared_ptr<SaResponder> sa, std::uint64_t subnetPrefix,
                   ReportSettings reports)
    : sa_(std::move(sa)), prefix_(subnetPrefix), reports_(reports) {}

std::vector<SaNotice> Notifier::inService(const std::set<Guid>& ports, Lid smLid, Guid smGuid,
                                          Clock::time_point now) {
  std::vector<SaNotice> issued;
  const auto before = std::exchange(inService_, ports);
  if (!before) return issued;
  const Gid smGid = makeGid(prefix_, smGuid);
  std::vector<Guid> gone;
  std::ranges::set_difference(*before, ports, std::back_inserter(gone));
  for (const Guid port : gone) {
    const Gid gid = makeGid(prefix_, port);
    issued.push_back(gidNotice(noticeTrap::kGidOutOfService, gid, smLid, smGid));
    notify(issued.back(), now);
    subscribersDropped_ += sa_->dropSubscriber(gid);
  }
  std::vector<Guid> come;
  std::ranges::set_difference(ports, *before, std::back_inserter(come));
  for (const Guid port : come) {
    issued.push_back(gidNotice(noticeTrap::kGidInService, makeGid(prefix_, port), smLid, smGid));
    notify(issued.back(), now);
  }
  return issued;
}

std::vector<SaNotice> Notifier::groupsChanged(const std::vector<McGroupEvent>& events, Lid smLid,
                                              Guid smGuid, Clock::time_point now) {
  std::vector<SaNotice> issued;
  const Gid smGid = makeGid(prefix_, smGuid);
  for (const McGroupEvent& e : events) {
    const std::uint16_t trap = e.kind == McGroupEvent::Kind::Created ? noticeTrap::kMcGroupCreated
                                                                     : noticeTrap::kMcGroupDeleted;
    issued.push_back(gidNotice(trap, e.mgid, smLid, smGid));
    const SaNotice& n = issued.back();
    ++byTrap_[trap];
    for (const Subscription& s : sa_->subscriptions()) {
      if (informMatches(s.info, n) && mayHearOfGroup(s, e.pkey)) reports_.add(n, s, now);
    }
  }
  return issued;
}

void Notifier::trapReceived(const Notice& notice, Lid from, Clock::time_point now) {
  SaNotice n{.notice = notice, .issuerGid = {}};
  const auto subnet = sa_->subnet();
  const Lid issuer = notice.issuerLid.isUnicast() ? notice.issuerLid : from;
  if (!notice.issuerLid.isUnicast()) n.notice.issuerLid = from;
  if (const auto port = subnet ? subnet->portOfLid(issuer) : std::nullopt)
    n.issuerGid = makeGid(prefix_, subnet->fabric().port(*port).guid);
  notify(n, now);
}

void Notifier::notify(const SaNotice& notice, Clock::time_point now) {
  ++byTrap_[notice.notice.trapNumber];
  for (const Subscription& s : sa_->subscriptions()) {
    if (informMatches(s.info, notice) && mayHear(s, notice)) reports_.add(notice, s, now);
  }
}

void Notifier::reset() {
  inService_.reset();
  reports_.clear();
}

bool Notifier::mayHearOfGroup(const Subscription& s, std::uint16_t pkey) const {
  const auto subnet = sa_->subnet();
  if (!subnet) return true;
  const auto dest = subnet->portOfGuid(gidGuid(s.subscriber));
  if (!dest) return true;
  return holdsPKey(subnet->pkeys(*dest), pkey);
}

bool Notifier::mayHear(const Subscription& s, const SaNotice& notice) const {
  const auto subnet = sa_->subnet();
  if (!subnet) return true;
  const auto source = subnet->portOfGuid(gidGuid(sourceGid(notice)));
  const auto dest = subnet->portOfGuid(gidGuid(s.subscriber));
  if (!source || !dest) return true;  // a port that left: told to everyone who asked
  const auto theirs = subnet->pkeys(*dest);
  return std::ranges::any_of(subnet->pkeys(*source), [&](std::uint16_t mine) {
    return std::ranges::any_of(theirs, [&](std::uint16_t other) {
      // The same partition, not both as limited members (IBA 10.9.3).
      return (mine & 0x7FFF) != 0 && (mine & 0x7FFF) == (other & 0x7FFF) &&
             ((mine | other) & 0x8000) != 0;
    });
  });
}

}  // namespace ibsm::sm::sa
