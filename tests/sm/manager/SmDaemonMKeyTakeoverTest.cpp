// Taking over ports protected by an M_Key ibsm does not know (issue 29),
// on the fake fabric, which applies the IBA's M_Key rules (FakeMKeys.h,
// IBA 1.3 vol. 1, 14.2.4):
// - a port protected by another key refuses ibsm's Sets (14.2.4.1: SubnSet
//   needs the key at every level) and, at levels 2 and 3, its Gets too; a
//   refusal starts its lease timer (14.2.4.3), and when the lease runs out
//   the port clears its protect bits (14.2.4.2), so a Get shows its key
//   again (level 0) -- which a Set must still carry (a Set is checked at
//   level 0 too): the takeover is a Set with the key the port shows;
// - a lease of 0 never runs out (14.2.4.2): such a port stays another's;
// - a standby that shares the secret derives every key the master gave, so
//   it takes over a protected fabric with no refusal at all.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

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

constexpr std::uint64_t kForeignKey = 0x0BAD'C0DE'0BAD'C0DEull;

Fabric tree() {
  return ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
}

PortRef firstCaPort(const Fabric& f) {
  return PortRef{f.endNodes().front(), 1};
}
PortRef lastCaPort(const Fabric& f) {
  return PortRef{f.endNodes().back(), 1};
}

Guid guidOf(const Fabric& f, PortRef p) {
  const Guid g = f.port(p).guid;
  return g ? g : f.node(p.node).guid;
}

// The ports whose M_Key guards a node: every cabled CA port, a switch's port 0.
std::vector<PortRef> keyHolders(const Fabric& f) {
  std::vector<PortRef> out;
  for (NodeId n = 0; n < f.nodes().size(); ++n) {
    const Node& node = f.node(n);
    for (const Port& p : node.ports) {
      if (node.isSwitch() ? p.number == 0 : (p.number != 0 && p.connected()))
        out.push_back(PortRef{n, p.number});
    }
  }
  return out;
}

// Whether an SMP the SM sent from `sm` is checked by `holder`'s key.
bool reaches(const Fabric& f, PortRef sm, const Smp& smp, PortRef holder) {
  if (!smp.isDirected()) return false;  // bring-up's SMPs here are all directed
  PortRef at = sm;
  for (std::uint8_t port :
       std::span<const std::uint8_t>(smp.initialPath.data() + 1, smp.header.hopCount)) {
    const auto& remote = f.port(PortRef{at.node, port}).remote;
    if (!remote) return false;
    at = *remote;
  }
  if (f.node(at.node).isSwitch()) at.port = 0;
  return at == holder;
}

