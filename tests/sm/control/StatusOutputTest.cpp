// The status's three outputs are a contract with scripts and dashboards:
// a status with every field set to a value of its own prints, as text, JSON
// and metrics, byte for byte what the binary of e672344 (before the
// counters were declared once) printed for the same status
// (tests/data/status/format-*, written by that commit's formatStatus,
// formatStatusJson and formatMetrics), with the keys added since (issue
// 29: ports_keyed, m_keys) where they were added. And every counter a group declares
// (StatusCounters.h) appears once in the JSON, with its value, and, when it
// is a metric, once in the metrics.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sm/control/Metrics.h"
#include "sm/control/StatusCounters.h"
#include "sm/control/StatusFormat.h"
#include "sm/sa/SaMad.h"

namespace ibsm::sm::control {
namespace {

// Every field of a DaemonStatus set to a value of its own.
DaemonStatus filledStatus() {
  using namespace std::chrono;
  const system_clock::time_point t0{milliseconds(1764900000123)};
  DaemonStatus s;
  s.state = "MASTER";
  s.phase = "MASTER (idle)";
  s.portGuid = Guid{0x2c90300a1b2c3};
  s.lid = Lid{7};
  s.priority = 9;
  s.smKeyIsDefault = false;
  s.master = Guid{0x2c90300a1b2c3};
  s.up = true;
  s.sweeps.firstBringUps = 2;
  s.times.firstUp = milliseconds(345);
  s.sweeps.total = 41;
  s.sweeps.byKind = {{3, 4, 5, 6, 7, 8, 9, 10}};
  s.sweeps.fabricWalks = 11;
  SweepCounters c;
  c.discoveryMads = 101;
  c.discoveryRetries = 102;
  c.discoveryTimeouts = 103;
  c.nodes = 104;
  c.cables = 105;
  c.discoveryProblems = 106;
  c.discoveryRecalled = 107;
  c.discoveryTime = microseconds(108000);
  c.planTime = microseconds(109000);
  c.programTime = microseconds(110000);
  c.phases = {{"lfts", 111, 112, 113, 114, microseconds(115)},
              {"pkeys", 116, 117, 0, 0, microseconds(118)}};
  c.lft = {121, 122, 123};
  c.pkey = {124, 125, 126};
  c.sl2vl = {127, 128, 129};
  c.mft = {130, 131, 132};
  c.routes = RoutesCounters{"kept", "capacity-lost", 133, 134, 135, 136, 137, ""};
  c.portsConfigured = 138;
  c.portsArmed = 139;
  c.portsActivated = 140;
  c.enforcementKept = 141;
  c.portsKeyed = 143;
  c.failed = 142;
  c.complete = false;
  c.reasons = {"port x not active"};
  s.sweeps.last = SweepInfo{.kind = SweepKind::Light,
                            .when = t0,
                            .duration = milliseconds(12),
                            .mads = 40,
                            .changes = {},
                            .up = true,
                            .counters = std::nullopt};
  s.sweeps.lastHeavy = SweepInfo{.kind = SweepKind::Heavy,
                                 .when = t0 - seconds(60),
                                 .duration = milliseconds(99),
                                 .mads = 400,
                                 .changes = {"port 0x1 down", "cable lost a-b"},
                                 .up = false,
                                 .counters = c};
  SweepCounters fresh = c;
  fresh.routes = RoutesCounters{"fresh-fallback", "", 0, 0, 0, 0, 0, "too many changes"};
  s.sweeps.lastChange = SweepInfo{.kind = SweepKind::Reroute,
                                  .when = t0 - seconds(30),
                                  .duration = milliseconds(20),
                                  .mads = 50,
                                  .changes = {"cable lost a-b"},
                                  .up = true,
                                  .counters = fresh};
  s.sweeps.lastReplan = std::nullopt;
  s.sweeps.failed = 12;
  s.routes.switches = 13;
  s.routes.caPorts = 14;
  s.routes.routedPairs = 15;
  s.routes.unreachablePairs = 16;
  s.routes.engine = "ftree";
  s.routes.engineFallbacks = {"dragonfly: not a dragonfly"};
  s.routes.creditLoop = true;
  s.times.uptime = seconds(17);
  s.times.started = t0 - seconds(17);
  s.mads.sent = 18;
  s.mads.retries = 19;
  s.mads.timeouts = 20;
  s.mads.lft = {21, 22, 23};
  s.mads.pkey = {24, 25, 26};
  s.mads.sl2vl = {27, 28, 29};
  s.mads.mft = {30, 31, 32};
  s.mads.mKeys = {.scheme = "per-port keys derived from the secret",
                  .protectedPorts = 144,
                  .unknown = 145,
                  .waitingOnLease = 146,
                  .keepNone = 147,
                  .takenOver = 151,
                  .rotating = true,
                  .onNewKey = 148,
                  .onPreviousKey = 149,
                  .rotations = 150,
                  .rotationStarted = t0 - seconds(3)};
  s.traps.received = 33;
  s.states.changes = 34;
  s.states.timesMaster = 35;
  s.states.recent = {{"DISCOVERING", t0 - seconds(17)}, {"MASTER", t0 - seconds(16)}};
  s.states.upReports = 36;
  s.states.lastUpReport = t0 - seconds(5);
  s.peers.missedPolls = 37;
  s.peers.handoversSent = 38;
  s.peers.handoversAccepted = 39;
  s.reloads.taken = 40;
  s.reloads.refused = 41;
  s.reloads.error = "ibsm.toml:3: bad key";
  s.peers.sms = {{Guid{0x11}, 3, "STANDBY"}};
  s.peers.foreignSms = {{Guid{0x22}, "DR 0,1,3", Lid{9}, "MASTER", 5, 0xabc}};
  s.peers.foreignReports = 42;
  SaStatus& a = s.sa;
  a.traffic = {.received = 201,
               .answered = 202,
               .droppedNotMaster = 203,
               .droppedUndecodable = 204,
               .droppedNoResponder = 205,
               .notAnswered = 206,
               .sendFailed = 207};
  a.answers.byAttribute = {{saAttr::kNodeRecord, 208}, {saAttr::kPathRecord, 209}};
  a.answers.byMethod = {{saMethod::kGet, 210}, {saMethod::kGetTable, 211}};
  a.answers.errorsByStatus = {{saStatus::kNoRecords, 212}};
  a.serviceRecords = 213;
  a.subscribers = 214;
  a.noticesByTrap = {{"64", 215}, {"128", 216}};
  a.reportsSent = 217;
  a.reportsRetried = 218;
  a.reportsAcknowledged = 219;
  a.reportsFailed = 220;
  a.reportsUnmatched = 221;
  a.reportSendFailed = 222;
  a.subscribersDropped = 223;
  a.answers.answersTrimmed = 224;
  a.answers.leasesShortened = 225;
  a.answers.segmentedRefused = 226;
  a.mcGroups = 227;
  a.answers.mcJoins = 228;
  a.answers.mcLeaves = 229;
  a.answers.mcGroupsCreated = 230;
  a.answers.mcGroupsDeleted = 231;
  a.answers.mcRefusedByStatus = {{saStatus::kReqInvalid, 232}};
  s.multicast = {.managed = true,
                 .groups = 301,
                 .members = 302,
                 .passes = 303,
                 .passesFailed = 304,
                 .passBlocksWritten = 305,
                 .passBlocksFailed = 306,
                 .membersDropped = 307,
                 .membersForgotten = 308,
                 .lastPass = microseconds(309)};
  health::CounterSweepFigures f;
  f.enabled = true;
  f.interval = seconds(180);
  f.passes = 401;
  f.gmpsSent = 402;
  f.timeouts = 403;
  f.errors = 404;
  f.resets = 405;
  f.allPortReads = 406;
  f.portReads = 407;
  f.portReadsSpared = 408;
  f.lastPassGmps = 409;
  f.lastPassDuration = milliseconds(410);
  f.lastPassAt = t0 - seconds(2);
  f.nextPassIn = seconds(178);
  s.healthCounters.figures = f;
  s.healthCounters.ports = 411;
  s.healthCounters.sweepsDuringPass = 412;
  s.healthCounters.overZero = {
      {"\"sw0\"[3] (0x5)", Guid{0x5}, 3, Lid{4}, "SymbolErrorCounter", 413, true, 414}};
  s.health.unhealthy[0] = 415;
  s.health.isolated = 416;
  s.health.counterSweep = f;
  s.resources = {.madOutstanding = 501,
                 .madQueued = 502,
                 .gmpOutstanding = 503,
                 .gmpQueued = 504,
                 .counterPorts = 505,
                 .rssBytes = 506000000,
                 .heapInUse = 507000000,
                 .heapFree = 508000000,
                 .memoryReleases = 509,
                 .metricsWrites = 510,
                 .control = {.requests = 801,
                             .changing = 802,
                             .refused = 803,
                             .timedOut = 804,
                             .oversized = 805,
                             .busy = 806}};
  s.log = {.level = "info",
           .setBy = "operator",
           .levelChanges = 601,
           .traceLines = 602,
           .traceSuppressed = 603};
  s.exit = DaemonExit{.code = 1,
                      .reason = "stopped",
                      .details = {"a", "b"},
                      .signal = 15,
                      .stoppedDuring = "heavy sweep"};
  return s;
}
// The same status as a standby sees it: a master view instead of the master's own.
DaemonStatus filledStandby() {
  DaemonStatus s = filledStatus();
  s.state = "STANDBY";
  s.master = Guid{0x99};
  s.masterView = MasterView{
      .guid = Guid{0x99},
      .lid = Lid{1},
      .priority = 14,
      .state = "MASTER",
      .portsLinked = 701,
      .portsActive = 700,
      .fabricUp = false,
      .seenAt = std::chrono::system_clock::time_point{std::chrono::milliseconds(1764900000999)}};
  s.exit = std::nullopt;
  s.multicast.managed = false;
  s.reloads.error.clear();
  return s;
}

// IBSM_WRITE_GOLDEN=1 writes `actual` as the golden file instead (as
// tests/sm/run/status-keys.sh does): review the diff before committing it.
void expectGolden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(IBSM_STATUS_DATA) + "/" + name;
  if (const char* w = std::getenv("IBSM_WRITE_GOLDEN"); w && std::string(w) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(actual, text.str()) << name;
}

health::HealthView healthOf(const DaemonStatus& s) {
  health::HealthView h;
  h.counterSweep = s.healthCounters.figures;
  return h;
}

TEST(StatusOutputs, AreThoseOfTheCommitBeforeTheCountersWereDeclaredOnce) {
  const DaemonStatus master = filledStatus();
  const DaemonStatus standby = filledStandby();
  expectGolden(formatStatus(master), "format-master.txt");
  expectGolden(formatStatusJson(master), "format-master.json");
  expectGolden(formatMetrics(master, healthOf(master)), "format-master.prom");
  expectGolden(formatStatus(standby), "format-standby.txt");
  expectGolden(formatStatusJson(standby), "format-standby.json");
  expectGolden(formatMetrics(standby, healthOf(standby)), "format-standby.prom");
}

// How often `needle` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Each declared counter of `group`: once in the JSON object at `path`, with
// its value, and once as a metric family (its TYPE line) when it is one.
template <typename Group, std::size_t N>
void expectDeclared(const Group& group, const std::array<CounterDecl<Group>, N>& decls,
                    const nlohmann::json& json, const std::string& path,
                    const std::string& metrics) {
  const nlohmann::json& at = json.at(nlohmann::json::json_pointer(path));
  for (const CounterDecl<Group>& d : decls) {
    const std::string key(d.key);
    EXPECT_EQ(at.count(key), 1U) << path << "/" << key;
    if (at.contains(key)) {
      EXPECT_EQ(at.at(key), d.value(group)) << path << "/" << key;
    }
    if (d.metric.empty()) continue;
    const std::string type = fmt::format("# TYPE {} ", d.metric);
    EXPECT_EQ(occurrences(metrics, type), 1U) << d.metric;
    EXPECT_EQ(occurrences(metrics, fmt::format("\n{} {}\n", d.metric, d.value(group))), 1U)
        << d.metric;
  }
}

TEST(StatusCounters, EveryDeclaredCounterAppearsOnceInTheJsonAndOnceInTheMetrics) {
  const DaemonStatus s = filledStatus();
  const auto json = nlohmann::json::parse(formatStatusJson(s));
  const std::string metrics = formatMetrics(s, healthOf(s));
  expectDeclared(s.sweeps, kSweepCounters, json, "", metrics);
  expectDeclared(s.routes, kRoutesCounters, json, "", metrics);
  expectDeclared(s.mads, kMadCounters, json, "", metrics);
  expectDeclared(s.states, kStateCounters, json, "", metrics);
  expectDeclared(s.peers, kPeerCounters, json, "", metrics);
  expectDeclared(s.reloads, kReloadCounters, json, "", metrics);
  expectDeclared(s.sa.traffic, kSaTrafficCounters, json, "/sa", metrics);
  expectDeclared(s.sa, kSaHeldCounters, json, "/sa", metrics);
  expectDeclared(s.sa, kSaReportCounters, json, "/sa/reports", metrics);
  expectDeclared(s.sa, kSaSubscriberCounters, json, "/sa", metrics);
  expectDeclared(s.sa, kSaLimitCounters, json, "/sa", metrics);
  expectDeclared(s.sa, kSaMulticastCounters, json, "/sa/multicast", metrics);
  expectDeclared(s.sa, kSaFairnessCounters, json, "/sa/fairness", metrics);
  expectDeclared(s.traps, kTrapCounters, json, "/traps", metrics);
  expectDeclared(s.multicast, kMulticastCounters, json, "/multicast", metrics);
  expectDeclared(s.resources, kResourceCounters, json, "/resources", metrics);
  expectDeclared(s.log, kLogCounters, json, "/log", metrics);
  expectDeclared(s.resources.control, kControlCounters, json, "/control", metrics);
  // Sweeps by kind: each name once, with its count, in the JSON and the metrics.
  for (std::size_t i = 0; i < kSweepCounts; ++i) {
    const std::string kind(kSweepCountNames[i]);
    EXPECT_EQ(json.at("sweeps_by_kind").at(kind), s.sweeps.byKind.values[i]) << kind;
    EXPECT_EQ(occurrences(metrics, fmt::format("\n{}{{kind=\"{}\"}} {}\n", kSweepsByKindMetric,
                                               kind, s.sweeps.byKind.values[i])),
              1U)
        << kind;
  }
  EXPECT_EQ(json.at("sweeps_by_kind").size(), kSweepCounts);
}

TEST(SweepKinds, CountALightSweepAsQuietOrChangedAndEveryOtherKindAsItself) {
  EXPECT_EQ(countedAs(SweepKind::Light, false), SweepCount::LightQuiet);
  EXPECT_EQ(countedAs(SweepKind::Light, true), SweepCount::LightChanged);
  for (const SweepKind k : {SweepKind::Discovery, SweepKind::Heavy, SweepKind::Takeover,
                            SweepKind::Reroute, SweepKind::Replan, SweepKind::Rebalance})
    for (const bool changed : {false, true}) EXPECT_EQ(name(countedAs(k, changed)), name(k));
}

}  // namespace
}  // namespace ibsm::sm::control
