// A Layout as one self-contained SVG file: CSS classes for the load colours
// so that 10,000 cables cost a few bytes each, a <title> on every switch,
// cable bundle and host summary (the browser's tooltip, and what a test or
// a script finds things by), and data- attributes with the figures.
//
//   std::string svg = renderSvg(*layoutFabric(fabric, inputs), "cluster.net");
//
// Classes a reader can rely on: g.switch (data-name, data-guid, data-tier),
// g.hosts (data-switch, data-hosts), line.link (data-cables, data-routes,
// class l0..l7 by load, "unused" or "noload", plus "unhealthy"), and
// "unhealthy" on a switch or host summary with a condition.
#pragma once

#include <string>
#include <string_view>

#include "routing/draw/Layout.h"

namespace ibsm::draw {

inline constexpr int kLoadBins = 8;

// The colour bin of a load: 0..kLoadBins-1 in equal slices of (0, max], the
// busiest link always in the top one; -1 for a link no route crosses.
int loadBin(std::uint64_t routes, std::uint64_t max);

std::string renderSvg(const Layout& layout, std::string_view title);

// Text made safe for XML character data and attribute values: markup
// escaped, control characters and bytes that are not UTF-8 replaced by '?'.
std::string xmlText(std::string_view text);

}  // namespace ibsm::draw
