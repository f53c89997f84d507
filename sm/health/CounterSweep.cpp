#include "sm/health/CounterSweep.h"

#include <algorithm>
#include <set>
#include <utility>

namespace ibsm::sm::health {

struct CounterSweep::Pass {
  std::vector<NodeTargets> nodes;
  std::function<void()> done;
  MadClock::time_point startedAt;
  std::uint64_t sentBefore{0};
  std::size_t inFlight{0};  // GMPs of this pass not completed yet
};

// One port's PortCounters and, where asked, PortCountersExtended: both
// answers (or failures) before the reading is made.
struct CounterSweep::PortRead {
  CounterTarget target;
  std::optional<PortCounters> counters;
  std::optional<PortCountersExtended> extended;
  unsigned waiting{0};
};

namespace {

PerfRequest getOf(Lid lid, std::uint16_t attribute, const PerfData& data) {
  GmpAddress to;  // QP1, its Q_Key, SL 0, the default P_Key
  to.lid = lid;
  return PerfRequest{.to = to,
                     .method = perfMethod::kGet,
                     .attributeId = attribute,
                     .attributeModifier = 0,
                     .data = data};
}

bool anyPortReset(const PortUpdate& u) {
  return std::ranges::any_of(u.deltas, [](const CounterDelta& d) { return d.portReset; });
}

bool wentDown(const PortReading& before, const PortReading& now) {
  for (std::size_t i = 0; i < kCounterCount; ++i)
    if (now.values[i] < before.values[i]) return true;
  return false;
}

}  // namespace

CounterSweep::CounterSweep(PerfRequester& perf, CounterSweepClocks clocks)
    : perf_(perf), clocks_(std::move(clocks)) {}

// The requester must not call back into a sweep that is gone: whoever owns
// both cancels the requester's work first (cancelAll) when a pass runs.
CounterSweep::~CounterSweep() = default;

bool CounterSweep::start(const Fabric& fabric, std::function<void()> done) {
  if (pass_) return false;
  pass_ = std::make_unique<Pass>();
  ++passNumber_;
  pass_->nodes = counterTargets(fabric);
  pass_->done = std::move(done);
  pass_->startedAt = clocks_.steady();
  pass_->sentBefore = perf_.counters().sent;
  // A token of its own while submitting: a send refused at once completes
  // its request inside submit(), which must not end the pass early.
  ++pass_->inFlight;
  for (std::size_t n = 0; n < pass_->nodes.size(); ++n) startNode(n);
  settle();
  return true;
}

void CounterSweep::startNode(std::size_t node) {
  const NodeTargets& t = pass_->nodes[node];
  if (classPortInfo_.contains(t.node)) {
    readSum(node);
    return;
  }
  ++pass_->inFlight;
  perf_.submit(getOf(t.lid, perfAttr::kClassPortInfo, PerfData{}),
               [this, node](const PerfReply& r) {
                 if (r.ok()) {
                   classPortInfo_[pass_->nodes[node].node] = decodePerfClassPortInfo(r.mad->data);
                   readSum(node);
                 }
                 settle();
               });
}

void CounterSweep::readSum(std::size_t node) {
  const NodeTargets& t = pass_->nodes[node];
  if (!readsFor(t, classPortInfo_.at(t.node)).allPortSelect) {
    readPorts(node);
    return;
  }
  ++pass_->inFlight;
  ++figures_.allPortReads;
  perf_.submit(
      getOf(t.lid, perfAttr::kPortCounters, encode(PortCounters{.portSelect = kAllPortSelect})),
      [this, node](const PerfReply& r) {
        const NodeTargets& t = pass_->nodes[node];
        if (r.outcome == PerfOutcome::Cancelled) {
          // the pass is being dropped: nothing more to ask
        } else if (!r.ok()) {
          readPorts(node);  // no sum: the ports are read as without one
        } else {
          const PortReading sum = readingOf(decodePortCounters(r.mad->data));
          const auto before = sums_.find(t.node);
          const std::optional<PortReading> was =
              before == sums_.end() ? std::nullopt : std::optional(before->second.sum);
          if (was && wentDown(*was, sum)) classPortInfo_.erase(t.node);  // rebooted?
          NodeSum& kept = sums_[t.node];
          kept.sum = sum;
          if (portsNeedReading(was, sum)) {
            kept.movedPass = passNumber_;
            readPorts(node);
          } else {
            readPortsNotSpared(node, kept.movedPass);
          }
        }
        settle();
      });
}

void CounterSweep::readPorts(std::size_t node) {
  const NodeTargets& t = pass_->nodes[node];
  const auto cpi = classPortInfo_.find(t.node);
  const bool extended = cpi != classPortInfo_.end() && readsFor(t, cpi->second).extended;
  for (const CounterTarget& port : t.ports) readPort(port, extended);
}

// The sum stood still: only the ports it does not vouch for are read.
void CounterSweep::readPortsNotSpared(std::size_t node, std::uint64_t sumMovedPass) {
  const NodeTargets& t = pass_->nodes[node];
  const auto cpi = classPortInfo_.find(t.node);  // gone when the sum's data counters went down
  const bool extended = cpi != classPortInfo_.end() && readsFor(t, cpi->second).extended;
  for (const CounterTarget& port : t.ports) {
    const auto m = memory_.find(port.port);
    const std::optional<std::uint64_t> readPass =
        m == memory_.end() ? std::nullopt : std::optional(m->second.readPass);
    if (portMayBeSpared(readPass, sumMovedPass, passNumber_)) {
      ++figures_.portReadsSpared;
    } else {
      readPort(port, extended);
    }
  }
}

void CounterSweep::readPort(const CounterTarget& target, bool extended) {
  auto read = std::make_shared<PortRead>();
  read->target = target;
  read->waiting = extended ? 2 : 1;
  ++figures_.portReads;
  auto oneDone = [this, read] {
    if (--read->waiting == 0) portRead(*read);
    settle();
  };
  pass_->inFlight += read->waiting;
  perf_.submit(getOf(target.lid, perfAttr::kPortCounters,
                     encode(PortCounters{.portSelect = target.portSelect})),
               [read, oneDone](const PerfReply& r) {
                 if (r.ok()) read->counters = decodePortCounters(r.mad->data);
                 oneDone();
               });
  if (!extended) return;
  perf_.submit(getOf(target.lid, perfAttr::kPortCountersExtended,
                     encode(PortCountersExtended{.portSelect = target.portSelect})),
               [read, oneDone](const PerfReply& r) {
                 if (r.ok()) read->extended = decodePortCountersExtended(r.mad->data);
                 oneDone();
               });
}

void CounterSweep::portRead(const PortRead& read) {
  if (!read.counters) return;  // unanswered: the port keeps its last reading
  const PortReading now =
      read.extended ? readingOf(*read.counters, *read.extended) : readingOf(*read.counters);
  const auto steadyNow = clocks_.steady();
  auto it = memory_.find(read.target.port);
  const bool first = it == memory_.end();
  std::optional<PortCounterState> before;
  double seconds = 0;
  if (!first) {
    const PortMemory& was = it->second;
    before = PortCounterState{
        .last = was.view.last, .totals = was.view.totals, .resetAfterLast = was.resetAfterLast};
    seconds = std::chrono::duration<double>(steadyNow - was.readAt).count();
  }
  const PortUpdate u = advance(before, now, seconds);
  PortMemory& m = first ? memory_[read.target.port] : it->second;
  m.resetAfterLast = {};
  m.readAt = steadyNow;
  m.readPass = passNumber_;
  PortCounterView& v = m.view;
  v.port = read.target.port;
  v.lid = read.target.lid;
  v.name = read.target.name;
  v.last = now;
  v.totals = u.totals;
  v.rates = u.rates;
  v.lastDelta = u.deltas;
  v.readAt = clocks_.wall();
  ++v.reads;
  if (!first && anyPortReset(u)) {
    ++v.portResets;
    classPortInfo_.erase(read.target.port.node);  // rebooted: its PMA may have changed
  }
  if (u.toReset.any()) resetCounters(read.target, u.toReset);
}

void CounterSweep::resetCounters(const CounterTarget& target, const CounterSet& counters) {
  const CounterSelectBits bits = counterSelectFor(counters);
  ++figures_.resets;
  ++pass_->inFlight;
  PerfRequest set = getOf(target.lid, perfAttr::kPortCounters,
                          encode(PortCounters{.portSelect = target.portSelect,
                                              .counterSelect = bits.counterSelect,
                                              .counterSelect2 = bits.counterSelect2}));
  set.method = perfMethod::kSet;
  perf_.submit(std::move(set), [this, key = target.port, counters](const PerfReply& r) {
    // Only a Set that was answered cleared them: the next read then counts
    // from zero. Unanswered, the next read still sees them saturated.
    if (r.ok()) memory_.at(key).resetAfterLast = counters;
    settle();
  });
}

void CounterSweep::settle() {
  if (--pass_->inFlight == 0) finish();
}

void CounterSweep::finish() {
  std::unique_ptr<Pass> pass = std::move(pass_);
  lastPass_.clear();
  for (const NodeTargets& n : pass->nodes)
    for (const CounterTarget& t : n.ports)
      if (memory_.contains(t.port)) lastPass_.push_back(t.port);
  forgetGone(*pass);
  const PerfRequesterCounters& c = perf_.counters();
  ++figures_.passes;
  figures_.gmpsSent = c.sent;
  figures_.timeouts = c.timeouts;
  figures_.errors = c.errors;
  figures_.lastPassGmps = c.sent - pass->sentBefore;
  figures_.lastPassDuration =
      std::chrono::duration_cast<std::chrono::milliseconds>(clocks_.steady() - pass->startedAt);
  figures_.lastPassAt = clocks_.wall();
  if (pass->done) pass->done();
}

// Ports out of the fabric for forgetAfter, and the nodes none of whose
// ports is remembered any more (their ClassPortInfo and switch-wide sum).
void CounterSweep::forgetGone(const Pass& pass) {
  std::set<Guid> inFabric;
  for (const NodeTargets& n : pass.nodes) inFabric.insert(n.node);
  const auto oldest = clocks_.steady() - clocks_.forgetAfter;
  std::set<PortKey> inPass(lastPass_.begin(), lastPass_.end());
  std::erase_if(memory_, [&](const auto& entry) {
    return !inPass.contains(entry.first) && entry.second.readAt < oldest;
  });
  std::set<Guid> remembered;
  for (const auto& [key, m] : memory_) remembered.insert(key.node);
  const auto gone = [&](const auto& entry) {
    return !inFabric.contains(entry.first) && !remembered.contains(entry.first);
  };
  std::erase_if(classPortInfo_, gone);
  std::erase_if(sums_, gone);
}

std::vector<PortCounterView> CounterSweep::lastPassPorts() const {
  std::vector<PortCounterView> out;
  out.reserve(lastPass_.size());
  forEachPort([&](const PortCounterView& v) { out.push_back(v); });
  return out;
}

void CounterSweep::fillFigures(HealthView& view) const {
  const bool enabled = view.counterSweep.enabled;
  const auto interval = view.counterSweep.interval;
  view.counterSweep = figures_;
  view.counterSweep.enabled = enabled;
  view.counterSweep.interval = interval;
}

}  // namespace ibsm::sm::health
