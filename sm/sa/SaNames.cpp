#include "sm/sa/SaNames.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "sm/sa/SaMad.h"

namespace ibsm::sm::sa {
namespace {

template <typename Id, std::size_t N>
std::string lookUp(const std::array<std::pair<Id, const char*>, N>& names, Id id, int width) {
  for (const auto& [known, name] : names)
    if (known == id) return name;
  return fmt::format("0x{:0{}x}", id, width);
}

constexpr std::array<std::pair<std::uint16_t, const char*>, 18> kAttributes{{
    {saAttr::kClassPortInfo, "ClassPortInfo"},
    {saAttr::kNotice, "Notice"},
    {saAttr::kInformInfo, "InformInfo"},
    {saAttr::kNodeRecord, "NodeRecord"},
    {saAttr::kPortInfoRecord, "PortInfoRecord"},
    {saAttr::kSl2VlTableRecord, "SL2VLTableRecord"},
    {saAttr::kSwitchInfoRecord, "SwitchInfoRecord"},
    {saAttr::kLftRecord, "LFTRecord"},
    {saAttr::kSmInfoRecord, "SMInfoRecord"},
    {saAttr::kLinkRecord, "LinkRecord"},
    {saAttr::kGuidInfoRecord, "GUIDInfoRecord"},
    {saAttr::kServiceRecord, "ServiceRecord"},
    {saAttr::kPKeyTableRecord, "PKeyTableRecord"},
    {saAttr::kPathRecord, "PathRecord"},
    {saAttr::kVlArbitrationTableRecord, "VLArbitrationTableRecord"},
    {saAttr::kMcMemberRecord, "MCMemberRecord"},
    {saAttr::kMultiPathRecord, "MultiPathRecord"},
    {saAttr::kInformInfoRecord, "InformInfoRecord"},
}};

constexpr std::array<std::pair<std::uint8_t, const char*>, 7> kMethods{{
    {saMethod::kGet, "Get"},
    {saMethod::kSet, "Set"},
    {saMethod::kReport, "Report"},
    {saMethod::kGetTable, "GetTable"},
    {saMethod::kGetMulti, "GetMulti"},
    {saMethod::kDelete, "Delete"},
    {saMethod::kReportResp, "ReportResp"},
}};

constexpr std::array<std::pair<std::uint16_t, const char*>, 12> kStatuses{{
    {saStatus::kBadVersion, "bad_version"},
    {saStatus::kMethodUnsupported, "method_unsupported"},
    {saStatus::kMethodAttrUnsupported, "method_attribute_unsupported"},
    {saStatus::kInvalidField, "invalid_field"},
    {saStatus::kNoResources, "no_resources"},
    {saStatus::kReqInvalid, "req_invalid"},
    {saStatus::kNoRecords, "no_records"},
    {saStatus::kTooManyRecords, "too_many_records"},
    {saStatus::kReqInvalidGid, "invalid_gid"},
    {saStatus::kReqInsufficientComponents, "insufficient_components"},
    {saStatus::kReqDenied, "req_denied"},
    {saStatus::kOk, "ok"},
}};

}  // namespace

std::string attributeName(std::uint16_t attributeId) {
  return lookUp(kAttributes, attributeId, 4);
}
std::string methodName(std::uint8_t method) {
  return lookUp(kMethods, method, 2);
}
std::string statusName(std::uint16_t status) {
  return lookUp(kStatuses, status, 4);
}

}  // namespace ibsm::sm::sa
