// Counters declared once. A group of counters (a struct the daemon fills)
// has one table of declarations: each counter's JSON key, its word in the
// text status when that differs, and, when it is a Prometheus family too,
// the family's name, type and help. The text status (StatusFormat.cpp),
// the JSON (StatusJson.cpp) and the metrics (Metrics.cpp) all print the
// group from its table, so a counter added to a group touches its
// declaration and the place that fills it, nothing else.
//
//   struct ReportCounts { std::uint64_t sent{0}, failed{0}; };
//   inline constexpr std::array<CounterDecl<ReportCounts>, 2> kReportCounters{{
//       {"sent", read<&ReportCounts::sent>},
//       {"failed", read<&ReportCounts::failed>},
//   }};
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace ibsm::sm::control {

enum class CounterKind : std::uint8_t { Counter, Gauge };

template <typename Group>
struct CounterDecl {
  std::string_view key;                    // the JSON key
  std::uint64_t (*value)(const Group&);    // read<&Group::member>
  std::string_view metric{};               // the metric family; empty: not a metric
  CounterKind kind{CounterKind::Counter};  // of the metric
  std::string_view help{};                 // of the metric
  std::string_view text{};                 // the text's word, when not the key

  constexpr std::string_view word() const { return text.empty() ? key : text; }
};

namespace detail {
template <auto Member>
struct MemberRead;
template <typename Group, typename T, T Group::*Member>
struct MemberRead<Member> {
  static std::uint64_t get(const Group& g) {
    if constexpr (requires { (g.*Member).count(); })
      return static_cast<std::uint64_t>((g.*Member).count());
    else
      return static_cast<std::uint64_t>(g.*Member);
  }
};
template <auto Outer, auto Member>
struct NestedRead;
template <typename Group, typename Inner, Inner Group::*Outer, auto Member>
struct NestedRead<Outer, Member> {
  static std::uint64_t get(const Group& g) { return MemberRead<Member>::get(g.*Outer); }
};
}  // namespace detail

// The reader of a member: an unsigned count, a bool (0 or 1) or a duration
// (in its own unit, which the key names: `_us`, `_ms`).
template <auto Member>
inline constexpr auto read = &detail::MemberRead<Member>::get;
// The reader of a member of a member: a group that holds another module's
// counters as they are (control::SaStatus holds sa::SaCounters).
template <auto Outer, auto Member>
inline constexpr auto readIn = &detail::NestedRead<Outer, Member>::get;

}  // namespace ibsm::sm::control
