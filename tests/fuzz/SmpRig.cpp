#include "tests/fuzz/SmpRig.h"

#include <fmt/format.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

#include "sm/fsm/SmMachine.h"
#include "sm/mad/MadEngine.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/sa/Notices.h"
#include "sm/sa/Notifier.h"
#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/SaResponder.h"
#include "tests/fuzz/SmallSubnet.h"

namespace ibsm::fuzz {
namespace {

using namespace std::chrono_literals;
using sm::fsm::ActionKind;
using sm::fsm::Event;
using sm::fsm::Phase;

// The wire: MADs queued by the rig come out of receive() in order; when
// none is left, time jumps to the deadline. What the engine sends is kept.
class ByteWire final : public MadTransport {
 public:
  struct Sent {
    MadBuffer mad;
    MadAddress to;
  };

  [[nodiscard]] Result<void> send(const MadBuffer& mad, MadAddress to) override {
    sent_.push_back({mad, to});
    return {};
  }
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    if (inbox_.empty()) {
      now_ = std::max(now_, deadline);
      return std::optional<ReceivedMad>{};
    }
    ReceivedMad next = inbox_.front();
    inbox_.pop_front();
    return std::optional<ReceivedMad>{next};
  }
  int pollFd() const override { return -1; }

  void push(const ReceivedMad& mad) { inbox_.push_back(mad); }
  std::vector<Sent> takeSent() { return std::exchange(sent_, {}); }
  MadClock::time_point now() const { return now_; }

 private:
  std::deque<ReceivedMad> inbox_;
  std::vector<Sent> sent_;
  MadClock::time_point now_{};
};

// Built once: the fabric, its SA with every host subscribed to every trap,
// the LIDs senders use.
struct Subnet {
  Subnet() : plan(smallSubnetOrDie()), sa(std::make_shared<sm::sa::SaResponder>()) {
    const NodeId sw = 0;
    sa->setSubnet(sm::sa::SaSubnet::build(
        {.plan = std::make_shared<const SubnetPlan>(plan), .smPort = {1, 1}}, {}));
    switchLid = plan.fabric.port({sw, 0}).lid;
    for (NodeId host = 1; host <= 3; ++host) {
      hostLids.push_back(plan.fabric.port({host, 1}).lid);
      subscribe(hostLids.back());
    }
    if (sa->subscriptions().size() != 3) die("SmpFuzz", "the hosts could not subscribe");
  }

  void subscribe(Lid host) {
    InformInfo info;
    info.lidRangeBegin = Lid{InformInfo::kAllLids};
    info.trapNumber = sm::sa::kAnyTrap;
    info.producerType = sm::sa::kAnyProducer;
    info.qpn = 1;
    SaMad set;
    set.header.method = saMethod::kSet;
    set.header.tid = host.value;
    set.header.attributeId = saAttr::kInformInfo;
    set.data = encodeRecord(info);
    GmpAddress from;
    from.lid = host;
    (void)sa->answer(encodeSaMad(set), from);
  }

  SubnetPlan plan;
  std::shared_ptr<sm::sa::SaResponder> sa;
  std::vector<Lid> hostLids;  // hosts 1, 2, 3
  Lid switchLid;
};

const Subnet& subnet() {
  static const Subnet* instance = new Subnet;  // never destroyed: libFuzzer may exit anywhere
  return *instance;
}

std::shared_ptr<spdlog::logger> quietLog() {
  // Every level on, into nothing: the log lines are formatted, so a field
  // that cannot be formatted is found too.
  static const auto log = [] {
    auto l = std::make_shared<spdlog::logger>("smpfuzz",
                                              std::make_shared<spdlog::sinks::null_sink_st>());
    l->set_level(spdlog::level::trace);
    return l;
  }();
  return log;
}

MadAddress senderAddress(RigSender sender) {
  switch (sender) {
    case RigSender::Host2:
      return MadAddress::toLid(subnet().hostLids[1]);
    case RigSender::Host3:
      return MadAddress::toLid(subnet().hostLids[2]);
    case RigSender::Switch:
      return MadAddress::toLid(subnet().switchLid);
    case RigSender::Directed:
      break;
  }
  return MadAddress::directed();
}

SmInfo peer(std::uint8_t priority, SmState state) {
  return SmInfo{
      .guid = kPeerGuid, .smKey = kSmKey, .actCount = 1, .priority = priority, .smState = state};
}

}  // namespace

