// A GmpPort for unit tests, over any MadTransport (the fake fabric): GMPs
// injected at a time on the transport's clock reach the handler from
// inside receive(), as UmadTransport delivers them -- between the SMPs of
// a sweep or in the daemon's wait -- and the answers sent are recorded.
// SMPs pass through untouched.
//
//   FakeFabricTransport wire(fabric, smPort);
//   GmpInjector gmps(wire, wire.clock());
//   MadEngine engine(gmps, options);              // the engine reads SMPs only
//   gmps.inject(classPortInfoGet(7), wire.now() + 5s);
//   daemon.serveSa(gmps, responder);
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/mad/MadTransport.h"

namespace ibsm::testing {

class GmpInjector final : public MadTransport, public GmpPort {
 public:
  struct SentGmp {
    std::vector<std::uint8_t> mad;
    GmpAddress to;
    MadClock::time_point at;
  };

  GmpInjector(MadTransport& inner, std::function<MadClock::time_point()> clock)
      : inner_(inner), clock_(std::move(clock)) {}

  // `gmp` arrives at `at` (or at the first receive() after it); GMPs of
  // one moment arrive together, in the order injected.
  void inject(ReceivedGmp gmp, MadClock::time_point at) {
    pending_.push_back({at, std::move(gmp)});
    std::ranges::stable_sort(pending_, {}, &Pending::at);
  }
  const std::vector<SentGmp>& sentGmps() const { return sent_; }
  void failSends(bool fail = true) { failSends_ = fail; }
  // Called with each GMP sent, after it is recorded: a test's peer (a
  // subscriber answering Reports) may inject() its answer from here.
  void onSend(std::function<void(const SentGmp&)> peer) { peer_ = std::move(peer); }

  [[nodiscard]] Result<void> send(const MadBuffer& mad, MadAddress to) override {
    return inner_.send(mad, to);
  }
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    for (;;) {
      const bool gmpFirst = !pending_.empty() && pending_.front().at <= deadline;
      auto in = inner_.receive(gmpFirst ? pending_.front().at : deadline);
      if (!in || *in || !gmpFirst) return in;
      // Nothing else came before the GMP's time: hand it over, as the
      // umad transport does from inside receive(), and return empty: the
      // umad transport waits at most a slice (EventLoop::kAloneSlice) or
      // not at all past what is queued, so the caller soon sees timers
      // the handler set.
      // Every GMP injected for that same moment is handed over in one go,
      // as the umad transport reads all that is queued on the wire; then
      // the queue behind the handler gets its turns, as the umad transport
      // gives them when nothing more is queued.
      const auto at = pending_.front().at;
      while (!pending_.empty() && pending_.front().at == at) {
        ReceivedGmp gmp = std::move(pending_.front().gmp);
        pending_.erase(pending_.begin());
        if (handler_) handler_(gmp);
      }
      if (drained_)
        while (drained_()) {
        }
      return std::optional<ReceivedMad>{};
    }
  }
  int pollFd() const override { return inner_.pollFd(); }
  bool pollsWithOtherFds() const override { return inner_.pollsWithOtherFds(); }

  void onGmp(Handler handler) override { handler_ = std::move(handler); }
  void onGmpsDrained(Drained drained) override { drained_ = std::move(drained); }
  [[nodiscard]] Result<void> sendGmp(std::span<const std::uint8_t> mad,
                                     const GmpAddress& to) override {
    if (failSends_) return fail("fake GMP port: send refused");
    sent_.push_back({{mad.begin(), mad.end()}, to, clock_()});
    if (peer_) peer_(sent_.back());
    return {};
  }

 private:
  struct Pending {
    MadClock::time_point at;
    ReceivedGmp gmp;
  };
  MadTransport& inner_;
  std::function<MadClock::time_point()> clock_;
  std::vector<Pending> pending_;  // by time
  std::vector<SentGmp> sent_;
  Handler handler_;
  Drained drained_;
  std::function<void(const SentGmp&)> peer_;
  bool failSends_{false};
};

}  // namespace ibsm::testing
