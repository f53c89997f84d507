// Which SMPs go to a node that refuses the SM's M_Key: its key-holding port
// (a CA port, a switch's port 0, IBA 14.2.4) was last read protected (protect
// bits 1 or more) with its key hidden -- the Get did not carry it: another
// SM's, an old secret's. Every Set there, and at levels 2 and 3 every Get, is dropped
// (14.2.4.1), counted in M_KeyViolations and answered by trap 256
// (14.2.4.3), so resending one only adds violations and traps: its SMPs go
// once (SmpRequest::attempts). Its first refusal starts its lease timer;
// when that runs out the port shows its key again (protect bits 0) and is
// no longer refusing: the engine then sends the key it shows, and the Set
// writes the SM's (sm/manager/MKeyTakeover.h).
#pragma once

#include <ibsm/Ids.h>

#include <optional>

#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSteps.h"

namespace ibsm::sm::program {

// The port whose M_Key checks `target`'s SMP, when the step names one.
std::optional<PortRef> keyHolderOf(const Fabric& fabric, const StepTarget& target);

// Whether `holder`, as `held` last read it, is protected by a key the SM
// does not know (it read as 0); false with keys off or a port never read.
bool refusesOurKey(const HeldSubnet& held, const ProgramOptions& options, PortRef holder);

// The step's request as it goes on the wire: sent once where its port
// refuses the SM's key, else as often as the engine sends any.
SmpRequest requestFor(const ProgramStep& step, const HeldSubnet& held,
                      const ProgramOptions& options);

}  // namespace ibsm::sm::program
