#include "sm/program/RetriedSets.h"

namespace ibsm::sm::program {

bool worthReadingBack(const SmpRequest& request, const SmpReply& reply) {
  return request.method == Method::Set && request.attributeId == AttributeId::PortInfo &&
         reply.outcome == SmpOutcome::BadStatus && reply.attempts > 1;
}

bool holdsWhatWasSet(const PortInfo& asked, const PortInfo& held) {
  if (asked.portState != PortState::NoChange && held.portState < asked.portState) return false;
  if (held.lid != asked.lid || held.lmc != asked.lmc || held.masterSmLid != asked.masterSmLid)
    return false;
  if (asked.neighborMtu != 0 && held.neighborMtu != asked.neighborMtu) return false;
  if (asked.operationalVls != 0 && held.operationalVls != asked.operationalVls) return false;
  return true;
}

}  // namespace ibsm::sm::program
