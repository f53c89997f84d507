// The SMP header layout (IBA 14.2.1.1 LID-routed, 14.2.1.2 directed route).
#include <fmt/format.h>
#include <ibsm/Mad.h>

#include <algorithm>
#include <tuple>

#include "sm/mad/BitField.h"

namespace ibsm {
namespace {

using sm::mad::Field;

// Common MAD header, then the SMP-specific words. The status word is split
// into the D bit and 15 status bits; LID-routed SMPs never set the D bit,
// so the two together are the plain 16-bit status there.
constexpr auto kHeaderFields = std::tuple{
    Field{&SmpHeader::baseVersion, 0, 8},
    Field{&SmpHeader::mgmtClass, 8, 8},
    Field{&SmpHeader::classVersion, 16, 8},
    Field{&SmpHeader::method, 24, 8},
    Field{&SmpHeader::direction, 32, 1},
    Field{&SmpHeader::status, 33, 15},
    Field{&SmpHeader::hopPointer, 48, 8},
    Field{&SmpHeader::hopCount, 56, 8},
    Field{&SmpHeader::tid, 64, 64},
    Field{&SmpHeader::attributeId, 128, 16},
    Field{&SmpHeader::attributeModifier, 160, 32},
    Field{&SmpHeader::mKey, 192, 64},
    Field{&SmpHeader::drSlid, 256, 16},
    Field{&SmpHeader::drDlid, 272, 16},
};

constexpr std::size_t kDataOffset = 64;
constexpr std::size_t kInitialPathOffset = 128;
constexpr std::size_t kReturnPathOffset = 192;

}  // namespace

std::string describeMadStatus(std::uint16_t status) {
  if (status == 0) return "success";
  std::string s;
  auto add = [&s](std::string_view what) {
    if (!s.empty()) s += ", ";
    s += what;
  };
  if (status & madstatus::kBusy) add("busy");
  if (status & madstatus::kRedirect) add("redirect required");
  switch (status & madstatus::kCodeMask) {
    case 0:
      break;
    case madstatus::kBadVersion:
      add("bad version");
      break;
    case madstatus::kMethodUnsupported:
      add("method unsupported");
      break;
    case madstatus::kMethodAttrUnsupported:
      add("method/attribute combination unsupported");
      break;
    case madstatus::kInvalidField:
      add("invalid field in attribute or modifier");
      break;
    default:
      add(fmt::format("reserved code {}", (status & madstatus::kCodeMask) >> 2));
  }
  if (status & 0x7F00) add(fmt::format("class-specific 0x{:02x}", (status >> 8) & 0x7F));
  return fmt::format("{} (0x{:04x})", s, status);
}

Smp Smp::directed(Method method, AttributeId id, std::uint32_t modifier, const DrPath& path) {
  Smp smp;
  smp.header.mgmtClass = MgmtClass::SubnDirected;
  smp.header.method = method;
  smp.header.attributeId = id;
  smp.header.attributeModifier = modifier;
  smp.header.hopCount = path.hopCount();
  smp.initialPath = path.initialPath();
  return smp;
}

Smp Smp::lidRouted(Method method, AttributeId id, std::uint32_t modifier) {
  Smp smp;
  smp.header.mgmtClass = MgmtClass::SubnLid;
  smp.header.method = method;
  smp.header.attributeId = id;
  smp.header.attributeModifier = modifier;
  smp.header.drSlid = Lid{0};
  smp.header.drDlid = Lid{0};
  return smp;
}

MadBuffer encodeSmp(const Smp& smp) {
  MadBuffer out{};
  sm::mad::encodeFields(smp.header, kHeaderFields, out);
  std::ranges::copy(smp.data, out.begin() + kDataOffset);
  std::ranges::copy(smp.initialPath, out.begin() + kInitialPathOffset);
  std::ranges::copy(smp.returnPath, out.begin() + kReturnPathOffset);
  return out;
}

Result<Smp> decodeSmp(std::span<const std::uint8_t> mad) {
  if (mad.size() < kMadSize) {
    return fail(fmt::format("MAD of {} bytes: an SMP has {}", mad.size(), kMadSize));
  }
  Smp smp;
  sm::mad::decodeFields(mad, kHeaderFields, smp.header);
  if (smp.header.baseVersion != 1) {
    return fail(fmt::format("MAD base version {}: expected 1", smp.header.baseVersion));
  }
  if (smp.header.mgmtClass != MgmtClass::SubnLid &&
      smp.header.mgmtClass != MgmtClass::SubnDirected) {
    return fail(fmt::format("MAD class 0x{:02x}: expected an SM class (0x01 or 0x81)",
                            static_cast<unsigned>(smp.header.mgmtClass)));
  }
  std::copy_n(mad.begin() + kDataOffset, kSmpDataSize, smp.data.begin());
  std::copy_n(mad.begin() + kInitialPathOffset, 64, smp.initialPath.begin());
  std::copy_n(mad.begin() + kReturnPathOffset, 64, smp.returnPath.begin());
  return smp;
}

}  // namespace ibsm
