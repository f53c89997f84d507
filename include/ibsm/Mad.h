// The subnet management packet (SMP) as ibsm sends and receives it: a
// 256-byte MAD whose common header, SMP fields and 64-byte attribute data
// have names here, and whose bytes are laid out exactly as IBA chapter 14
// draws them (verified byte for byte against libibmad in tests/sm).
//
//   Smp smp = Smp::directed(Method::Get, AttributeId::NodeInfo, 0, path);
//   smp.header.tid = 42;
//   MadBuffer wire = encodeSmp(smp);
//   Result<Smp> back = decodeSmp(wire);
//   NodeInfo info = decodeNodeInfo(back->data);   // see MadAttributes.h
#pragma once

#include <ibsm/Error.h>
#include <ibsm/MadPath.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace ibsm {

inline constexpr std::size_t kMadSize = 256;
inline constexpr std::size_t kSmpDataSize = 64;
using MadBuffer = std::array<std::uint8_t, kMadSize>;
using SmpData = std::array<std::uint8_t, kSmpDataSize>;

enum class MgmtClass : std::uint8_t { SubnLid = 0x01, SubnDirected = 0x81 };

// The full method byte; responses carry the R bit (0x80).
enum class Method : std::uint8_t {
  Get = 0x01,
  Set = 0x02,
  Trap = 0x05,
  TrapRepress = 0x07,
  GetResp = 0x81,
};

inline constexpr bool isResponse(Method m) {
  return (static_cast<std::uint8_t>(m) & 0x80U) != 0;
}

// Unknown attribute IDs still decode: the enum holds any 16-bit value.
enum class AttributeId : std::uint16_t {
  Notice = 0x0002,
  NodeDescription = 0x0010,
  NodeInfo = 0x0011,
  SwitchInfo = 0x0012,
  PortInfo = 0x0015,
  PKeyTable = 0x0016,
  SlToVlTable = 0x0017,
  VlArbitrationTable = 0x0018,
  LinearForwardingTable = 0x0019,
  MulticastForwardingTable = 0x001B,
  SmInfo = 0x0020,
};

// MAD status word bits (IBA 13.4.7), without the directed-route D bit.
namespace madstatus {
inline constexpr std::uint16_t kBusy = 0x0001;
inline constexpr std::uint16_t kRedirect = 0x0002;
inline constexpr std::uint16_t kCodeMask = 0x001C;
inline constexpr std::uint16_t kBadVersion = 0x0004;
inline constexpr std::uint16_t kMethodUnsupported = 0x0008;
inline constexpr std::uint16_t kMethodAttrUnsupported = 0x000C;
inline constexpr std::uint16_t kInvalidField = 0x001C;
}  // namespace madstatus

// "busy", "unsupported method/attribute combination", ... for log lines.
std::string describeMadStatus(std::uint16_t status);

struct SmpHeader {
  std::uint8_t baseVersion{1};
  MgmtClass mgmtClass{MgmtClass::SubnDirected};
  std::uint8_t classVersion{1};
  Method method{Method::Get};
  // The status word: for directed-route SMPs its top bit is the direction
  // (D) bit, kept apart in `direction`; status holds the other 15 bits.
  bool direction{false};  // false: outbound (request), true: returning
  std::uint16_t status{0};
  std::uint8_t hopPointer{0};  // directed route only (class-specific otherwise)
  std::uint8_t hopCount{0};
  std::uint64_t tid{0};
  AttributeId attributeId{AttributeId::NodeInfo};
  std::uint32_t attributeModifier{0};
  std::uint64_t mKey{0};
  Lid drSlid{kPermissiveLid};  // directed route only
  Lid drDlid{kPermissiveLid};

  auto operator<=>(const SmpHeader&) const = default;
};

struct Smp {
  SmpHeader header;
  SmpData data{};
  std::array<std::uint8_t, 64> initialPath{};  // directed route only
  std::array<std::uint8_t, 64> returnPath{};

  bool isDirected() const { return header.mgmtClass == MgmtClass::SubnDirected; }

  // A request that travels the given path out from the SM's port, with
  // permissive DrSLID/DrDLID (pure directed route) and hop pointer 0.
  static Smp directed(Method method, AttributeId id, std::uint32_t modifier, const DrPath& path);
  // A LID-routed request.
  static Smp lidRouted(Method method, AttributeId id, std::uint32_t modifier);

  auto operator<=>(const Smp&) const = default;
};

MadBuffer encodeSmp(const Smp& smp);

// Fails on a short buffer, a base version other than 1 or a class that is
// not one of the two SM classes, naming what was found.
[[nodiscard]] Result<Smp> decodeSmp(std::span<const std::uint8_t> mad);

}  // namespace ibsm
