// Who should be master, by the IBA rules every SM of a subnet applies the
// same way (ibsm or OpenSM), so that all of them reach one answer without
// talking it over: the highest priority wins, a tie goes to the lower port
// GUID, and an SM that is already MASTER keeps the subnet until it hands it
// over -- a newcomer never takes a working subnet by force, it defers and
// asks for a handover. Pure: the SMInfo records come from discovery or
// polling; nothing here sends anything.
//
//   auto e = electMaster(self, seen);             // DISCOVERING: master or standby?
//   if (auto t = handoverTarget(self, seen)) ...  // MASTER: hand over to *t?
#pragma once

#include <ibsm/MadAttributes.h>

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::sm::fsm {

// IBA 14.4.1's order: a before b when a's priority is higher, or equal with
// the lower GUID. Total on distinct GUIDs, so every SM ranks the set alike.
bool outranks(const SmInfo& a, const SmInfo& b);

// One rule wherever another SM's SMInfo is weighed -- electing, polling the
// master, choosing whom to hand over to, spotting a rival master: the key it
// shows must equal ours. 0 is a key like any other, not "no key": were we to
// trust an SM that shows another key, we would follow it while it ignores us
// (OpenSM drops SMInfo with a key not its own, ERR 2F18), and an SM of ours
// that outranks it would become a second master. Our default key is OpenSM's (1), so the two
// agree without configuration; an SM that shows another key is reported
// (ForeignSms.h), never obeyed.
bool trusts(std::uint64_t ourKey, std::uint64_t presentedKey);

// Whether a Set(SMInfo) control packet counts: it must present our key --
// except a HANDOVER, which may carry 0. OpenSM shows
// its SM_Key only to an SM it knows as MASTER, so its HANDOVER to a standby
// carries 0; and a HANDOVER can only give us the subnet, never silence us
// (DISABLE, STANDBY and DISCOVER keep needing the key).
bool trustsControl(std::uint64_t ourKey, std::uint32_t modifier, std::uint64_t presentedKey);

struct Election {
  SmInfo winner;  // self when selfWins
  bool selfWins{false};
};

// For an SM that finished discovering. Candidates: self and every trusted
// other SM not NOTACTIVE (a disabled SM has left the election). If some
// candidate is MASTER, the best-ranked master wins even over a better self:
// the subnet already has an owner, and a better SM gets it by handover
// (it tells the master with Trap 144), not by a second master appearing.
// Records with our own GUID are ignored (our own port seen by discovery).
Election electMaster(const SmInfo& self, std::span<const SmInfo> others);

// For the master after a heavy sweep: the SM to send HANDOVER to, if any --
// the best-ranked trusted SM in STANDBY or MASTER state that outranks us.
// A better SM still DISCOVERING is left to finish: it will find us MASTER,
// go STANDBY and ask for the subnet, and then the next sweep hands over.
std::optional<SmInfo> handoverTarget(const SmInfo& self, std::span<const SmInfo> others);

// For the master after a heavy sweep with no handover target: a second
// master that we outrank (the best-ranked if several), which should hand
// the subnet over to us. Trusted SMs only.
std::optional<SmInfo> rivalMaster(const SmInfo& self, std::span<const SmInfo> others);

// A standby's verdict on one poll of `polled`: alive when the answer comes
// from that SM, presents a trusted key, and says MASTER -- or DISCOVERING
// from an SM that outranks us (the one we defer to, on its way to
// mastership). Anything else counts as a missed poll, STANDBY included: an
// SM that handed the subnet over is alive but no longer the one to watch,
// and the misses lead us to rediscover and poll the master itself.
bool pollShowsAlive(const SmInfo& self, Guid polled, const SmInfo& answer);

}  // namespace ibsm::sm::fsm
