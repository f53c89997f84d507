// Sends faster than ibsim answers, under umad2sim (run through
// run-with-ibsim.sh; ctest -L ibsim). A burst of Gets written back to back
// outruns ibsim (a few microseconds of our CPU a write against several of
// its own a MAD), so umad2sim's socket to ibsim fills. A blocking write
// there would hold umad2sim's global lock while ibsim waits for us to drain
// our answers, which umad2sim's receiver thread cannot do without that lock:
// the process would hang. The transport must keep what does not fit,
// send it as ibsim reads, and lose nothing. A watchdog turns a hang into a
// failure.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "sm/transport/UmadTransport.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;

// Ends the process with a message if `done()` is not called in time.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, const char* what)
      : thread_([this, limit, what] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "FAILED: %s: no progress in %lld s (hung)\n", what,
                         static_cast<long long>(limit.count()));
            std::_Exit(1);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_{false};
  std::thread thread_;
};

// Far more than a socket's send buffer holds (a few hundred datagrams).
constexpr std::uint32_t kBurst = 20000;

TEST(UmadBackpressure, ABurstFasterThanIbsimIsKeptAndSentAsItReadsNoneLost) {
  auto port = sm::transport::UmadTransport::open({});
  ASSERT_TRUE(port) << port.error().message;
  auto& wire = **port;
  Watchdog watchdog(60s, "a burst of Gets through umad2sim");

  for (std::uint32_t tid = 1; tid <= kBurst; ++tid) {
    Smp request = Smp::directed(Method::Get, AttributeId::NodeInfo, 0, DrPath{});
    request.header.tid = tid;
    auto sent = wire.send(encodeSmp(request), MadAddress::directed());
    ASSERT_TRUE(sent) << "send " << tid << ": " << sent.error().message;
  }
  const auto& counters = wire.wireCounters();
  // The burst did not fit: some writes were kept rather than blocking.
  EXPECT_GT(counters.sendsDeferred, 0U);
  EXPECT_GT(counters.mostDeferred, 0U);

  std::vector<bool> answered(kBurst + 1, false);
  std::uint32_t got = 0;
  const auto giveUp = MadClock::now() + 30s;
  while (got < kBurst && MadClock::now() < giveUp) {
    auto in = wire.receive(giveUp);
    ASSERT_TRUE(in) << in.error().message;
    if (!*in) break;
    auto smp = decodeSmp((*in)->mad);
    ASSERT_TRUE(smp);
    const auto tid = static_cast<std::uint32_t>(smp->header.tid);
    ASSERT_EQ(smp->header.method, Method::GetResp);
    ASSERT_TRUE(tid >= 1 && tid <= kBurst) << tid;
    EXPECT_FALSE(answered[tid]) << "TID " << tid << " answered twice";
    if (!answered[tid]) ++got;
    answered[tid] = true;
  }
  EXPECT_EQ(got, kBurst);
  EXPECT_EQ(counters.sendsDropped, 0U);
  std::printf("%u Gets: %llu writes kept, at most %llu at once\n", kBurst,
              static_cast<unsigned long long>(counters.sendsDeferred),
              static_cast<unsigned long long>(counters.mostDeferred));
}

TEST(UmadBackpressure, WritesAreNotKeptWhileIbsimKeepsUp) {
  auto port = sm::transport::UmadTransport::open({});
  ASSERT_TRUE(port) << port.error().message;
  auto& wire = **port;
  Watchdog watchdog(60s, "Gets one at a time");
  // One at a time, each answered before the next: the socket never fills.
  for (std::uint32_t tid = 1; tid <= 200; ++tid) {
    Smp request = Smp::directed(Method::Get, AttributeId::NodeInfo, 0, DrPath{});
    request.header.tid = tid;
    ASSERT_TRUE(wire.send(encodeSmp(request), MadAddress::directed()));
    auto in = wire.receive(MadClock::now() + 2s);
    ASSERT_TRUE(in && *in) << "no answer to " << tid;
  }
  EXPECT_EQ(wire.wireCounters().sendsDeferred, 0U);
}

}  // namespace
}  // namespace ibsm
