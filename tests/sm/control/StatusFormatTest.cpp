// What `ibsm status` prints: stable "key: value" lines operators grep, and
// JSON with the same fields.
#include <gtest/gtest.h>

#include "sm/control/StatusFormat.h"

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
  s.uptime = 3723s;
  s.madsSent = 40;
  return s;
}

SweepInfo heavySweep() {
  SweepInfo w;
  w.kind = "heavy";
  w.when = std::chrono::sys_days{std::chrono::December / 3 / 2026} + 7h + 1min + 2s + 300ms;
  w.duration = 812ms;
  w.mads = 2410;
  w.changes = {"port 0x0002c90300000007/1 down", "3 LFT blocks \"changed\""};
  w.up = true;
  return w;
}

TEST(StatusText, IsOneKeyValueLinePerField) {
  DaemonStatus s = standby();
  EXPECT_EQ(formatStatus(s),
            "state: STANDBY\n"
            "phase: StandbyPolling\n"
            "port_guid: 0x0002c90300000002\n"
            "lid: 5\n"
            "priority: 3\n"
            "sm_key: configured\n"
            "master: 0x0002c90300000001\n"
            "uptime: 3723 s\n"
            "sweeps: 0\n"
            "last_sweep: none\n"
            "last_heavy: none\n"
            "switches: 0\n"
            "ca_ports: 0\n"
            "routed_pairs: 0\n"
            "unreachable_pairs: 0\n"
            "engine: none\n"
            "mads_sent: 40\n"
            "traps_received: 0\n"
            "foreign_sms: 0\n");
}

TEST(StatusText, ASweepShowsKindTimeDurationMadsVerdictAndEachChange) {
  DaemonStatus s = standby();
  s.lastSweep = heavySweep();
  s.lastSweep->up = false;
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
  s.foreignSms = {foreignMaster()};
  const auto text = formatStatus(s);
  EXPECT_NE(text.find("\nforeign_sms: 1\n"
                      "foreign_sm: 0x0002c90300000009 MASTER priority 5 sm_key 0x0000000000000002 "
                      "at DR 0,1,3 lid 7\n"),
            std::string::npos)
      << text;
}

TEST(StatusJson, CarriesTheSameFieldsWithNullsAndEscapes) {
  DaemonStatus s = standby();
  s.lastHeavy = heavySweep();
  s.engine = "ftree";
  EXPECT_EQ(
      formatStatusJson(s),
      R"({"state":"STANDBY","phase":"StandbyPolling","port_guid":"0x0002c90300000002","lid":5,)"
      R"("priority":3,"sm_key_default":false,"master":"0x0002c90300000001","uptime_s":3723,"sweeps":0,)"
      R"("last_sweep":null,"last_heavy":{"kind":"heavy","when":"2026-12-03T07:01:02Z",)"
      R"("duration_ms":812,"mads":2410,"changes":["port 0x0002c90300000007/1 down",)"
      R"("3 LFT blocks \"changed\""],"up":true},"switches":0,"ca_ports":0,"routed_pairs":0,)"
      R"("unreachable_pairs":0,"engine":"ftree","mads_sent":40,"traps_received":0,)"
      R"("foreign_sms":[]})"
      "\n");
}

TEST(StatusJson, ListsEverySmOfAnotherKey) {
  DaemonStatus s = standby();
  s.foreignSms = {foreignMaster()};
  const auto json = formatStatusJson(s);
  EXPECT_NE(json.find(R"("foreign_sms":[{"guid":"0x0002c90300000009","state":"MASTER",)"
                      R"("priority":5,"sm_key":"0x0000000000000002","port":"DR 0,1,3","lid":7}])"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace ibsm::sm::control
