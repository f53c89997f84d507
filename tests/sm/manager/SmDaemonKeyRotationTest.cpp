// M_Key rotation end to end on the fake fabric, which checks keys as the
// IBA's SMA does (tests/sm/support/FakeMKeys.h, IBA 14.2.4: a Set without
// the port's key is dropped, counted in M_KeyViolations and answered by
// trap 256). A daemon brings the fabric up protected, `ibsm keys rotate`
// (SmDaemon::rotateKeys) starts a rotation, and the daemon sweeps on. At
// every SMP sent (checked from the fake wire's fault hook, so between any
// two steps) every CA port and switch port 0 holds a non-zero key -- its old
// one or its new one -- with its protect bits; no SMP timed out, no port
// counted a violation or sent trap 256; at the end every port holds its key
// of the new secret and the previous secret's file is gone. The same holds
// across a restart in the middle and with the answers of the Sets that move
// the ports lost.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <sstream>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "sm/security/KeyScheme.h"
#include "sm/security/MKeySettings.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Fabric tree() {
  return ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
}

PortRef smPortOf(const Fabric& f) {
  for (NodeId n : f.endNodes()) return PortRef{n, 1};
  return PortRef{};
}

// A port whose M_Key guards its node (a CA port, a switch's port 0) and its GUID.
struct Holder {
  PortRef at;
  std::uint64_t guid;
};

std::vector<Holder> holders(const Fabric& f) {
  std::vector<Holder> out;
  for (NodeId n = 0; n < f.nodes().size(); ++n) {
    const Node& node = f.node(n);
    for (const Port& p : node.ports) {
      if (node.isSwitch() ? p.number != 0 : (p.number == 0 || !p.connected())) continue;
      out.push_back({PortRef{n, p.number}, (p.guid ? p.guid : node.guid).value});
    }
  }
  return out;
}

// A Set(PortInfo) that writes a port a key other than the one it carries:
// the Set that moves a port from its old key to its new one.
bool movesAPort(const Smp& smp) {
  if (smp.header.method != Method::Set || smp.header.attributeId != AttributeId::PortInfo)
    return false;
  const std::uint64_t written = decodePortInfo(smp.data).mKey;
  return written != 0 && smp.header.mKey != 0 && written != smp.header.mKey;
}

class SmDaemonKeyRotationTest : public ::testing::Test {
 protected:
  SmDaemonKeyRotationTest()
      : stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-rotation-test-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(stateDir_);
    old_ = readScheme();
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 10s;
    settings_.sweep.program.mKeys = old_;
    settings_.sweep.program.mKeyProtectBits = 1;
    settings_.sweep.program.mKeyLeaseSeconds = 60;
    settings_.mKeyRotation.secretFile = secretFile();
    const Fabric f = tree();
    wire_ = std::make_unique<FakeFabricTransport>(ibsm::testing::unprogrammed(f), smPortOf(f));
    wire_->fabric().port(smPortOf(f)).capabilityMask |= capability::kIsSm;
    holders_ = holders(f);
  }
  ~SmDaemonKeyRotationTest() override { std::filesystem::remove_all(stateDir_); }

  std::filesystem::path secretFile() const { return stateDir_ / "mkey.secret"; }
  std::filesystem::path previousFile() const { return security::previousSecretPath(secretFile()); }
  // What a daemon started now reads: the secret, and the previous one if kept.
  security::KeyScheme readScheme() const {
    auto s = security::schemeFor(security::MKeySettings{}, stateDir_);
    EXPECT_TRUE(s) << s.error();
    return s ? *s : security::KeyScheme::off();
  }

  // One daemon on the wire until `stopAt`; `rotateAt`: `ibsm keys rotate` then.
  control::DaemonStatus run(MadClock::time_point stopAt,
                            std::optional<MadClock::time_point> rotateAt = std::nullopt,
                            std::optional<MadClock::time_point> watchFrom = std::nullopt) {
    loop::EventLoop loop{wire_->clock()};
    MadEngine engine(*wire_,
                     MadEngineOptions{.clock = loop.clock(), .waiter = &loop, .logger = logger_});
    StateStore store(stateDir_ / "state");
    EXPECT_TRUE(store.prepare());
    SmDaemon daemon(engine, loop, store, wire_->fabric().port(smPortOf(tree())).guid, settings_, {},
                    logger_);
    std::optional<loop::EventLoop::TimerId> rotate;
    if (rotateAt)
      rotate = loop.at(*rotateAt, [&] {
        answer_ = daemon.rotateKeys();
        steps_.watching = true;
      });
    std::optional<loop::EventLoop::TimerId> watch;
    if (watchFrom) watch = loop.at(*watchFrom, [&] { steps_.watching = true; });
    const auto stop = loop.at(stopAt, [&] { daemon.signal(SIGTERM); });
    EXPECT_EQ(daemon.run(), 0) << logText_.str();
    loop.cancel(stop);
    if (rotate) loop.cancel(*rotate);
    if (watch) loop.cancel(*watch);
    up_ = daemon.lastResult() != nullptr && daemon.lastResult()->up;
    return daemon.status();
  }

  // Checked at every SMP sent (the fault hook runs before the fake
  // processes it): every holder keeps a key of ours, never 0, with its bits.
  struct Steps {
    bool watching{false};
    std::size_t checked{0};
    std::size_t bad{0};
    std::string firstBad;
  };
  void watchEveryStep(std::function<Fate(const Smp&)> fault = {}) {
    wire_->setFaults([this, fault](const Smp& smp, std::size_t) {
      if (steps_.watching) checkStep();
      return fault ? fault(smp) : Fate{};
    });
  }
  void checkStep() {
    ++steps_.checked;
    const security::KeyScheme now = readSchemeQuietly();
    for (const Holder& h : holders_) {
      const auto s = wire_->mkeyState(h.at);
      const bool old = s.key == old_.keyFor(h.guid);
      const bool fresh = now.keyFor(h.guid) == s.key;
      if (s.key != 0 && s.protectBits == 1 && (old || fresh)) continue;
      if (steps_.bad++ == 0)
        steps_.firstBad = fmt::format("{}: key {:x} bits {}", wire_->fabric().describe(h.at), s.key,
                                      s.protectBits);
    }
  }
  // The secret file as it is now (the new one once the rotation wrote it).
  security::KeyScheme readSchemeQuietly() const {
    auto s = security::schemeFor(security::MKeySettings{}, stateDir_);
    return s ? *s : security::KeyScheme::off();
  }

  // Every holder on its key of the secret file now, protected, never refused.
  void expectEveryPortOnTheNewKey(bool noViolations = true) {
    const security::KeyScheme now = readScheme();
    for (const Holder& h : holders_) {
      const auto s = wire_->mkeyState(h.at);
      EXPECT_EQ(s.key, now.keyFor(h.guid)) << wire_->fabric().describe(h.at);
      EXPECT_NE(s.key, old_.keyFor(h.guid));
      EXPECT_EQ(s.protectBits, 1);
      if (noViolations) {
        EXPECT_EQ(s.violations, 0u) << wire_->fabric().describe(h.at);
        EXPECT_EQ(s.badMKeyTraps, 0u) << wire_->fabric().describe(h.at);
      }
    }
    EXPECT_FALSE(std::filesystem::exists(previousFile()));
    EXPECT_FALSE(now.hasPrevious());
  }

  std::filesystem::path stateDir_;
  security::KeyScheme old_{security::KeyScheme::off()};
  DaemonSettings settings_;
  std::unique_ptr<FakeFabricTransport> wire_;
  std::vector<Holder> holders_;
  Steps steps_;
  std::string answer_;
  bool up_{false};
  std::ostringstream logText_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "rotation-test", std::make_shared<spdlog::sinks::ostream_sink_st>(logText_));
};