class MKeyTakeover : public ::testing::Test {
 protected:
  MKeyTakeover()
      : stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-mkey-takeover-test-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(stateDir_);
    keys_ = schemeFrom(stateDir_ / "mkey.secret", /*create=*/true);
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 10s;
    settings_.sweep.program.mKeys = keys_;
    settings_.sweep.program.mKeyProtectBits = 1;
    settings_.sweep.program.mKeyLeaseSeconds = 60;
    const Fabric f = tree();
    wire_ = std::make_unique<FakeFabricTransport>(ibsm::testing::unprogrammed(f), firstCaPort(f));
  }
  ~MKeyTakeover() override { std::filesystem::remove_all(stateDir_); }

  static security::KeyScheme schemeFrom(const std::filesystem::path& file, bool create) {
    auto secret = security::loadSecret(file, create);
    EXPECT_TRUE(secret) << secret.error();
    return secret ? security::KeyScheme::derived(*secret) : security::KeyScheme::off();
  }

  // What a daemon showed while it ran.
  struct Run {
    std::optional<MadClock::duration> upAfter;  // to the first sweep that brought the subnet up
    control::DaemonStatus last;
    bool up{false};
    std::size_t firstSent{0};  // wire_->sent() index of its first SMP
  };

  // Checks made while a daemon runs, by time since its start.
  using Probes = std::map<std::chrono::seconds, std::function<void(const control::DaemonStatus&)>>;

  // One daemon on wire_ (as the earlier ones left it) from `sm`, for `length`.
  Run run(PortRef sm, const std::string& stateName, std::chrono::seconds length,
          const Probes& probes = {}) {
    Run r;
    r.firstSent = wire_->sent().size();
    wire_->moveSm(sm);
    std::uint32_t& capabilities = wire_->fabric().port(sm).capabilityMask;
    capabilities |= capability::kIsSm;
    loop::EventLoop loop{wire_->clock()};
    MadEngine engine(*wire_,
                     MadEngineOptions{.clock = loop.clock(), .waiter = &loop, .logger = quiet()});
    StateStore store(stateDir_ / stateName);
    EXPECT_TRUE(store.prepare());
    SmDaemon daemon(engine, loop, store, wire_->fabric().port(sm).guid, settings_, {}, quiet());
    const MadClock::time_point start = wire_->now();
    std::function<void()> watchUp = [&] {
      if (!r.upAfter && daemon.lastResult() != nullptr && daemon.lastResult()->up) {
        r.upAfter = wire_->now() - start;
        return;
      }
      loop.at(wire_->now() + 10ms, watchUp);
    };
    loop.at(start + 10ms, watchUp);
    std::size_t probed = 0;
    for (const auto& [t, probe] : probes) {
      loop.at(start + t, [&daemon, &probe, &probed] {
        probe(daemon.status());
        ++probed;
      });
    }
    loop.at(start + length, [&] { daemon.signal(SIGTERM); });
    EXPECT_EQ(daemon.run(), 0);
    EXPECT_EQ(probed, probes.size());
    r.last = daemon.status();
    r.up = daemon.lastResult() != nullptr && daemon.lastResult()->up;
    capabilities &= ~capability::kIsSm;  // stopped: no SM there any more
    return r;
  }

  // SMPs of a run that `holder`'s key checks, and of those the Sets.
  struct Traffic {
    std::size_t smps{0};
    std::size_t sets{0};
  };
  Traffic trafficTo(const Run& r, PortRef sm, PortRef holder, MadClock::time_point from,
                    MadClock::time_point to) const {
    Traffic t;
    const auto& sent = wire_->sent();
    for (std::size_t i = r.firstSent; i < sent.size(); ++i) {
      const auto& s = sent[i];
      if (s.at < from || s.at >= to || isResponse(s.smp.header.method)) continue;
      if (!reaches(wire_->fabric(), sm, s.smp, holder)) continue;
      ++t.smps;
      t.sets += s.smp.header.method == Method::Set;
    }
    return t;
  }

  // Ports of the fabric another SM protected: a spine's and a leaf's port 0
  // (the leaf the last host hangs off, which the SM does not), and two hosts
  // on other leaves. Not the SM's own port, nor its leaf.
  std::vector<PortRef> foreignPorts() const {
    const Fabric& f = wire_->fabric();
    const NodeId smLeaf = f.port(firstCaPort(f)).remote->node;
    const NodeId lastLeaf = f.port(lastCaPort(f)).remote->node;
    std::vector<PortRef> out{PortRef{lastLeaf, 0}};
    for (NodeId n = 0; n < f.nodes().size(); ++n) {
      const Node& node = f.node(n);
      if (!node.isSwitch()) continue;
      bool hasHosts = false;
      for (const Port& p : node.ports) hasHosts |= p.remote && !f.node(p.remote->node).isSwitch();
      if (!hasHosts) {
        out.push_back(PortRef{n, 0});  // a spine
        break;
      }
    }
    std::size_t hosts = 0;
    for (NodeId h : f.endNodes()) {
      const NodeId leaf = f.port(PortRef{h, 1}).remote->node;
      if (leaf == smLeaf || leaf == lastLeaf || hosts == 2) continue;
      out.push_back(PortRef{h, 1});
      ++hosts;
    }
    return out;
  }

  // Every key holder holds ibsm's key and protect bits.
  void expectAllOurs() const {
    const Fabric& f = wire_->fabric();
    for (PortRef p : keyHolders(f)) {
      const auto s = wire_->mkeyState(p);
      EXPECT_EQ(s.key, keys_.keyFor(guidOf(f, p).value)) << f.describe(p);
      EXPECT_EQ(s.protectBits, settings_.sweep.program.mKeyProtectBits) << f.describe(p);
    }
  }

  static std::shared_ptr<spdlog::logger> quiet() {
    return std::make_shared<spdlog::logger>("mkey-takeover-test",
                                            std::make_shared<spdlog::sinks::null_sink_st>());
  }

  std::filesystem::path stateDir_;
  security::KeyScheme keys_{security::KeyScheme::off()};
  DaemonSettings settings_;
  std::unique_ptr<FakeFabricTransport> wire_;
};