std::uint8_t setupByte(RigPhase phase, bool portMKey, RigSender sender) {
  return static_cast<std::uint8_t>(static_cast<unsigned>(phase) | (portMKey ? 0x08U : 0U) |
                                   (static_cast<unsigned>(sender) << 4));
}

namespace {

// One SM as the daemon wires it (SmDaemon::Impl::run): the agent's Set
// handler is the machine's verdict, its trap handler forwards the notice
// while master and feeds the machine.
class Sm {
 public:
  explicit Sm(std::uint8_t setup)
      : engine_(wire_, options()),
        agent_(engine_, self(), quietLog()),
        machine_(sm::fsm::SmContext{.self = self()}),
        notifier_(subnet().sa, kDefaultSubnetPrefix),
        from_(senderAddress(static_cast<RigSender>((setup >> 4) & 0x3U))) {
    if (setup & 0x08U) agent_.setPortMKey(kPortMKey);
    agent_.onSmInfoSet([this](std::uint32_t modifier, const SmInfo& sender) {
      ++out_.setsHandled;
      return machine_.feed(Event::smInfoSet(modifier, sender));
    });
    // Every trap stands here (the daemon's TrapService, which may hold a
    // noisy port's back, is not in the rig): forwarded, and its sweep asked.
    agent_.onTrap([this](const Notice& notice, const sm::manager::TrapOrigin& origin) {
      ++out_.traps;
      trap_ = notice.trapNumber;
      if (agent_.self().smState == SmState::Master)
        notifier_.trapReceived(notice, origin.issuer, now());
      machine_.feed(Event::trap(notice.trapNumber == 144));
      return true;
    });
    perform();
    enter(static_cast<RigPhase>(setup & 0x7U));
  }

  void receive(const MadBuffer& mad) {
    trap_.reset();
    wire_.push(ReceivedMad{.mad = mad, .from = from_});
    if (auto ran = engine_.runUntil(now() + 1ms); !ran)
      violation("the engine failed: " + ran.error().message);
    checkSent(mad, wire_.takeSent());
    perform();
    checkReports();
  }

  RigOutcome finish() {
    out_.finalState = agent_.self().smState;
    return std::move(out_);
  }

 private:
  static SmInfo self() {
    return SmInfo{.guid = kOurGuid,
                  .smKey = kSmKey,
                  .actCount = 0,
                  .priority = 8,
                  .smState = SmState::Discovering};
  }
  MadEngineOptions options() {
    MadEngineOptions o;
    o.clock = [this] { return wire_.now(); };
    o.logger = quietLog();
    return o;
  }
  MadClock::time_point now() const { return wire_.now(); }

  void violation(std::string what) { out_.violations.push_back(std::move(what)); }
  void enter(RigPhase phase);
  void feed(const Event& e) {
    machine_.feed(e);
    perform();
  }
  void perform();
  void checkSent(const MadBuffer& request, const std::vector<ByteWire::Sent>& sent);
  void checkAnswer(const Smp& request, const Smp& answer);
  void checkReports();

