// M_Key protection end to end on the fake fabric (issue 29): bring-up gives
// every CA port and every switch's port 0 (whose key guards the switch's
// external ports, IBA 14.2.4) its key derived from the secret, with the
// protect bits and lease; every later SMP carries the key of the port it
// reaches (the MAD engine puts it there, no caller); a second daemon with
// the same secret uses the same keys. Until the fake fabric checks keys
// (issue 29's fakekeys part), the keys are read off the wire (sent()).
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <sstream>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "sm/security/KeyScheme.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;

Fabric tree() {
  return ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
}

PortRef smPortOf(const Fabric& f) {
  for (NodeId n : f.endNodes()) return PortRef{n, 1};
  return PortRef{};
}

// The port whose M_Key checks an SMP sent along `path` from `sm`: the CA
// port it enters, or port 0 of the switch it ends at.
std::optional<PortRef> keyPortOf(const Fabric& f, PortRef sm, const DrPath& path) {
  PortRef at = sm;
  for (std::uint8_t port : path.ports()) {
    const auto& remote = f.port(PortRef{at.node, port}).remote;
    if (!remote) return std::nullopt;
    at = *remote;
  }
  if (f.node(at.node).isSwitch()) at.port = 0;
  return at;
}

DrPath routeOf(const Smp& smp) {
  return *DrPath::fromPorts(
      std::span<const std::uint8_t>(smp.initialPath.data() + 1, smp.header.hopCount));
}

Guid guidOf(const Fabric& f, PortRef p) {
  const Guid g = f.port(p).guid;
  return g ? g : f.node(p.node).guid;
}

class SmDaemonMKeyTest : public ::testing::Test {
 protected:
  SmDaemonMKeyTest()
      : stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-mkey-test-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(stateDir_);
    auto secret = security::loadSecret(stateDir_ / "mkey.secret", /*create=*/true);
    EXPECT_TRUE(secret) << secret.error();
    keys_ = security::KeyScheme::derived(*secret);
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 10s;
    settings_.sweep.program.mKeys = keys_;
    settings_.sweep.program.mKeyProtectBits = 1;
    settings_.sweep.program.mKeyLeaseSeconds = 60;
  }
  ~SmDaemonMKeyTest() override { std::filesystem::remove_all(stateDir_); }

  // One daemon on a fresh fake fabric until SIGTERM at 15 s; what it sent.
  struct Run {
    std::unique_ptr<FakeFabricTransport> wire;
    control::DaemonStatus status;
    bool up{false};  // the last sweep's verdict
  };
  Run run(const std::string& stateName) {
    Run r;
    const Fabric f = tree();
    r.wire = std::make_unique<FakeFabricTransport>(ibsm::testing::unprogrammed(f), smPortOf(f));
    r.wire->fabric().port(smPortOf(f)).capabilityMask |= capability::kIsSm;
    loop::EventLoop loop{r.wire->clock()};
    MadEngineOptions o;
    o.clock = loop.clock();
    o.waiter = &loop;
    o.logger = logger_;
    MadEngine engine(*r.wire, o);
    StateStore store(stateDir_ / stateName);
    EXPECT_TRUE(store.prepare());
    {
      SmDaemon daemon(engine, loop, store, r.wire->fabric().port(smPortOf(f)).guid, settings_, {},
                      logger_);
      const auto stop = loop.at(r.wire->now() + 15s, [&] { daemon.signal(SIGTERM); });
      EXPECT_EQ(daemon.run(), 0) << logText_.str();
      loop.cancel(stop);
      r.status = daemon.status();
      r.up = daemon.lastResult() != nullptr && daemon.lastResult()->up;
    }
    return r;
  }

  // Every directed-route SMP after the first on its route: the key of the
  // port it reaches, by route.
  std::map<DrPath, std::uint64_t> keysByRoute(const FakeFabricTransport& wire) {
    std::map<DrPath, std::uint64_t> keys;
    for (const auto& sent : wire.sent()) {
      if (!sent.smp.isDirected() || isResponse(sent.smp.header.method)) continue;
      const DrPath path = routeOf(sent.smp);
      keys[path] = sent.smp.header.mKey;  // the last: its port known by then
    }
    return keys;
  }

  std::filesystem::path stateDir_;
  security::KeyScheme keys_{security::KeyScheme::off()};
  DaemonSettings settings_;
  std::ostringstream logText_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "mkey-test", std::make_shared<spdlog::sinks::ostream_sink_st>(logText_));
};

