// How many attempts an SMP gets, from the loss the engine sees on paths
// like its own. A directed-route SMP crosses every switch of its path twice
// and may be lost at each; at a few percent loss per switch a 5-hop probe
// fails one attempt in three, and a fixed 1 + 3 attempts leave one probe in
// five unanswered -- a bring-up that never converges. So the engine keeps a
// running loss rate per path length (directed route by hop count, and
// LID-routed apart), and gives each request as many attempts as leave it a
// `target` chance of failing at that rate, within the configured floor and
// ceiling (how long each attempt waits is MadRto's). A path that loses
// nothing keeps the floor, so a dead port still costs only 1 + retries
// timeouts.
//
//   MadLoss loss;
//   loss.answered(bucketOf(request.to));  // or lost(...) on each timeout
//   unsigned n = loss.attemptsFor(bucketOf(request.to), {.floor = 4, .ceiling = 16});
#pragma once

#include <ibsm/MadPath.h>

#include <array>
#include <cstddef>
#include <variant>

namespace ibsm {

class MadLoss {
 public:
  static constexpr std::size_t kLidRouted = 64;  // the bucket of LID-routed SMPs
  static constexpr std::size_t kBuckets = 65;

  struct Limits {
    unsigned floor{4};     // attempts every request gets (1 + retries)
    unsigned ceiling{16};  // and at most, however lossy the path
    double target{1e-4};   // the chance of failing all attempts aimed at
  };

  static std::size_t bucketOf(const std::variant<DrPath, Lid>& to);

  // A request to this bucket was answered at attempt `attempt` (1-based).
  void answeredAt(std::size_t bucket, unsigned attempt);
  // The share of attempts lost lately on this bucket's paths, 0..1.
  double lossRate(std::size_t bucket) const { return rate_.at(bucket); }
  unsigned attemptsFor(std::size_t bucket, const Limits& limits) const;

 private:
  // A running average over about the last 32 attempts: fast enough to
  // follow a sweep into a lossy part of the fabric, slow enough that one
  // dead port among many live ones does not make every probe wait.
  static constexpr double kWeight = 1.0 / 32;
  void update(std::size_t bucket, double sample);
  std::array<double, kBuckets> rate_{};
};

}  // namespace ibsm