  ByteWire wire_;
  MadEngine engine_;
  sm::manager::SmInfoAgent agent_;
  sm::fsm::SmMachine machine_;
  sm::sa::Notifier notifier_;
  MadAddress from_;
  std::optional<std::uint16_t> trap_;  // the trap number the agent handed on
  RigOutcome out_;
};

// The daemon performs the machine's actions in its loop; here only the
// one the agent shows matters (SetSmState). The work actions (sweeps,
// polls) are what the setup answers with events, and are dropped here.
void Sm::perform() {
  while (auto a = machine_.take()) {
    if (a->kind == ActionKind::SetSmState) agent_.setState(a->smState);
  }
  const SmState shown = sm::fsm::smStateOf(machine_.state().phase);
  if (agent_.self().smState != shown)
    violation(fmt::format("SMInfo shows {} in phase {}", sm::fsm::name(agent_.self().smState),
                          sm::fsm::name(machine_.state().phase)));
}

void Sm::enter(RigPhase phase) {
  switch (phase) {
    case RigPhase::Discovering:
      break;
    case RigPhase::Standby:
      feed(Event::discoveryDone(true, {peer(15, SmState::Master)}));
      break;
    case RigPhase::MasterIdle:
    case RigPhase::MasterSweeping:
      feed(Event::discoveryDone(true, {}));
      feed(Event::heavySweepDone(true, true, {}));
      if (phase == RigPhase::MasterSweeping) feed(Event::sweepTimer());
      break;
    case RigPhase::NotActive:
      feed(Event::discoveryDone(true, {peer(15, SmState::Master)}));
      feed(Event::smInfoSet(sm::fsm::sminfo::kDisable, peer(15, SmState::Master)));
      break;
    case RigPhase::MasterHandover:
      feed(Event::discoveryDone(true, {}));
      feed(Event::heavySweepDone(true, true, {peer(15, SmState::Standby)}));
      break;
    case RigPhase::MasterWaiting:
      feed(Event::discoveryDone(true, {}));
      feed(Event::heavySweepDone(true, true, {peer(1, SmState::Master)}));
      break;
    case RigPhase::Stopped:
      feed(Event::stop());
      break;
  }
}

void Sm::checkSent(const MadBuffer& request, const std::vector<ByteWire::Sent>& sent) {
  if (sent.empty()) return;
  if (sent.size() > 1) violation(fmt::format("{} SMPs sent for one received", sent.size()));
  const auto asked = decodeSmp(request);
  if (!asked) return violation("an answer to a MAD that does not decode");
  for (const ByteWire::Sent& s : sent) {
    if (s.to != from_) violation(fmt::format("an answer to LID {}, not the sender", s.to.lid));
    const auto answer = decodeSmp(s.mad);
    if (!answer) {
      violation("an answer that does not decode: " + answer.error().message);
      continue;
    }
    checkAnswer(*asked, *answer);
  }
}

void Sm::checkAnswer(const Smp& request, const Smp& answer) {
  const SmpHeader& q = request.header;
  const SmpHeader& a = answer.header;
  if (a.mgmtClass != q.mgmtClass || a.tid != q.tid || a.attributeId != q.attributeId ||
      a.attributeModifier != q.attributeModifier)
    violation("an answer that does not match its request (class, TID, attribute, modifier)");
  if (a.method == Method::TrapRepress) {
    ++out_.represses;
    if (q.method != Method::Trap) violation("a TrapRepress to something not a trap");
    return;
  }
  if (a.method != Method::GetResp) return violation("an answer that is no GetResp");
  ++out_.answers;
  if (a.status != 0) ++out_.refusals;
  if (a.attributeId != AttributeId::SmInfo || a.status != 0) return;
  const SmInfo shown = decodeSmInfo(answer.data);
  out_.smInfoAnswers.push_back(shown);
  if (shown.guid != kOurGuid) violation("our SMInfo with another GUID");
  if (shown.smKey != kSmKey && shown.smKey != 0) violation("our SMInfo with a key not ours");
}

void Sm::checkReports() {
  const auto due = notifier_.due(now());
  out_.reports += due.size();
  if (due.size() > subnet().sa->subscriptions().size())
    violation(fmt::format("{} Reports for one trap to {} subscribers", due.size(),
                          subnet().sa->subscriptions().size()));
  for (const OutgoingGmp& g : due) {
    const auto report = decodeSaMad(g.mad);
    if (!report) {
      violation("a Report that does not decode: " + report.error().message);
      continue;
    }
    if (report->header.method != saMethod::kReport || report->header.attributeId != saAttr::kNotice)
      violation("a Report that is no Report(Notice)");
    const auto notice = decodeRecord<SaNotice>(report->data);
    if (!notice || !trap_ || notice->notice.trapNumber != *trap_)
      violation("a Report of a notice other than the trap received");
  }
}

}  // namespace

RigOutcome runSmpInput(std::span<const std::uint8_t> input) {
  if (input.empty()) return {};
  Sm sm(input[0]);
  const auto mads = input.subspan(1);
  for (std::size_t at = 0; at < mads.size() && at / kMadSize < kMaxMads; at += kMadSize) {
    MadBuffer mad{};
    const auto part = mads.subspan(at, std::min(kMadSize, mads.size() - at));
    std::ranges::copy(part, mad.begin());
    sm.receive(mad);
  }
  return sm.finish();
}

}  // namespace ibsm::fuzz
