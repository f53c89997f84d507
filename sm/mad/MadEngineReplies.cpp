// The MAD engine's sends outside its window (sm/mad/MadEngine.h): answers
// to requests that reached the SM (respond), TrapRepress, the SM's own
// traps; and the M_Key every SMP carries, its port's (keyFor).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sm/mad/MadEngine.h"

namespace ibsm {

Result<void> MadEngine::sendResponse(const IncomingSmp& request, Smp response) {
  if (auto sent = transport_.send(encodeSmp(response), request.from); !sent) {
    log_->error("MAD-0108 cannot answer method 0x{:02x} attribute 0x{:04x} from LID {}: {}",
                static_cast<unsigned>(request.smp.header.method),
                static_cast<unsigned>(request.smp.header.attributeId), request.from.lid,
                sent.error().message);
    return sent;
  }
  ++own_.sent;
  return {};
}

Result<void> MadEngine::respond(const IncomingSmp& request, const SmpData& data,
                                std::uint16_t status) {
  // Path fields and hop pointer stay as they arrived: the switches filled
  // the return path and the responder's side of the stack set the hop
  // pointer for the way back.
  Smp response = request.smp;
  response.header.method = Method::GetResp;
  response.header.status = status;
  response.header.direction = request.smp.isDirected();
  response.data = data;
  return sendResponse(request, response);
}

std::uint64_t MadEngine::keyFor(const std::variant<DrPath, Lid>& to) const {
  return keyFor(to, 1);
}

std::uint64_t MadEngine::keyFor(const std::variant<DrPath, Lid>& to, unsigned attempt) const {
  if (!keyOf_) return 0;
  const auto port = ports_.portAt(to);
  return port ? held_.keyFor(*port, keysOf(*port), attempt) : 0;
}

sm::mad::PortKeys MadEngine::keysOf(Guid port) const {
  return {.current = keyOf_(port), .previous = previousOf_ ? previousOf_(port) : 0};
}

Result<void> MadEngine::repress(const IncomingSmp& trap) {
  Smp response = trap.smp;
  // A protected port takes a TrapRepress only with its key (IBA 14.2.4).
  response.header.mKey = keyFor(trap.from.lid);
  response.header.method = Method::TrapRepress;
  response.header.status = 0;
  response.header.direction = trap.smp.isDirected();
  return sendResponse(trap, response);
}

Result<void> MadEngine::sendTrap(Lid to, const SmpData& notice) {
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  trap.header.tid = requests_.takeTid();
  trap.data = notice;
  if (auto sent = transport_.send(encodeSmp(trap), MadAddress::toLid(to)); !sent) {
    ++own_.sendFailures;
    log_->error("MAD-0110 cannot send a trap to LID {}: {}", to, sent.error().message);
    return sent;
  }
  ++own_.sent;
  ++own_.traps;
  return {};
}

}  // namespace ibsm
