#include "sm/health/TrapWatch.h"

#include <algorithm>
#include <utility>

namespace ibsm::sm::health {

namespace {

constexpr std::uint16_t kBadMKey = 256;
constexpr std::uint16_t kBadPKey = 257;
constexpr std::uint16_t kBadQKey = 258;

bool sameBase(Lid a, Lid b, std::uint8_t lmc) {
  const auto mask = static_cast<std::uint16_t>(~((1U << lmc) - 1U));
  return (a.value & mask) == (b.value & mask);
}

// The LID a trap's DataDetails names as the port it is about (LIDADDR),
// for the traps whose details start with it (IBA 14.2.5.1, Notice
// DataDetails of traps 128 and 144); none for the others.
std::optional<Lid> detailsLid(const Notice& notice) {
  if (notice.trapNumber == 128) return decodeTrap128(notice).lid;
  if (notice.trapNumber == 144) return decodeTrap144(notice).lid;
  return std::nullopt;
}

}  // namespace

double TrapWatch::limit() const {
  return settings_.noisyRate * static_cast<double>(settings_.window.count());
}

// A sliding window estimated from two fixed ones: the traps of this window
// plus the part of the last one that still overlaps the window ending now.
void TrapWatch::advance(PortTraps& p, MadClock::time_point now) const {
  const auto w = std::chrono::duration_cast<MadClock::duration>(settings_.window);
  if (w.count() <= 0 || now < p.windowStart + w) return;
  p.previous = now < p.windowStart + 2 * w ? p.current : 0;
  p.current = 0;
  p.windowStart = now - (now - p.windowStart) % w;
}

double TrapWatch::estimate(const PortTraps& p, MadClock::time_point now) const {
  const auto w = std::chrono::duration<double>(settings_.window).count();
  if (w <= 0) return 0;
  PortTraps aged = p;
  advance(aged, now);
  const double into = std::chrono::duration<double>(now - aged.windowStart).count() / w;
  const double traps = static_cast<double>(aged.previous) * std::max(0.0, 1.0 - into) +
                       static_cast<double>(aged.current);
  return traps / w;
}

bool TrapWatch::mismatched(const Notice& notice, Lid source) const {
  const std::optional<Lid> named = detailsLid(notice);
  const Lid issuer = notice.issuerLid;
  if (issuer.isUnicast() && named && named->isUnicast() && *named != issuer) return true;
  const Lid claimed = issuer.isUnicast() ? issuer : named.value_or(Lid{});
  return source.isUnicast() && claimed.isUnicast() && !sameBase(claimed, source, settings_.lmc);
}

TrapWatch::PortTraps* TrapWatch::track(Lid port, MadClock::time_point now) {
  if (auto it = ports_.find(port.value); it != ports_.end()) return &it->second;
  if (ports_.size() >= kMaxPorts) {
    auto oldest = ports_.end();
    for (auto it = ports_.begin(); it != ports_.end(); ++it)
      if (!it->second.noisySince &&
          (oldest == ports_.end() || it->second.lastSeen < oldest->second.lastSeen))
        oldest = it;
    if (oldest == ports_.end()) return nullptr;
    ports_.erase(oldest);
    ++counts_.portsForgotten;
  }
  PortTraps& p = ports_[port.value];
  p.windowStart = now;
  p.logWindowStart = now;
  p.totals.lid = port;
  return &p;
}

bool TrapWatch::takeLogLine(PortTraps& p, MadClock::time_point now, TrapVerdict& v) {
  if (now >= p.logWindowStart + settings_.logWindow) {
    v.suppressed = std::exchange(p.suppressed, 0);
    p.logged = 0;
    p.logWindowStart = now;
  }
  if (p.logged < settings_.logLines) {
    ++p.logged;
    return true;
  }
  ++p.suppressed;
  ++counts_.logSuppressed;
  return false;
}

TrapVerdict TrapWatch::observe(const Notice& notice, Lid source, MadClock::time_point now) {
  ++counts_.received;
  ++counts_.byNumber[notice.trapNumber];
  TrapVerdict v;
  v.port = source.isUnicast() ? source : notice.issuerLid;
  PortTraps* p = track(v.port, now);
  if (p == nullptr) {  // every tracked port is noisy: so is a new one
    ++counts_.noisyIgnored;
    v.fate = TrapFate::Noisy;
    return v;
  }
  advance(*p, now);
  ++p->current;
  p->lastSeen = now;
  TrapPortView& t = p->totals;
  ++t.traps;
  t.badMKey += notice.trapNumber == kBadMKey ? 1 : 0;
  t.badPKey += notice.trapNumber == kBadPKey ? 1 : 0;
  t.badQKey += notice.trapNumber == kBadQKey ? 1 : 0;
  v.rate = estimate(*p, now);
  v.log = takeLogLine(*p, now, v);
  if (mismatched(notice, source)) {
    ++t.mismatched;
    ++counts_.mismatched;
    v.fate = TrapFate::Mismatch;
    return v;
  }
  if (!p->noisySince && settings_.noisyRate > 0 &&
      v.rate * static_cast<double>(settings_.window.count()) > limit()) {
    p->noisySince = now;
    v.becameNoisy = true;
    ++counts_.noisyEpisodes;
  }
  if (p->noisySince) {
    ++counts_.noisyIgnored;
    v.fate = TrapFate::Noisy;
    return v;
  }
  ++counts_.sweepsAsked;
  return v;
}

std::vector<TrapWatch::Calmed> TrapWatch::age(MadClock::time_point now) {
  lastAged_ = now;
  std::vector<Calmed> out;
  for (auto it = ports_.begin(); it != ports_.end();) {
    PortTraps& p = it->second;
    Calmed c{.lid = Lid{it->first}};
    if (p.noisySince && now >= *p.noisySince + settings_.window &&
        estimate(p, now) <= settings_.noisyRate / 2) {
      p.noisySince.reset();
      c.calmed = true;
    }
    if (now >= p.logWindowStart + settings_.logWindow) {
      c.suppressed = std::exchange(p.suppressed, 0);
      p.logged = 0;
      p.logWindowStart = now;
    }
    if (c.calmed || c.suppressed > 0) out.push_back(c);
    // Nothing left to remember: no rate, not noisy, nothing to show in health.
    const TrapPortView& t = p.totals;
    const bool shown = t.badMKey + t.badPKey + t.badQKey + t.mismatched > 0;
    if (!p.noisySince && !shown && p.suppressed == 0 && estimate(p, now) == 0)
      it = ports_.erase(it);
    else
      ++it;
  }
  return out;
}

std::optional<MadClock::time_point> TrapWatch::nextAge() const {
  if (ports_.empty()) return std::nullopt;
  std::optional<MadClock::time_point> first;
  for (const auto& [lid, p] : ports_) {
    MadClock::time_point due = p.logWindowStart + settings_.logWindow;
    // A noisy port is looked at once a second after its first window: never
    // a deadline in the past, which would keep the loop from waiting.
    if (p.noisySince)
      due = std::min(
          due, std::max(*p.noisySince + settings_.window, lastAged_ + std::chrono::seconds(1)));
    if (!first || due < *first) first = due;
  }
  return first;
}

bool TrapWatch::noisy(Lid port) const {
  const auto it = ports_.find(port.value);
  return it != ports_.end() && it->second.noisySince.has_value();
}

std::size_t TrapWatch::noisyPorts() const {
  return static_cast<std::size_t>(
      std::ranges::count_if(ports_, [](const auto& e) { return e.second.noisySince.has_value(); }));
}

std::vector<TrapPortView> TrapWatch::view(MadClock::time_point now) const {
  std::vector<TrapPortView> out;
  for (const auto& [lid, p] : ports_) {
    const TrapPortView& t = p.totals;
    if (!p.noisySince && t.badMKey + t.badPKey + t.badQKey + t.mismatched == 0) continue;
    TrapPortView v = t;
    v.noisy = p.noisySince.has_value();
    v.noisySince = p.noisySince;
    v.rate = estimate(p, now);
    out.push_back(v);
  }
  std::ranges::sort(out, {}, [](const TrapPortView& v) { return v.lid.value; });
  return out;
}

}  // namespace ibsm::sm::health
