#include "sm/sa/SaResponder.h"

#include <algorithm>

#include "sm/sa/Components.h"
#include "sm/sa/MultiPathRecords.h"
#include "sm/sa/PathRecords.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {
namespace {

bool isKnownMethod(std::uint8_t method) {
  switch (method) {
    case saMethod::kGet:
    case saMethod::kSet:
    case saMethod::kReport:
    case saMethod::kGetTable:
    case saMethod::kGetMulti:
    case saMethod::kDelete:
      return true;
    default:
      return false;
  }
}

// The attributes answered from the snapshot's record tables.
bool isTableRecord(std::uint16_t attributeId) {
  return attributeId != saAttr::kPathRecord && attributeId != saAttr::kClassPortInfo &&
         attributeId != saAttr::kMultiPathRecord && !componentsOf(attributeId).empty();
}

// One segment of a request sent in several (RMPP active, not both first
// and last): the SA reads requests of one MAD only.
bool isSegmented(const RmppHeader& r) {
  constexpr std::uint8_t kWhole = rmpp::kFlagFirst | rmpp::kFlagLast;
  return (r.flags & rmpp::kFlagActive) != 0 && (r.flags & kWhole) != kWhole;
}

}  // namespace

SaResponder::SaResponder(std::shared_ptr<const SaSubnet> subnet,
                         std::function<Clock::time_point()> clock)
    : subnet_(std::move(subnet)), clock_(std::move(clock)) {}

void SaResponder::setSubnet(std::shared_ptr<const SaSubnet> subnet) {
  subnet_.store(std::move(subnet));
}

std::optional<std::vector<std::uint8_t>> SaResponder::answer(std::span<const std::uint8_t> request,
                                                             const GmpAddress& from) {
  ++counters_.received;
  // Decoded into the kept request_, and answered through the kept paths_
  // and records_: a PathRecord Get allocates only the answer it returns.
  const auto mad = decodeSaMadInto(request, request_);
  const SaHeader& header = mad ? request_.header : mad.error().header;
  if ((!mad && !mad.error().headerRead) || (header.method & saMethod::kResponse) != 0) {
    ++counters_.dropped;  // nothing to echo, or an answer to something the SA never asked
    return std::nullopt;
  }
  ++counters_.byAttribute[header.attributeId];
  ++counters_.byMethod[header.method];
  const auto data = request.size() > kSaHeaderSize ? request.subspan(kSaHeaderSize)
                                                   : std::span<const std::uint8_t>{};
  if (!mad) return refuse(header, data, mad.error().status);
  const auto subnet = subnet_.load();
  if (!subnet) return refuse(header, data, saStatus::kNoResources);
  auto reply = serve(*subnet, request_, from);
  releaseLargeBuffers();
  return reply;
}

void SaResponder::releaseLargeBuffers() {
  // A GetTable of every path from one port may have grown them: what a
  // one-MAD answer needs is kept, the rest given back.
  constexpr std::size_t kKeepBytes = 64 * 1024;
  if (records_.capacity() > kKeepBytes) std::vector<std::uint8_t>().swap(records_);
  if (paths_.capacity() * sizeof(PathRecord) > kKeepBytes) std::vector<PathRecord>().swap(paths_);
}

std::vector<std::uint8_t> SaResponder::serve(const SaSubnet& subnet, const SaMad& request,
                                             const GmpAddress& from) {
  const SaHeader& h = request.header;
  if (!isKnownMethod(h.method)) return refuse(h, request.data, saStatus::kMethodUnsupported);
  if (isSegmented(h.rmpp)) {
    // Dual-sided RMPP (a GetMulti of more GIDs than one MAD holds) is not
    // implemented: refused as the lack of a resource, counted.
    ++counters_.segmentedRefused;
    return refuse(h, request.data, saStatus::kNoResources);
  }
  const bool get = h.method == saMethod::kGet;
  const bool getTable = h.method == saMethod::kGetTable;
  if (h.attributeId == saAttr::kClassPortInfo && get) {
    const auto cpi = encodeRecord(subnet.classPortInfo());
    return respond(subnet, request, ClassPortInfo::kSize, cpi, 1);
  }
  if (h.attributeId == saAttr::kServiceRecord) return serveServices(subnet, request, from);
  if (h.attributeId == saAttr::kMcMemberRecord) return serveMcMembers(subnet, request, from);
  if (h.attributeId == saAttr::kMultiPathRecord) return serveMultiPaths(subnet, request, from);
  if (h.attributeId == saAttr::kInformInfo || h.attributeId == saAttr::kInformInfoRecord)
    return serveInformInfo(subnet, request, from);
  if (!(get || getTable) || (!isTableRecord(h.attributeId) && h.attributeId != saAttr::kPathRecord))
    return refuse(h, request.data, saStatus::kMethodAttrUnsupported);
  if (!maskFits(h.componentMask, componentsOf(h.attributeId)))
    return refuse(h, request.data, saStatus::kReqInvalid);
  if (request.data.size() < recordSizeOf(h.attributeId))
    return refuse(h, request.data, saStatus::kReqInvalid);
  if (h.attributeId == saAttr::kPathRecord) return servePaths(subnet, request, from);
  // IBA C15-0.1.x and OpenSM: PKey tables only for a trusted requester.
  if (h.attributeId == saAttr::kPKeyTableRecord && h.smKey != subnet.settings().saKey)
    return refuse(h, request.data, saStatus::kReqInvalid);
  return serveTable(subnet, request);
}

