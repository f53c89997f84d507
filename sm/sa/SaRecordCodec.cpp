// The SA records' layouts (IBA 15.2.5). Each record's own fields are one
// table of (member, bit, width); an SMP attribute inside a record is cut
// from, or pasted into, that attribute's own 64-byte encoding
// (MadAttributes.h), so NodeInfo or PortInfo is laid out in one place only.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "sm/mad/BitField.h"
#include "sm/sa/SaRecords.h"

namespace ibsm {
namespace {

using sm::mad::Field;

// Bytes the fields take, before the padding to 8.
template <typename R>
constexpr std::size_t kFieldBytes = R::kSize;
template <>
constexpr std::size_t kFieldBytes<NodeRecord> = 108;
template <>
constexpr std::size_t kFieldBytes<PortInfoRecord> = 68;
template <>
constexpr std::size_t kFieldBytes<SmInfoRecord> = 25;
template <>
constexpr std::size_t kFieldBytes<InformInfo> = 36;
template <>
constexpr std::size_t kFieldBytes<InformInfoRecord> = 60;
template <>
constexpr std::size_t kFieldBytes<McMemberRecord> = 52;

using C = ClassPortInfo;
constexpr auto kClassPortInfoFields = std::tuple{
    Field{&C::baseVersion, 0, 8},      Field{&C::classVersion, 8, 8},
    Field{&C::capabilityMask, 16, 16}, Field{&C::capabilityMask2, 32, 27},
    Field{&C::respTimeValue, 59, 5},   Field{&C::redirectTc, 192, 8},
    Field{&C::redirectSl, 200, 4},     Field{&C::redirectFl, 204, 20},
    Field{&C::redirectLid, 224, 16},   Field{&C::redirectPKey, 240, 16},
    Field{&C::redirectQp, 264, 24},    Field{&C::redirectQKey, 288, 32},
    Field{&C::trapTc, 448, 8},         Field{&C::trapSl, 456, 4},
    Field{&C::trapFl, 460, 20},        Field{&C::trapLid, 480, 16},
    Field{&C::trapPKey, 496, 16},      Field{&C::trapHopLimit, 512, 8},
    Field{&C::trapQp, 520, 24},        Field{&C::trapQKey, 544, 32},
};
constexpr std::size_t kRedirectGidByte = 8;
constexpr std::size_t kTrapGidByte = 40;

constexpr auto kNodeRecordFields = std::tuple{Field{&NodeRecord::lid, 0, 16}};
constexpr std::size_t kNodeInfoByte = 4;
constexpr std::size_t kNodeInfoBytes = 40;
constexpr std::size_t kNodeDescriptionByte = 44;

using PIR = PortInfoRecord;
constexpr auto kPortInfoRecordFields = std::tuple{
    Field{&PIR::endPortLid, 0, 16}, Field{&PIR::portNum, 16, 8}, Field{&PIR::options, 24, 8}};
constexpr std::size_t kPortInfoByte = 4;

using LR = LinkRecord;
constexpr auto kLinkRecordFields =
    std::tuple{Field{&LR::fromLid, 0, 16}, Field{&LR::fromPort, 16, 8}, Field{&LR::toPort, 24, 8},
               Field{&LR::toLid, 32, 16}};

constexpr auto kSwitchInfoRecordFields = std::tuple{Field{&SwitchInfoRecord::lid, 0, 16}};
constexpr std::size_t kSwitchInfoByte = 4;
constexpr std::size_t kSwitchInfoBytes = 20;

constexpr auto kLftRecordFields =
    std::tuple{Field{&LftRecord::lid, 0, 16}, Field{&LftRecord::block, 16, 16}};
// LID, BlockNum, 32 reserved bits, then the block (IBA 15.2.5.6; saquery
// reads the block from byte 8).
constexpr std::size_t kLftByte = 8;

using SL = Sl2VlTableRecord;
constexpr auto kSl2VlFields =
    std::tuple{Field{&SL::lid, 0, 16}, Field{&SL::inPort, 16, 8}, Field{&SL::outPort, 24, 8}};
constexpr std::size_t kSl2VlByte = 8;
constexpr std::size_t kSl2VlBytes = 8;

using PK = PKeyTableRecord;
constexpr auto kPKeyFields =
    std::tuple{Field{&PK::lid, 0, 16}, Field{&PK::block, 16, 16}, Field{&PK::port, 32, 8}};
constexpr std::size_t kPKeyByte = 8;

using VA = VlArbitrationTableRecord;
constexpr auto kVlArbFields =
    std::tuple{Field{&VA::lid, 0, 16}, Field{&VA::outputPort, 16, 8}, Field{&VA::block, 24, 8}};
constexpr std::size_t kVlArbByte = 8;

constexpr auto kGuidInfoFields =
    std::tuple{Field{&GuidInfoRecord::lid, 0, 16}, Field{&GuidInfoRecord::block, 16, 8}};
constexpr std::size_t kGuidsByte = 8;

constexpr auto kSmInfoRecordFields = std::tuple{Field{&SmInfoRecord::lid, 0, 16}};
constexpr std::size_t kSmInfoByte = 4;
constexpr std::size_t kSmInfoBytes = 21;

using P = PathRecord;
constexpr auto kPathRecordFields = std::tuple{
    Field{&P::serviceId, 0, 64},
    Field{&P::dlid, 320, 16},
    Field{&P::slid, 336, 16},
    Field{&P::rawTraffic, 352, 1},
    Field{&P::flowLabel, 356, 20},
    Field{&P::hopLimit, 376, 8},
    Field{&P::tClass, 384, 8},
    Field{&P::reversible, 392, 1},
    Field{&P::numbPath, 393, 7},
    Field{&P::pkey, 400, 16},
    Field{&P::qosClass, 416, 12},
    Field{&P::sl, 428, 4},
    Field{&P::mtuSelector, 432, 2},
    Field{&P::mtu, 434, 6},
    Field{&P::rateSelector, 440, 2},
    Field{&P::rate, 442, 6},
    Field{&P::packetLifeTimeSelector, 448, 2},
    Field{&P::packetLifeTime, 450, 6},
    Field{&P::preference, 456, 8},
};
constexpr std::size_t kDgidByte = 8;
constexpr std::size_t kSgidByte = 24;

using SR = ServiceRecord;
constexpr auto kServiceRecordFields =
    std::tuple{Field{&SR::serviceId, 0, 64}, Field{&SR::servicePKey, 192, 16},
               Field{&SR::serviceLease, 224, 32}};
constexpr std::size_t kServiceGidByte = 8;
constexpr std::size_t kServiceKeyByte = 32;
constexpr std::size_t kServiceNameByte = 48;
constexpr std::size_t kServiceNameBytes = 64;
constexpr unsigned kData8Bit = 112 * 8;
constexpr unsigned kData16Bit = 128 * 8;
constexpr unsigned kData32Bit = 144 * 8;
constexpr unsigned kData64Bit = 160 * 8;

using II = InformInfo;
constexpr auto kInformInfoFields = std::tuple{
    Field{&II::lidRangeBegin, 128, 16}, Field{&II::lidRangeEnd, 144, 16},
    Field{&II::isGeneric, 176, 8},      Field{&II::subscribe, 184, 8},
    Field{&II::type, 192, 16},          Field{&II::trapNumber, 208, 16},
    Field{&II::qpn, 224, 24},           Field{&II::respTimeValue, 251, 5},
    Field{&II::producerType, 264, 24},
};
constexpr std::size_t kInformInfoBytes = 36;
constexpr auto kInformInfoRecordFields = std::tuple{Field{&InformInfoRecord::enumeration, 128, 16}};
constexpr std::size_t kInformInfoInRecordByte = 24;

using MC = McMemberRecord;
constexpr auto kMcMemberRecordFields = std::tuple{
    Field{&MC::qkey, 256, 32},
    Field{&MC::mlid, 288, 16},
    Field{&MC::mtuSelector, 304, 2},
    Field{&MC::mtu, 306, 6},
    Field{&MC::tClass, 312, 8},
    Field{&MC::pkey, 320, 16},
    Field{&MC::rateSelector, 336, 2},
    Field{&MC::rate, 338, 6},
    Field{&MC::packetLifeTimeSelector, 344, 2},
    Field{&MC::packetLifeTime, 346, 6},
    Field{&MC::sl, 352, 4},
    Field{&MC::flowLabel, 356, 20},
    Field{&MC::hopLimit, 376, 8},
    Field{&MC::scope, 384, 4},
    Field{&MC::joinState, 388, 4},
    Field{&MC::proxyJoin, 392, 1},
};
constexpr std::size_t kMgidByte = 0;
constexpr std::size_t kPortGidByte = 16;

// An array of same-width fields, one after the other from `bit`.
template <typename T, std::size_t N>
void putArray(std::span<std::uint8_t> out, unsigned bit, const std::array<T, N>& values) {
  for (std::size_t i = 0; i < N; ++i)
    sm::mad::setBits(out, static_cast<unsigned>(bit + i * sizeof(T) * 8), sizeof(T) * 8, values[i]);
}
template <typename T, std::size_t N>
void getArray(std::span<const std::uint8_t> in, unsigned bit, std::array<T, N>& values) {
  for (std::size_t i = 0; i < N; ++i) {
    values[i] = static_cast<T>(
        sm::mad::getBits(in, static_cast<unsigned>(bit + i * sizeof(T) * 8), sizeof(T) * 8));
  }
}

// An SMP attribute's first `length` bytes pasted at `at`, or cut from there.
void paste(std::vector<std::uint8_t>& out, std::size_t at, const SmpData& attr,
           std::size_t length = kSmpDataSize) {
  std::copy_n(attr.begin(), length, out.begin() + static_cast<std::ptrdiff_t>(at));
}
SmpData cut(std::span<const std::uint8_t> in, std::size_t at, std::size_t length = kSmpDataSize) {
  SmpData attr{};
  std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), length, attr.begin());
  return attr;
}
void pasteGid(std::vector<std::uint8_t>& out, std::size_t at, const Gid& gid) {
  std::ranges::copy(gid, out.begin() + static_cast<std::ptrdiff_t>(at));
}
Gid cutGid(std::span<const std::uint8_t> in, std::size_t at) {
  Gid gid{};
  std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), gid.size(), gid.begin());
  return gid;
}

