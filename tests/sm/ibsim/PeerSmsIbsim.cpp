// Two SMs on one simulated fabric, as separate processes: this test (on the
// first node of the net file) finds, reads and controls a second SM that it
// starts as a child on "Hca1" (SIM_HOST), which is this same executable
// running only PeerSmChild.* with PEERSMS_CHILD set. What it shows:
// umad2sim honours the issm device (the child's port reads IsSM, also to
// smpquery), findPeerSms routes to that port, readPeerSmInfos and
// sendSmControl reach the child's SmInfoAgent and get its answers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>
#include <spawn.h>
#include <spdlog/sinks/null_sink.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "sm/discovery/Discovery.h"
#include "sm/manager/PeerSms.h"
#include "sm/manager/SmInfoAgent.h"
#include "sm/transport/UmadTransport.h"

extern char** environ;

namespace ibsm::sm {
namespace {

using namespace std::chrono_literals;

constexpr std::uint8_t kChildPriority = 7;
constexpr std::uint32_t kChildActCount = 4711;

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
}

// The second SM: a standby that accepts any control packet and writes the
// modifiers it got to child.sets, until its time is up.
TEST(PeerSmChild, AnswersAsAStandby) {
  const char* seconds = std::getenv("PEERSMS_CHILD");
  if (seconds == nullptr) GTEST_SKIP() << "runs only as the child of PeerSmsOnIbsim";
  auto wire = transport::UmadTransport::open({});
  ASSERT_TRUE(wire) << wire.error().message;
  MadEngine engine(**wire);
  manager::SmInfoAgent agent(engine,
                             SmInfo{.guid = (*wire)->port().portGuid,
                                    .smKey = 0,
                                    .actCount = kChildActCount,
                                    .priority = kChildPriority,
                                    .smState = SmState::Standby},
                             quiet());
  std::ofstream sets("child.sets");
  agent.onSmInfoSet([&](std::uint32_t modifier, const SmInfo&) -> std::optional<bool> {
    sets << modifier << std::endl;
    return true;
  });
  ASSERT_TRUE(engine.runUntil(MadClock::now() + std::chrono::seconds(std::atoi(seconds))));
}

pid_t spawnSelf(const std::vector<std::string>& env, std::vector<std::string> args,
                const char* stdoutFile = nullptr) {
  std::vector<std::string> envStrings = env;
  for (char** e = environ; *e != nullptr; ++e) envStrings.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  if (stdoutFile != nullptr)
    posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, stdoutFile, O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  pid_t child = 0;
  const int rc = posix_spawnp(&child, argv[0], &io, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&io);
  return rc == 0 ? child : -1;
}

std::string slurp(const char* path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(PeerSmsOnIbsim, FindsReadsAndControlsASecondSmProcess) {
  std::string self(4096, '\0');
  self.resize(static_cast<std::size_t>(::readlink("/proc/self/exe", self.data(), self.size())));
  const pid_t child = spawnSelf({"SIM_HOST=Hca1", "PEERSMS_CHILD=20"},
                                {self, "--gtest_filter=PeerSmChild.*"}, "child.out");
  ASSERT_GT(child, 0);

  auto wire = transport::UmadTransport::open({});
  ASSERT_TRUE(wire) << wire.error().message;
  MadEngineOptions options;
  options.logger = quiet();
  MadEngine engine(**wire, options);
  SmInfo me{.guid = (*wire)->port().portGuid,
            .smKey = 0,
            .actCount = 0,
            .priority = 1,
            .smState = SmState::Discovering};

  // The child claims IsSM when it opens its port; look until it has.
  std::vector<manager::PeerSm> peers;
  discovery::DiscoveredSubnet subnet;
  for (auto giveUp = MadClock::now() + 15s; peers.empty() && MadClock::now() < giveUp;) {
    discovery::Discovery discovery(engine, {}, quiet());
    auto found = discovery.run();
    ASSERT_TRUE(found) << found.error().message;
    subnet = std::move(*found);
    peers = manager::findPeerSms(subnet);
    if (peers.empty()) ::usleep(200'000);
  }
  ASSERT_EQ(peers.size(), 1U) << "the child's port never showed IsSM";
  const auto port = subnet.fabric.findPort(peers[0].portGuid);
  ASSERT_TRUE(port);
  EXPECT_EQ(subnet.fabric.node(port->node).description.substr(0, 4), "Hca1");

  // An independent reader agrees: smpquery sees IsSM on the child's port.
  const std::string route = std::get<DrPath>(peers[0].address).toString();
  const pid_t query = spawnSelf({}, {"smpquery", "-D", "portinfo", route}, "portinfo.out");
  ASSERT_GT(query, 0);
  int status = -1;
  ::waitpid(query, &status, 0);
  EXPECT_NE(slurp("portinfo.out").find("IsSM"), std::string::npos) << slurp("portinfo.out");

  // And our own port, a switch's port 0 here, shows IsSM while we hold it.
  const pid_t own = spawnSelf({}, {"smpquery", "-D", "portinfo", "0"}, "own-portinfo.out");
  ASSERT_GT(own, 0);
  ::waitpid(own, &status, 0);
  EXPECT_NE(slurp("own-portinfo.out").find("IsSM"), std::string::npos) << slurp("own-portinfo.out");

  auto infos = manager::readPeerSmInfos(engine, peers, me);
  ASSERT_TRUE(infos) << infos.error().message;
  ASSERT_EQ(infos->size(), 1U);
  EXPECT_EQ((*infos)[0].info.guid, peers[0].portGuid);
  EXPECT_EQ((*infos)[0].info.priority, kChildPriority);
  EXPECT_EQ((*infos)[0].info.smState, SmState::Standby);
  EXPECT_EQ((*infos)[0].info.actCount, kChildActCount);

  auto polled = manager::pollSmInfo(engine, peers[0], me);
  ASSERT_TRUE(polled);
  EXPECT_TRUE(polled->has_value());

  me.smState = SmState::Master;
  auto handed = manager::sendSmControl(engine, peers[0], 2, me);  // kAcknowledge
  ASSERT_TRUE(handed);
  EXPECT_TRUE(*handed);

  ::kill(child, SIGTERM);
  ::waitpid(child, &status, 0);
  EXPECT_EQ(slurp("child.sets"), "2\n");
}

}  // namespace
}  // namespace ibsm::sm
