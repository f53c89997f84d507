// VLArbitrationTableRecords: what the ports' VLArbitration tables hold, as
// the SM read them (sm/program VlArbKind), one record per (port, block); a
// switch's carry its LID and the output port, a CA port's its own LID and
// port number. Matched by LID, OutputPortNum and BlockNum (IBA 15.2.5.9).
#include <gtest/gtest.h>

#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kLid = 1U << 0;
constexpr std::uint64_t kPort = 1U << 1;
constexpr std::uint64_t kBlock = 1U << 2;

VlArbitrationBlock blockNamed(std::uint8_t tag) {
  VlArbitrationBlock b;
  b.entries[0] = {.vl = 2, .weight = tag};
  b.entries[31] = {.vl = 15, .weight = 0xFF};
  return b;
}

class VlArbitrationRecordTest : public ::testing::Test {
 protected:
  VlArbitrationRecordTest() {
    for (NodeId n = 0; n < sa.plan.fabric.size(); ++n) {
      if (sa.plan.fabric.node(n).isSwitch()) {
        sw = n;
        break;
      }
    }
    // The switch's output ports 1 and 2 hold the low table (blocks 1, 2);
    // host 0's port its low and high tables.
    for (std::uint8_t p : {1, 2})
      for (std::uint8_t b : {1, 2})
        sa.vlArb.push_back({.port = {sw, p}, .block = b, .table = blockNamed(10 * p + b)});
    for (std::uint8_t b = 1; b <= 4; ++b)
      sa.vlArb.push_back({.port = sa.hostPort(0), .block = b, .table = blockNamed(100 + b)});
    sa.rebuild();
  }
  Lid swLid() const { return sa.plan.fabric.node(sw).ports[0].lid; }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
  NodeId sw{0};
};

TEST_F(VlArbitrationRecordTest, AGetOfOnePortAndBlockAnswersWhatThePortHolds) {
  const auto reply =
      sa.ask(saMethod::kGet, VlArbitrationTableRecord{.lid = swLid(), .outputPort = 2, .block = 1},
             kLid | kPort | kBlock);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto records = SaFixture::records<VlArbitrationTableRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0], (VlArbitrationTableRecord{
                            .lid = swLid(), .outputPort = 2, .block = 1, .table = blockNamed(21)}));
}

TEST_F(VlArbitrationRecordTest, ACaPortsRecordCarriesItsOwnLidAndPortNumber) {
  const auto reply = sa.ask(
      saMethod::kGet, VlArbitrationTableRecord{.lid = sa.lidOfHost(0), .outputPort = 1, .block = 4},
      kLid | kPort | kBlock);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto records = SaFixture::records<VlArbitrationTableRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].table, blockNamed(104));
}

TEST_F(VlArbitrationRecordTest, TheComponentMaskSelectsByLidPortAndBlock) {
  auto count = [&](VlArbitrationTableRecord q, std::uint64_t mask) {
    const auto reply = sa.ask(saMethod::kGetTable, q, mask);
    EXPECT_EQ(reply.header.status, saStatus::kOk);
    return SaFixture::records<VlArbitrationTableRecord>(reply).size();
  };
  EXPECT_EQ(count({}, 0), 8U);
  EXPECT_EQ(count({.lid = swLid()}, kLid), 4U);
  EXPECT_EQ(count({.lid = swLid(), .outputPort = 1}, kLid | kPort), 2U);
  EXPECT_EQ(count({.block = 2}, kBlock), 3U);
  EXPECT_EQ(count({.lid = sa.lidOfHost(0), .block = 3}, kLid | kBlock), 1U);
}

TEST_F(VlArbitrationRecordTest, ABlockNotReadHasNoRecord) {
  const auto reply =
      sa.ask(saMethod::kGet, VlArbitrationTableRecord{.lid = swLid(), .outputPort = 1, .block = 3},
             kLid | kPort | kBlock);
  EXPECT_EQ(reply.header.status, saStatus::kNoRecords);
}

TEST_F(VlArbitrationRecordTest, AGetMatchingSeveralRecordsIsRefused) {
  const auto reply = sa.ask(saMethod::kGet, VlArbitrationTableRecord{.lid = swLid()}, kLid);
  EXPECT_EQ(reply.header.status, saStatus::kTooManyRecords);
}

TEST_F(VlArbitrationRecordTest, AMaskPastTheRecordsComponentsIsInvalid) {
  const auto reply = sa.ask(saMethod::kGetTable, VlArbitrationTableRecord{}, 1U << 5);
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
}

}  // namespace
}  // namespace ibsm::sm::sa