template <typename R, typename Table>
std::vector<std::uint8_t> encodeWith(const R& r, const Table& table) {
  std::vector<std::uint8_t> out(R::kSize, 0);
  sm::mad::encodeFields(r, table, std::span<std::uint8_t>(out));
  return out;
}
template <typename R, typename Table>
R decodeWith(std::span<const std::uint8_t> in, const Table& table) {
  R r;
  sm::mad::decodeFields(in, table, r);
  return r;
}

// Each record's decoding from a buffer of at least kSize bytes.
template <typename R>
R decodePadded(std::span<const std::uint8_t> in);

template <>
ClassPortInfo decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<ClassPortInfo>(in, kClassPortInfoFields);
  r.redirectGid = cutGid(in, kRedirectGidByte);
  r.trapGid = cutGid(in, kTrapGidByte);
  return r;
}
template <>
NodeRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<NodeRecord>(in, kNodeRecordFields);
  r.nodeInfo = decodeNodeInfo(cut(in, kNodeInfoByte, kNodeInfoBytes));
  r.nodeDescription = decodeNodeDescription(cut(in, kNodeDescriptionByte));
  return r;
}
template <>
PortInfoRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<PortInfoRecord>(in, kPortInfoRecordFields);
  r.portInfo = decodePortInfo(cut(in, kPortInfoByte));
  return r;
}
template <>
LinkRecord decodePadded(std::span<const std::uint8_t> in) {
  return decodeWith<LinkRecord>(in, kLinkRecordFields);
}
template <>
SwitchInfoRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<SwitchInfoRecord>(in, kSwitchInfoRecordFields);
  r.switchInfo = decodeSwitchInfo(cut(in, kSwitchInfoByte, kSwitchInfoBytes));
  return r;
}
template <>
LftRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<LftRecord>(in, kLftRecordFields);
  r.lft = decodeLftBlock(cut(in, kLftByte));
  return r;
}
template <>
Sl2VlTableRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<Sl2VlTableRecord>(in, kSl2VlFields);
  r.table = decodeSlToVlTable(cut(in, kSl2VlByte, kSl2VlBytes));
  return r;
}
template <>
PKeyTableRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<PKeyTableRecord>(in, kPKeyFields);
  r.table = decodePKeyBlock(cut(in, kPKeyByte));
  return r;
}
template <>
VlArbitrationTableRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<VlArbitrationTableRecord>(in, kVlArbFields);
  r.table = decodeVlArbitrationBlock(cut(in, kVlArbByte));
  return r;
}
template <>
GuidInfoRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<GuidInfoRecord>(in, kGuidInfoFields);
  for (std::size_t i = 0; i < r.guids.size(); ++i) {
    r.guids[i] = Guid{sm::mad::getBits(in, static_cast<unsigned>((kGuidsByte + 8 * i) * 8), 64)};
  }
  return r;
}
template <>
SmInfoRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<SmInfoRecord>(in, kSmInfoRecordFields);
  r.smInfo = decodeSmInfo(cut(in, kSmInfoByte, kSmInfoBytes));
  return r;
}
template <>
PathRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<PathRecord>(in, kPathRecordFields);
  r.dgid = cutGid(in, kDgidByte);
  r.sgid = cutGid(in, kSgidByte);
  return r;
}

