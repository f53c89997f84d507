// The SA's per-port caps (sa.max_joins_per_port, sa.max_services_per_port):
// one port cannot take every MLID or fill the SA with records. Past its cap
// a port's new membership or ServiceRecord is refused with ERR_NO_RESOURCES
// (IBA 15.2.1.1, Table "SA MAD status": 1, "insufficient resources to
// complete the request"), counted, and nothing changes; other ports keep
// their own allowance, and a leave or a Delete frees a place.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::McFixture;
using testing::mgidOf;
using testing::SaFixture;

Gid group(std::uint32_t n) {
  return mgidOf(0x12, 0x0000, 0x100 + n);
}

class PerPortCapsTest : public ::testing::Test {
 protected:
  PerPortCapsTest() {
    mc.sa.settings.maxJoinsPerPort = 3;
    mc.sa.settings.maxServicesPerPort = 2;
    mc.sa.rebuild();
  }

  std::uint16_t join(std::size_t host, std::uint32_t n) {
    return mc.join(host, mc.create(host, group(n))).header.status;
  }
  std::uint16_t service(std::uint8_t method, std::size_t host, std::uint64_t id) {
    ServiceRecord r;
    r.serviceId = id;
    r.serviceGid = mc.sa.gidOfHost(host);
    r.serviceLease = 60;
    constexpr std::uint64_t kIdAndGid = 0x3;
    mc.sa.from.lid = mc.sa.lidOfHost(host);
    return mc.sa.ask(method, r, kIdAndGid).header.status;
  }

  McFixture mc;
};

TEST_F(PerPortCapsTest, TheJoinPastAPortsCapIsNoResourcesAndChangesNothing) {
  for (std::uint32_t n = 0; n < 3; ++n) ASSERT_EQ(join(1, n), saStatus::kOk);
  const auto before = mc.groups().generation();
  EXPECT_EQ(join(1, 3), saStatus::kNoResources);
  EXPECT_EQ(mc.group(group(3)), nullptr) << "the group was not created";
  EXPECT_EQ(mc.groups().generation(), before);
  EXPECT_EQ(mc.sa.responder.counters().joinsOverCap, 1U);
  EXPECT_EQ(mc.sa.responder.counters().mcRefusedByStatus.at(saStatus::kNoResources), 1U);
}

TEST_F(PerPortCapsTest, AnotherPortIsUnaffectedByOnePortAtItsCap) {
  for (std::uint32_t n = 0; n < 3; ++n) ASSERT_EQ(join(1, n), saStatus::kOk);
  ASSERT_EQ(join(1, 3), saStatus::kNoResources);
  EXPECT_EQ(join(2, 0), saStatus::kOk);
  EXPECT_EQ(join(2, 1), saStatus::kOk);
  EXPECT_EQ(join(2, 3), saStatus::kOk)
      << "host 2's third membership, in a group host 1 could not join";
  EXPECT_EQ(join(2, 4), saStatus::kNoResources) << "its fourth";
}

TEST_F(PerPortCapsTest, JoiningAGroupThePortIsInAgainIsNotANewMembership) {
  for (std::uint32_t n = 0; n < 3; ++n) ASSERT_EQ(join(1, n), saStatus::kOk);
  const auto again = mc.join(1, mc.member(1, group(0), joinState::kNonMember), mcmMask::kJoin);
  EXPECT_EQ(again.header.status, saStatus::kOk);
}

TEST_F(PerPortCapsTest, ALeaveFreesAPlace) {
  for (std::uint32_t n = 0; n < 3; ++n) ASSERT_EQ(join(1, n), saStatus::kOk);
  ASSERT_EQ(join(1, 3), saStatus::kNoResources);
  ASSERT_EQ(mc.leave(1, mc.member(1, group(0), joinState::kFull)).header.status, saStatus::kOk);
  EXPECT_EQ(join(1, 3), saStatus::kOk);
}

TEST_F(PerPortCapsTest, TheServiceRecordPastAPortsCapIsNoResourcesAndCounted) {
  ASSERT_EQ(service(saMethod::kSet, 1, 0x41), saStatus::kOk);
  ASSERT_EQ(service(saMethod::kSet, 1, 0x42), saStatus::kOk);
  EXPECT_EQ(service(saMethod::kSet, 1, 0x43), saStatus::kNoResources);
  EXPECT_EQ(mc.sa.responder.serviceRecords(), 2U);
  EXPECT_EQ(mc.sa.responder.counters().servicesOverCap, 1U);
  EXPECT_EQ(service(saMethod::kSet, 1, 0x42), saStatus::kOk) << "a renewal is never refused";
  EXPECT_EQ(service(saMethod::kSet, 2, 0x43), saStatus::kOk) << "another port: its own cap";
  ASSERT_EQ(service(saMethod::kDelete, 1, 0x41), saStatus::kOk);
  EXPECT_EQ(service(saMethod::kSet, 1, 0x44), saStatus::kOk) << "a Delete freed a place";
}

}  // namespace
}  // namespace ibsm::sm::sa