std::vector<std::uint8_t> SaResponder::serveTable(const SaSubnet& subnet, const SaMad& request) {
  const SaHeader& h = request.header;
  const RecordTable* table = subnet.records(h.attributeId);
  const auto components = componentsOf(h.attributeId);
  const std::size_t size = recordSizeOf(h.attributeId);
  const std::span<const std::uint8_t> query(request.data.data(), size);
  // Every record starts with its LID (component 0): a query naming it
  // looks at that LID's records only.
  auto [first, last] = std::pair<std::size_t, std::size_t>{0, table ? table->size() : 0};
  if (table && (h.componentMask & 1U)) {
    std::tie(first, last) =
        table->withLid(Lid{static_cast<std::uint16_t>((query[0] << 8) | query[1])});
  }
  std::vector<std::uint8_t> records;
  std::size_t count = 0;
  for (std::size_t i = first; i < last; ++i) {
    const auto candidate = table->record(i);
    if (!matches(candidate, query, h.componentMask, components)) continue;
    records.insert(records.end(), candidate.begin(), candidate.end());
    ++count;
    if (h.method == saMethod::kGet && count > 1) break;  // TOO_MANY either way
  }
  if (h.method == saMethod::kGet && count != 1) {
    return refuse(h, request.data, count == 0 ? saStatus::kNoRecords : saStatus::kTooManyRecords);
  }
  return respond(subnet, request, static_cast<std::uint16_t>(size), std::move(records), count);
}

std::vector<std::uint8_t> SaResponder::servePaths(const SaSubnet& subnet, const SaMad& request,
                                                  const GmpAddress& from) {
  const SaHeader& h = request.header;
  auto query = decodeRecord<PathRecord>(request.data);
  const bool get = h.method == saMethod::kGet;
  const auto found = findPaths(
      subnet,
      PathQuery{.query = *query, .mask = h.componentMask, .requester = from.lid, .single = get},
      paths_);
  if (!found) return refuse(h, request.data, found.error());
  if (get && paths_.size() != 1) {
    return refuse(h, request.data,
                  paths_.empty() ? saStatus::kNoRecords : saStatus::kTooManyRecords);
  }
  records_.resize(paths_.size() * PathRecord::kSize);
  for (std::size_t i = 0; i < paths_.size(); ++i)
    encodeRecordInto(paths_[i], std::span(records_).subspan(i * PathRecord::kSize));
  return respond(subnet, request, PathRecord::kSize, records_, paths_.size());
}

// GetMulti(MultiPathRecord) of one MAD, answered with PathRecords
// (o15-0.2.7: the answer carries the PathRecord attribute) in a
// GetMultiResp that the transport segments like a table.
std::vector<std::uint8_t> SaResponder::serveMultiPaths(const SaSubnet& subnet, const SaMad& request,
                                                       const GmpAddress& from) {
  const SaHeader& h = request.header;
  if (h.method != saMethod::kGetMulti)
    return refuse(h, request.data, saStatus::kMethodAttrUnsupported);
  if (!maskFits(h.componentMask, componentsOf(h.attributeId)))
    return refuse(h, request.data, saStatus::kReqInvalid);
  const auto record = decodeRecord<MultiPathRecord>(request.data);
  if (!record) return refuse(h, request.data, saStatus::kReqInvalid);
  const auto paths = findMultiPaths(subnet, *record, h.componentMask, from.lid);
  if (!paths) return refuse(h, request.data, paths.error());
  std::vector<std::uint8_t> records;
  records.reserve(paths->size() * PathRecord::kSize);
  for (const PathRecord& pr : *paths) {
    const auto bytes = encodeRecord(pr);
    records.insert(records.end(), bytes.begin(), bytes.end());
  }
  SaMad asPaths = request;
  asPaths.header.attributeId = saAttr::kPathRecord;
  return respond(subnet, asPaths, PathRecord::kSize, std::move(records), paths->size());
}

