// The SA MAD's three headers (IBA 13.4.2, 13.6.2.1, 15.2.1.1) as one table
// of named fields, read and written by the same walk.
#include <fmt/format.h>
#include <ibsm/Mad.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "sm/mad/BitField.h"
#include "sm/sa/SaMad.h"

namespace ibsm {
namespace {

using sm::mad::Field;
using H = SaHeader;
using R = RmppHeader;

constexpr auto kHeaderFields = std::tuple{
    Field{&H::baseVersion, 0, 8},      Field{&H::mgmtClass, 8, 8},
    Field{&H::classVersion, 16, 8},    Field{&H::method, 24, 8},
    Field{&H::status, 32, 16},         Field{&H::tid, 64, 64},
    Field{&H::attributeId, 128, 16},   Field{&H::attributeModifier, 160, 32},
    Field{&H::smKey, 288, 64},         Field{&H::attributeOffset, 352, 16},
    Field{&H::componentMask, 384, 64},
};

// The RMPP header starts at byte 24.
constexpr auto kRmppFields = std::tuple{
    Field{&R::version, 0, 8},         Field{&R::type, 8, 8},    Field{&R::respTime, 16, 5},
    Field{&R::flags, 21, 3},          Field{&R::status, 24, 8}, Field{&R::segmentNumber, 32, 32},
    Field{&R::payloadLength, 64, 32},
};
constexpr std::size_t kRmppOffset = 24;
constexpr std::size_t kRmppSize = 12;
constexpr std::size_t kCommonHeaderSize = 24;

}  // namespace

std::vector<std::uint8_t> encodeSaMad(const SaHeader& header, std::span<const std::uint8_t> data) {
  // An RMPP answer (GetTableResp) is as long as its payload: a requester
  // counts the records of a one-segment answer from the length it receives
  // ((length - header) / AttributeOffset, as saquery does), so zero padding
  // up to a MAD would read as one more, empty record; the kernel pads the
  // segments it makes. Any other MAD is one whole MAD.
  const bool rmpp = (header.rmpp.flags & 0x1) != 0;
  const std::size_t length = kSaHeaderSize + data.size();
  std::vector<std::uint8_t> out(rmpp ? length : std::max(kMadSize, length), 0);
  const std::span<std::uint8_t> bytes(out);
  sm::mad::encodeFields(header, kHeaderFields, bytes);
  sm::mad::encodeFields(header.rmpp, kRmppFields, bytes.subspan(kRmppOffset, kRmppSize));
  std::ranges::copy(data, out.begin() + kSaHeaderSize);
  return out;
}

std::vector<std::uint8_t> encodeSaMad(const SaMad& mad) {
  return encodeSaMad(mad.header, mad.data);
}

std::expected<void, SaRefusal> decodeSaMadInto(std::span<const std::uint8_t> bytes, SaMad& mad) {
  SaRefusal refusal;
  mad.header = {};
  mad.data.clear();
  if (bytes.size() < kCommonHeaderSize) {
    refusal.message = fmt::format("SA MAD of {} bytes: shorter than the MAD header", bytes.size());
    return std::unexpected(refusal);
  }
  // Fields past the common header read as 0 when the MAD is cut short, so
  // a refusal can still echo TID, method and attribute.
  std::array<std::uint8_t, kSaHeaderSize> head{};
  std::copy_n(bytes.begin(), std::min(bytes.size(), head.size()), head.begin());
  sm::mad::decodeFields(std::span<const std::uint8_t>(head), kHeaderFields, mad.header);
  sm::mad::decodeFields(std::span<const std::uint8_t>(head).subspan(kRmppOffset, kRmppSize),
                        kRmppFields, mad.header.rmpp);
  refusal.header = mad.header;
  refusal.headerRead = true;
  const SaHeader& h = mad.header;
  if (h.baseVersion != 1 || h.mgmtClass != kSaClass || h.classVersion != kSaClassVersion) {
    refusal.status = saStatus::kBadVersion;
    refusal.message = fmt::format("SA MAD of base version {}, class 0x{:02x}, class version {}",
                                  h.baseVersion, h.mgmtClass, h.classVersion);
    return std::unexpected(refusal);
  }
  if (bytes.size() < kSaHeaderSize) {
    refusal.message = fmt::format("SA MAD of {} bytes: shorter than its headers ({})", bytes.size(),
                                  kSaHeaderSize);
    return std::unexpected(refusal);
  }
  mad.data.assign(bytes.begin() + kSaHeaderSize, bytes.end());
  // A table of no records still names its record size: only data shorter
  // than one record is refused.
  if (!mad.data.empty() && std::size_t{h.attributeOffset} * 8 > mad.data.size()) {
    refusal.message = fmt::format("AttributeOffset {} (x8 bytes) past the {} bytes of data",
                                  h.attributeOffset, mad.data.size());
    return std::unexpected(refusal);
  }
  return {};
}

std::expected<SaMad, SaRefusal> decodeSaMad(std::span<const std::uint8_t> bytes) {
  SaMad mad;
  if (auto decoded = decodeSaMadInto(bytes, mad); !decoded)
    return std::unexpected(std::move(decoded.error()));
  return mad;
}

std::string saMethodName(std::uint8_t method) {
  switch (method) {
    case saMethod::kGet:
      return "Get";
    case saMethod::kSet:
      return "Set";
    case saMethod::kReport:
      return "Report";
    case saMethod::kGetTable:
      return "GetTable";
    case saMethod::kGetMulti:
      return "GetMulti";
    case saMethod::kDelete:
      return "Delete";
    case saMethod::kGetResp:
      return "GetResp";
    case saMethod::kReportResp:
      return "ReportResp";
    case saMethod::kGetTableResp:
      return "GetTableResp";
    case saMethod::kGetMultiResp:
      return "GetMultiResp";
    case saMethod::kDeleteResp:
      return "DeleteResp";
    default:
      return fmt::format("0x{:02x}", method);
  }
}

std::string saAttributeName(std::uint16_t id) {
  switch (id) {
    case saAttr::kClassPortInfo:
      return "ClassPortInfo";
    case saAttr::kNotice:
      return "Notice";
    case saAttr::kInformInfo:
      return "InformInfo";
    case saAttr::kNodeRecord:
      return "NodeRecord";
    case saAttr::kPortInfoRecord:
      return "PortInfoRecord";
    case saAttr::kSl2VlTableRecord:
      return "SL2VLTableRecord";
    case saAttr::kSwitchInfoRecord:
      return "SwitchInfoRecord";
    case saAttr::kLftRecord:
      return "LFTRecord";
    case saAttr::kSmInfoRecord:
      return "SMInfoRecord";
    case saAttr::kLinkRecord:
      return "LinkRecord";
    case saAttr::kGuidInfoRecord:
      return "GUIDInfoRecord";
    case saAttr::kServiceRecord:
      return "ServiceRecord";
    case saAttr::kPKeyTableRecord:
      return "PKeyTableRecord";
    case saAttr::kPathRecord:
      return "PathRecord";
    case saAttr::kVlArbitrationTableRecord:
      return "VLArbitrationTableRecord";
    case saAttr::kMcMemberRecord:
      return "MCMemberRecord";
    case saAttr::kMultiPathRecord:
      return "MultiPathRecord";
    case saAttr::kInformInfoRecord:
      return "InformInfoRecord";
    default:
      return fmt::format("0x{:04x}", id);
  }
}

}  // namespace ibsm
