// The report's multipath figure (MultipathReport.h): per CA port with LMC >
// 0, its LIDs' next hops resolved once (NextHops), then from every source
// switch each LID's route walked, marking the cables and switches it passes
// in per-worker masks (a bit per LID), so that conflicts between the few
// routes of a pair cost one pass over their hops and no allocation. The most
// pairwise disjoint routes among at most MultipathReport::kMaxPaths is an
// exact search over those bit masks.
#pragma once

#include <ibsm/MultipathReport.h>

#include <cstdint>
#include <string>

#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/JsonWriter.h"

namespace ibsm::analysis {

// Empty (paths 1, no ports) when no CA port owns more than one LID. On
// `threads` workers (0: all cores); the figures do not depend on the count.
MultipathReport analyseMultipath(const ForwardingView& view, unsigned threads);

// The most of the routes in `candidates` (bit i: route i) of which no two
// conflict (conflicts[i]: the routes that share something with route i).
unsigned mostIndependent(std::uint32_t candidates, const std::uint16_t* conflicts);

void writeMultipath(JsonWriter& w, const MultipathReport& m);
void summariseMultipath(const MultipathReport& m, std::string& out);

}  // namespace ibsm::analysis
