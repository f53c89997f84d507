// Notices and who gets them: the IBA's InformInfo matching (13.4.8.3 and
// 14.2.5.x, as OpenSM applies it in osm_inform.c) and the Report(Notice)
// MAD a subscriber is sent. Pure: the sender (Reports.h) keeps what is in
// flight, the notifier (Notifier.h) decides when a notice happens.
//
//   SaNotice n = gidNotice(noticeTrap::kGidOutOfService, portGid, smLid, smGid);
//   for (const Subscription& s : subscriptions.all())
//     if (informMatches(s.info, n)) send(encodeReport(n, tid), s.reportTo);
#pragma once

#include <cstdint>
#include <vector>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {

// The traps the SM itself issues (IBA 14.2.5.1, Table 119). 66/67 come with
// multicast groups; they take the same path with another number.
namespace noticeTrap {
inline constexpr std::uint16_t kGidInService = 64;
inline constexpr std::uint16_t kGidOutOfService = 65;
inline constexpr std::uint16_t kMcGroupCreated = 66;
inline constexpr std::uint16_t kMcGroupDeleted = 67;
}  // namespace noticeTrap

// Notice:Type and ProducerType of the SM's own notices, as OpenSM sends
// them: generic, type Subnet Management (3), produced by a Class Manager.
inline constexpr std::uint8_t kNoticeTypeSubnetManagement = 3;
inline constexpr std::uint32_t kProducerClassManager = 4;

// Wildcards of InformInfo (IBA 13.4.8.3).
inline constexpr std::uint16_t kAnyType = 0xFFFF;
inline constexpr std::uint16_t kAnyTrap = 0xFFFF;        // and any DeviceID
inline constexpr std::uint32_t kAnyProducer = 0xFFFFFF;  // and any VendorID

// Traps 64-67 name the GID they are about in DataDetails (bytes 6-21):
// OpenSM's and libibmad's layout.
inline constexpr std::size_t kNoticeGidDetail = 6;

// The SM's notice of trap 64..67 about `gid`, issued by the SM port
// (`smLid`, `smGid`).
SaNotice gidNotice(std::uint16_t trap, const Gid& gid, Lid smLid, const Gid& smGid);
// The GID in DataDetails of a trap 64..67 notice.
Gid noticeGid(const SaNotice& notice);
// The GID a subscriber's InformInfo:GID is compared with: for 64..67 the
// one the notice is about, else the issuer's.
Gid sourceGid(const SaNotice& notice);

// Whether `info` asks for `notice`: GID if not zero (else the issuer LID in
// LIDRangeBegin..End, unless LIDRangeBegin is 0xFFFF), IsGeneric exactly,
// Type unless 0xFFFF, then TrapNumber/DeviceID unless 0xFFFF and
// ProducerType/VendorID unless 0xFFFFFF.
bool informMatches(const InformInfo& info, const SaNotice& notice);

// Report(Notice): an SA request (method Report, attribute Notice) with TID
// `tid`, the notice as data, a whole 256-byte MAD.
std::vector<std::uint8_t> encodeReport(const SaNotice& notice, std::uint64_t tid);

}  // namespace ibsm::sm::sa
