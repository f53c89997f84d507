// What the SA's responder counts as it answers, declared once: the
// responder fills it (SaResponder.h) and `ibsm status` shows it as it is
// (control::SaStatus holds it; the printers name the ids, SaNames.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace ibsm::sm::sa {

// What the SA did, for `ibsm status`: queries by attribute and by method
// (the request's), errors by the status answered.
struct SaCounters {
  std::uint64_t received{0};
  std::uint64_t answered{0};
  std::uint64_t dropped{0};  // responses, and MADs too short to answer
  std::uint64_t recordsSent{0};
  std::uint64_t answersTrimmed{0};    // cut to SaSettings::maxRecords
  std::uint64_t leasesShortened{0};   // ServiceRecord leases cut to serviceLeaseMaxS
  std::uint64_t segmentedRefused{0};  // requests in RMPP segments (GetMulti), not reassembled
  std::map<std::uint16_t, std::uint64_t> byAttribute;
  std::map<std::uint8_t, std::uint64_t> byMethod;
  std::map<std::uint16_t, std::uint64_t> errorsByStatus;
  // Multicast (MCMemberRecord): Sets and Deletes that succeeded, groups
  // created and deleted however (joins, leaves, configuration, ports that
  // left), and the Sets and Deletes refused, by the status answered.
  std::uint64_t mcJoins{0};
  std::uint64_t mcLeaves{0};
  std::uint64_t mcGroupsCreated{0};
  std::uint64_t mcGroupsDeleted{0};
  std::map<std::uint16_t, std::uint64_t> mcRefusedByStatus;
  // Refused with NO_RESOURCES over the per-port caps (SaSettings).
  std::uint64_t joinsOverCap{0};
  std::uint64_t servicesOverCap{0};
};

// What the SA's fair queue of requests counts (FairQueue.h): requests
// queued, those dropped because their requester's queue (or all of them)
// was full, the longest one requester's queue has been.
struct FairQueueCounters {
  std::uint64_t queued{0};
  std::uint64_t droppedRequesterFull{0};  // its own oldest, for a requester over perRequester
  std::uint64_t droppedTotalFull{0};      // the longest queue's oldest, with total reached
  std::size_t largestEver{0};             // the longest one requester's queue has been
};

}  // namespace ibsm::sm::sa