template <>
ServiceRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<ServiceRecord>(in, kServiceRecordFields);
  r.serviceGid = cutGid(in, kServiceGidByte);
  std::copy_n(in.begin() + kServiceKeyByte, r.serviceKey.size(), r.serviceKey.begin());
  const auto name = in.subspan(kServiceNameByte, kServiceNameBytes);
  r.serviceName.assign(name.begin(), std::ranges::find(name, std::uint8_t{0}));
  getArray(in, kData8Bit, r.data8);
  getArray(in, kData16Bit, r.data16);
  getArray(in, kData32Bit, r.data32);
  getArray(in, kData64Bit, r.data64);
  return r;
}

template <>
InformInfo decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<InformInfo>(in, kInformInfoFields);
  r.gid = cutGid(in, 0);
  return r;
}
template <>
InformInfoRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<InformInfoRecord>(in, kInformInfoRecordFields);
  r.subscriberGid = cutGid(in, 0);
  r.informInfo = decodePadded<InformInfo>(in.subspan(kInformInfoInRecordByte, InformInfo::kSize));
  return r;
}

template <>
SaNotice decodePadded(std::span<const std::uint8_t> in) {
  return {.notice = decodeNotice(cut(in, 0)), .issuerGid = cutGid(in, kSmpDataSize)};
}