std::vector<std::uint8_t> SaResponder::serveServices(const SaSubnet& subnet, const SaMad& request,
                                                     const GmpAddress& from) {
  const SaHeader& h = request.header;
  if (!maskFits(h.componentMask, componentsOf(h.attributeId)) ||
      request.data.size() < ServiceRecord::kSize)
    return refuse(h, request.data, saStatus::kReqInvalid);
  const std::span<const std::uint8_t> query(request.data.data(), ServiceRecord::kSize);
  const auto requester = subnet.portOfLid(from.lid);
  const Guid owner = requester ? subnet.fabric().port(*requester).guid : Guid{};
  constexpr std::uint64_t kIdAndGid = 0x3;
  if (h.method == saMethod::kGet || h.method == saMethod::kGetTable) {
    const auto found = services_.find(query, h.componentMask, clock_());
    if (h.method == saMethod::kGet && found.size() != 1) {
      return refuse(h, request.data,
                    found.empty() ? saStatus::kNoRecords : saStatus::kTooManyRecords);
    }
    std::vector<std::uint8_t> records;
    for (const auto& r : found) records.insert(records.end(), r.begin(), r.end());
    return respond(subnet, request, ServiceRecord::kSize, std::move(records), found.size());
  }
  if (h.method != saMethod::kSet && h.method != saMethod::kDelete)
    return refuse(h, request.data, saStatus::kMethodAttrUnsupported);
  if ((h.componentMask & kIdAndGid) != kIdAndGid)
    return refuse(h, request.data, saStatus::kReqInsufficientComponents);
  if (!requester) return refuse(h, request.data, saStatus::kReqInvalid);  // a port we do not know
  if (h.method == saMethod::kSet) return registerService(subnet, request, owner);
  const auto removed = services_.remove(query, h.componentMask, owner, clock_());
  if (!removed) return refuse(h, request.data, removed.error());
  return respond(subnet, request, ServiceRecord::kSize, removed->front(), 1);
}

// Set(InformInfo) from a known port; Get/GetTable(InformInfoRecord).
std::vector<std::uint8_t> SaResponder::serveInformInfo(const SaSubnet& subnet, const SaMad& request,
                                                       const GmpAddress& from) {
  const SaHeader& h = request.header;
  const bool get = h.method == saMethod::kGet || h.method == saMethod::kGetTable;
  if (h.attributeId == saAttr::kInformInfoRecord && get) {
    if (!maskFits(h.componentMask, componentsOf(h.attributeId)) ||
        request.data.size() < InformInfoRecord::kSize)  // a MAD cut short (SaFuzz found it)
      return refuse(h, request.data, saStatus::kReqInvalid);
    const auto found = subscriptions_.records(
        std::span(request.data.data(), InformInfoRecord::kSize), h.componentMask);
    if (h.method == saMethod::kGet && found.size() != 1) {
      return refuse(h, request.data,
                    found.empty() ? saStatus::kNoRecords : saStatus::kTooManyRecords);
    }
    std::vector<std::uint8_t> records;
    for (const auto& r : found) records.insert(records.end(), r.begin(), r.end());
    return respond(subnet, request, InformInfoRecord::kSize, std::move(records), found.size());
  }
  if (h.attributeId != saAttr::kInformInfo || h.method != saMethod::kSet)
    return refuse(h, request.data, saStatus::kMethodAttrUnsupported);
  const auto requester = subnet.portOfLid(from.lid);
  if (!requester) return refuse(h, request.data, saStatus::kReqInvalid);
  const auto info = decodeRecord<InformInfo>(request.data);
  if (!info) return refuse(h, request.data, saStatus::kReqInvalid);  // a MAD cut short
  // C15-0.2-1.16: the security traps (bad M_Key, P_Key, Q_Key) only for a
  // trusted requester -- one presenting the SA key, as for PKeyTableRecords
  // (OpenSM takes any non-zero SM_Key).
  constexpr std::uint16_t kFirstSecurityTrap = 256, kLastSecurityTrap = 259;
  if (info->subscribe && info->isGeneric && info->trapNumber >= kFirstSecurityTrap &&
      info->trapNumber <= kLastSecurityTrap && h.smKey != subnet.settings().saKey)
    return refuse(h, request.data, saStatus::kReqInvalid);
  const Gid subscriber =
      makeGid(subnet.settings().subnetPrefix, subnet.fabric().port(*requester).guid);
  const auto stored = subscriptions_.set(*info, subscriber, from);
  if (!stored) return refuse(h, request.data, stored.error());
  return respond(subnet, request, InformInfo::kSize, encodeRecord(*stored), 1);
}