TEST_F(SmDaemonKeyRotationTest, KeysRotateMovesEveryPortWithEveryPortReachableAtEveryStep) {
  watchEveryStep();
  const auto t0 = wire_->now();
  const control::DaemonStatus s = run(t0 + 60s, t0 + 15s);
  EXPECT_THAT(answer_, StartsWith("ok: M_Key rotation started at "));
  ASSERT_TRUE(up_) << logText_.str();
  EXPECT_GT(steps_.checked, holders_.size());
  EXPECT_EQ(steps_.bad, 0u) << steps_.firstBad;
  expectEveryPortOnTheNewKey();
  EXPECT_EQ(s.mads.timeouts, 0u) << "no SMP went unanswered for a wrong key";
  const control::MKeyCounts& k = s.mads.mKeys;
  EXPECT_EQ(k.rotations, 1u);
  EXPECT_FALSE(k.rotating);
  EXPECT_TRUE(k.rotationStarted.has_value());
  EXPECT_EQ(k.onPreviousKey, 0u);
  EXPECT_EQ(k.unknown, 0u);
  EXPECT_EQ(k.protectedPorts, holders_.size());
}

TEST_F(SmDaemonKeyRotationTest, ARestartInTheMiddleStillReachesEveryPortAndFinishes) {
  // The first daemon's wire goes dark after a third of the ports moved:
  // what a crash leaves (no Set after it arrives).
  std::size_t moving = 0;
  watchEveryStep([&](const Smp& smp) {
    const bool moves = movesAPort(smp);
    if (moves) ++moving;
    return Fate::dropped(moving > holders_.size() / 3);
  });
  const auto t0 = wire_->now();
  (void)run(t0 + 25s, t0 + 15s);
  ASSERT_THAT(answer_, StartsWith("ok:"));
  ASSERT_TRUE(std::filesystem::exists(previousFile())) << "the rotation is under way";
  std::size_t moved = 0;
  const security::KeyScheme next = readScheme();
  for (const Holder& h : holders_) moved += wire_->mkey(h.at) == next.keyFor(h.guid);
  ASSERT_GT(moved, 0u);
  ASSERT_LT(moved, holders_.size());

  // A new daemon on the same state directory reads both secrets and goes on.
  settings_.sweep.program.mKeys = next;
  ASSERT_TRUE(next.hasPrevious());
  watchEveryStep();
  const control::DaemonStatus s = run(wire_->now() + 40s);
  ASSERT_TRUE(up_) << logText_.str();
  EXPECT_EQ(steps_.bad, 0u) << steps_.firstBad;
  EXPECT_EQ(s.mads.mKeys.unknown, 0u);
  EXPECT_EQ(s.mads.mKeys.rotations, 1u);
  EXPECT_FALSE(s.mads.mKeys.rotating);
  // The first daemon's dark wire left violations of its own; none new here.
  expectEveryPortOnTheNewKey(/*noViolations=*/false);
  EXPECT_EQ(s.mads.timeouts, 0u) << logText_.str();
}

