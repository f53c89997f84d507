// MKeyTakeover::keyToSend, which the MAD engine asks for every SMP's M_Key
// (issue 29), and its fast path (issue 32): while the held observation
// showed no key on any port -- a fresh fabric -- no port can hold a key that
// is not ibsm's, so every SMP carries ours without its port being looked up;
// once an observation shows a key, each SMP's port is looked up again and a
// key that is neither ours nor the rotation's previous one is sent.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "sm/manager/MKeyTakeover.h"
#include "tests/sm/program/SubnetSnapshot.h"

namespace ibsm::sm::manager {
namespace {

constexpr std::uint64_t kOurs = 0x1111'2222'3333'4444ull;
constexpr std::uint64_t kPrevious = 0x5555'6666'7777'8888ull;
constexpr std::uint64_t kForeign = 0x0BAD'C0DE'0BAD'C0DEull;

// twoSwitchFabric(): ca1 (NodeId 3) port 1 on sw1, beyond the SM's switch.
constexpr PortRef kCa1{3, 1};

struct Takeover : ::testing::Test {
  Takeover()
      : takeover(std::make_shared<spdlog::logger>(
            "t", std::make_shared<spdlog::sinks::null_sink_mt>())) {}

  discovery::DiscoveredSubnet fresh() const {
    return ibsm::testing::snapshotOf(fabric, PortRef{2, 1});
  }
  Guid ca1() const { return fabric.port(kCa1).guid; }
  Guid sw0() const { return fabric.node(0).guid; }
  std::uint64_t keyOf(Guid port) { return takeover.keyToSend(held, port, kOurs, kPrevious); }

  Fabric fabric = ibsm::testing::twoSwitchFabric();
  program::HeldSubnet held;
  MKeyTakeover takeover;
};

TEST_F(Takeover, AFreshFabricGetsOurKeyOnEverySmpWithNoPortLookedUp) {
  held.observe(fresh());
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(keyOf(ca1()), kOurs);
    EXPECT_EQ(keyOf(sw0()), kOurs);
  }
  EXPECT_EQ(takeover.portsLookedUp(), 0u);
}

TEST_F(Takeover, AForeignKeyInTheNextObservationIsSentToItsPortAlone) {
  held.observe(fresh());
  EXPECT_EQ(keyOf(ca1()), kOurs);
  auto seen = fresh();
  seen.portInfo.at(kCa1).mKey = kForeign;
  held.observe(std::move(seen));
  EXPECT_EQ(keyOf(ca1()), kForeign);
  EXPECT_EQ(keyOf(sw0()), kOurs);
  EXPECT_EQ(takeover.portsLookedUp(), 2u);
}

TEST_F(Takeover, OurKeyOrThePreviousOneShownIsNotTakenOver) {
  auto seen = fresh();
  seen.portInfo.at(kCa1).mKey = kPrevious;
  seen.portInfo.at(PortRef{0, 0}).mKey = kOurs;
  held.observe(std::move(seen));
  EXPECT_EQ(keyOf(ca1()), kOurs);
  EXPECT_EQ(keyOf(sw0()), kOurs);
  EXPECT_GT(takeover.portsLookedUp(), 0u);
}

TEST_F(Takeover, AnObservationAfterForgetIsScannedAfresh) {
  auto seen = fresh();
  seen.portInfo.at(kCa1).mKey = kForeign;
  held.observe(seen);
  EXPECT_EQ(keyOf(ca1()), kForeign);
  const std::uint64_t before = held.generation();
  held.forget();
  held.observe(fresh());
  EXPECT_GT(held.generation(), before + 1);  // forget() and observe() each move it on
  EXPECT_EQ(keyOf(ca1()), kOurs);
  held.forget();
  held.observe(std::move(seen));
  EXPECT_EQ(keyOf(ca1()), kForeign);
}

}  // namespace
}  // namespace ibsm::sm::manager
