// Traps from the fabric, judged per sending port before they cost the SM a
// sweep: a port (keyed by the MAD's source LID, which the sender's HCA
// stamps, not by the Notice's issuer field, which the sender writes) that
// sends traps faster than `noisyRate` over `window` is *noisy*: its traps
// are still repressed and counted but ask for no sweep and reach no SA
// subscriber until it calms down (its rate back under half the threshold,
// and at least one window since it turned noisy). A trap whose Notice
// names another port than the one that sent it is dropped. Each port may
// have a few log lines per log window; what it had beyond them is counted
// and told once (`suppressed`).
//
// Pure: the caller passes the time, logs and feeds the state machine
// (sm/manager/TrapService.h). State per port is bounded (kMaxPorts): when
// full, the port seen least recently that is not noisy is forgotten; if
// every tracked port is noisy, a new one is treated as noisy.
#pragma once

#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sm/mad/MadTransport.h"

namespace ibsm::sm::health {

struct TrapWatchSettings {
  // Traps per second a port may send, averaged over `window`; 0: no port is
  // ever noisy. 10/s: a healthy switch sends trap 128 once per batch of port
  // changes and stops when repressed, so a port above 10/s is repeating.
  double noisyRate{10.0};
  std::chrono::seconds window{2};
  // Log lines per port per log window; the rest are counted and told once.
  std::uint32_t logLines{5};
  std::chrono::seconds logWindow{10};
  // Ports with LMC > 0 send from any LID of their range (IBA 7.11.1).
  std::uint8_t lmc{0};
};

enum class TrapFate : std::uint8_t {
  Sweep,     // stands: forwarded, asks for a sweep
  Noisy,     // the port is noisy: counted and repressed only
  Mismatch,  // the Notice names another port than the sender: dropped
};

// What one trap did, for the caller to log and act on.
struct TrapVerdict {
  TrapFate fate{TrapFate::Sweep};
  Lid port;                     // the sending port (source LID, else issuer)
  bool log{false};              // within the port's log budget
  bool becameNoisy{false};      // this trap made the port noisy
  double rate{0};               // the port's traps per second, as estimated now
  std::uint64_t suppressed{0};  // log lines held back in the log window that just ended
};

// A noisy port, or one that sent a trap the IBA counts as a security or
// keying event (256 bad M_Key, 257 bad P_Key, 258 bad Q_Key).
struct TrapPortView {
  Lid lid;
  bool noisy{false};
  double rate{0};  // traps per second, as estimated now
  std::optional<MadClock::time_point> noisySince;
  std::uint64_t traps{0};  // every trap the port sent while tracked
  std::uint64_t mismatched{0};
  std::uint64_t badMKey{0};  // trap 256
  std::uint64_t badPKey{0};  // trap 257
  std::uint64_t badQKey{0};  // trap 258
};

struct TrapCounts {
  std::uint64_t received{0};
  std::uint64_t sweepsAsked{0};    // traps that stood (asked for a sweep)
  std::uint64_t noisyIgnored{0};   // traps of noisy ports
  std::uint64_t mismatched{0};     // dropped: the Notice did not match the sender
  std::uint64_t logSuppressed{0};  // log lines held back
  std::uint64_t noisyEpisodes{0};  // times a port turned noisy
  std::uint64_t portsForgotten{0};
  std::map<std::uint16_t, std::uint64_t> byNumber;  // every trap received
};

class TrapWatch {
 public:
  static constexpr std::size_t kMaxPorts = 4096;

  explicit TrapWatch(TrapWatchSettings settings = {}) : settings_(settings) {}
  void setSettings(const TrapWatchSettings& s) { settings_ = s; }
  const TrapWatchSettings& settings() const { return settings_; }

  // A trap received from the MAD source LID `source` (0 when unknown).
  TrapVerdict observe(const Notice& notice, Lid source, MadClock::time_point now);

  // A port that calmed down, or whose log window ended with lines held back.
  struct Calmed {
    Lid lid;
    std::uint64_t suppressed{0};  // log lines held back, not yet told
    bool calmed{false};           // was noisy, is not any more
  };
  // Ages every port to `now`: who calmed down, whose held-back lines are to
  // be told; ports with nothing left to remember are forgotten.
  std::vector<Calmed> age(MadClock::time_point now);
  // When age() may have something to say; nullopt: nothing tracked.
  std::optional<MadClock::time_point> nextAge() const;

  bool noisy(Lid port) const;
  std::size_t noisyPorts() const;
  std::size_t trackedPorts() const { return ports_.size(); }
  // Ports noisy now or with traps 256/257/258, lowest LID first.
  std::vector<TrapPortView> view(MadClock::time_point now) const;
  const TrapCounts& counts() const { return counts_; }

 private:
  struct PortTraps {
    MadClock::time_point windowStart{};
    std::uint64_t current{0};   // traps since windowStart
    std::uint64_t previous{0};  // traps in the window before
    std::optional<MadClock::time_point> noisySince;
    MadClock::time_point lastSeen{};
    MadClock::time_point logWindowStart{};
    std::uint32_t logged{0};  // lines in this log window
    std::uint64_t suppressed{0};
    TrapPortView totals;
  };

  void advance(PortTraps& p, MadClock::time_point now) const;
  double estimate(const PortTraps& p, MadClock::time_point now) const;
  double limit() const;
  bool mismatched(const Notice& notice, Lid source) const;
  PortTraps* track(Lid port, MadClock::time_point now);
  bool takeLogLine(PortTraps& p, MadClock::time_point now, TrapVerdict& v);

  TrapWatchSettings settings_;
  MadClock::time_point lastAged_{};
  std::unordered_map<std::uint16_t, PortTraps> ports_;
  TrapCounts counts_;
};

}  // namespace ibsm::sm::health