TEST_F(SmDaemonKeyRotationTest, LostAnswersToTheMovingSetsStillConverge) {
  // Every Set that moves a port took, and its answer was lost: the engine
  // tries the new key next, which the port now holds.
  watchEveryStep([](const Smp& smp) {
    const bool moves = movesAPort(smp);
    return moves ? Fate::lostAnswer() : Fate{};
  });
  const auto t0 = wire_->now();
  const control::DaemonStatus s = run(t0 + 60s, t0 + 15s);
  ASSERT_TRUE(up_) << logText_.str();
  EXPECT_EQ(steps_.bad, 0u) << steps_.firstBad;
  expectEveryPortOnTheNewKey();
  EXPECT_EQ(s.mads.timeouts, 0u);
  EXPECT_EQ(s.mads.mKeys.rotations, 1u);
}

TEST_F(SmDaemonKeyRotationTest, LostRequestsOfTheMovingSetsStillConverge) {
  // The first copy of each moving Set is lost: the retry with the new key
  // is refused (the port still holds the old: one violation), the next
  // with the old key takes.
  std::set<std::uint64_t> lostOnce;
  watchEveryStep([&](const Smp& smp) {
    const bool moves = movesAPort(smp);
    return Fate::dropped(moves && lostOnce.insert(decodePortInfo(smp.data).mKey).second);
  });
  const auto t0 = wire_->now();
  const control::DaemonStatus s = run(t0 + 60s, t0 + 15s);
  ASSERT_TRUE(up_) << logText_.str();
  EXPECT_EQ(steps_.bad, 0u) << steps_.firstBad;
  EXPECT_EQ(lostOnce.size(), holders_.size());
  expectEveryPortOnTheNewKey(/*noViolations=*/false);
  EXPECT_EQ(s.mads.timeouts, 0u);
  EXPECT_EQ(s.mads.mKeys.rotations, 1u);
}

TEST_F(SmDaemonKeyRotationTest, TheIntervalRotatesAsMaster) {
  settings_.mKeyRotation.interval = 600s;
  watchEveryStep();
  // From when the fabric is up and protected (keys are 0 before bring-up).
  const auto t0 = wire_->now();
  const control::DaemonStatus s = run(t0 + 640s, std::nullopt, t0 + 15s);
  ASSERT_TRUE(up_) << logText_.str();
  EXPECT_EQ(steps_.bad, 0u) << steps_.firstBad;
  EXPECT_EQ(s.mads.mKeys.rotations, 1u);
  expectEveryPortOnTheNewKey();
}

TEST_F(SmDaemonKeyRotationTest, ARotationIsRefusedOnAStandbyAndWhileOneIsStarting) {
  std::string before;
  std::string second;
  const auto t0 = wire_->now();
  {
    loop::EventLoop loop{wire_->clock()};
    MadEngine engine(*wire_,
                     MadEngineOptions{.clock = loop.clock(), .waiter = &loop, .logger = logger_});
    StateStore store(stateDir_ / "state");
    ASSERT_TRUE(store.prepare());
    SmDaemon daemon(engine, loop, store, wire_->fabric().port(smPortOf(tree())).guid, settings_, {},
                    logger_);
    before = daemon.rotateKeys();  // not master yet
    const auto asked = loop.at(t0 + 15s, [&] {
      answer_ = daemon.rotateKeys();
      second = daemon.rotateKeys();
    });
    const auto stop = loop.at(t0 + 20s, [&] { daemon.signal(SIGTERM); });
    EXPECT_EQ(daemon.run(), 0);
    loop.cancel(asked);
    loop.cancel(stop);
  }
  EXPECT_THAT(before, StartsWith("error: M_Keys rotate only on the master SM"));
  EXPECT_THAT(answer_, StartsWith("ok:"));
  EXPECT_THAT(second, StartsWith("error: a rotation is starting already"));
}

TEST_F(SmDaemonKeyRotationTest, OneFixedKeyCannotRotate) {
  settings_.sweep.program.mKeys = security::KeyScheme::single(0x77);
  const auto t0 = wire_->now();
  (void)run(t0 + 20s, t0 + 15s);
  EXPECT_THAT(answer_, StartsWith("error:"));
  EXPECT_THAT(answer_, HasSubstr("sm.m_key"));
  EXPECT_FALSE(std::filesystem::exists(previousFile()));
}

}  // namespace
}  // namespace ibsm::sm::manager
