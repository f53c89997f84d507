// The identifiers every part of ibsm passes around: GUIDs name hardware for
// life, LIDs are what the SM hands out, NodeId/PortRef index one Fabric.
// Strong types, so a LID can never be passed where a GUID is meant.
#pragma once

#include <fmt/format.h>

#include <array>
#include <compare>
#include <cstdint>
#include <functional>

namespace ibsm {

struct Guid {
  std::uint64_t value{0};

  constexpr Guid() = default;
  constexpr explicit Guid(std::uint64_t v) : value(v) {}
  constexpr explicit operator bool() const { return value != 0; }
  constexpr auto operator<=>(const Guid&) const = default;
};

struct Lid {
  std::uint16_t value{0};

  constexpr Lid() = default;
  constexpr explicit Lid(std::uint16_t v) : value(v) {}
  constexpr bool isUnicast() const { return value >= 1 && value <= 0xBFFF; }
  constexpr auto operator<=>(const Lid&) const = default;
};

inline constexpr std::uint16_t kMaxUnicastLid = 0xBFFF;
inline constexpr std::uint16_t kPermissiveLid = 0xFFFF;

// A 128-bit GID (subnet prefix, then interface id, network byte order):
// a port's address beyond its subnet, and a multicast group's name.
using Gid = std::array<std::uint8_t, 16>;

// Index of a node inside one Fabric; meaningless across Fabrics.
using NodeId = std::uint32_t;

struct PortRef {
  NodeId node{0};
  std::uint8_t port{0};
  constexpr auto operator<=>(const PortRef&) const = default;
};

// A port named by its node's GUID and its number. Unlike PortRef it names
// the same port in every Fabric, so it keys what outlives one sweep.
struct PortKey {
  Guid node;
  std::uint8_t port{0};
  constexpr auto operator<=>(const PortKey&) const = default;
};

}  // namespace ibsm

template <>
struct std::hash<ibsm::Guid> {
  std::size_t operator()(ibsm::Guid g) const noexcept {
    return std::hash<std::uint64_t>{}(g.value);
  }
};

template <>
struct std::hash<ibsm::PortRef> {
  std::size_t operator()(ibsm::PortRef p) const noexcept {
    return std::hash<std::uint64_t>{}((std::uint64_t{p.node} << 8) | p.port);
  }
};

// GUIDs print the way operators read them in OpenSM logs and dumps.
template <>
struct fmt::formatter<ibsm::Guid> : fmt::formatter<std::string_view> {
  auto format(ibsm::Guid g, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "0x{:016x}", g.value);
  }
};

template <>
struct fmt::formatter<ibsm::Lid> : fmt::formatter<std::string_view> {
  auto format(ibsm::Lid l, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{}", l.value);
  }
};
