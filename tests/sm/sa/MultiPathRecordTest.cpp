// GetMulti(MultiPathRecord): the paths from each source GID to each
// destination GID of a request that fits in one MAD, by PathRecord's rules,
// in a GetMultiResp of PathRecords; a request sent in RMPP segments is
// refused (dual-sided RMPP is not implemented) and counted.
#include <gtest/gtest.h>

#include "sm/sa/MultiPathRecords.h"
#include "sm/sa/PathRecords.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kCounts = mprMask::kSgidCount | mprMask::kDgidCount;

class MultiPathRecordTest : public ::testing::Test {
 protected:
  MultiPathRecord request(std::vector<std::size_t> sources, std::vector<std::size_t> dests) const {
    MultiPathRecord r;
    for (const std::size_t h : sources) r.sgids.push_back(sa.gidOfHost(h));
    for (const std::size_t h : dests) r.dgids.push_back(sa.gidOfHost(h));
    return r;
  }
  SaMad ask(const MultiPathRecord& r, std::uint64_t mask,
            std::uint8_t rmppFlags = rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast) {
    SaMad mad;
    mad.header.method = saMethod::kGetMulti;
    mad.header.tid = 0x77;
    mad.header.attributeId = saAttr::kMultiPathRecord;
    mad.header.componentMask = mask;
    mad.header.rmpp = {.version = rmpp::kVersion,
                       .type = rmpp::kTypeData,
                       .respTime = 0,
                       .flags = rmppFlags,
                       .status = 0,
                       .segmentNumber = 1,
                       .payloadLength = 0};
    mad.data = encodeRecord(r);
    return sa.answer(encodeSaMad(mad));
  }
  // What a PathRecord Get from `from` to `to` answers.
  PathRecord single(std::size_t from, std::size_t to) {
    PathRecord q;
    q.sgid = sa.gidOfHost(from);
    q.dgid = sa.gidOfHost(to);
    return SaFixture::records<PathRecord>(sa.ask(saMethod::kGet, q, prMask::kSgid | prMask::kDgid))
        .at(0);
  }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
};

TEST_F(MultiPathRecordTest, EachSourceToEachDestinationAsPathRecordsInAGetMultiResp) {
  const auto reply = ask(request({1, 2}, {3, 4, 5}), kCounts);
  EXPECT_EQ(reply.header.method, saMethod::kGetMultiResp);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(reply.header.tid, 0x77U);
  EXPECT_EQ(reply.header.attributeId, saAttr::kPathRecord) << "o15-0.2.7";
  EXPECT_EQ(reply.header.rmpp.flags & rmpp::kFlagActive, rmpp::kFlagActive)
      << "segmented by the transport like a table";
  const auto paths = SaFixture::records<PathRecord>(reply);
  ASSERT_EQ(paths.size(), 6U);
  std::size_t i = 0;
  for (const std::size_t s : {1, 2}) {
    for (const std::size_t d : {3, 4, 5}) {
      EXPECT_EQ(paths[i], single(s, d)) << s << " to " << d;
      ++i;
    }
  }
}

TEST_F(MultiPathRecordTest, NumbPathCapsThePathsInAll) {
  auto r = request({1, 2}, {3, 4, 5});
  r.numbPath = 4;
  const auto paths = SaFixture::records<PathRecord>(ask(r, kCounts | mprMask::kNumbPath));
  ASSERT_EQ(paths.size(), 4U);
  EXPECT_EQ(paths[3], single(2, 3)) << "the first found, pair by pair in the order listed";
}

TEST_F(MultiPathRecordTest, ConstraintsApplyAsInAPathRecord) {
  auto r = request({1}, {3, 4});
  r.sl = 5;
  r.pkey = 0x1234;  // shared by nobody
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(r, kCounts | (1ULL << 9))).at(0).sl, 5);
  EXPECT_TRUE(SaFixture::records<PathRecord>(ask(r, kCounts | (1ULL << 7))).empty())
      << "no path in a partition neither port is in";
}

TEST_F(MultiPathRecordTest, WhatIsMissingOrWrongGetsPathRecordsStatuses) {
  EXPECT_EQ(ask(request({1}, {3}), mprMask::kSgidCount).header.status,
            saStatus::kReqInsufficientComponents)
      << "both counts are required";
  EXPECT_EQ(ask(request({1}, {}), kCounts).header.status, saStatus::kReqInvalid);
  auto foreign = request({1}, {3});
  foreign.dgids[0] = makeGid(0xFE80000000000001, sa.guidOfHost(3));
  EXPECT_EQ(ask(foreign, kCounts).header.status, saStatus::kReqInvalidGid);
  EXPECT_EQ(ask(request({1}, {3}), kCounts | mprMask::kServiceIdMsb).header.status,
            saStatus::kReqInsufficientComponents)
      << "half a ServiceID";
  EXPECT_EQ(ask(request({1}, {3}), kCounts | (1ULL << 22)).header.status, saStatus::kReqInvalid)
      << "a mask past the last component";
}

TEST_F(MultiPathRecordTest, GidsPastTheDataAreAnInvalidRequest) {
  SaMad mad;
  mad.header.method = saMethod::kGetMulti;
  mad.header.attributeId = saAttr::kMultiPathRecord;
  mad.header.componentMask = kCounts;
  mad.data = encodeRecord(request({1}, {3}));
  mad.data[15] = 12;  // SGIDCount: 12 + 1 GIDs do not fit in one MAD's 200 bytes
  EXPECT_EQ(sa.answer(encodeSaMad(mad)).header.status, saStatus::kReqInvalid);
}

TEST_F(MultiPathRecordTest, ARequestInSeveralRmppSegmentsIsRefusedAndCounted) {
  const auto first = ask(request({1}, {3}), kCounts, rmpp::kFlagActive | rmpp::kFlagFirst);
  EXPECT_EQ(first.header.method, saMethod::kGetMultiResp);
  EXPECT_EQ(first.header.status, saStatus::kNoResources);
  const auto middle = ask(request({1}, {3}), kCounts, rmpp::kFlagActive);
  EXPECT_EQ(middle.header.status, saStatus::kNoResources);
  EXPECT_EQ(sa.responder.counters().segmentedRefused, 2U);
  EXPECT_EQ(ask(request({1}, {3}), kCounts, 0).header.status, saStatus::kOk)
      << "no RMPP at all: one MAD, answered";
}

TEST_F(MultiPathRecordTest, OnlyGetMultiIsAMultiPathRecordMethod) {
  const auto reply = sa.answer(SaFixture::request(saMethod::kGetTable, saAttr::kMultiPathRecord,
                                                  kCounts, encodeRecord(request({1}, {3}))));
  EXPECT_EQ(reply.header.status, saStatus::kMethodAttrUnsupported);
}

TEST_F(MultiPathRecordTest, AnswersAreTrimmedToMaxRecords) {
  sa.settings.maxRecords = 2;
  sa.rebuild();
  EXPECT_EQ(SaFixture::records<PathRecord>(ask(request({1}, {3, 4, 5}), kCounts)).size(), 2U);
  EXPECT_EQ(sa.responder.counters().answersTrimmed, 1U);
}

}  // namespace
}  // namespace ibsm::sm::sa