template <>
McMemberRecord decodePadded(std::span<const std::uint8_t> in) {
  auto r = decodeWith<McMemberRecord>(in, kMcMemberRecordFields);
  r.mgid = cutGid(in, kMgidByte);
  r.portGid = cutGid(in, kPortGidByte);
  return r;
}

}  // namespace

Gid makeGid(std::uint64_t prefix, Guid guid) {
  Gid gid{};
  sm::mad::setBits(gid, 0, 64, prefix);
  sm::mad::setBits(gid, 64, 64, guid.value);
  return gid;
}
std::uint64_t gidPrefix(const Gid& gid) {
  return sm::mad::getBits(gid, 0, 64);
}
Guid gidGuid(const Gid& gid) {
  return Guid{sm::mad::getBits(gid, 64, 64)};
}

std::vector<std::uint8_t> encodeRecord(const ClassPortInfo& r) {
  auto out = encodeWith(r, kClassPortInfoFields);
  pasteGid(out, kRedirectGidByte, r.redirectGid);
  pasteGid(out, kTrapGidByte, r.trapGid);
  return out;
}
std::vector<std::uint8_t> encodeRecord(const NodeRecord& r) {
  auto out = encodeWith(r, kNodeRecordFields);
  paste(out, kNodeInfoByte, encode(r.nodeInfo), kNodeInfoBytes);
  paste(out, kNodeDescriptionByte, encode(r.nodeDescription));
  return out;
}
std::vector<std::uint8_t> encodeRecord(const PortInfoRecord& r) {
  auto out = encodeWith(r, kPortInfoRecordFields);
  paste(out, kPortInfoByte, encode(r.portInfo));
  return out;
}
std::vector<std::uint8_t> encodeRecord(const LinkRecord& r) {
  return encodeWith(r, kLinkRecordFields);
}
std::vector<std::uint8_t> encodeRecord(const SwitchInfoRecord& r) {
  auto out = encodeWith(r, kSwitchInfoRecordFields);
  paste(out, kSwitchInfoByte, encode(r.switchInfo), kSwitchInfoBytes);
  return out;
}
std::vector<std::uint8_t> encodeRecord(const LftRecord& r) {
  auto out = encodeWith(r, kLftRecordFields);
  paste(out, kLftByte, encode(r.lft));
  return out;
}
std::vector<std::uint8_t> encodeRecord(const Sl2VlTableRecord& r) {
  auto out = encodeWith(r, kSl2VlFields);
  paste(out, kSl2VlByte, encode(r.table), kSl2VlBytes);
  return out;
}
std::vector<std::uint8_t> encodeRecord(const PKeyTableRecord& r) {
  auto out = encodeWith(r, kPKeyFields);
  paste(out, kPKeyByte, encode(r.table));
  return out;
}
std::vector<std::uint8_t> encodeRecord(const VlArbitrationTableRecord& r) {
  auto out = encodeWith(r, kVlArbFields);
  paste(out, kVlArbByte, encode(r.table));
  return out;
}
std::vector<std::uint8_t> encodeRecord(const GuidInfoRecord& r) {
  auto out = encodeWith(r, kGuidInfoFields);
  for (std::size_t i = 0; i < r.guids.size(); ++i) {
    sm::mad::setBits(out, static_cast<unsigned>((kGuidsByte + 8 * i) * 8), 64, r.guids[i].value);
  }
  return out;
}
std::vector<std::uint8_t> encodeRecord(const SmInfoRecord& r) {
  auto out = encodeWith(r, kSmInfoRecordFields);
  paste(out, kSmInfoByte, encode(r.smInfo), kSmInfoBytes);
  return out;
}
void encodeRecordInto(const PathRecord& r, std::span<std::uint8_t> out) {
  std::fill_n(out.begin(), PathRecord::kSize, std::uint8_t{0});
  sm::mad::encodeFields(r, kPathRecordFields, out.first(PathRecord::kSize));
  std::ranges::copy(r.dgid, out.begin() + kDgidByte);
  std::ranges::copy(r.sgid, out.begin() + kSgidByte);
}
std::vector<std::uint8_t> encodeRecord(const PathRecord& r) {
  std::vector<std::uint8_t> out(PathRecord::kSize);
  encodeRecordInto(r, out);
  return out;
}

