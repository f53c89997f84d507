// What `ibsm draw` reads beside the topology: routes per link from
// report.json (`ibsm route -o DIR`) and health conditions from a health
// JSON (`ibsm health --json`). Parsed here, at the edge, into the plain
// values routing/draw takes, with errors naming the file and the field.
#pragma once

#include <ibsm/Error.h>

#include <string_view>
#include <vector>

#include "routing/draw/Layout.h"

namespace ibsm::sm::cli {

// report.json's linkLoad.perLink: [["0x<from node guid>", <from port>, <routes>], ...].
[[nodiscard]] Result<std::vector<draw::LinkLoadEntry>> parseReportLoads(std::string_view text,
                                                                        std::string_view file);

// The health JSON's `unhealthy` list (or a bare list). Per entry, read:
//   "condition": string (required): "errors", "downgraded", "flapping", ...
//   "port": {"node_guid": "0x...", "port": N} (required); "port": N with
//           "node_guid" beside it is taken too
//   "detail": string (optional): the tooltip's words
// Everything else ("peer", "name", "since", ...) is ignored: the cable is
// found from its port in the topology, which knows the peer.
[[nodiscard]] Result<std::vector<draw::HealthMark>> parseHealthMarks(std::string_view text,
                                                                     std::string_view file);

}  // namespace ibsm::sm::cli
