// Several state machines in one simulated subnet, performing each other's
// actions as the wire would (discovery sees the others' SMInfo, polls and
// control packets reach the SM addressed, dead SMs answer nothing): however
// they start and whoever dies, they settle on one master, the best-ranked
// SM alive, with the others standing by and polling it.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "sm/fsm/Election.h"
#include "sm/fsm/SmStateMachine.h"
#include "tests/sm/fsm/FsmSpecs.h"

namespace ibsm::sm::fsm {
namespace {

struct SimSm {
  SmContext ctx;
  State state;
  bool alive{false};
  int takeOvers{0};  // first sweeps as master: each keeps the fabric's LIDs
};

// Events travel through one FIFO queue, so work started by several SMs
// interleaves: an SM's discovery sees the others as they were when it began.
class Subnet {
 public:
  std::size_t add(std::uint64_t guid, std::uint8_t priority, std::uint64_t key = 0) {
    SimSm sm;
    sm.ctx.self = smInfo(guid, priority, SmState::NotActive, key);
    sms_.push_back(sm);
    return sms_.size() - 1;
  }
  // Starts an SM; its discovery runs when the queue gets to it.
  void boot(std::size_t i) {
    sms_[i].alive = true;
    const auto t = start();
    sms_[i].state = t.state;
    perform(i, t.actions);
  }
  void kill(std::size_t i) { sms_[i].alive = false; }
  void stop(std::size_t i) {
    post(i, Event::stop());
    run();
  }

  // One polling/sweep interval: every live SM's timers fire, and all that
  // follows from them runs to completion.
  void tick() {
    for (std::size_t i = 0; i < sms_.size(); ++i) {
      post(i, Event::pollTimer());
      post(i, Event::sweepTimer());
    }
    run();
  }
  void ticks(int n) {
    run();
    for (int k = 0; k < n; ++k) tick();
  }

  const SimSm& sm(std::size_t i) const { return sms_[i]; }
  SmState shown(std::size_t i) const { return smStateOf(sms_[i].state.phase); }

  // The IBA outcome: one master, the best live SM; the others standing by for it.
  void expectSettled() const {
    std::size_t master = sms_.size();  // none yet
    for (std::size_t i = 0; i < sms_.size(); ++i)
      if (sms_[i].alive &&
          (master == sms_.size() || outranks(sms_[i].ctx.self, sms_[master].ctx.self)))
        master = i;
    ASSERT_LT(master, sms_.size()) << "no SM alive";
    for (std::size_t i = 0; i < sms_.size(); ++i) {
      if (!sms_[i].alive) continue;
      SCOPED_TRACE(fmt::format("SM {} in {}", sms_[i].ctx.self.guid, name(sms_[i].state.phase)));
      if (i == master) {
        EXPECT_EQ(shown(i), SmState::Master);
      } else {
        EXPECT_EQ(sms_[i].state.phase, Phase::Standby);
        EXPECT_EQ(sms_[i].state.master, sms_[master].ctx.self.guid);
      }
    }
  }

 private:
  struct Item {
    std::size_t to;
    Event event;
    std::optional<std::size_t> handoverFrom;  // answer the HANDOVER back to this SM
  };

  void post(std::size_t to, Event e, std::optional<std::size_t> handoverFrom = {}) {
    queue_.push_back({to, std::move(e), handoverFrom});
  }

  void run() {
    for (int guard = 0; !queue_.empty(); ++guard) {
      ASSERT_LT(guard, 100000) << "the SMs never settle";
      Item item = std::move(queue_.front());
      queue_.pop_front();
      const bool accepted = deliver(item.to, item.event);
      if (item.handoverFrom) post(*item.handoverFrom, Event::handoverAnswered(accepted));
    }
  }

  // The SMInfo `i` shows to `viewer`: the real SM_Key only to one presenting it.
  SmInfo infoOf(std::size_t i, std::uint64_t viewerKey) const {
    SmInfo info = sms_[i].ctx.self;
    info.smState = smStateOf(sms_[i].state.phase);
    if (info.smKey != viewerKey) info.smKey = 0;
    return info;
  }
  std::vector<SmInfo> othersSeenBy(std::size_t i) const {
    std::vector<SmInfo> seen;
    for (std::size_t j = 0; j < sms_.size(); ++j)
      if (j != i && sms_[j].alive) seen.push_back(infoOf(j, sms_[i].ctx.self.smKey));
    return seen;
  }
  std::optional<std::size_t> find(Guid guid) const {
    for (std::size_t j = 0; j < sms_.size(); ++j)
      if (sms_[j].ctx.self.guid == guid) return j;
    return std::nullopt;
  }

  // Feeds one event to a live SM and performs its actions; true when the
  // event was a Set(SMInfo) it accepted. A dead SM answers nothing.
  bool deliver(std::size_t i, const Event& e) {
    if (!sms_[i].alive) return false;
    const auto t = next(sms_[i].ctx, sms_[i].state, e);
    sms_[i].state = t.state;
    perform(i, t.actions);
    return !t.actions.empty() && t.actions.front().kind == ActionKind::AnswerSet &&
           t.actions.front().accepted;
  }

  // A control packet from `i`, carrying i's SMInfo saying `state`.
  void control(std::size_t i, Guid peer, std::uint32_t modifier, SmState state,
               std::optional<std::size_t> answerTo) {
    SmInfo payload = sms_[i].ctx.self;
    payload.smState = state;
    if (auto j = find(peer)) post(*j, Event::smInfoSet(modifier, payload), answerTo);
  }