std::vector<std::uint8_t> encodeRecord(const ServiceRecord& r) {
  auto out = encodeWith(r, kServiceRecordFields);
  pasteGid(out, kServiceGidByte, r.serviceGid);
  std::ranges::copy(r.serviceKey, out.begin() + kServiceKeyByte);
  std::copy_n(r.serviceName.begin(), std::min(r.serviceName.size(), kServiceNameBytes),
              out.begin() + kServiceNameByte);
  putArray(out, kData8Bit, r.data8);
  putArray(out, kData16Bit, r.data16);
  putArray(out, kData32Bit, r.data32);
  putArray(out, kData64Bit, r.data64);
  return out;
}

std::vector<std::uint8_t> encodeRecord(const InformInfo& r) {
  auto out = encodeWith(r, kInformInfoFields);
  pasteGid(out, 0, r.gid);
  return out;
}
std::vector<std::uint8_t> encodeRecord(const InformInfoRecord& r) {
  auto out = encodeWith(r, kInformInfoRecordFields);
  pasteGid(out, 0, r.subscriberGid);
  const auto info = encodeRecord(r.informInfo);
  std::copy_n(info.begin(), kInformInfoBytes, out.begin() + kInformInfoInRecordByte);
  return out;
}

std::vector<std::uint8_t> encodeRecord(const SaNotice& r) {
  std::vector<std::uint8_t> out(SaNotice::kSize, 0);
  paste(out, 0, encode(r.notice));
  pasteGid(out, kSmpDataSize, r.issuerGid);
  return out;
}

std::vector<std::uint8_t> encodeRecord(const McMemberRecord& r) {
  auto out = encodeWith(r, kMcMemberRecordFields);
  pasteGid(out, kMgidByte, r.mgid);
  pasteGid(out, kPortGidByte, r.portGid);
  return out;
}

template <typename R>
Result<R> decodeRecord(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kFieldBytes<R>) {
    return fail(fmt::format("{} of {} bytes: it takes {}", saAttributeName(R::kAttributeId),
                            bytes.size(), kFieldBytes<R>));
  }
  std::array<std::uint8_t, R::kSize> padded{};
  std::copy_n(bytes.begin(), std::min(bytes.size(), padded.size()), padded.begin());
  return decodePadded<R>(padded);
}

template Result<ClassPortInfo> decodeRecord(std::span<const std::uint8_t>);
template Result<NodeRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<PortInfoRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<LinkRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<SwitchInfoRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<LftRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<Sl2VlTableRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<PKeyTableRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<VlArbitrationTableRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<GuidInfoRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<SmInfoRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<PathRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<ServiceRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<InformInfo> decodeRecord(std::span<const std::uint8_t>);
template Result<InformInfoRecord> decodeRecord(std::span<const std::uint8_t>);
template Result<SaNotice> decodeRecord(std::span<const std::uint8_t>);
template Result<McMemberRecord> decodeRecord(std::span<const std::uint8_t>);

}  // namespace ibsm
