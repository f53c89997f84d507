// PortInfo fields a subnet manager writes for the SA's clients, against the
// fake fabric (ibsim ports never advertise IsClientReregistrationSupported):
// SubnetTimeout on every LID-carrying port with the Sets it gets anyway;
// ClientReregister on the CA ports
// that support it, once when this SM first programs them -- its first
// sweep, after a takeover (the held model forgotten), and a port it sees
// for the first time -- riding on the PortInfo Set the port gets anyway,
// and a Set of its own only for a port that needs nothing else.
#include <gtest/gtest.h>

#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::sampleFabric;

class ClientReregisterTest : public ::testing::Test {
 protected:
  ClientReregisterTest() {
    for (PortRef p : caPorts()) supporting().push_back(p);
    // All CA ports but the last support it.
    supporting().pop_back();
    for (PortRef p : supporting())
      bench.wire().fabric().port(p).capabilityMask |= capability::kIsClientReregistrationSupported;
  }

  std::vector<PortRef> caPorts() {
    std::vector<PortRef> out;
    const Fabric& f = bench.wire().fabric();
    for (NodeId n : f.endNodes())
      for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p)
        if (f.node(n).ports[p].connected()) out.push_back({n, p});
    return out;
  }
  std::vector<PortRef>& supporting() { return supporting_; }
  std::size_t portInfoSets() {
    return bench.count([](const Smp& m) { return isSet(m, AttributeId::PortInfo); });
  }

  ProgramBench bench{sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0}, "updn"};
  std::vector<PortRef> supporting_;
};

TEST_F(ClientReregisterTest, TheFirstSweepAsksEachSupportingCaPortOnceOnItsLidSet) {
  ASSERT_TRUE(bench.sweep().complete()) << bench.log();
  for (PortRef p : supporting())
    EXPECT_EQ(bench.wire().reregistrations(p), 1U) << bench.wire().fabric().describe(p);
  for (PortRef p : caPorts()) {
    if (std::ranges::find(supporting(), p) == supporting().end()) {
      EXPECT_EQ(bench.wire().reregistrations(p), 0U) << "does not support it";
    }
  }
  for (NodeId sw : bench.wire().fabric().switches())
    EXPECT_EQ(bench.wire().reregistrations({sw, 0}), 0U);

  // The same bring-up without any support sends as many PortInfo Sets.
  const std::size_t withSupport = portInfoSets();
  ProgramBench plain(sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0}, "updn");
  ASSERT_TRUE(plain.sweep().complete());
  EXPECT_EQ(withSupport, plain.count([](const Smp& m) { return isSet(m, AttributeId::PortInfo); }));
}

TEST_F(ClientReregisterTest, ASecondSweepAsksNoOneAndSendsNothing) {
  ASSERT_TRUE(bench.sweep().complete());
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(portInfoSets(), 0U);
  for (PortRef p : supporting()) EXPECT_EQ(bench.wire().reregistrations(p), 1U);
}

TEST_F(ClientReregisterTest, ATakeoverAsksEachSupportingPortAgainWithOneSetEach) {
  ASSERT_TRUE(bench.sweep().complete());
  bench.forgetEverything();  // what the daemon does when it takes over
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(portInfoSets(), supporting().size()) << "one Set per port, nothing else to change";
  for (PortRef p : supporting()) EXPECT_EQ(bench.wire().reregistrations(p), 2U);
}

TEST_F(ClientReregisterTest, APortSeenForTheFirstTimeIsAsked) {
  const PortRef late = supporting().back();
  const PortRef peer = *bench.wire().fabric().port(late).remote;
  bench.wire().fabric().disconnect(late);
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(bench.wire().reregistrations(late), 0U);
  ASSERT_TRUE(bench.wire().fabric().connect(late, peer));
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(bench.wire().reregistrations(late), 1U);
  for (PortRef p : supporting()) EXPECT_LE(bench.wire().reregistrations(p), 1U);
}

TEST_F(ClientReregisterTest, TurnedOffNoPortIsAsked) {
  bench.options.clientReregister = false;
  ASSERT_TRUE(bench.sweep().complete());
  for (PortRef p : supporting()) EXPECT_EQ(bench.wire().reregistrations(p), 0U);
}

TEST_F(ClientReregisterTest, EveryLidCarryingPortHoldsTheSubnetTimeoutOnce) {
  bench.options.subnetTimeout = 14;
  ASSERT_TRUE(bench.sweep().complete());
  const auto& held = bench.held().observed().portInfo;
  const Fabric& f = bench.wire().fabric();
  for (const auto& [ref, pi] : held) {
    if (f.node(ref.node).isSwitch() && ref.port != 0) continue;
    EXPECT_EQ(pi.subnetTimeout, 14) << f.describe(ref);
  }
  // Read back by a new discovery: nothing to write again.
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(portInfoSets(), 0U);
}

TEST_F(ClientReregisterTest, ASubnetTimeoutAloneSendsNoSet) {
  ASSERT_TRUE(bench.sweep().complete());
  // Ports that keep their own (ibsim's keep 31) would be Set every sweep.
  bench.options.subnetTimeout = 15;
  ASSERT_TRUE(bench.sweep().complete());
  EXPECT_EQ(portInfoSets(), 0U);
}

}  // namespace
}  // namespace ibsm::sm::program
