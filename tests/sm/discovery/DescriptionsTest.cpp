// A takeover's discovery takes the node descriptions its standby's
// discovery read (DiscoveryOptions::knownDescriptions) instead of reading
// them before up, reads only those of nodes it did not know, and
// readDescriptions() after up finds the ones that changed meanwhile
// (sm/discovery/Descriptions.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <algorithm>

#include "sm/discovery/Descriptions.h"
#include "sm/discovery/Discovery.h"
#include "tests/sm/discovery/DiscoveryChecks.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::discovery {
namespace {

using testing::Compare;
using testing::FakeFabricTransport;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class DescriptionsTest : public ::testing::Test {
 protected:
  DescriptionsTest() {
    Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
    smPort_ = testing::firstNodePort(f);
    wire_ = std::make_unique<FakeFabricTransport>(std::move(f), smPort_);
    MadEngineOptions o;
    o.window = 16;
    o.clock = wire_->clock();
    o.logger = logger_;
    engine_ = std::make_unique<MadEngine>(*wire_, o);
  }
  Fabric& truth() { return wire_->fabric(); }
  Result<DiscoveredSubnet> discover(const KnownDescriptions* known) {
    Discovery discovery(*engine_, {.knownDescriptions = known}, logger_);
    auto subnet = discovery.run();
    counters_ = discovery.counters();
    return subnet;
  }
  // NodeDescription Gets the wire carried since the last mark().
  std::size_t descriptionGets() const {
    return static_cast<std::size_t>(std::ranges::count_if(
        wire_->sent().begin() + static_cast<std::ptrdiff_t>(mark_), wire_->sent().end(),
        [](const auto& m) { return m.smp.header.attributeId == AttributeId::NodeDescription; }));
  }
  void mark() { mark_ = wire_->sent().size(); }

  PortRef smPort_;
  std::unique_ptr<FakeFabricTransport> wire_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "descriptions", std::make_shared<spdlog::sinks::null_sink_st>());
  std::unique_ptr<MadEngine> engine_;
  DiscoveryCounters counters_;
  std::size_t mark_{0};
};

TEST_F(DescriptionsTest, AStandbysDescriptionsAreTakenAndNoneIsReadBeforeUp) {
  auto standby = discover(nullptr);
  ASSERT_TRUE(standby);
  EXPECT_EQ(descriptionGets(), truth().size());  // a first discovery reads each once
  EXPECT_THAT(standby->describedFromBefore, IsEmpty());
  const KnownDescriptions known = knownDescriptions(*standby);
  EXPECT_EQ(known.size(), truth().size());

  mark();
  auto takeover = discover(&known);
  ASSERT_TRUE(takeover);
  EXPECT_EQ(descriptionGets(), 0U);
  EXPECT_EQ(counters_.descriptionsKnown, truth().size());
  EXPECT_EQ(takeover->describedFromBefore.size(), truth().size());
  EXPECT_THAT(takeover->problems, IsEmpty());
  EXPECT_THAT(testing::compareFabrics(truth(), takeover->fabric, Compare::Everything), IsEmpty());
}

TEST_F(DescriptionsTest, ANodeTheStandbyDidNotKnowIsReadAndOnlyIt) {
  auto standby = discover(nullptr);
  ASSERT_TRUE(standby);
  KnownDescriptions known = knownDescriptions(*standby);
  const NodeId fresh = testing::nodeNamed(truth(), "h5_1_2");
  known.erase(truth().node(fresh).guid);

  mark();
  auto takeover = discover(&known);
  ASSERT_TRUE(takeover);
  EXPECT_EQ(descriptionGets(), 1U);
  EXPECT_EQ(counters_.descriptionsKnown, truth().size() - 1);
  const auto id = takeover->fabric.findNode(truth().node(fresh).guid);
  ASSERT_TRUE(id);
  EXPECT_EQ(takeover->fabric.node(*id).description, "h5_1_2");
  EXPECT_EQ(std::ranges::count(takeover->describedFromBefore, *id), 0);
}

TEST_F(DescriptionsTest, ReadAfterUpTheDescriptionsThatChangedMeanwhileAreFound) {
  auto standby = discover(nullptr);
  ASSERT_TRUE(standby);
  const KnownDescriptions known = knownDescriptions(*standby);
  const NodeId host = testing::nodeNamed(truth(), "h1_0_1");
  const NodeId edge = testing::nodeNamed(truth(), "edge2_3");
  truth().node(host).description = "renamed-host";
  truth().node(edge).description = "renamed-edge";

  auto takeover = discover(&known);
  ASSERT_TRUE(takeover);
  // Until read, the standby's descriptions.
  const NodeId seenHost = *takeover->fabric.findNode(truth().node(host).guid);
  const NodeId seenEdge = *takeover->fabric.findNode(truth().node(edge).guid);
  EXPECT_EQ(takeover->fabric.node(seenHost).description, "h1_0_1");

  mark();
  auto read = readDescriptions(*engine_, *takeover, takeover->describedFromBefore);
  ASSERT_TRUE(read);
  EXPECT_EQ(descriptionGets(), truth().size());
  EXPECT_EQ(read->asked, truth().size());
  EXPECT_EQ(read->failed, 0U);
  EXPECT_THAT(read->changed,
              UnorderedElementsAre(std::pair{seenHost, std::string("renamed-host")},
                                   std::pair{seenEdge, std::string("renamed-edge")}));
}

}  // namespace
}  // namespace ibsm::sm::discovery
