// A directed route: the list of exit ports an SMP takes hop by hop from the
// SM's own port, so the SM can reach nodes that have no LID yet. Discovery
// grows paths one hop at a time:
//
//   DrPath local;                          // hop count 0: the SM's own node
//   Result<DrPath> next = local.extended(3);  // out of port 3 of that node
//   fmt::print("{}", *next);               // "0,3", as `smpquery -D 0,3` takes it
//
// On the wire, initial path[0] is unused and [1..hopCount] hold the ports;
// the return path is filled in by the switches on the way and used by the
// responder, so it is never built here.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <string>

namespace ibsm {

class DrPath {
 public:
  static constexpr std::uint8_t kMaxHops = 63;

  DrPath() = default;

  // Ports of hops 1..n; fails past 63 hops.
  [[nodiscard]] static Result<DrPath> fromPorts(std::span<const std::uint8_t> ports);
  // Parses the operator notation "0,1,3" (leading 0 = the SM's port, optional).
  [[nodiscard]] static Result<DrPath> parse(std::string_view text);

  // This path plus one more hop out of `port` of the node it ends at.
  [[nodiscard]] Result<DrPath> extended(std::uint8_t port) const;

  std::uint8_t hopCount() const { return hops_; }
  // Exit port of hop 1..hopCount().
  std::uint8_t port(std::uint8_t hop) const { return path_.at(hop); }
  std::span<const std::uint8_t> ports() const { return {path_.data() + 1, hops_}; }
  // The 64-byte InitialPath field of an SMP.
  const std::array<std::uint8_t, 64>& initialPath() const { return path_; }

  std::string toString() const;

  auto operator<=>(const DrPath&) const = default;
  // The hop counts and the ports of the hops: the entries past the last hop
  // are always 0, so they are not compared. A route is looked up in hashed
  // maps for each SMP (its port's M_Key, what its answer teaches), where
  // comparing all 64 bytes was most of a look-up (issue 32).
  bool operator==(const DrPath& other) const {
    if (hops_ != other.hops_) return false;
    for (std::uint8_t i = 1; i <= hops_; ++i)
      if (path_[i] != other.path_[i]) return false;
    return true;
  }

 private:
  std::array<std::uint8_t, 64> path_{};
  std::uint8_t hops_{0};
};

}  // namespace ibsm

template <>
struct fmt::formatter<ibsm::DrPath> : fmt::formatter<std::string_view> {
  auto format(const ibsm::DrPath& p, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{}", p.toString());
  }
};

template <>
struct std::hash<ibsm::DrPath> {
  std::size_t operator()(const ibsm::DrPath& p) const noexcept {
    std::size_t h = p.hopCount();
    for (auto port : p.ports()) h = h * 131 + port;
    return h;
  }
};
