// What the daemon says about a subnet must not mislead an operator: the
// first sweep of a fabric no SM has run is a first bring-up, not a
// takeover; "ports active" counts the ports that are active, beside those
// this sweep activated; a standby shows the master's subnet as it sees
// it, never a bare "not up". Judged by the status (what `ibsm status`
// shows); the SM-0001/SM-0105/SM-0137 lines are read only where their
// words are the subject.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <csignal>
#include <sstream>

#include "tests/sm/manager/DaemonOnFakeFabric.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;

std::size_t countOf(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class SmDaemonWordsTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonWordsTest() : DaemonOnFakeFabric("ibsm-daemon-words-test") {
    wire_.fabric().port(firstCaPort()).capabilityMask |= capability::kIsSm;
    settings_.sweepInterval = 10s;
    settings_.pollingTimeout = 1s;
  }

  // One life of a daemon on the first CA port until SIGTERM at `stopAt`:
  // running_ is its status a second before; the log of this life in log_.
  void live(std::chrono::milliseconds stopAt) {
    log_.str("");
    auto logger = std::make_shared<spdlog::logger>(
        "words-test", std::make_shared<spdlog::sinks::ostream_sink_st>(log_));
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    logger);
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    auto look = loop_.at(wire_.now() + stopAt - 1s, [&] { running_ = daemon.status(); });
    EXPECT_EQ(daemon.run(), 0);
    loop_.cancel(stop);
    loop_.cancel(look);
    lastResult_ = daemon.lastResult() ? std::optional(*daemon.lastResult()) : std::nullopt;
  }

  // Another SM, master with priority 5, on the last CA port.
  SmInfo masterOnLastCa() {
    const PortRef other = lastCaPort();
    wire_.fabric().port(other).capabilityMask |= capability::kIsSm;
    const SmInfo master{.guid = wire_.fabric().port(other).guid,
                        .smKey = kDefaultSmKey,
                        .priority = 5,
                        .smState = SmState::Master};
    wire_.runSm(other, master);
    return master;
  }

  // Ports with a cable, switch port 0 aside: what "active" counts when up.
  std::size_t linkedPorts() const {
    std::size_t n = 0;
    for (const Node& node : wire_.fabric().nodes())
      for (const Port& port : node.ports) n += port.number != 0 && port.connected();
    return n;
  }

  std::ostringstream log_;
  control::DaemonStatus running_;
  std::optional<SweepResult> lastResult_;
};

TEST_F(SmDaemonWordsTest, AFreshFabricsFirstSweepIsAFirstBringUpNotATakeover) {
  live(15s);
  ASSERT_TRUE(running_.up) << log_.str();
  EXPECT_EQ(running_.sweeps.firstBringUps, 1U);
  EXPECT_EQ(countOf(log_.str(), "SM-0137 first bring-up"), 1U) << log_.str();
  EXPECT_EQ(countOf(log_.str(), "SM-0105 "), 0U) << log_.str();
}

TEST_F(SmDaemonWordsTest, AFabricAnSmRanBeforeIsTakenOverAndItsActivePortsCounted) {
  live(15s);  // the first SM brings it up and stops; the ports keep LIDs and states
  ASSERT_TRUE(running_.up);
  ASSERT_TRUE(lastResult_);
  EXPECT_EQ(lastResult_->portsActive, linkedPorts());
  EXPECT_EQ(lastResult_->program.portsActivated, linkedPorts());

  live(15s);  // the next finds them programmed
  ASSERT_TRUE(running_.up) << log_.str();
  EXPECT_EQ(running_.sweeps.firstBringUps, 0U);
  EXPECT_EQ(countOf(log_.str(), "SM-0105 taking over"), 1U) << log_.str();
  ASSERT_TRUE(lastResult_);
  EXPECT_EQ(lastResult_->program.portsActivated, 0U);
  EXPECT_EQ(lastResult_->portsActive, linkedPorts());
  EXPECT_EQ(countOf(log_.str(),
                    fmt::format("{} ports active (0 activated by this sweep)", linkedPorts())),
            1U)
      << log_.str();
}

TEST_F(SmDaemonWordsTest, AStandbyShowsTheMastersSubnetAsItSeesIt) {
  live(15s);  // a master ran the fabric: ports Active, LIDs held
  const Lid masterLid = wire_.fabric().port(lastCaPort()).lid;
  ASSERT_TRUE(masterLid.isUnicast());
  const SmInfo master = masterOnLastCa();

  live(15s);
  EXPECT_EQ(running_.state, "STANDBY");
  EXPECT_FALSE(running_.up) << "up: as master only";
  ASSERT_TRUE(running_.masterView);
  const control::MasterView& m = *running_.masterView;
  EXPECT_EQ(m.guid, master.guid);
  EXPECT_EQ(m.lid, masterLid);
  EXPECT_EQ(m.priority, 5);
  EXPECT_EQ(m.state, "MASTER");
  EXPECT_EQ(m.portsLinked, linkedPorts());
  EXPECT_EQ(m.portsActive, linkedPorts());
  EXPECT_TRUE(m.fabricUp);
  EXPECT_TRUE(m.seenAt);
  const std::string text = control::formatStatus(running_);
  EXPECT_NE(text.find(fmt::format("up: yes as this SM sees it, run by master {} (lid {}, priority "
                                  "5, MASTER): {} of {} linked ports Active",
                                  master.guid, masterLid.value, linkedPorts(), linkedPorts())),
            std::string::npos)
      << text;
}

TEST_F(SmDaemonWordsTest, AStandbyOfAFabricNotUpSaysSo) {
  const SmInfo master = masterOnLastCa();  // a master that never programmed anything
  live(15s);
  EXPECT_EQ(running_.state, "STANDBY");
  ASSERT_TRUE(running_.masterView);
  EXPECT_EQ(running_.masterView->guid, master.guid);
  EXPECT_FALSE(running_.masterView->fabricUp);
  EXPECT_LT(running_.masterView->portsActive, running_.masterView->portsLinked);
  EXPECT_TRUE(control::formatStatus(running_).contains("up: no as this SM sees it"));
}

TEST_F(SmDaemonWordsTest, AMasterShowsNoMasterView) {
  live(15s);
  EXPECT_EQ(running_.state, "MASTER");
  EXPECT_FALSE(running_.masterView);
  EXPECT_TRUE(control::formatStatus(running_).contains("\nup: yes\n"));
}

}  // namespace
}  // namespace ibsm::sm::manager
