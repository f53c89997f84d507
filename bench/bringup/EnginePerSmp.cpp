// CPU the MAD engine itself spends per SMP (issue 32): a radix-24 tree's
// programming pass -- 720 switches x 67 LFT blocks, queued switch after
// switch, window 32, one SMP per switch in the window -- against a wire
// that answers every SMP at once in memory, so what is timed is the
// engine, the requester and the node queues (encode, TIDs, window, decode,
// match, callbacks), none of the kernel's or umad2sim's share. Prints the
// process CPU nanoseconds per SMP, best of a few rounds.
//
//   build/bench/engine_per_smp [switches] [blocks_per_switch] [rounds]
//
// (IBSM_BENCH=ON.) To compare with another tree's engine, one g++ line
// against its sources: g++ -std=c++23 -O3 -DNDEBUG -DSPDLOG_COMPILED_LIB
// -DSPDLOG_FMT_EXTERNAL -DFMT_SHARED -ITREE/include -ITREE
// bench/bringup/EnginePerSmp.cpp TREE/sm/mad/*.cpp -lspdlog -lfmt
#include <ibsm/Mad.h>
#include <ibsm/MadPath.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "sm/mad/MadEngine.h"

namespace {

constexpr std::size_t kMethodByte = 3;
constexpr std::uint8_t kGetResp = 0x81;

// Answers each SMP at once: the same bytes as a GetResp.
class InstantWire final : public ibsm::MadTransport {
 public:
  ibsm::Result<void> send(const ibsm::MadBuffer& mad, ibsm::MadAddress) override {
    answers_.push_back(mad);
    answers_.back()[kMethodByte] = kGetResp;
    return {};
  }
  ibsm::Result<std::optional<ibsm::ReceivedMad>> receive(ibsm::MadClock::time_point) override {
    if (answers_.empty()) return std::optional<ibsm::ReceivedMad>{};
    ibsm::ReceivedMad in{.mad = answers_.front(), .from = ibsm::MadAddress::directed()};
    answers_.pop_front();
    return std::optional<ibsm::ReceivedMad>{in};
  }
  int pollFd() const override { return -1; }

 private:
  std::deque<ibsm::MadBuffer> answers_;
};

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// One pass: every switch's blocks queued, then run until idle. CPU s.
double pass(std::size_t switches, std::size_t blocks, std::size_t& answered) {
  InstantWire wire;
  ibsm::MadEngineOptions options;
  options.window = 32;
  options.perNodeWindow = 1;
  options.logger =
      std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_mt>());
  ibsm::MadEngine engine(wire, options);
  const ibsm::SmpData table{};
  const double start = cpuSeconds();
  for (std::size_t s = 0; s < switches; ++s) {
    // A distinct route per switch: 0,1+s/30,1+s%30.
    const std::uint8_t hops[] = {static_cast<std::uint8_t>(1 + s / 30),
                                 static_cast<std::uint8_t>(1 + s % 30)};
    const auto path = *ibsm::DrPath::fromPorts(hops);
    for (std::size_t b = 0; b < blocks; ++b)
      engine.submit(ibsm::SmpRequest::set(ibsm::AttributeId::LinearForwardingTable,
                                          static_cast<std::uint32_t>(b), path, table),
                    [&answered](const ibsm::SmpRequest&, const ibsm::SmpReply& r) {
                      if (r.ok()) ++answered;
                    });
  }
  if (auto ran = engine.runUntilIdle(); !ran) {
    std::fprintf(stderr, "engine failed: %s\n", ran.error().message.c_str());
    std::exit(1);
  }
  return cpuSeconds() - start;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t switches = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 720;
  const std::size_t blocks = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 67;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  double best = 1e9;
  std::size_t answered = 0;
  for (int r = 0; r < rounds; ++r) {
    answered = 0;
    best = std::min(best, pass(switches, blocks, answered));
  }
  const std::size_t smps = switches * blocks;
  if (answered != smps) {
    std::fprintf(stderr, "answered %zu of %zu SMPs\n", answered, smps);
    return 1;
  }
  std::printf("engine CPU per SMP: %.0f ns (%zu SMPs, best of %d: %.3f s)\n", best * 1e9 / smps,
              smps, rounds, best);
  return 0;
}
