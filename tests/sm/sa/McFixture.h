// Multicast through the SA as a host sees it: MCMemberRecord Sets, Deletes
// and queries sent from one host about itself or another, answered by the
// SaFixture's responder, and the groups read back.
//
//   McFixture mc;
//   auto reply = mc.join(1, mc.create(1, kMgid));        // host 1 creates the group
//   EXPECT_EQ(reply.header.status, saStatus::kOk);
//   EXPECT_EQ(mc.sa.responder.groups().routes().size(), 1U);
#pragma once

#include <ibsm/Multicast.h>

#include "sm/sa/Components.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa::testing {

// An MGID from its text-free parts: ff<flagsScope>:<signature>, then `tail`
// in the last four bytes.
inline Gid mgidOf(std::uint8_t flagsScope, std::uint16_t signature, std::uint32_t tail,
                  std::uint16_t pkey = 0) {
  Gid g{};
  g[0] = 0xFF;
  g[1] = flagsScope;
  g[2] = static_cast<std::uint8_t>(signature >> 8);
  g[3] = static_cast<std::uint8_t>(signature);
  g[4] = static_cast<std::uint8_t>(pkey >> 8);
  g[5] = static_cast<std::uint8_t>(pkey);
  for (int i = 0; i < 4; ++i) g[12 + i] = static_cast<std::uint8_t>(tail >> (24 - 8 * i));
  return g;
}

// An rdma_cm-like group: transient, link-local, no special signature.
inline const Gid kAppGroup = mgidOf(0x12, 0x0000, 0x1);
inline const Gid kOtherGroup = mgidOf(0x12, 0x0000, 0x2);
// The IPoIB broadcast group of the default partition, link-local.
inline const Gid kBroadcast = mgidOf(0x12, 0x401B, 0xFFFFFFFF, 0xFFFF);

struct McFixture {
  McFixture() : sa(FatTreeSpec{.levels = 2, .radix = 4}) {}

  // A Set that creates `mgid` for host `host`: every component the IBA
  // requires, as IPoIB sends it.
  McMemberRecord create(std::size_t host, const Gid& mgid,
                        std::uint8_t state = joinState::kFull) const {
    McMemberRecord r;
    r.mgid = mgid;
    r.portGid = sa.gidOfHost(host);
    r.qkey = 0x0B1B;
    r.pkey = 0xFFFF;
    r.tClass = 0;
    r.sl = 0;
    r.flowLabel = 0;
    r.joinState = state;
    return r;
  }
  static constexpr std::uint64_t kCreateMask = mcmMask::kCreate;

  // A plain join or leave: MGID, PortGID, JoinState.
  McMemberRecord member(std::size_t host, const Gid& mgid, std::uint8_t state) const {
    McMemberRecord r;
    r.mgid = mgid;
    r.portGid = sa.gidOfHost(host);
    r.joinState = state;
    return r;
  }

  SaMad send(std::uint8_t method, std::size_t fromHost, const McMemberRecord& r, std::uint64_t mask,
             std::uint64_t smKey = 0) {
    sa.from.lid = sa.lidOfHost(fromHost);
    return sa.answer(
        SaFixture::request(method, saAttr::kMcMemberRecord, mask, encodeRecord(r), smKey));
  }
  // Host `fromHost` sends the Set (for itself unless the record names another port).
  SaMad join(std::size_t fromHost, const McMemberRecord& r, std::uint64_t mask = kCreateMask) {
    return send(saMethod::kSet, fromHost, r, mask);
  }
  SaMad leave(std::size_t fromHost, const McMemberRecord& r, std::uint64_t mask = mcmMask::kJoin) {
    return send(saMethod::kDelete, fromHost, r, mask);
  }
  std::vector<McMemberRecord> table(std::size_t fromHost, const McMemberRecord& q,
                                    std::uint64_t mask, bool trusted = false) {
    const auto reply = send(saMethod::kGetTable, fromHost, q, mask, trusted ? kDefaultSmKey : 0);
    if (reply.header.status != saStatus::kOk) throw std::runtime_error("GetTable refused");
    return SaFixture::records<McMemberRecord>(reply);
  }
  static McMemberRecord answered(const SaMad& reply) {
    auto r = decodeRecord<McMemberRecord>(reply.data);
    if (!r) throw std::runtime_error(r.error().message);
    return *r;
  }

  // Partition tables: host i holds `pkeys[i]` (hosts not listed: none given,
  // the default partition).
  void partitions(const std::vector<std::pair<std::size_t, std::vector<std::uint16_t>>>& tables) {
    PKeyTables t;
    for (const auto& [host, pkeys] : tables)
      t.ports.push_back({.port = sa.hostPort(host), .pkeys = pkeys});
    sortByPort(t);
    sa.plan.pkeys = t;
    sa.rebuild();
  }

  const McGroups& groups() const { return sa.responder.groups(); }
  const McGroup* group(const Gid& mgid) const { return groups().group(mgid); }

  SaFixture sa;
};

}  // namespace ibsm::sm::sa::testing