class ForeignKeyAtLevel : public MKeyTakeover, public ::testing::WithParamInterface<int> {};

// IBA 14.2.4.3: the first refused SMP starts the 60 s lease timer;
// 14.2.4.2: when it runs out the protect bits clear and the key shows.
// At level 1 a Get without the key passes, showing the M_Key as 0
// (14.2.4.1): ibsm reads the port and counts it unknown and waiting on its
// lease. At levels 2 and 3 the Get fails too: the node answers nothing
// until its lease ends (a switch's hosts are not reached through it), so
// ibsm cannot tell it from a dead one and counts nothing for it.
TEST_P(ForeignKeyAtLevel, IsWaitedOutForItsLeaseThenTakenOverOncePerPort) {
  const auto level = static_cast<std::uint8_t>(GetParam());
  const std::vector<PortRef> foreign = foreignPorts();
  for (PortRef p : foreign) wire_->protect(p, kForeignKey, level, 60s);
  const Fabric& f = wire_->fabric();
  const NodeId lastLeaf = f.port(lastCaPort(f)).remote->node;
  auto isForeign = [&](PortRef p) { return std::ranges::find(foreign, p) != foreign.end(); };
  // Reached while the foreign ports refuse: all but the silent leaf's hosts at levels 2 and 3.
  auto reachable = [&](PortRef p) {
    return level == 1 || f.node(p.node).isSwitch() || f.port(p).remote->node != lastLeaf;
  };

  const Run r = run(firstCaPort(f), "a", 150s,
                    {{30s, [&](const control::DaemonStatus& s) {
                        const control::MKeyCounts& k = s.mads.mKeys;
                        const std::size_t readable = level == 1 ? foreign.size() : 0;
                        EXPECT_EQ(k.unknown, readable);
                        EXPECT_EQ(k.waitingOnLease, readable);
                        EXPECT_EQ(k.takenOver, 0u);
                        for (PortRef p : keyHolders(f)) {
                          const std::uint64_t held = wire_->mkeyState(p).key;
                          if (isForeign(p)) {
                            EXPECT_EQ(held, kForeignKey) << f.describe(p);
                          } else if (reachable(p)) {
                            EXPECT_EQ(held, keys_.keyFor(guidOf(f, p).value)) << f.describe(p);
                          }
                        }
                      }}});

  // After it: every port holds ibsm's key and protect bits, each taken over once.
  expectAllOurs();
  const control::MKeyCounts& after = r.last.mads.mKeys;
  EXPECT_EQ(after.unknown, 0u);
  EXPECT_EQ(after.waitingOnLease, 0u);
  EXPECT_EQ(after.takenOver, foreign.size());
  EXPECT_EQ(after.protectedPorts, keyHolders(f).size());
  EXPECT_TRUE(r.up);
}

INSTANTIATE_TEST_SUITE_P(ProtectBits, ForeignKeyAtLevel, ::testing::Values(1, 2, 3));

