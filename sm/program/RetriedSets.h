// A Set sent more than once may have been applied by an attempt whose
// answer was lost: the retry then asks the port for what it already did,
// and a port refuses some of that -- ibsim answers "invalid field" to a
// PortState Set of Armed on a port already Armed. Counting that refusal as
// a failure holds the link out of Active and leaves the subnet not up for a
// whole sweep, again and again on a fabric that loses MADs. So a PortInfo
// Set refused on a retry is read back, and counts as done when the port
// holds what it asked for.
#pragma once

#include <ibsm/MadAttributes.h>

#include <optional>

#include "sm/mad/MadEngine.h"

namespace ibsm::sm::program {

// Whether a refused retried Set needs the read-back: a PortInfo Set,
// answered with a non-zero status after more than one attempt.
bool worthReadingBack(const SmpRequest& request, const SmpReply& reply);

// Whether `held`, read back, holds what the PortInfo Set `asked` asked for:
// the state it moved to (Armed counts as done once the port is Active), and
// the LID, LMC, master SM LID, NeighborMTU and OperationalVLs it wrote (the
// last two where it wrote them: 0 leaves them alone).
bool holdsWhatWasSet(const PortInfo& asked, const PortInfo& held);

}  // namespace ibsm::sm::program
