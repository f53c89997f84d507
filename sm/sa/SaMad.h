// The Subnet Administration MAD (IBA 15.2.1): the common MAD header, the
// RMPP header and the SA header, named field by field, and the payload of
// records that follows them. The SA (sm/sa) decodes requests and encodes
// answers only through this one codec, checked byte for byte against
// libibmad in tests/sm/sa.
//
//   auto mad = decodeSaMad(bytes);              // a SaRefusal on bad input
//   if (!mad) answer with mad.error().status;
//   SaMad reply = *mad;
//   reply.header.method = saMethod::kGetResp;
//   std::vector<std::uint8_t> wire = encodeSaMad(reply);
//
// Records (SaRecords.h) sit in the payload at multiples of AttributeOffset
// (8-byte units), which a GetTableResp sets to the record's padded size.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include "sm/mad/Gmp.h"

namespace ibsm {

inline constexpr std::size_t kSaHeaderSize = 56;  // MAD + RMPP + SA headers
inline constexpr std::size_t kSaDataSize = 200;   // record bytes in one 256-byte MAD
// The SA header alone (SM_Key to ComponentMask): what RMPP's PayloadLength
// counts before the records.
inline constexpr std::size_t kSaClassHeaderSize = 20;

// The method byte as the MAD carries it; answers carry the R bit (0x80).
namespace saMethod {
inline constexpr std::uint8_t kGet = 0x01;
inline constexpr std::uint8_t kSet = 0x02;
inline constexpr std::uint8_t kReport = 0x06;
inline constexpr std::uint8_t kGetTable = 0x12;
inline constexpr std::uint8_t kGetMulti = 0x14;
inline constexpr std::uint8_t kDelete = 0x15;
inline constexpr std::uint8_t kResponse = 0x80;
inline constexpr std::uint8_t kGetResp = 0x81;
inline constexpr std::uint8_t kReportResp = 0x86;
inline constexpr std::uint8_t kGetTableResp = 0x92;
inline constexpr std::uint8_t kGetMultiResp = 0x94;
inline constexpr std::uint8_t kDeleteResp = 0x95;
}  // namespace saMethod

// SA attribute ids (IBA 15.2.5, Table 186).
namespace saAttr {
inline constexpr std::uint16_t kClassPortInfo = 0x0001;
inline constexpr std::uint16_t kNotice = 0x0002;
inline constexpr std::uint16_t kInformInfo = 0x0003;
inline constexpr std::uint16_t kNodeRecord = 0x0011;
inline constexpr std::uint16_t kPortInfoRecord = 0x0012;
inline constexpr std::uint16_t kSl2VlTableRecord = 0x0013;
inline constexpr std::uint16_t kSwitchInfoRecord = 0x0014;
inline constexpr std::uint16_t kLftRecord = 0x0015;
inline constexpr std::uint16_t kSmInfoRecord = 0x0018;
inline constexpr std::uint16_t kLinkRecord = 0x0020;
inline constexpr std::uint16_t kGuidInfoRecord = 0x0030;
inline constexpr std::uint16_t kServiceRecord = 0x0031;
inline constexpr std::uint16_t kPKeyTableRecord = 0x0033;
inline constexpr std::uint16_t kPathRecord = 0x0035;
inline constexpr std::uint16_t kVlArbitrationTableRecord = 0x0036;
inline constexpr std::uint16_t kMcMemberRecord = 0x0038;
inline constexpr std::uint16_t kMultiPathRecord = 0x003A;
inline constexpr std::uint16_t kInformInfoRecord = 0x00F3;
}  // namespace saAttr

// The MAD status word: class-independent codes in bits 2-4, the SA's own
// codes in bits 8-15 (IBA 13.4.7, 15.2.1.1).
namespace saStatus {
inline constexpr std::uint16_t kOk = 0x0000;
inline constexpr std::uint16_t kBadVersion = 1U << 2;
inline constexpr std::uint16_t kMethodUnsupported = 2U << 2;
inline constexpr std::uint16_t kMethodAttrUnsupported = 3U << 2;
inline constexpr std::uint16_t kInvalidField = 7U << 2;
inline constexpr std::uint16_t kNoResources = 1U << 8;
inline constexpr std::uint16_t kReqInvalid = 2U << 8;
inline constexpr std::uint16_t kNoRecords = 3U << 8;
inline constexpr std::uint16_t kTooManyRecords = 4U << 8;
inline constexpr std::uint16_t kReqInvalidGid = 5U << 8;
inline constexpr std::uint16_t kReqInsufficientComponents = 6U << 8;
inline constexpr std::uint16_t kReqDenied = 7U << 8;
}  // namespace saStatus

// RMPP (IBA 13.6.2): set on a GetTableResp, whose payload may span segments.
namespace rmpp {
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::uint8_t kTypeData = 1;
inline constexpr std::uint8_t kFlagActive = 0x1;
inline constexpr std::uint8_t kFlagFirst = 0x2;
inline constexpr std::uint8_t kFlagLast = 0x4;
}  // namespace rmpp

struct RmppHeader {
  std::uint8_t version{0};
  std::uint8_t type{0};
  std::uint8_t respTime{0};  // 5 bits
  std::uint8_t flags{0};     // 3 bits
  std::uint8_t status{0};
  std::uint32_t segmentNumber{0};
  std::uint32_t payloadLength{0};  // first segment: SA header + data bytes of the whole answer
  auto operator<=>(const RmppHeader&) const = default;
};

struct SaHeader {
  std::uint8_t baseVersion{1};
  std::uint8_t mgmtClass{kSaClass};
  std::uint8_t classVersion{kSaClassVersion};
  std::uint8_t method{saMethod::kGet};
  std::uint16_t status{0};
  std::uint64_t tid{0};
  std::uint16_t attributeId{0};
  std::uint32_t attributeModifier{0};
  RmppHeader rmpp;
  std::uint64_t smKey{0};
  std::uint16_t attributeOffset{0};  // 8-byte units
  std::uint64_t componentMask{0};
  auto operator<=>(const SaHeader&) const = default;
};

struct SaMad {
  SaHeader header;
  std::vector<std::uint8_t> data;  // everything after the SA header
  auto operator<=>(const SaMad&) const = default;
};

// Why a MAD cannot be taken: the status its answer carries, and words for
// the log. `header` is what could be read (TID, method, attribute), so an
// answer can still echo it; `headerRead` is false when not even that.
struct SaRefusal {
  std::uint16_t status{saStatus::kInvalidField};
  std::string message;
  SaHeader header;
  bool headerRead{false};
};

// A whole SA MAD of at least 256 bytes: headers, then `data`, padded with
// zeros to a full MAD.
std::vector<std::uint8_t> encodeSaMad(const SaMad& mad);
// The same of a header and data held elsewhere (the responder's reused
// buffers): the one allocation is the MAD returned.
std::vector<std::uint8_t> encodeSaMad(const SaHeader& header, std::span<const std::uint8_t> data);

// Refuses a buffer shorter than the SA headers (not even the common header:
// headerRead false), a base version other than 1, a class other than SA or
// a class version other than 2 (kBadVersion), and an AttributeOffset that
// points past the data (kInvalidField).
[[nodiscard]] std::expected<SaMad, SaRefusal> decodeSaMad(std::span<const std::uint8_t> bytes);
// The same into `mad`, whose data buffer keeps its capacity: a responder
// decoding every request into one SaMad allocates nothing once it has held
// a whole MAD. On a refusal `mad` holds what was read, no more.
[[nodiscard]] std::expected<void, SaRefusal> decodeSaMadInto(std::span<const std::uint8_t> bytes,
                                                             SaMad& mad);

// "Get", "GetTableResp", ... and "NodeRecord", "PathRecord", ... for logs
// and status; "0x.." for the unknown.
std::string saMethodName(std::uint8_t method);
std::string saAttributeName(std::uint16_t attributeId);

}  // namespace ibsm