// IBA 14.2.4.2: a lease period of 0 never expires.
TEST_F(MKeyTakeover, AForeignKeyWithNoLeaseIsNeverTakenOverNorHammered) {
  const Fabric& f = wire_->fabric();
  const PortRef host = foreignPorts().back();
  wire_->protect(host, kForeignKey, 1, 0s);
  const PortRef sm = firstCaPort(f);
  const MadClock::time_point start = wire_->now();
  const Run r = run(sm, "a", 120s);

  EXPECT_EQ(wire_->mkeyState(host).key, kForeignKey);
  EXPECT_EQ(wire_->mkeyState(host).protectBits, 1);
  EXPECT_EQ(r.last.mads.mKeys.unknown, 1u);
  EXPECT_EQ(r.last.mads.mKeys.waitingOnLease, 0u);
  EXPECT_EQ(r.last.mads.mKeys.takenOver, 0u);
  // At most one refused Set a sweep interval (10 s), its first attempt only.
  for (auto t = start; t < start + 120s; t += 10s) {
    const Traffic in = trafficTo(r, sm, host, t, t + 10s);
    EXPECT_LE(in.sets, 1u) << "in the 10 s from " << (t - start) / 1s << " s";
  }
  EXPECT_LE(wire_->violations(host), 12u);
}

// A standby that shares the secret knows every key: no SMP of it fails a
// check (no violation, no trap 256), and it is up as fast as a first
// bring-up, with no lease to wait out.
TEST_F(MKeyTakeover, AStandbyWithTheSameSecretTakesOverAProtectedFabricWithNoLeaseWait) {
  const Fabric& f = wire_->fabric();
  const Run a = run(firstCaPort(f), "a", 20s);
  ASSERT_TRUE(a.up && a.upAfter);
  expectAllOurs();

  settings_.sweep.program.mKeys = schemeFrom(stateDir_ / "mkey.secret", /*create=*/false);
  const Run b = run(lastCaPort(f), "b", 20s);
  ASSERT_TRUE(b.up && b.upAfter);
  EXPECT_LE(*b.upAfter, *a.upAfter + 1s);
  for (PortRef p : keyHolders(f)) {
    EXPECT_EQ(wire_->violations(p), 0u) << f.describe(p);
    EXPECT_EQ(wire_->mkeyState(p).badMKeyTraps, 0u) << f.describe(p);
  }
  EXPECT_EQ(b.last.mads.mKeys.protectedPorts, keyHolders(f).size());
  EXPECT_EQ(b.last.mads.mKeys.unknown, 0u);
  EXPECT_EQ(b.last.mads.mKeys.takenOver, 0u);
  expectAllOurs();
}

// The contrast: with another secret the standby's keys are all wrong, so
// it waits out the master's lease before it can take the fabric over --
// twice here: its own port refuses it too, and programming stops while the
// SM's own LID cannot be set (SubnetProgrammer), so the other ports are
// first sent a Set, which starts their leases, once it holds its own port.
TEST_F(MKeyTakeover, AStandbyWithAnotherSecretWaitsOutTheLeaseThenTakesOver) {
  const Fabric& f = wire_->fabric();
  const Run a = run(firstCaPort(f), "a", 20s);
  ASSERT_TRUE(a.up && a.upAfter);

  keys_ = schemeFrom(stateDir_ / "other.secret", /*create=*/true);
  settings_.sweep.program.mKeys = keys_;
  const Run b = run(lastCaPort(f), "b", 150s,
                    {{30s, [&](const control::DaemonStatus& s) {
                        EXPECT_EQ(s.mads.mKeys.unknown, keyHolders(f).size());
                        EXPECT_EQ(s.mads.mKeys.waitingOnLease, keyHolders(f).size());
                      }}});
  ASSERT_TRUE(b.upAfter);
  EXPECT_GE(*b.upAfter, 120s);
  EXPECT_TRUE(b.up);
  EXPECT_EQ(b.last.mads.mKeys.takenOver, keyHolders(f).size());
  EXPECT_EQ(b.last.mads.mKeys.unknown, 0u);
  expectAllOurs();
}

}  // namespace
}  // namespace ibsm::sm::manager