// Set(ServiceRecord): the service's GID must be a port of this subnet.
std::vector<std::uint8_t> SaResponder::registerService(const SaSubnet& subnet, const SaMad& request,
                                                       Guid requester) {
  const SaHeader& h = request.header;
  auto record = decodeRecord<ServiceRecord>(request.data);
  if (gidPrefix(record->serviceGid) != subnet.settings().subnetPrefix ||
      !subnet.portOfGuid(gidGuid(record->serviceGid)))
    return refuse(h, request.data, saStatus::kReqInvalidGid);
  constexpr std::uint64_t kPKeyComponent = 1ULL << 2;
  if ((h.componentMask & kPKeyComponent) == 0) record->servicePKey = 0xFFFF;  // as OpenSM
  // sa.service_lease_max_s: a longer lease (or the indefinite one) gets the
  // longest allowed, and the answer says so.
  if (record->serviceLease > subnet.settings().serviceLeaseMaxS) {
    record->serviceLease = subnet.settings().serviceLeaseMaxS;
    ++counters_.leasesShortened;
  }
  const auto stored =
      services_.set(*record, requester, clock_(), subnet.settings().maxServicesPerPort);
  counters_.servicesOverCap = services_.refusedOverCap();
  if (!stored) return refuse(h, request.data, stored.error());
  return respond(subnet, request, ServiceRecord::kSize, encodeRecord(*stored), 1);
}

// A GetResp or GetTableResp of `count` records: TID and attribute echoed,
// SM_Key 0 (C15-0.1.5), AttributeOffset the record size in 8-byte units,
// RMPP active on a table (GetTableResp, GetMultiResp) so that the
// transport may segment it.
std::vector<std::uint8_t> SaResponder::respond(const SaSubnet& subnet, const SaMad& request,
                                               std::uint16_t recordSize,
                                               std::span<const std::uint8_t> records,
                                               std::size_t count) {
  if (count > subnet.settings().maxRecords) {
    // sa.max_records: the first records, in the order the SA keeps them
    // (by LID), as OpenSM trims an answer to what it can send.
    count = subnet.settings().maxRecords;
    records = records.first(count * recordSize);
    ++counters_.answersTrimmed;
  }
  SaMad reply;  // its data stays empty: the records are encoded from where they are
  reply.header = request.header;
  reply.header.method = request.header.method == saMethod::kSet
                            ? saMethod::kGetResp
                            : request.header.method | saMethod::kResponse;
  reply.header.status = saStatus::kOk;
  reply.header.smKey = 0;
  reply.header.attributeOffset = static_cast<std::uint16_t>(recordSize / 8);
  reply.header.rmpp = {};
  if (reply.header.method == saMethod::kGetTableResp ||
      reply.header.method == saMethod::kGetMultiResp) {
    reply.header.rmpp = {
        .version = rmpp::kVersion,
        .type = rmpp::kTypeData,
        .respTime = 0,
        .flags = rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast,
        .status = 0,
        .segmentNumber = 1,
        .payloadLength = static_cast<std::uint32_t>(kSaClassHeaderSize + records.size())};
  }
  ++counters_.answered;
  counters_.recordsSent += count;
  return encodeSaMad(reply.header, records);
}

// The request sent back with an error status, as OpenSM does: header and
// data echoed, a Set's answer a GetResp, no records.
std::vector<std::uint8_t> SaResponder::refuse(const SaHeader& request,
                                              std::span<const std::uint8_t> requestData,
                                              std::uint16_t status) {
  SaMad reply;
  reply.header = request;
  reply.header.method =
      request.method == saMethod::kSet ? saMethod::kGetResp : request.method | saMethod::kResponse;
  reply.header.status = status;
  // A bad version is answered in the versions the SA speaks (IBA 13.4.4).
  reply.header.baseVersion = 1;
  reply.header.mgmtClass = kSaClass;
  reply.header.classVersion = kSaClassVersion;
  reply.header.smKey = 0;
  reply.header.attributeOffset = 0;
  reply.header.rmpp = {};
  reply.data.assign(
      requestData.begin(),
      requestData.begin() + static_cast<std::ptrdiff_t>(std::min(requestData.size(), kSaDataSize)));
  ++counters_.answered;
  ++counters_.errorsByStatus[status];
  return encodeSaMad(reply);
}

}  // namespace ibsm::sm::sa
