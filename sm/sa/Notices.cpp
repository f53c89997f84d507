#include "sm/sa/Notices.h"

#include <algorithm>

namespace ibsm::sm::sa {
namespace {

bool isGidTrap(const Notice& n) {
  return n.isGeneric && n.trapNumber >= noticeTrap::kGidInService &&
         n.trapNumber <= noticeTrap::kMcGroupDeleted;
}

bool isZero(const Gid& gid) {
  return std::ranges::all_of(gid, [](std::uint8_t b) { return b == 0; });
}

}  // namespace

SaNotice gidNotice(std::uint16_t trap, const Gid& gid, Lid smLid, const Gid& smGid) {
  SaNotice n;
  n.notice.isGeneric = true;
  n.notice.type = kNoticeTypeSubnetManagement;
  n.notice.producerType = kProducerClassManager;
  n.notice.trapNumber = trap;
  n.notice.issuerLid = smLid;
  std::ranges::copy(gid, n.notice.dataDetails.begin() + kNoticeGidDetail);
  // IBA: the SM issues these, so the issuer GID is the SM's own (OpenSM too).
  n.issuerGid = smGid;
  return n;
}

Gid noticeGid(const SaNotice& notice) {
  Gid gid{};
  std::copy_n(notice.notice.dataDetails.begin() + kNoticeGidDetail, gid.size(), gid.begin());
  return gid;
}

Gid sourceGid(const SaNotice& notice) {
  // The SM issues 64..67 about another port: a subscriber naming a GID
  // wants to hear about that port, not about the SM.
  return isGidTrap(notice.notice) ? noticeGid(notice) : notice.issuerGid;
}

bool informMatches(const InformInfo& info, const SaNotice& notice) {
  const Notice& n = notice.notice;
  if (!isZero(info.gid)) {
    if (info.gid != sourceGid(notice)) return false;
  } else if (info.lidRangeBegin.value != InformInfo::kAllLids) {
    if (n.issuerLid.value < info.lidRangeBegin.value || n.issuerLid.value > info.lidRangeEnd.value)
      return false;
  }
  if (info.isGeneric != n.isGeneric) return false;
  if (info.type != kAnyType && info.type != n.type) return false;
  // Generic: TrapNumber and ProducerType; vendor: DeviceID and VendorID,
  // which the same fields carry.
  if (info.trapNumber != kAnyTrap && info.trapNumber != n.trapNumber) return false;
  return info.producerType == kAnyProducer || info.producerType == n.producerType;
}

std::vector<std::uint8_t> encodeReport(const SaNotice& notice, std::uint64_t tid) {
  SaMad mad;
  mad.header.method = saMethod::kReport;
  mad.header.tid = tid;
  mad.header.attributeId = saAttr::kNotice;
  mad.data = encodeRecord(notice);
  return encodeSaMad(mad);
}

}  // namespace ibsm::sm::sa
