// The report's `previous` part (what the routes would move, see
// PreviousReport) as JSON and as summary lines; kept apart from
// ReportFormat.cpp, which calls these, so each file stays one subject.
#pragma once

#include <ibsm/Report.h>

#include <string>

#include "routing/analysis/JsonWriter.h"

namespace ibsm::analysis {

// `after`: the report's own link loads, shown beside the previous ones.
void writePrevious(JsonWriter& w, const PreviousReport& previous, const LinkLoadStats& after);
void summarisePrevious(const PreviousReport& previous, const LinkLoadStats& after,
                       std::string& out);

}  // namespace ibsm::analysis
