// What `ibsm status` prints: stable "key: value" lines operators grep, and
// JSON with the same fields and the counters tests and benchmarks read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sm/control/StatusFormat.h"
#include "sm/sa/SaMad.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;

DaemonStatus standby() {
  DaemonStatus s;
  s.state = "STANDBY";
  s.phase = "StandbyPolling";
  s.portGuid = Guid{0x0002c90300000002};
  s.lid = Lid{5};
  s.priority = 3;
  s.smKeyIsDefault = false;
  s.master = Guid{0x0002c90300000001};
  s.times.uptime = 3723s;
  s.mads.sent = 40;
  s.resources = {.madOutstanding = 3,
                 .madQueued = 7,
                 .gmpOutstanding = 1,
                 .gmpQueued = 2,
                 .counterPorts = 896,
                 .rssBytes = 31'500'000,
                 .heapInUse = 5'100'000,
                 .heapFree = 2'000'000,
                 .memoryReleases = 4};
  return s;
}

SweepInfo heavySweep() {
  SweepInfo w;
  w.kind = SweepKind::Heavy;
  w.when = std::chrono::sys_days{std::chrono::December / 3 / 2026} + 7h + 1min + 2s + 300ms;
  w.duration = 812ms;
  w.mads = 2410;
  w.changes = {"port 0x0002c90300000007/1 down", "3 LFT blocks \"changed\""};
  w.up = true;
  return w;
}

TEST(StatusText, IsOneKeyValueLinePerField) {
  DaemonStatus s = standby();
  s.masterView = MasterView{.guid = Guid{0x0002c90300000001},
                            .lid = Lid{1},
                            .priority = 5,
                            .state = "MASTER",
                            .portsLinked = 48,
                            .portsActive = 48,
                            .fabricUp = true,
                            .seenAt = std::chrono::sys_days{std::chrono::December / 3 / 2026} + 7h};
  s.log = LogCounts{
      .level = "info", .setBy = "config", .levelChanges = 0, .traceLines = 0, .traceSuppressed = 0};
  EXPECT_EQ(formatStatus(s),
            "state: STANDBY\n"
            "phase: StandbyPolling\n"
            "port_guid: 0x0002c90300000002\n"
            "lid: 5\n"
            "priority: 3\n"
            "sm_key: configured\n"
            "master: 0x0002c90300000001\n"
            "uptime: 3723 s\n"
            "up: yes as this SM sees it, run by master 0x0002c90300000001 (lid 1, priority 5, "
            "MASTER): 48 of 48 linked ports Active at this SM's discovery 2026-12-03T07:00:00Z\n"
            "first_up: none\n"
            "sweeps: 0\n"
            "first_bring_ups: 0\n"
            "sweeps_heavy: 0\n"
            "sweeps_takeover: 0\n"
            "sweeps_light_quiet: 0\n"
            "sweeps_light_changed: 0\n"
            "sweeps_reroute: 0\n"
            "sweeps_replan: 0\n"
            "sweeps_rebalance: 0\n"
            "sweeps_discovery: 0\n"
            "sweeps_failed: 0\n"
            "fabric_walks: 0\n"
            "last_sweep: none\n"
            "last_heavy: none\n"
            "last_change: none\n"
            "last_replan: none\n"
            "switches: 0\n"
            "ca_ports: 0\n"
            "routed_pairs: 0\n"
            "unreachable_pairs: 0\n"
            "health: healthy, 0 isolated; counters off\n"
            "engine: none\n"
            "routes_credit_loop: no\n"
            "mads_sent: 40\n"
            "mad_retries: 0\n"
            "mad_timeouts: 0\n"
            "blocks_total: lft 0 written 0 read, pkey 0 written 0 read, sl2vl 0 written 0 read, "
            "mft 0 written, vlarb 0 written 0 read\n"
            "m_keys: off: 0 protected, 0 unknown, 0 waiting on lease, 0 keep none, 0 taken over\n"
            "traps_received: 0\n"
            "traps: received 0 stood 0 sweeps_requested 0 coalesced 0 noisy_ignored 0 "
            "noisy_requests_dropped 0 answered_by_sweep 0 mismatched 0 log_suppressed 0 "
            "noisy_episodes 0 noisy_ports 0 ports_tracked 0 ports_forgotten 0\n"
            "traps_by_number: none\n"
            "resources: rss 31.5 MB, heap 5.1 MB in use 2.0 MB free, smps 3 outstanding 7 queued, "
            "perfmgt 1 outstanding 2 queued, 896 ports' counters\n"
            "state_changes: 0\n"
            "times_master: 0\n"
            "missed_polls: 0\n"
            "handovers_sent: 0\n"
            "handovers_accepted: 0\n"
            "reloads: 0\n"
            "reloads_refused: 0\n"
            "sms: 0\n"
            "foreign_sms: 0\n"
            "foreign_sm_reports: 0\n"
            "sa_received: 0\n"
            "sa_answered: 0\n"
            "sa_dropped: not_master 0 undecodable 0 no_responder 0\n"
            "sa_not_answered: 0\n"
            "sa_send_failed: 0\n"
            "sa_by_attribute: none\n"
            "sa_by_method: none\n"
            "sa_errors: none\n"
            "sa_service_records: 0\n"
            "sa_subscribers: 0\n"
            "sa_notices: none\n"
            "sa_reports: sent 0 retried 0 acknowledged 0 failed 0 unmatched 0 send_failed 0\n"
            "sa_subscribers_dropped: 0\n"
            "sa_limited: answers_trimmed 0 leases_shortened 0 segmented_refused 0\n"
            "sa_multicast: groups 0 joins 0 leaves 0 created 0 deleted 0\n"
            "sa_multicast_refused: none\n"
            "sa_fairness: queued 0 dropped_requester_full 0 dropped_total_full 0 "
            "requesters_waiting 0 largest_queue 0 largest_queue_ever 0 joins_over_cap 0 "
            "services_over_cap 0\n"
            "multicast: not managed\n"
            "log_level: info (set by config, 0 changes)\n"
            "mad_trace: 0 lines, 0 suppressed\n"
            "control: requests 0 changing 0 refused 0 timed_out 0 oversized 0 busy 0\n");
}

