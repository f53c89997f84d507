// GetMulti(MultiPathRecord): the paths from each source GID to each
// destination GID of a request that fits in one MAD, by PathRecord's rules,
// in a GetMultiResp of PathRecords; a request sent in RMPP segments is
// refused (dual-sided RMPP is not implemented) and counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>

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

// LMC 2 on a full 2-level radix-8 tree routed by ftree: each host's four
// LIDs climb to four different spines. The tables are then changed so that
// the destination's second LID takes its first LID's route everywhere.
class IndependentPathsTest : public MultiPathRecordTest {
 protected:
  IndependentPathsTest() {
    lmcSa.plan.routing = *makeFatTreeEngine()->route(lmcSa.plan.fabric, RoutingOptions{});
    const std::uint16_t base = lmcSa.lidOfHost(kTo).value;
    for (Lft& lft : lmcSa.plan.routing.lfts)
      if (lft.port.size() > base + 1u) lft.port[base + 1u] = lft.port[base];
    lmcSa.rebuild();
  }
  // The inter-switch cables (switch, out port) a path crosses, from the LFTs.
  std::set<std::pair<NodeId, std::uint8_t>> cables(const PathRecord& p) const {
    std::set<std::pair<NodeId, std::uint8_t>> out;
    const Fabric& f = lmcSa.plan.fabric;
    PortRef at = *f.port({lmcSa.hosts.at(kFrom), 1}).remote;
    for (int hop = 0; hop < 8 && f.node(at.node).isSwitch(); ++hop) {
      const std::uint8_t port = lmcSa.plan.routing.lfts[at.node].at(p.dlid);
      const PortRef next = *f.port({at.node, port}).remote;
      if (!f.node(next.node).isSwitch()) break;
      out.insert({at.node, port});
      at = next;
    }
    return out;
  }
  std::vector<PathRecord> askFor(unsigned paths, std::uint8_t independence = 0) {
    MultiPathRecord r;
    r.sgids = {lmcSa.gidOfHost(kFrom)};
    r.dgids = {lmcSa.gidOfHost(kTo)};
    r.numbPath = static_cast<std::uint8_t>(paths);
    r.independenceSelector = independence;
    SaMad mad;
    mad.header.method = saMethod::kGetMulti;
    mad.header.attributeId = saAttr::kMultiPathRecord;
    mad.header.componentMask = kCounts | mprMask::kNumbPath;
    mad.data = encodeRecord(r);
    return SaFixture::records<PathRecord>(lmcSa.answer(encodeSaMad(mad)));
  }
  static constexpr std::size_t kFrom = 1, kTo = 9;  // on different leaves (4 hosts a leaf)
  SaFixture lmcSa{FatTreeSpec{.levels = 2, .radix = 8}, /*lmc=*/2};
};

TEST_F(IndependentPathsTest, NPathsAreTheNMostDisjointLidPairs) {
  const auto all = askFor(16);
  ASSERT_EQ(all.size(), 16U) << "every SLID with every DLID";
  const auto four = askFor(4);
  ASSERT_EQ(four.size(), 4U);
  EXPECT_EQ(four[0], all[0]) << "the preferred pair first";
  // The copied route shares every cable with the first; the other two
  // DLIDs' routes (and the first's) go by their own spines.
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      std::vector<std::pair<NodeId, std::uint8_t>> shared;
      const auto a = cables(four[i]), b = cables(four[j]);
      std::ranges::set_intersection(a, b, std::back_inserter(shared));
      EXPECT_TRUE(shared.empty()) << "paths " << j << " and " << i;
    }
  }
  for (std::size_t i = 1; i < 3; ++i)
    EXPECT_NE(four[i].dlid.value, lmcSa.lidOfHost(kTo).value + 1u)
        << "the copied route comes after the disjoint ones";
}

TEST_F(IndependentPathsTest, TheIndependenceSelectorOrdersTheSameWay) {
  const auto plain = askFor(3);
  const auto independent = askFor(3, 1);
  EXPECT_EQ(plain, independent) << "one port pair: the same order either way";
}

}  // namespace
}  // namespace ibsm::sm::sa
