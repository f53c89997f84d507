// Issue 29: no SM_Key is ever shown. A master with a configured SM_Key runs
// beside a foreign SM showing another key; neither key may appear in the log,
// `ibsm status` (text or JSON) or the metrics, in any way a 64-bit value can
// be written. What status says instead: "configured" for ours, "other" for
// theirs.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "sm/control/StatusFormat.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"

namespace ibsm::sm::manager {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kOurs = 0x5ec2e7a1b2c3d4e5ULL;
constexpr std::uint64_t kTheirs = 0x7e11a1b2c3d4e5f6ULL;

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Every way a key could be written: hex (padded or not), decimal, and the
// hex of its low and high halves, as a 32-bit field dump would show them.
void expectNoKey(const std::string& where, const std::string& text, std::uint64_t key) {
  const std::string t = lower(text);
  for (const std::string& form :
       {fmt::format("{:016x}", key), fmt::format("{:x}", key), fmt::format("{}", key),
        fmt::format("{:08x}", key & 0xffffffffU), fmt::format("{:08x}", key >> 32)})
    EXPECT_EQ(t.find(form), std::string::npos) << where << " shows " << form << ":\n" << text;
}

class SmDaemonSecrets : public DaemonOnFakeFabric {
 protected:
  SmDaemonSecrets() : DaemonOnFakeFabric("ibsm-daemon-secrets-test") {}

  std::shared_ptr<spdlog::logger> capturing() {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(log_);
    auto logger = std::make_shared<spdlog::logger>("secrets-test", sink);
    logger->set_level(spdlog::level::trace);
    return logger;
  }

  std::ostringstream log_;
};

TEST_F(SmDaemonSecrets, NeitherOurSmKeyNorAForeignSmsAppearsInLogStatusOrMetrics) {
  settings_.smKey = kOurs;
  settings_.onceMaxSweeps = 3;
  settings_.metricsFile = stateDir_ / "ibsm.prom";
  const PortRef other = lastCaPort();
  wire_.fabric().port(other).capabilityMask |= capability::kIsSm;
  wire_.runSm(other, SmInfo{.guid = wire_.fabric().port(other).guid,
                            .smKey = kTheirs,
                            .priority = 0,
                            .smState = SmState::Standby});
  SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                  capturing());
  ASSERT_EQ(daemon.run(), 0) << log_.str();
  const control::DaemonStatus status = daemon.status();
  // The foreign SM was seen and reported: the paths that used to print keys ran.
  ASSERT_EQ(status.peers.foreignSms.size(), 1u) << log_.str();
  EXPECT_GE(status.peers.foreignReports, 1u);

  const std::string text = control::formatStatus(status);
  const std::string json = control::formatStatusJson(status);
  std::ifstream metricsIn(settings_.metricsFile);
  const std::string metrics{std::istreambuf_iterator<char>(metricsIn),
                            std::istreambuf_iterator<char>()};
  ASSERT_FALSE(metrics.empty());
  EXPECT_THAT(text, HasSubstr("\nsm_key: configured\n"));
  EXPECT_THAT(text, HasSubstr(" sm_key other "));
  EXPECT_THAT(json, HasSubstr(R"("sm_key":"other")"));
  EXPECT_THAT(log_.str(), HasSubstr("SM-0115"));
  for (const std::uint64_t key : {kOurs, kTheirs}) {
    expectNoKey("the log", log_.str(), key);
    expectNoKey("status", text, key);
    expectNoKey("status --json", json, key);
    expectNoKey("metrics", metrics, key);
  }
}

TEST(ShownSmKey, SaysOnlyWhatKindOfKeyAnotherSmShows) {
  EXPECT_EQ(control::shownSmKey(kDefaultSmKey), "default");
  EXPECT_EQ(control::shownSmKey(0), "zero");
  EXPECT_EQ(control::shownSmKey(kTheirs), "other");
}

}  // namespace
}  // namespace ibsm::sm::manager
