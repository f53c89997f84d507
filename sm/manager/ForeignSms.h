// The SMs of the subnet that show an SM_Key other than ours. They take no
// part in our elections (fsm::trusts), and since an SM ignores SMInfo with a
// key not its own (OpenSM: ERR 2F18), they ignore us too: both of us may be
// MASTER, programming the switches against each other. That is the worst
// state an operator can be in, and its usual cause is mundane -- sm_key set
// on one SM and not the other -- so each such SM is logged once, when first
// seen or when what it shows changes, and `ibsm status` lists them all.
//
//   ForeignSms foreign;
//   for (const auto& f : foreign.update(*readPeerSmInfos(...), self.smKey, weAreMaster))
//     log->warn("SM-0115 {}", describeForeignSm(f, weAreMaster));
//   status.foreignSms = foreign.current();
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sm/control/StatusFormat.h"
#include "sm/manager/PeerSms.h"

namespace ibsm::sm::manager {

class ForeignSms {
 public:
  // Replaces the list with the SMs of `read` whose key is not `ourKey`, in
  // `read` order, and returns the ones to tell the operator about: those not
  // listed before, those that now show another state, priority or key, and
  // every foreign MASTER when we have just become master ourselves (the
  // subnet now has two).
  std::vector<control::ForeignSm> update(std::span<const PeerSmInfo> read, std::uint64_t ourKey,
                                         bool weAreMaster);

  const std::vector<control::ForeignSm>& current() const { return current_; }

 private:
  std::vector<control::ForeignSm> current_;
  bool weWereMaster_{false};
};

// One line for the log: which SM, where, what it shows, and the likely
// cause; `weAreMaster` adds that the subnet may now have two masters.
std::string describeForeignSm(const control::ForeignSm& sm, bool weAreMaster);

}  // namespace ibsm::sm::manager
