// The rules a multicast membership request is checked by, pure: MGIDs the
// SA accepts (IBA 4.1.1, RFC 4391 for IPoIB), what a port can carry, the
// selectors of MTU, rate and packet life, and whether a query's components
// match a group. McGroups applies them in the order OpenSM does, so that a
// request refused for two reasons gets the same status from both SMs.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>

#include <cstdint>
#include <optional>
#include <span>

#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {

// The scope of an MGID (its second byte's low nibble).
std::uint8_t mgidScope(const Gid& mgid);
bool isZeroGid(const Gid& gid);
// Scopes an MGID of this subnet may have: link-, site-, organization-local
// and global (IBA 4.1.1); the others are reserved or not InfiniBand's.
bool isKnownScope(std::uint8_t scope);
// An MGID a client may create a group with: 0xFF first, no reserved flag,
// a known scope, the SA-assigned signature (0xA01B) link-local only with
// this subnet's prefix after it. OpenSM refuses every link-local 0xA01B
// MGID (only its SA makes them); ibsm takes back the ones its own scheme
// assigns (McGroups::assignMgid), because after a failover the hosts
// re-create the SA-assigned groups they were in with the MGIDs they were
// given, and the new master must let them (assignMgid skips MGIDs in use).
bool isValidRequestedMgid(const Gid& mgid, std::uint64_t subnetPrefix);
// An IPoIB MGID (signature 0x401B or 0x601B, RFC 4391/4392).
bool isIpoibMgid(const Gid& mgid);
// The broadcast group of the partition and scope an IPoIB MGID names.
Gid ipoibBroadcastOf(const Gid& mgid);
bool isIpoibBroadcast(const Gid& mgid);

// What a port carries: the MTU of its link (the lower of the two ends'
// caps) and its rate code.
std::uint8_t portMtu(const Fabric& fabric, PortRef port);
std::uint8_t portRate(const Fabric& fabric, PortRef port);
bool isValidMtu(std::uint8_t code);
bool isValidRate(std::uint8_t code);
// A request's MTU and rate, where it gives them with their selectors, are
// codes the IBA defines (else REQ_INVALID, whatever the method).
bool givenLinkValuesValid(const McMemberRecord& r, std::uint64_t mask);

// Whether a PKey table holds the partition of `pkey` (either membership).
bool holdsPKey(std::span<const std::uint16_t> table, std::uint16_t pkey);
// Whether two ports share a partition, not both as limited members.
bool sharePKey(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b);

// Whether the group's value `have` satisfies the query's selector and
// value (greater, less, exactly; largest accepts any); rates compare by
// bandwidth, MTUs and packet lives by code.
bool selectorAccepts(std::uint8_t selector, std::uint8_t wanted, std::uint8_t have, bool isRate);

// The MTU and rate a new group gets from what the creator asks with the
// selectors and what its port carries (OpenSM's choice: the port's own
// when the request leaves room); nullopt when no value fits.
struct McLinkChoice {
  std::uint8_t mtu{0};
  std::uint8_t rate{0};
};
std::optional<McLinkChoice> chooseLink(const McMemberRecord& r, std::uint64_t mask,
                                       std::uint8_t portMtu, std::uint8_t portRate);

// Whether the components of a query that describe the group (Q_Key, PKey,
// TClass, SL, FlowLabel, HopLimit, and MTU, rate and packet life with
// their selectors) fit `group` (o15-0.2.4: all other components match).
bool matchesGroupParams(const McGroupParams& group, const McMemberRecord& q, std::uint64_t mask);

// The record of a group as the SA answers it: its parameters with
// "exactly" selectors, the member fields left for the caller.
McMemberRecord groupRecord(const Gid& mgid, Lid mlid, const McGroupParams& params);

}  // namespace ibsm::sm::sa
