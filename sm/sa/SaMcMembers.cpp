// MCMemberRecord through the SA: the MAD side of McGroups -- the method,
// the requester, the answer and the counters.
#include "sm/sa/Components.h"
#include "sm/sa/McRules.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/SaResponder.h"

namespace ibsm::sm::sa {

std::vector<std::uint8_t> SaResponder::serveMcMembers(const SaSubnet& subnet, const SaMad& request,
                                                      const GmpAddress& from) {
  const SaHeader& h = request.header;
  const bool set = h.method == saMethod::kSet;
  const bool del = h.method == saMethod::kDelete;
  const bool get = h.method == saMethod::kGet;
  if (!set && !del && !get && h.method != saMethod::kGetTable)
    return refuse(h, request.data, saStatus::kMethodAttrUnsupported);
  const auto record = decodeRecord<McMemberRecord>(request.data);
  const auto requester = subnet.portOfLid(from.lid);
  if (!record || !maskFits(h.componentMask, componentsOf(h.attributeId)) || !requester)
    return refuse(h, request.data, saStatus::kReqInvalid);
  const McRequest req{.record = *record,
                      .mask = h.componentMask,
                      .requester = *requester,
                      .trusted = h.smKey == subnet.settings().saKey};
  if (!set && !del) {
    if (!givenLinkValuesValid(*record, h.componentMask))
      return refuse(h, request.data, saStatus::kReqInvalid);
    const auto found = groups_.find(subnet, req);
    if (get && found.size() != 1)
      return refuse(h, request.data,
                    found.empty() ? saStatus::kNoRecords : saStatus::kTooManyRecords);
    std::vector<std::uint8_t> records;
    records.reserve(found.size() * McMemberRecord::kSize);
    for (const McMemberRecord& r : found) {
      const auto bytes = encodeRecord(r);
      records.insert(records.end(), bytes.begin(), bytes.end());
    }
    return respond(subnet, request, McMemberRecord::kSize, std::move(records), found.size());
  }
  const auto answer = set ? groups_.join(subnet, req) : groups_.leave(subnet, req);
  countGroups();
  if (!answer) {
    ++counters_.mcRefusedByStatus[answer.error()];
    return refuse(h, request.data, answer.error());
  }
  ++(set ? counters_.mcJoins : counters_.mcLeaves);
  return respond(subnet, request, McMemberRecord::kSize, encodeRecord(*answer), 1);
}

std::size_t SaResponder::setPrecreated(const std::vector<McGroupSpec>& specs) {
  const std::size_t refused = groups_.setPrecreated(specs);
  countGroups();
  return refused;
}

std::size_t SaResponder::dropPort(Guid portGuid) {
  const std::size_t dropped = groups_.dropPort(portGuid);
  countGroups();
  return dropped;
}

std::size_t SaResponder::forgetJoins() {
  const std::size_t dropped = groups_.forgetJoins();
  countGroups();
  return dropped;
}

void SaResponder::countGroups() {
  counters_.mcGroupsCreated = groups_.created();
  counters_.mcGroupsDeleted = groups_.deleted();
  counters_.joinsOverCap = groups_.refusedOverCap();
}

}  // namespace ibsm::sm::sa
