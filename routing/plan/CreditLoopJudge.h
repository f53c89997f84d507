// The one rule for tables with a credit loop, used by every plan (the live
// SM and the dry run alike, through planSubnet and routeUnderChange): while
// another engine follows in the list, such tables count as that engine
// refusing the fabric, and the next is tried; the last engine's tables are
// taken as they are, since a fabric that can deadlock under load beats a
// fabric with no routes, and the SM programs them, reports the subnet up and
// says so (status routes_credit_loop, log SM-0442).
//
//   registry.route(fabric, engines, options, creditLoopJudge());
#pragma once

#include <ibsm/Routing.h>

namespace ibsm {

[[nodiscard]] TablesJudge creditLoopJudge();

}  // namespace ibsm
