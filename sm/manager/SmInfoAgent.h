// The SM's answers to other SMs and to tools: SubnGet(SMInfo) (so `sminfo`
// names this SM as master), SubnSet(SMInfo) control packets (handover,
// acknowledge, ... decided by the daemon's handler) and traps, which are
// repressed so their senders stop repeating them, and which ask for a sweep.
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/MadAttributes.h>
#include <spdlog/logger.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "sm/mad/MadEngine.h"

namespace ibsm::sm::manager {

// A Set(SMInfo) control packet: true -> GetResp status 0 with our SMInfo (as
// it is after the handler ran); false -> GetResp "invalid field"; nullopt ->
// no answer at all.
using SmInfoSetHandler =
    std::function<std::optional<bool>(std::uint32_t modifier, const SmInfo& sender)>;
// A trap, repressed: the whole Notice (trapNumber 128 link state, 144
// local changes, ...), the LID of the port that issued it (the Notice's
// issuer, else the MAD's source), the MAD's source LID and attribute
// modifier. Returns whether the trap stands (asks for a sweep; the daemon's
// TrapService judges it): one that does not sets no sweep flag.
struct TrapOrigin {
  Lid issuer;
  Lid source;
  std::uint32_t modifier{0};
};
using TrapHandler = std::function<bool(const Notice& notice, const TrapOrigin& origin)>;

class SmInfoAgent {
 public:
  // Installs itself as the engine's unsolicited handler, and removes itself
  // when destroyed, so the engine never calls into a dead agent.
  SmInfoAgent(MadEngine& engine, SmInfo self, std::shared_ptr<spdlog::logger> logger);
  ~SmInfoAgent();
  SmInfoAgent(const SmInfoAgent&) = delete;
  SmInfoAgent& operator=(const SmInfoAgent&) = delete;

  void setState(SmState state) { self_.smState = state; }
  // ActCount: IBA has a master count its SMP activity so standbys can see it is alive.
  void countActivity(std::uint32_t smps) { self_.actCount += smps; }
  const SmInfo& self() const { return self_; }
  // Config reload.
  void setSmKey(std::uint64_t key) { self_.smKey = key; }
  // The M_Key our port holds (0: none, ibsm does not manage M_Keys): a
  // Get(SMInfo) that does not present it is answered with SM_Key 0.
  void setPortMKey(std::uint64_t key) { portMKey_ = key; }
  void setPriority(std::uint8_t p) { self_.priority = p & 0x0FU; }

  // Without a handler, Set(SMInfo) is refused with "unsupported" (--once).
  // A Set whose SMInfo carries another SM_Key never reaches the handler and
  // gets no answer (IBA: an SM ignores SM control with the wrong key).
  void onSmInfoSet(SmInfoSetHandler h) { smInfoSet_ = std::move(h); }
  // Called after the trap is repressed; the sweep flags are set when it
  // stands (always without a handler).
  void onTrap(TrapHandler h) { trap_ = std::move(h); }

  // True once since the last call when a trap arrived (a port changed state).
  bool takeSweepRequest() { return std::exchange(sweepRequested_, false); }
  // True once since the last call when a Trap 128 (link state change)
  // arrived: a sweep that was under way may have programmed a fabric that no
  // longer exists. Trap 144 (an SM's capabilities changed) does not count.
  bool takeLinkChange() { return std::exchange(linkChanged_, false); }

 private:
  void handle(const IncomingSmp& in);
  void handleTrap(const IncomingSmp& in);
  void handleSet(const IncomingSmp& in);

  MadEngine& engine_;
  SmInfo self_;
  std::uint64_t portMKey_{0};
  std::shared_ptr<spdlog::logger> log_;
  bool sweepRequested_{false};
  bool linkChanged_{false};
  SmInfoSetHandler smInfoSet_;
  TrapHandler trap_;
};

}  // namespace ibsm::sm::manager