// A standby never says a bare "up: no" of a subnet another SM runs: what it
// sees of it, and the master's SMInfo.
TEST(StatusText, AStandbyShowsTheMastersSubnetAsItSeesIt) {
  DaemonStatus s = standby();
  s.masterView = MasterView{.guid = Guid{0x0002c90300000001},
                            .lid = Lid{1},
                            .priority = 5,
                            .state = "MASTER",
                            .portsLinked = 48,
                            .portsActive = 40,
                            .fabricUp = false,
                            .seenAt = std::nullopt};
  EXPECT_THAT(formatStatus(s),
              ::testing::HasSubstr("\nup: no as this SM sees it, run by master 0x0002c90300000001 "
                                   "(lid 1, priority 5, MASTER): 40 of 48 linked ports Active\n"));
  const auto j = nlohmann::json::parse(formatStatusJson(s));
  EXPECT_EQ(j["master_view"]["guid"], "0x0002c90300000001");
  EXPECT_EQ(j["master_view"]["lid"], 1);
  EXPECT_EQ(j["master_view"]["priority"], 5);
  EXPECT_EQ(j["master_view"]["ports_active"], 40);
  EXPECT_EQ(j["master_view"]["ports_linked"], 48);
  EXPECT_EQ(j["master_view"]["fabric_up"], false);
  EXPECT_EQ(j["up"], false);
  s.masterView.reset();
  EXPECT_TRUE(nlohmann::json::parse(formatStatusJson(s))["master_view"].is_null());
}

TEST(StatusJson, CarriesTheLogLevelAndTheMadTrace) {
  DaemonStatus s = standby();
  s.log = LogCounts{.level = "trace",
                    .setBy = "operator",
                    .levelChanges = 2,
                    .traceLines = 1200,
                    .traceSuppressed = 35};
  s.sweeps.firstBringUps = 1;
  const auto j = nlohmann::json::parse(formatStatusJson(s));
  EXPECT_EQ(j["log"]["level"], "trace");
  EXPECT_EQ(j["log"]["set_by"], "operator");
  EXPECT_EQ(j["log"]["level_changes"], 2);
  EXPECT_EQ(j["log"]["trace_lines"], 1200);
  EXPECT_EQ(j["log"]["trace_suppressed"], 35);
  EXPECT_EQ(j["first_bring_ups"], 1);
  EXPECT_THAT(formatStatus(s), ::testing::HasSubstr("\nlog_level: trace (set by operator, 2 "
                                                    "changes)\nmad_trace: 1200 lines, 35 "
                                                    "suppressed\n"));
}

