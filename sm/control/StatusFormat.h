// What `ibsm status` shows: the daemon fills a DaemonStatus, the control
// socket sends it formatted. Text is one "key: value" per line so operators
// and scripts can grep it (`ibsm status | grep '^state:'`); --json carries
// the same fields and every counter (per-phase SMPs and times of the last
// sweeps) for tools, tests and benchmarks, which read these typed counters
// instead of log lines. `ibsm run --stats FILE` writes the same JSON when it
// ends, with how it ended (`exit`), for --once, which has no socket.
#pragma once

#include <ibsm/Ids.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm/control/HealthFormat.h"
#include "sm/control/SweepKind.h"
#include "sm/health/HealthView.h"
#include "sm/sa/SaCounters.h"

namespace ibsm::sm::control {

// One programming phase of a sweep (sm/program's PhaseReport).
struct PhaseCounters {
  std::string name;  // "read_tables", "pkeys", "sm_lid", "lids", "lfts", "mft_prune", "mfts", ...
  std::uint64_t smps{0};  // requests the phase sent, one per object
  std::uint64_t sent{0};  // transmissions, retries included
  std::uint64_t failed{0};
  std::uint64_t deferred{0};  // held back because an earlier step failed
  std::chrono::microseconds duration{0};
};

// Blocks of one table kind (SL2VL: whole tables) read and written, and the
// SMPs of that kind sent for them (reads and writes, failed ones included).
struct TableCounters {
  std::uint64_t read{0};
  std::uint64_t written{0};
  std::uint64_t smps{0};
};

// How a sweep's routes came about (routing.stable_routes).
struct RoutesCounters {
  std::string how;                  // "fresh", "kept" (routed under change), "fresh-fallback"
  std::string change;               // "capacity-lost", "hosts-only", ...; empty when fresh
  std::uint64_t kept{0};            // (switch, LID) entries kept from the previous tables
  std::uint64_t rerouted{0};        // of those whose previous path broke
  std::uint64_t reroutedBlocks{0};  // LFT blocks holding such an entry
  std::uint64_t busiest{0};         // busiest link of the result, routes
  std::uint64_t freshBusiest{0};    // that of fresh tables (0: not computed)
  std::string why;                  // why fresh tables were taken under change
};

// What a sweep that planned and programmed (heavy, takeover, reroute,
// replan, rebalance) found and cost.
struct SweepCounters {
  std::uint64_t discoveryMads{0};  // 0 when it rerouted or replanned without discovery
  std::uint64_t discoveryRetries{0};
  std::uint64_t discoveryTimeouts{0};
  std::uint64_t nodes{0};
  std::uint64_t cables{0};
  std::uint64_t discoveryProblems{0};
  std::uint64_t discoveryRecalled{0};  // answers lost on lossy routes, taken from the last sweep
  std::chrono::microseconds discoveryTime{0};
  std::chrono::microseconds planTime{0};  // LIDs and routing
  std::chrono::microseconds programTime{0};
  std::vector<PhaseCounters> phases;  // in programming order, those that ran
  TableCounters lft, pkey, sl2vl, mft;
  TableCounters vlarb;                   // VLArbitration blocks: QoS writes, the SA's reads
  std::optional<RoutesCounters> routes;  // sweeps that routed
  std::uint64_t portsConfigured{0};      // PortInfo Sets of the SM-LID and LID phases
  std::uint64_t portsArmed{0};
  std::uint64_t portsActivated{0};
  std::uint64_t enforcementKept{0};  // switch ports that kept their enforcement bits (PROG-0307)
  std::uint64_t portsKeyed{0};       // PortInfo Sets that wrote only the M_Key protection
  std::uint64_t failed{0};           // objects whose write failed or was deferred
  bool complete{false};              // everything the plan asked for is in place
  std::vector<std::string> reasons;  // why the subnet is not up after it
};

struct SweepInfo {
  SweepKind kind{SweepKind::Heavy};
  std::chrono::system_clock::time_point when;
  std::chrono::milliseconds duration{0};
  std::uint64_t mads{0};
  std::vector<std::string> changes;       // one line each, e.g. "port 0x... down"
  bool up{false};                         // every reachable port ACTIVE and every pair routed
  std::optional<SweepCounters> counters;  // sweeps that programmed
};

// Another SM as last read (its SMInfo).
struct OtherSm {
  Guid guid;
  std::uint8_t priority{0};
  std::string state;
};

// A change of the SMInfo state, when it happened (wall clock).
struct StateChange {
  std::string state;
  std::chrono::system_clock::time_point at;
};

// How `ibsm run` ended (the --stats file only: a running daemon has none).
struct DaemonExit {
  int code{0};
  // "up", "not up", "another SM has the subnet", "sweep failed",
  // "discovery failed", "stopped", "port failed", "control socket"
  std::string reason;
  std::vector<std::string> details;  // the reasons, the other SM, the error
  int signal{0};                     // "stopped": the signal
  std::string stoppedDuring;         // "stopped" mid-action: the phase it cut short
};

// Another SM whose SMInfo shows an SM_Key other than ours: another
// management domain, or a different sm_key in its configuration. It takes
// no part in our elections, and it ignores us as we ignore it, so both of
// us may be MASTER -- the worst state a subnet can be in, hence shown.
struct ForeignSm {
  Guid guid;
  std::string port;   // how we reach it, e.g. "DR 0,1,3"
  Lid lid{};          // its port's LID as discovered (0: none yet)
  std::string state;  // the state it shows: "MASTER", "STANDBY", ...
  std::uint8_t priority{0};
  std::uint64_t smKey{0};  // the key it shows: never printed, see shownSmKey()
};

// What may be said of the SM_Key another SM shows: "default" (OpenSM's
// well-known 0x1), "zero" (hidden from us, or unset) or "other". The key
// itself authenticates that SM's domain and is never printed (issue 29).
std::string_view shownSmKey(std::uint64_t key);

// Traps received from the fabric and what came of them (TrapService).
struct TrapCounters {
  std::uint64_t received{0};
  std::uint64_t stood{0};                 // traps that asked for a sweep
  std::uint64_t sweepsRequested{0};       // sweep requests fed to the machine
  std::uint64_t coalesced{0};             // traps answered by a request already held
  std::uint64_t noisyIgnored{0};          // traps of noisy ports: no sweep
  std::uint64_t noisyRequestsDropped{0};  // held requests whose ports all turned noisy
  std::uint64_t answeredBySweep{0};       // held requests a sweep begun after them answered
  std::uint64_t mismatched{0};            // dropped: the Notice named another port
  std::uint64_t logSuppressed{0};         // trap log lines held back
  std::uint64_t noisyEpisodes{0};         // times a port turned noisy
  std::uint64_t noisyPorts{0};            // noisy now
  std::uint64_t portsTracked{0};
  std::uint64_t portsForgotten{0};  // tracked ports dropped to stay bounded
  std::map<std::string, std::uint64_t> byNumber;
};

// Subnet Administration GMPs the daemon took from the port: every one
// received is answered or dropped for one of the reasons here.
struct SaTraffic {
  std::uint64_t received{0};
  std::uint64_t answered{0};            // an answer sent
  std::uint64_t droppedNotMaster{0};    // arrived while not MASTER
  std::uint64_t droppedUndecodable{0};  // shorter than a MAD header, or not SA class 0x03 v2
  std::uint64_t droppedNoResponder{0};  // master, but no SA to answer
  std::uint64_t notAnswered{0};         // the SA had nothing to send back (a ReportResp...)
  std::uint64_t sendFailed{0};          // the answer could not be sent
};

// The SA in `ibsm status`: the daemon's GMP traffic (SaService), what the
// responder counted answering (queries by attribute and method, errors and
// refused joins by status, answers its limits cut short, joins and leaves:
// sm/sa's own counters, whose ids the printers name), what it holds, and
// the notices.
struct SaStatus {
  SaTraffic traffic;
  sa::SaCounters answers;
  // The SA under load: its fair queue's counts as it keeps them, the
  // requesters waiting and the longest queue now (joins and ServiceRecords
  // refused over the per-port caps are in `answers`).
  sa::FairQueueCounters queue;
  std::uint64_t requestersWaiting{0};
  std::uint64_t largestQueue{0};
  std::uint64_t serviceRecords{0};
  std::uint64_t subscribers{0};
  std::uint64_t mcGroups{0};
  // Notices (sm/sa/Notifier.h): by trap number ("64", "65", "128"...),
  // generated or received, whether or not anyone subscribed; the
  // Report(Notice)s they became: first sends, sends again, acknowledged by
  // a ReportResp, given up after the retries, ReportResps that matched
  // nothing in flight, sends the port refused; subscriptions dropped with
  // their port.
  std::map<std::string, std::uint64_t> noticesByTrap;
  std::uint64_t reportsSent{0};
  std::uint64_t reportsRetried{0};
  std::uint64_t reportsAcknowledged{0};
  std::uint64_t reportsFailed{0};
  std::uint64_t reportsUnmatched{0};
  std::uint64_t reportSendFailed{0};
  std::uint64_t subscribersDropped{0};
};

// The responder's counts by id under the names an operator reads
// ("PathRecord", "GetTable", "no_records": SaNames.h); ids that share a
// name add up.
struct SaNamedCounts {
  std::map<std::string, std::uint64_t> byAttribute;
  std::map<std::string, std::uint64_t> byMethod;
  std::map<std::string, std::uint64_t> errorsByStatus;
  std::map<std::string, std::uint64_t> mcRefusedByStatus;
};
SaNamedCounts namedCounts(const sa::SaCounters& counts);

// Multicast as the daemon manages it (SmDaemon::manageMulticast): the
// groups and members routed by the last plan, and the passes between
// sweeps that programmed joins and leaves (their MFT blocks written and
// failed, and how long the last one took, joins to MFTs written).
struct MulticastCounts {
  bool managed{false};
  std::uint64_t groups{0};
  std::uint64_t members{0};
  std::uint64_t passes{0};
  std::uint64_t passesFailed{0};  // could not run; the next sweep programs the groups
  std::uint64_t passBlocksWritten{0};
  std::uint64_t passBlocksFailed{0};
  std::uint64_t membersDropped{0};    // with their port, gone from the fabric
  std::uint64_t membersForgotten{0};  // when this SM left MASTER (SmDaemon::Impl::forgetGroups)
  std::chrono::microseconds lastPass{0};
};

// The counter sweep (health.counter_interval): its figures since start
// (sm/health/HealthView.h CounterSweepFigures), and every error counter of
// the last pass whose total is not zero, one entry per port and counter.
struct CounterOverZero {
  std::string name;  // "sw0"[3] (0x...), Fabric::describe
  Guid node;
  std::uint8_t port{0};
  Lid lid;
  std::string counter;     // "SymbolErrorCounter"
  std::uint64_t total{0};  // since the SM first read the port
  bool lowerBound{false};  // counts were lost (saturation, the port's own reset)
  std::uint64_t last{0};   // the value the port held at the last read
};
struct HealthCounters {
  // The counter sweep's own figures, as it counts them (live, mid-pass
  // too), with enabled and interval from the settings.
  health::CounterSweepFigures figures;
  std::uint64_t ports{0};  // ports the last pass holds counters of
  // Actions (sweeps) that began while a pass was in flight: it sent
  // nothing new until they ended.
  std::uint64_t sweepsDuringPass{0};
  std::vector<CounterOverZero> overZero;
};

// The control socket since start (sm/control/ControlServer.h): requests
// answered, changing ones among them (sweep, readmit, log level: root only),
// requests refused to their peer, and clients closed for taking too long to
// ask, asking too much, or arriving when the read group's slots were full.
struct ControlCounts {
  std::uint64_t requests{0};
  std::uint64_t changing{0};
  std::uint64_t refused{0};
  std::uint64_t timedOut{0};
  std::uint64_t oversized{0};
  std::uint64_t busy{0};
};

// What the daemon holds now, sampled when the status is asked: its queues
// and its memory (the soak requires them flat over a long run).
struct ResourceCounts {
  std::size_t madOutstanding{0};  // SMPs on the wire (the MAD engine)
  std::size_t madQueued{0};       // SMPs waiting for the window
  std::size_t gmpOutstanding{0};  // PerfMgt GMPs on the wire
  std::size_t gmpQueued{0};
  std::size_t counterPorts{0};  // ports the counter sweep remembers
  std::uint64_t rssBytes{0};
  std::uint64_t heapInUse{0};
  std::uint64_t heapFree{0};        // freed, kept by the allocator
  std::uint64_t memoryReleases{0};  // free memory handed back (after heavy sweeps, counter passes)
  std::uint64_t metricsWrites{0};   // health.metrics_file written
  ControlCounts control{};          // shown at the top: JSON control.*, text "control:"
};

// What a standby (or an SM waiting on another) sees of the subnet it does
// not run: the master as its SMInfo last said (a poll's answer, else the
// discovery's read), and the ports as this SM's own discovery found them.
// The fabric is up as far as it can tell when every linked port it found
// (Init, Armed or Active) was Active.
struct MasterView {
  Guid guid;
  Lid lid;  // the master port's LID as discovered (0: none known)
  std::uint8_t priority{0};
  std::string state;  // as the master's SMInfo says: "MASTER", ...
  std::uint64_t portsLinked{0};
  std::uint64_t portsActive{0};
  bool fabricUp{false};
  std::optional<std::chrono::system_clock::time_point> seenAt;  // that discovery
};

// The log as the daemon runs it: the level in force and who set it last
// ("config": at start or by a SIGHUP, from log.level or --log-level;
// "operator": `ibsm log-level`, until the next SIGHUP), and the MAD trace
// of the trace level (sm/mad/MadTrace.h): lines logged and lines its rate
// limit suppressed, SMPs and PerfMgt GMPs together.
struct LogCounts {
  std::string level;
  std::string setBy{"config"};
  std::uint64_t levelChanges{0};  // by the operator or a SIGHUP that changed it
  std::uint64_t traceLines{0};
  std::uint64_t traceSuppressed{0};
};

// Sweeps since start: how many of each kind, and the last ones.
struct SweepHistory {
  std::uint64_t total{0};
  SweepCounts byKind{};
  std::uint64_t failed{0};         // sweeps or discoveries that could not run
  std::uint64_t fabricWalks{0};    // full discoveries (a takeover reuses DISCOVERING's)
  std::uint64_t firstBringUps{0};  // takeovers of a fabric no SM had run (SM-0137)
  std::optional<SweepInfo> last;
  std::optional<SweepInfo> lastHeavy;   // heavy or takeover
  std::optional<SweepInfo> lastChange;  // the last sweep that found a change
  std::optional<SweepInfo> lastReplan;  // what the last SIGHUP wrote, as master
};

// The fabric and its routes as the last sweep that planned left them.
struct RoutesSummary {
  std::uint64_t switches{0};
  std::uint64_t caPorts{0};
  std::uint64_t routedPairs{0};
  std::uint64_t unreachablePairs{0};
  std::string engine;
  // The engines the last plan passed over before `engine`, with why (not
  // their shape, or tables with a credit loop while another followed).
  std::vector<std::string> engineFallbacks;
  // The routes programmed have a credit loop: the last engine named made
  // them (routing/plan/CreditLoopJudge.h). Up, but traffic can deadlock.
  bool creditLoop{false};
};

// SMPs since start, and the blocks read and written by every sweep (SL2VL:
// tables), so a script can take the difference across an event.
// The M_Key protection of the CA ports and switch ports 0 (the ports whose
// keys guard the rest), as the last sweep left them: JSON m_keys.
struct MKeyCounts {
  std::string scheme{"off"};        // security::KeyScheme::describe()
  std::uint64_t protectedPorts{0};  // answered showing our key and protect bits
  std::uint64_t unknown{0};         // protected by a key that is not ours (SM-2951)
  std::uint64_t waitingOnLease{0};  // of those, with a lease: taken over once it ends
  std::uint64_t keepNone{0};        // acknowledged their key but keep none (ibsim)
  std::uint64_t takenOver{0};       // unknown ports since given our key (SM-2961), ever
  // An M_Key rotation (`ibsm keys rotate`, sm.m_key_rotate_interval): under
  // way while the previous secret is kept; ports on the new key and ports
  // still on the previous one, as the last sweep left them.
  bool rotating{false};
  std::uint64_t onNewKey{0};
  std::uint64_t onPreviousKey{0};
  std::uint64_t rotations{0};  // rotations ended since start
  // When the one under way (or the last) started; unset: none since start.
  std::optional<std::chrono::system_clock::time_point> rotationStarted;
};

// One learnt timeout of the MAD engine (sm/mad/MadRto.h): SMPs of one kind
// on paths of one length, as measured from their answered first attempts.
struct LearntTimeout {
  std::string path;  // "dr" (directed route, `hops` long) or "lid"
  std::uint64_t hops{0};
  std::string kind;  // "get", "set", "table_set"
  std::uint64_t samples{0};
  std::chrono::microseconds srtt{0};     // smoothed round trip
  std::chrono::microseconds rttvar{0};   // its mean deviation
  std::chrono::microseconds timeout{0};  // srtt + 4 rttvar within floor..cap, before back-off
};

struct MadTotals {
  std::uint64_t sent{0};
  std::uint64_t retries{0};   // retransmissions
  std::uint64_t timeouts{0};  // requests that failed after all retries
  TableCounters lft, pkey, sl2vl, mft;
  TableCounters vlarb;                // VLArbitration blocks: QoS writes, the SA's reads
  MKeyCounts mKeys;                   // the keys every SMP carries
  std::vector<LearntTimeout> learnt;  // paths and kinds measured so far
};

// Changes of this SM's SMInfo state, and the "subnet up" reports (SM-0001:
// a sweep brought the subnet up, or changed it while up).
struct StateHistory {
  std::uint64_t changes{0};  // SMInfo state changes (MASTER, STANDBY, ...)
  std::uint64_t timesMaster{0};
  std::deque<StateChange> recent;  // the last kRecentStates, oldest first
  std::uint64_t upReports{0};
  std::optional<std::chrono::system_clock::time_point> lastUpReport;
  static constexpr std::size_t kRecentStates = 16;
};

// SIGHUP configurations taken and refused.
struct ReloadRecord {
  std::uint64_t taken{0};
  std::uint64_t refused{0};
  std::string error;  // why the last SIGHUP was refused; empty after a good one
};

// The other SMs: polls, handovers, the SMs as last read.
struct PeerCounts {
  std::uint64_t missedPolls{0};  // as standby: polls of the master not answered
  std::uint64_t handoversSent{0};
  std::uint64_t handoversAccepted{0};  // of those, acknowledged by the other SM
  std::vector<OtherSm> sms;            // the other SMs as last read
  std::vector<ForeignSm> foreignSms;   // as of the last read of the other SMs
  std::uint64_t foreignReports{0};     // times one was reported (SM-0115: new, or changed)
};

// When the daemon started and came up.
struct DaemonTimes {
  // Wall-clock start, for the operator and for benchmarks that set process
  // timing against first_up (which, like uptime, is on the SM's own clock).
  std::chrono::system_clock::time_point started;
  std::chrono::seconds uptime{0};
  std::optional<std::chrono::milliseconds> firstUp;  // from start to the subnet first up
};

struct DaemonStatus {
  std::string state;  // "MASTER", "STANDBY", "DISCOVERING", "NOTACTIVE"
  // The health book's open entries (HealthView::unhealthy): JSON health.unhealthy.
  std::vector<health::HealthEntry> unhealthy;
  std::string phase;  // fsm phase name, e.g. "MasterIdle"
  Guid portGuid{};
  Lid lid{};
  std::uint8_t priority{0};
  bool smKeyIsDefault{true};             // OpenSM's default key, kDefaultSmKey
  std::optional<Guid> master;            // the master we poll (standby) / ourselves
  bool up{false};                        // as of the last sweep, as master
  std::optional<MasterView> masterView;  // not master, with a master known
  DaemonTimes times;
  SweepHistory sweeps;
  RoutesSummary routes;
  MadTotals mads;
  TrapCounters traps;  // .received is the JSON's traps_received too
  StateHistory states;
  ReloadRecord reloads;
  PeerCounts peers;
  SaStatus sa;
  MulticastCounts multicast;
  // The counter sweep's figures and the error counters over zero.
  HealthCounters healthCounters;
  // Fabric health in figures (`ibsm health` shows the entries themselves).
  HealthCounts health;
  ResourceCounts resources;
  LogCounts log;
  std::optional<DaemonExit> exit;
};

// UTC with whole seconds ("2026-12-03T07:01:02Z"): what an operator
// compares against log lines.
std::string utcTime(std::chrono::system_clock::time_point t);
// Lines such as "state: MASTER", "last_sweep: light 2026-12-03T07:00:00Z 12 ms
// 40 mads up"; ends with a newline.
std::string formatStatus(const DaemonStatus& status);
// One JSON object with the same fields and every counter (snake_case keys,
// durations in the unit their key names: _ms, _us, _s); ends with a newline.
std::string formatStatusJson(const DaemonStatus& status);

}  // namespace ibsm::sm::control