TEST_F(SmDaemonMKeyTest, BringUpGivesEveryCaPortAndSwitchPortZeroItsKeyProtectBitsAndLease) {
  const Run r = run("a");
  ASSERT_TRUE(r.up) << logText_.str();
  const Fabric& f = r.wire->fabric();
  const PortRef sm = smPortOf(f);
  std::set<PortRef> keyed;
  for (const auto& sent : r.wire->sent()) {
    const Smp& smp = sent.smp;
    if (smp.header.method != Method::Set || smp.header.attributeId != AttributeId::PortInfo)
      continue;
    const DrPath path = routeOf(smp);
    const auto at = keyPortOf(f, sm, path);
    ASSERT_TRUE(at);
    const PortInfo asked = decodePortInfo(smp.data);
    const bool switchLinkPort =
        f.node(at->node).isSwitch() && (smp.header.attributeModifier & 0xFF) != 0;
    if (switchLinkPort) {
      EXPECT_EQ(asked.mKey, 0u) << "a switch's external ports have no key of their own";
      continue;
    }
    EXPECT_EQ(asked.mKey, keys_.keyFor(guidOf(f, *at).value)) << f.describe(*at);
    EXPECT_EQ(asked.mKeyProtectBits, 1);
    EXPECT_EQ(asked.mKeyLeasePeriod, 60);
    keyed.insert(*at);
  }
  std::size_t expected = 0;
  for (NodeId n = 0; n < f.nodes().size(); ++n) {
    const Node& node = f.node(n);
    for (const Port& p : node.ports) {
      if (node.isSwitch() ? p.number != 0 : (p.number == 0 || !p.connected())) continue;
      ++expected;
      EXPECT_TRUE(keyed.contains(PortRef{n, p.number})) << f.describe(PortRef{n, p.number});
    }
  }
  EXPECT_EQ(keyed.size(), expected);
  // The fake keeps no key yet (ibsim neither): counted as such, none unknown.
  const control::MKeyCounts& k = r.status.mads.mKeys;
  EXPECT_EQ(k.protectedPorts + k.keepNone, expected);
  EXPECT_EQ(k.unknown, 0u);
  EXPECT_EQ(k.scheme, keys_.describe());
}

TEST_F(SmDaemonMKeyTest, EverySmpAfterTheFirstOnItsRouteCarriesTheKeyOfThePortItReaches) {
  const Run r = run("a");
  ASSERT_TRUE(r.up) << logText_.str();
  const Fabric& f = r.wire->fabric();
  const PortRef sm = smPortOf(f);
  std::set<DrPath> seen;
  std::size_t checked = 0;
  for (const auto& sent : r.wire->sent()) {
    const Smp& smp = sent.smp;
    if (isResponse(smp.header.method) || smp.header.method == Method::TrapRepress) continue;
    if (!smp.isDirected()) {
      // LID-routed: the key of the port holding the LID.
      const Lid lid = sent.to.lid;
      for (NodeId n = 0; n < f.nodes().size(); ++n)
        for (const Port& p : f.node(n).ports)
          if (p.lid == lid && (p.number == 0 || !f.node(n).isSwitch())) {
            EXPECT_EQ(smp.header.mKey, keys_.keyFor(guidOf(f, PortRef{n, p.number}).value));
          }
      continue;
    }
    const DrPath path = routeOf(smp);
    if (seen.insert(path).second) continue;  // its NodeInfo: the port is not known yet
    const auto at = keyPortOf(f, sm, path);
    ASSERT_TRUE(at);
    EXPECT_EQ(smp.header.mKey, keys_.keyFor(guidOf(f, *at).value)) << path.toString();
    ++checked;
  }
  EXPECT_GT(checked, f.nodes().size());
}

TEST_F(SmDaemonMKeyTest, ASecondDaemonWithTheSameSecretUsesTheSameKeys) {
  const Run first = run("a");
  ASSERT_TRUE(first.up) << logText_.str();
  // Another state directory, the same secret file: another SM of the subnet.
  auto secret = security::loadSecret(stateDir_ / "mkey.secret", /*create=*/false);
  ASSERT_TRUE(secret) << secret.error();
  settings_.sweep.program.mKeys = security::KeyScheme::derived(*secret);
  const Run second = run("b");
  ASSERT_TRUE(second.up) << logText_.str();
  const auto a = keysByRoute(*first.wire);
  const auto b = keysByRoute(*second.wire);
  EXPECT_EQ(a, b);
  std::size_t nonZero = 0;
  for (const auto& [path, key] : a) nonZero += key != 0;
  // A keyed route to every node; routes probed once (a NodeInfo, before
  // their port was known) carry 0.
  EXPECT_GE(nonZero, first.wire->fabric().nodes().size());
}

TEST_F(SmDaemonMKeyTest, KeysOffLeaveEveryPortsKeyAsItHoldsIt) {
  settings_.sweep.program.mKeys = security::KeyScheme::off();
  const Run r = run("a");
  ASSERT_TRUE(r.up) << logText_.str();
  for (const auto& sent : r.wire->sent()) {
    EXPECT_EQ(sent.smp.header.mKey, 0u);
    if (sent.smp.header.method == Method::Set &&
        sent.smp.header.attributeId == AttributeId::PortInfo) {
      EXPECT_EQ(decodePortInfo(sent.smp.data).mKeyProtectBits, 0);
    }
  }
  EXPECT_EQ(r.status.mads.mKeys.scheme, security::KeyScheme::off().describe());
}

}  // namespace
}  // namespace ibsm::sm::manager
