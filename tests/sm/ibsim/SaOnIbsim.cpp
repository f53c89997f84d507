// The SA on the wire, end to end on a simulated fabric: this process runs
// the daemon as master (on the net file's first node) with a small SA
// responder that answers ClassPortInfo, and `saquery CPI` run on another
// node ("Hca2") once the subnet is up gets that answer -- through
// UmadTransport's SA agent, the daemon's GMP path and sendGmp() back to the
// requester's LID and QP with its TID. The daemon counts it answered.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm::sm {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kSaData = 56;  // MAD, RMPP and SA headers
constexpr std::uint8_t kGetResp = 0x81;
constexpr std::uint16_t kClassPortInfo = 0x0001;

// Answers a ClassPortInfo Get (BaseVersion 1, ClassVersion 2, RespTimeValue
// 18); anything else is left unanswered.
class ClassPortInfoOnly final : public GmpResponder {
 public:
  std::optional<std::vector<std::uint8_t>> answer(std::span<const std::uint8_t> request,
                                                  const GmpAddress&) override {
    const auto attribute = static_cast<std::uint16_t>(request[16] << 8 | request[17]);
    if (request[3] != 0x01 || attribute != kClassPortInfo) return std::nullopt;
    std::vector<std::uint8_t> out(request.begin(), request.begin() + kSaData);
    out.resize(kMadSize, 0);
    out[3] = kGetResp;
    out[kSaData] = 1;
    out[kSaData + 1] = kSaClassVersion;
    out[kSaData + 7] = 18;  // CapabilityMask2 0, RespTimeValue 18
    return out;
  }
};

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
}

// `command`'s stdout and whether it exited 0.
std::pair<std::string, bool> run(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return {out, false};
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  return {out, pclose(pipe) == 0};
}

TEST(SaOnIbsim, SaqueryGetsTheRespondersAnswerFromTheMaster) {
  auto wire = transport::UmadTransport::open({});
  ASSERT_TRUE(wire) << wire.error().message;
  loop::EventLoop loop;
  MadEngine engine(**wire, {.clock = loop.clock(), .waiter = &loop, .logger = quiet()});
  const auto stateDir = std::filesystem::current_path() / "sa-state";
  manager::StateStore store(stateDir);
  manager::DaemonSettings settings;
  settings.sweep.plan.engines = {"updn"};
  manager::SmDaemon daemon(engine, loop, store, (*wire)->port().portGuid, settings, {}, quiet());
  daemon.serveSa(**wire, std::make_shared<ClassPortInfoOnly>());

  // saquery runs beside the daemon (it waits for the daemon's answer); its
  // end reaches the daemon's one thread through a pipe the loop watches.
  int done[2];
  ASSERT_EQ(::pipe(done), 0);
  std::pair<std::string, bool> asked;
  std::thread asker([&] {
    std::this_thread::sleep_for(3s);  // a 4-node fabric is up well within
    asked = run("SIM_HOST=Hca2 saquery -t 1000 CPI");
    (void)!::write(done[1], "x", 1);
  });
  loop.watch(done[0], [&] {
    char c;
    (void)!::read(done[0], &c, 1);
    daemon.signal(SIGTERM);
  });
  EXPECT_EQ(daemon.run(), 0);
  asker.join();
  loop.unwatch(done[0]);
  ::close(done[0]);
  ::close(done[1]);

  const auto status = daemon.status();
  EXPECT_GE(status.states.timesMaster, 1U);
  EXPECT_GE(status.sa.traffic.answered, 1U);
  EXPECT_EQ(status.sa.traffic.answered, status.sa.traffic.received);
  EXPECT_TRUE(asked.second) << "saquery CPI failed:\n" << asked.first;
  EXPECT_NE(asked.first.find("Class version"), std::string::npos) << asked.first;
  std::filesystem::remove_all(stateDir);
}

}  // namespace
}  // namespace ibsm::sm