TEST(StatusText, ShowsTheMulticastPassesWhenManaged) {
  DaemonStatus s = standby();
  s.multicast = MulticastCounts{.managed = true,
                                .groups = 3,
                                .members = 40,
                                .passes = 5,
                                .passesFailed = 1,
                                .passBlocksWritten = 12,
                                .passBlocksFailed = 2,
                                .membersDropped = 4,
                                .membersForgotten = 6,
                                .lastPass = std::chrono::microseconds(900)};
  const std::string text = formatStatus(s);
  EXPECT_THAT(text, ::testing::HasSubstr("multicast: 3 groups, 40 members\n"));
  EXPECT_THAT(text,
              ::testing::HasSubstr(
                  "multicast_passes: 5 (1 failed), mft blocks 12 written 2 failed, last 900 us\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("multicast_members_dropped: 4, forgotten 6\n"));
  const auto json = nlohmann::json::parse(formatStatusJson(s)).at("multicast");
  EXPECT_EQ(json.at("managed"), true);
  EXPECT_EQ(json.at("pass_mft_blocks_written"), 12);
  EXPECT_EQ(json.at("members_dropped"), 4);
  EXPECT_EQ(json.at("members_forgotten"), 6);
  EXPECT_EQ(json.at("last_pass_us"), 900);
}

TEST(StatusJson, CountsSaQueriesByWhatBecameOfThem) {
  DaemonStatus s = standby();
  // Member by member: the struct grows with the SA.
  s.sa.traffic.received = 9;
  s.sa.traffic.answered = 4;
  s.sa.traffic.droppedNotMaster = 2;
  s.sa.traffic.droppedUndecodable = 1;
  s.sa.traffic.droppedNoResponder = 1;
  s.sa.traffic.notAnswered = 1;
  s.sa.traffic.sendFailed = 0;
  s.sa.answers.byAttribute = {{saAttr::kNodeRecord, 3}, {saAttr::kPathRecord, 6}};
  s.sa.answers.byMethod = {{saMethod::kGet, 5}, {saMethod::kGetTable, 4}};
  s.sa.answers.errorsByStatus = {{saStatus::kNoRecords, 2}};
  s.sa.serviceRecords = 1;
  s.sa.subscribers = 2;
  s.sa.answers.answersTrimmed = 3;
  s.sa.answers.leasesShortened = 4;
  s.sa.answers.segmentedRefused = 5;
  s.sa.mcGroups = 2;
  s.sa.answers.mcJoins = 7;
  s.sa.answers.mcLeaves = 6;
  s.sa.answers.mcGroupsCreated = 3;
  s.sa.answers.mcGroupsDeleted = 1;
  s.sa.answers.mcRefusedByStatus = {{saStatus::kReqInvalid, 8}};
  const auto sa = nlohmann::json::parse(formatStatusJson(s)).at("sa");
  EXPECT_EQ(sa.at("received"), 9);
  EXPECT_EQ(sa.at("answered"), 4);
  EXPECT_EQ(sa.at("dropped_not_master"), 2);
  EXPECT_EQ(sa.at("dropped_undecodable"), 1);
  EXPECT_EQ(sa.at("dropped_no_responder"), 1);
  EXPECT_EQ(sa.at("not_answered"), 1);
  EXPECT_EQ(sa.at("send_failed"), 0);
  EXPECT_EQ(sa.at("by_attribute").at("PathRecord"), 6);
  EXPECT_EQ(sa.at("by_method").at("GetTable"), 4);
  EXPECT_EQ(sa.at("errors_by_status").at("no_records"), 2);
  EXPECT_EQ(sa.at("service_records"), 1);
  EXPECT_EQ(sa.at("subscribers"), 2);
  EXPECT_EQ(sa.at("answers_trimmed"), 3);
  EXPECT_EQ(sa.at("leases_shortened"), 4);
  EXPECT_EQ(sa.at("segmented_refused"), 5);
  const auto& mc = sa.at("multicast");
  EXPECT_EQ(mc.at("groups"), 2);
  EXPECT_EQ(mc.at("joins"), 7);
  EXPECT_EQ(mc.at("leaves"), 6);
  EXPECT_EQ(mc.at("groups_created"), 3);
  EXPECT_EQ(mc.at("groups_deleted"), 1);
  EXPECT_EQ(mc.at("refused_by_status").at("req_invalid"), 8);
  const std::string text = formatStatus(s);
  EXPECT_NE(text.find("sa_dropped: not_master 2 undecodable 1 no_responder 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("sa_by_attribute: NodeRecord 3, PathRecord 6\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sa_errors: no_records 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sa_limited: answers_trimmed 3 leases_shortened 4 segmented_refused 5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sa_multicast: groups 2 joins 7 leaves 6 created 3 deleted 1\n"
                      "sa_multicast_refused: req_invalid 8\n"),
            std::string::npos)
      << text;
}

TEST(StatusJson, CountsNoticesByTrapAndTheReportsTheyBecame) {
  DaemonStatus s = standby();
  s.sa.noticesByTrap = {{"64", 1}, {"65", 2}, {"128", 3}};
  s.sa.reportsSent = 6;
  s.sa.reportsRetried = 4;
  s.sa.reportsAcknowledged = 5;
  s.sa.reportsFailed = 1;
  s.sa.reportsUnmatched = 2;
  s.sa.reportSendFailed = 3;
  s.sa.subscribersDropped = 7;
  const auto sa = nlohmann::json::parse(formatStatusJson(s)).at("sa");
  EXPECT_EQ(sa.at("notices_by_trap").at("65"), 2);
  EXPECT_EQ(sa.at("notices_by_trap").at("128"), 3);
  const auto& reports = sa.at("reports");
  EXPECT_EQ(reports.at("sent"), 6);
  EXPECT_EQ(reports.at("retried"), 4);
  EXPECT_EQ(reports.at("acknowledged"), 5);
  EXPECT_EQ(reports.at("failed"), 1);
  EXPECT_EQ(reports.at("unmatched"), 2);
  EXPECT_EQ(reports.at("send_failed"), 3);
  EXPECT_EQ(sa.at("subscribers_dropped"), 7);
  const std::string text = formatStatus(s);
  EXPECT_NE(text.find("sa_notices: 128 3, 64 1, 65 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sa_reports: sent 6 retried 4 acknowledged 5 failed 1 unmatched 2 "
                      "send_failed 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sa_subscribers_dropped: 7\n"), std::string::npos) << text;
}

TEST(StatusText, ASweepShowsKindTimeDurationMadsVerdictAndEachChange) {
  DaemonStatus s = standby();
  s.sweeps.last = heavySweep();
  s.sweeps.last->up = false;
  const auto text = formatStatus(s);
  EXPECT_NE(text.find("last_sweep: heavy 2026-12-03T07:01:02Z 812 ms 2410 mads not-up\n"
                      "last_sweep_changes: 2\n"
                      "last_sweep_change: port 0x0002c90300000007/1 down\n"
                      "last_sweep_change: 3 LFT blocks \"changed\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("last_heavy: none\n"), std::string::npos);
}

TEST(StatusText, WithoutAMasterSaysNone) {
  DaemonStatus s = standby();
  s.master.reset();
  s.smKeyIsDefault = true;
  const auto text = formatStatus(s);
  EXPECT_NE(text.find("\nmaster: none\n"), std::string::npos);
  EXPECT_NE(text.find("\nsm_key: default\n"), std::string::npos);
}

ForeignSm foreignMaster() {
  return ForeignSm{.guid = Guid{0x0002c90300000009},
                   .port = "DR 0,1,3",
                   .lid = Lid{7},
                   .state = "MASTER",
                   .priority = 5,
                   .smKey = 0x2};
}

// Two masters in one subnet is the worst state an operator can be in: an SM
// showing another key is listed, one line each, with what identifies it.
TEST(StatusText, ListsEverySmOfAnotherKey) {
  DaemonStatus s = standby();
  s.peers.foreignSms = {foreignMaster()};
  const auto text = formatStatus(s);
  EXPECT_NE(text.find("\nforeign_sms: 1\nforeign_sm_reports: 0\n"
                      "foreign_sm: 0x0002c90300000009 MASTER priority 5 sm_key other "
                      "at DR 0,1,3 lid 7\n"),
            std::string::npos)
      << text;
}

TEST(StatusJson, CarriesTheSameFieldsWithNullsAndEscapes) {
  DaemonStatus s = standby();
  s.sweeps.lastHeavy = heavySweep();
  s.routes.engine = "ftree";
  const std::string text = formatStatusJson(s);
  ASSERT_TRUE(text.ends_with("}\n")) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line";
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["state"], "STANDBY");
  EXPECT_EQ(j["phase"], "StandbyPolling");
  EXPECT_EQ(j["port_guid"], "0x0002c90300000002");
  EXPECT_EQ(j["lid"], 5);
  EXPECT_EQ(j["priority"], 3);
  EXPECT_EQ(j["sm_key_default"], false);
  EXPECT_EQ(j["master"], "0x0002c90300000001");
  EXPECT_EQ(j["uptime_s"], 3723);
  EXPECT_EQ(j["sweeps"], 0);
  EXPECT_TRUE(j["last_sweep"].is_null());
  EXPECT_EQ(j["last_heavy"],
            nlohmann::json::parse(
                R"({"kind":"heavy","when":"2026-12-03T07:01:02Z","when_unix_ms":1796281262300,)"
                R"("duration_ms":812,"mads":2410,)"
                R"("changes":["port 0x0002c90300000007/1 down","3 LFT blocks \"changed\""],)"
                R"("up":true,"counters":null})"));
  EXPECT_EQ(j["switches"], 0);
  EXPECT_EQ(j["ca_ports"], 0);
  EXPECT_EQ(j["routed_pairs"], 0);
  EXPECT_EQ(j["unreachable_pairs"], 0);
  EXPECT_EQ(j["engine"], "ftree");
  EXPECT_EQ(j["mads_sent"], 40);
  EXPECT_EQ(j["traps_received"], 0);
  EXPECT_EQ(j["foreign_sms"], nlohmann::json::array());
  EXPECT_TRUE(j["exit"].is_null());
  EXPECT_TRUE(j["first_up_ms"].is_null());
}

SweepCounters programmed() {
  SweepCounters c;
  c.discoveryMads = 900;
  c.nodes = 64;
  c.discoveryTime = 120ms;
  c.planTime = 15ms;
  c.programTime = 300ms;
  c.phases.resize(2);
  c.phases[0].name = "lids";
  c.phases[0].smps = 60;
  c.phases[0].sent = 61;
  c.phases[0].failed = 1;
  c.phases[0].duration = 40ms;
  c.phases[1].name = "lfts";
  c.phases[1].smps = 100;
  c.phases[1].sent = 100;
  c.phases[1].duration = 70ms;
  c.lft = TableCounters{.read = 0, .written = 96, .smps = 96};
  c.pkey = TableCounters{.read = 32, .written = 2, .smps = 34};
  c.mft = TableCounters{.read = 0, .written = 12, .smps = 13};
  c.portsConfigured = 59;
  c.portsArmed = 80;
  c.portsActivated = 80;
  c.enforcementKept = 7;
  c.failed = 1;
  c.reasons = {"programming: writing PortInfo of \"h1\"[1]: busy"};
  return c;
}

TEST(StatusText, ASweepThatProgrammedShowsItsTimesBlocksAndPorts) {
  DaemonStatus s = standby();
  s.sweeps.lastHeavy = heavySweep();
  s.sweeps.lastHeavy->counters = programmed();
  s.sweeps.byKind[SweepCount::Heavy] = 1;
  s.up = true;
  s.times.firstUp = 1500ms;
  const auto text = formatStatus(s);
  EXPECT_NE(text.find("last_heavy_time: discovery 120 ms, plan 15 ms, programming 300 ms\n"
                      "last_heavy_blocks: lft 96 written 0 read, pkey 2 written 32 read, sl2vl 0 "
                      "written 0 read, mft 12 written, vlarb 0 written 0 read\n"
                      "last_heavy_ports: 59 configured, 80 armed, 80 activated, 1 failed\n"
                      "last_heavy_enforcement_kept: 7\n"
                      "last_heavy_ports_keyed: 0\n"
                      "last_heavy_not_up: programming: writing PortInfo of \"h1\"[1]: busy\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nup: yes\nfirst_up: 1500 ms\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nsweeps_heavy: 1\n"), std::string::npos) << text;
}

TEST(StatusJson, CarriesEveryCounterOfASweepAndHowTheRunEnded) {
  DaemonStatus s = standby();
  s.sweeps.last = heavySweep();
  s.sweeps.last->counters = programmed();
  s.sweeps.lastChange = s.sweeps.last;
  s.sweeps.byKind[SweepCount::Discovery] = 1;
  s.sweeps.byKind[SweepCount::Heavy] = 2;
  s.sweeps.byKind[SweepCount::LightQuiet] = 7;
  s.sweeps.byKind[SweepCount::Reroute] = 1;
  s.peers.handoversSent = 1;
  s.peers.sms = {OtherSm{.guid = Guid{0x0002c90300000009}, .priority = 4, .state = "STANDBY"}};
  s.exit = DaemonExit{};
  s.exit->code = 1;
  s.exit->reason = "stopped";
  s.exit->signal = 15;
  s.exit->stoppedDuring = "MASTER (heavy sweep)";
  const auto j = nlohmann::json::parse(formatStatusJson(s));
  const auto& c = j["last_sweep"]["counters"];
  EXPECT_EQ(c["discovery"]["mads"], 900);
  EXPECT_EQ(c["discovery"]["nodes"], 64);
  EXPECT_EQ(c["discovery"]["duration_us"], 120000);
  EXPECT_EQ(c["plan_us"], 15000);
  EXPECT_EQ(c["program_us"], 300000);
  EXPECT_EQ(c["phases"]["lids"]["smps"], 60);
  EXPECT_EQ(c["phases"]["lids"]["sent"], 61);
  EXPECT_EQ(c["phases"]["lids"]["failed"], 1);
  EXPECT_EQ(c["phases"]["lfts"]["duration_us"], 70000);
  EXPECT_FALSE(c["phases"].contains("pkeys")) << "only the phases that ran";
  EXPECT_EQ(c["tables"]["lft"]["written"], 96);
  EXPECT_EQ(c["tables"]["pkey"]["read"], 32);
  EXPECT_EQ(c["tables"]["pkey"]["smps"], 34);
  EXPECT_EQ(c["tables"]["sl2vl"]["written"], 0);
  EXPECT_EQ(c["tables"]["mft"]["written"], 12);
  EXPECT_EQ(c["tables"]["mft"]["smps"], 13);
  EXPECT_EQ(c["ports"]["activated"], 80);
  EXPECT_EQ(c["ports"]["enforcement_kept"], 7);
  EXPECT_EQ(c["failed"], 1);
  EXPECT_EQ(c["not_up"].size(), 1U);
  EXPECT_EQ(j["last_change"]["changes"].size(), 2U);
  EXPECT_EQ(j["sweeps_by_kind"]["heavy"], 2);
  EXPECT_EQ(j["sweeps_by_kind"]["light_quiet"], 7);
  EXPECT_EQ(j["sweeps_by_kind"]["reroute"], 1);
  EXPECT_EQ(j["handovers_sent"], 1);
  EXPECT_EQ(j["sms"][0]["state"], "STANDBY");
  EXPECT_EQ(j["tables_total"]["lft"]["written"], 0);
  EXPECT_EQ(j["last_sweep"]["when_unix_ms"], 1796281262300LL);  // 2026-12-03T07:01:02.300Z
  EXPECT_EQ(j["exit"]["reason"], "stopped");
  EXPECT_EQ(j["exit"]["signal"], 15);
  EXPECT_EQ(j["exit"]["stopped_during"], "MASTER (heavy sweep)");
}

TEST(StatusJson, CarriesTheQueuesAndTheMemoryTheSoakWatches) {
  const auto j = nlohmann::json::parse(formatStatusJson(standby()));
  const auto& r = j.at("resources");
  EXPECT_EQ(r.at("mad_outstanding"), 3);
  EXPECT_EQ(r.at("mad_queued"), 7);
  EXPECT_EQ(r.at("gmp_outstanding"), 1);
  EXPECT_EQ(r.at("gmp_queued"), 2);
  EXPECT_EQ(r.at("counter_ports"), 896);
  EXPECT_EQ(r.at("rss_bytes"), 31'500'000);
  EXPECT_EQ(r.at("heap_in_use_bytes"), 5'100'000);
  EXPECT_EQ(r.at("heap_free_bytes"), 2'000'000);
  EXPECT_EQ(r.at("memory_releases"), 4);
}

TEST(StatusJson, ListsEverySmOfAnotherKey) {
  DaemonStatus s = standby();
  s.peers.foreignSms = {foreignMaster()};
  const auto json = formatStatusJson(s);
  EXPECT_EQ(nlohmann::json::parse(json)["foreign_sms"],
            nlohmann::json::parse(R"([{"guid":"0x0002c90300000009","state":"MASTER","priority":5,)"
                                  R"("sm_key":"other","port":"DR 0,1,3","lid":7}])"))
      << json;
}

}  // namespace
}  // namespace ibsm::sm::control