  void perform(std::size_t i, const std::vector<Action>& actions) {
    for (const auto& a : actions) {
      switch (a.kind) {
        case ActionKind::Discover:
          post(i, Event::discoveryDone(true, othersSeenBy(i)));
          break;
        case ActionKind::TakeOver:
          ++sms_[i].takeOvers;
          [[fallthrough]];
        case ActionKind::HeavySweep:
          post(i, Event::heavySweepDone(true, true, othersSeenBy(i)));
          break;
        case ActionKind::LightSweep:
          post(i, Event::lightSweepDone(true, false));
          break;
        case ActionKind::Rebalance:
        case ActionKind::Replan:
          post(i, Event::passDone(true));
          break;
        case ActionKind::PollMaster: {
          const auto j = find(a.peer);
          if (j && sms_[*j].alive)
            post(i, Event::masterAnswered(infoOf(*j, sms_[i].ctx.self.smKey)));
          else
            post(i, Event::masterSilent());
          break;
        }
        case ActionKind::NotifyMaster:
          if (auto j = find(a.peer)) post(*j, Event::trap(true));
          break;
        case ActionKind::SendHandover:
          control(i, a.peer, sminfo::kHandover, a.smState, i);
          break;
        case ActionKind::SendAcknowledge:
          control(i, a.peer, sminfo::kAcknowledge, a.smState, std::nullopt);
          break;
        default:  // AnswerSet is the delivery's result; state, reload, stop need no wire
          break;
      }
    }
  }

  std::vector<SimSm> sms_;
  std::deque<Item> queue_;
};

TEST(Convergence, SmsStartingTogetherElectTheHighestPriority) {
  Subnet net;
  const auto a = net.add(0x10, 3), b = net.add(0x20, 9), c = net.add(0x30, 5);
  net.boot(a);
  net.boot(b);
  net.boot(c);
  net.ticks(2);
  net.expectSettled();
  EXPECT_EQ(net.shown(b), SmState::Master);
}

TEST(Convergence, EqualPrioritiesGoToTheLowerGuid) {
  Subnet net;
  const auto a = net.add(0x20, 5), b = net.add(0x10, 5);
  net.boot(a);
  net.boot(b);
  net.ticks(2);
  net.expectSettled();
  EXPECT_EQ(net.shown(b), SmState::Master);
}

TEST(Convergence, ABetterSmStartedLaterGetsTheSubnetByHandoverAndTakesItOver) {
  Subnet net;
  const auto low = net.add(0x10, 5), high = net.add(0x20, 10);
  net.boot(low);
  net.ticks(1);
  EXPECT_EQ(net.shown(low), SmState::Master);
  net.boot(high);  // finds a worse master: standby, Trap 144, the master hands over
  net.ticks(1);
  net.expectSettled();
  EXPECT_EQ(net.shown(high), SmState::Master);
  EXPECT_EQ(net.sm(high).takeOvers, 1);  // adopted the fabric: no LID changes
}

TEST(Convergence, AStandbyTakesOverAfterTheMastersPollsRunOut) {
  Subnet net;
  const auto m = net.add(0x10, 9), s = net.add(0x20, 5);
  net.boot(m);
  net.boot(s);
  net.ticks(1);
  net.expectSettled();
  net.kill(m);
  for (std::uint32_t i = 1; i < kDefaultPollingRetries; ++i) {
    net.tick();
    EXPECT_EQ(net.sm(s).state.phase, Phase::Standby) << "after " << i << " missed polls";
  }
  net.tick();
  EXPECT_EQ(net.shown(s), SmState::Master);
  EXPECT_EQ(net.sm(s).takeOvers, 1);
  net.expectSettled();
}

TEST(Convergence, AMasterStoppedCleanlyIsReplacedLikeADeadOne) {
  Subnet net;
  const auto m = net.add(0x10, 9), s = net.add(0x20, 5);
  net.boot(m);
  net.boot(s);
  net.ticks(1);
  net.stop(m);  // answers NOTACTIVE until it exits
  net.ticks(static_cast<int>(kDefaultPollingRetries));
  EXPECT_EQ(net.shown(s), SmState::Master);
}

TEST(Convergence, TheOldMasterComingBackWithHigherPriorityGetsItBack) {
  Subnet net;
  const auto m = net.add(0x10, 9), s = net.add(0x20, 5);
  net.boot(m);
  net.boot(s);
  net.ticks(1);
  net.kill(m);
  net.ticks(static_cast<int>(kDefaultPollingRetries));
  net.boot(m);
  net.ticks(1);
  net.expectSettled();
  EXPECT_EQ(net.shown(m), SmState::Master);
}

// Random priorities, boot orders and deaths: always one master, the best alive.
TEST(Convergence, RandomSubnetsAlwaysSettleOnTheBestLiveSm) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937 rng(seed);
    Subnet net;
    const int n = 2 + static_cast<int>(rng() % 4);
    std::vector<std::size_t> order;
    order.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      order.push_back(net.add(0x100 + 0x10 * i + rng() % 16, static_cast<std::uint8_t>(rng() % 4)));
    std::shuffle(order.begin(), order.end(), rng);
    for (auto i : order) {
      net.boot(i);
      // Sometimes the next SM boots while this one is still discovering.
      if (const int gap = static_cast<int>(rng() % 3); gap > 0) net.ticks(gap - 1);
    }
    // Standbys that followed an SM which since handed over find the master
    // again after their polls run out.
    net.ticks(static_cast<int>(kDefaultPollingRetries) + 2);
    net.expectSettled();
    if (::testing::Test::HasFailure()) return;
    // Kill one (often the master), let the polls run out, check again.
    net.kill(order[rng() % order.size()]);
    net.ticks(static_cast<int>(kDefaultPollingRetries) + 2);
    net.expectSettled();
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace ibsm::sm::fsm
