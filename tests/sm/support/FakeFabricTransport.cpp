#include "tests/sm/support/FakeFabricTransport.h"

#include <fmt/format.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <expected>
#include <tuple>

// The fake fabric's transport: time, send and receive, the M_Key checks;
// what each node answers is FakeSmaAttributes.cpp.
namespace ibsm::testing {

FakeFabricTransport::FakeFabricTransport(Fabric fabric, PortRef smPort)
    : fabric_(std::move(fabric)),
      smPort_(smPort),
      now_(MadClock::time_point{} + std::chrono::hours(1)) {}

std::function<MadClock::time_point()> FakeFabricTransport::clock() const {
  return [this] { return now_; };
}

std::bitset<256> FakeFabricTransport::mft(NodeId sw, std::uint16_t mlid) const {
  std::bitset<256> ports;
  const std::size_t offset = mlid - std::size_t{0xC000};
  for (std::uint16_t p = 0; p < 16; ++p) {
    auto it = mfts_.find({sw, static_cast<std::uint16_t>(offset / kMftBlockSize * 16 + p)});
    if (it == mfts_.end()) continue;
    const std::uint16_t bits = it->second.masks[offset % kMftBlockSize];
    for (std::size_t b = 0; b < 16; ++b)
      if (((bits >> b) & 1U) != 0) ports.set(p * 16 + b);
  }
  return ports;
}

void FakeFabricTransport::setMft(NodeId sw, std::uint16_t mlid, const std::bitset<256>& ports) {
  const std::size_t offset = mlid - std::size_t{0xC000};
  for (std::uint16_t p = 0; p < 16; ++p) {
    std::uint16_t bits = 0;
    for (std::size_t b = 0; b < 16; ++b)
      if (ports.test(p * 16 + b)) bits = static_cast<std::uint16_t>(bits | (1U << b));
    mfts_[{sw, static_cast<std::uint16_t>(offset / kMftBlockSize * 16 + p)}]
        .masks[offset % kMftBlockSize] = bits;
  }
}

const std::vector<std::uint8_t>& FakeFabricTransport::lft(NodeId sw) const {
  static const std::vector<std::uint8_t> kNone;
  auto it = lfts_.find(sw);
  return it == lfts_.end() ? kNone : it->second;
}

Lid FakeFabricTransport::smLid(PortRef port) const {
  auto it = smLids_.find(port);
  return it == smLids_.end() ? Lid{} : it->second;
}

std::pair<bool, bool> FakeFabricTransport::enforcement(PortRef port) const {
  auto it = enforcement_.find(port);
  return it == enforcement_.end() ? std::pair{false, false} : it->second;
}

std::uint8_t FakeFabricTransport::operationalVls(PortRef port) const {
  auto it = operVls_.find(port);
  return it == operVls_.end() ? fabric_.port(port).vlCap : it->second;
}

SlToVlTable FakeFabricTransport::sl2vl(NodeId node, std::uint8_t in, std::uint8_t out) const {
  if (auto it = sl2vl_.find({node, in, out}); it != sl2vl_.end()) return it->second;
  SlToVlTable ibsimDefault;
  for (std::uint8_t sl = 0; sl < 16; ++sl) ibsimDefault.vl[sl] = sl == 15 ? 7 : sl;
  return ibsimDefault;
}

void FakeFabricTransport::setSl2Vl(NodeId node, std::uint8_t in, std::uint8_t out,
                                   const SlToVlTable& table) {
  sl2vl_[{node, in, out}] = table;
}

VlArbitrationBlock FakeFabricTransport::vlArb(PortRef port, std::uint16_t block) const {
  auto it = vlArb_.find({port, block});
  return it == vlArb_.end() ? VlArbitrationBlock{} : it->second;
}

void FakeFabricTransport::deliver(const ReceivedMad& mad, MadClock::time_point due) {
  inFlight_.push_back(InFlight{due, seq_++, mad});
}

void FakeFabricTransport::inject(const Smp& smp, MadAddress from, std::chrono::microseconds after) {
  deliver(ReceivedMad{encodeSmp(smp), from}, now_ + after);
}

Smp FakeFabricTransport::answer(const Smp& request, PortRef at, bool hideMKey) {
  Smp reply = request;
  reply.header.method = Method::GetResp;
  reply.header.direction = request.isDirected();
  reply.data = {};
  if (request.header.method == Method::Set) {
    if (auto done = set(request, at); !done) {
      reply.header.status = done.error();
      return reply;
    }
  } else if (request.header.method != Method::Get) {
    reply.header.status = madstatus::kMethodUnsupported;
    return reply;
  }
  if (auto data = get(request, at, hideMKey)) {
    reply.data = *data;
  } else {
    reply.header.status = data.error();
  }
  return reply;
}

std::optional<PortRef> FakeFabricTransport::destination(const Smp& request, Lid to,
                                                        PortRef from) const {
  if (request.isDirected()) return walk(request, from);
  for (NodeId n = 0; n < fabric_.size(); ++n) {
    for (std::uint8_t p : fabric_.node(n).endpointPorts()) {
      const Port& port = fabric_.node(n).ports[p];
      const unsigned first = port.lid.value;
      if (first != 0 && to.value >= first && to.value < first + (1U << port.lmc)) {
        return PortRef{n, p};
      }
    }
  }
  return std::nullopt;
}

std::optional<Smp> FakeFabricTransport::process(const Smp& request, PortRef at) {
  const PortRef holder = FakeMKeys::holder(fabric_.node(at.node), at);
  const MKeyCheck check = mkeys_.check(holder, request.header, now_);
  if (check == MKeyCheck::Fail) {
    badMKey(request, holder);
    return std::nullopt;  // 14.2.4.3: the SMA does not respond
  }
  if (request.header.method == Method::TrapRepress) return std::nullopt;  // never answered
  return answer(request, at, check == MKeyCheck::HideKey);
}

void FakeFabricTransport::badMKey(const Smp& request, PortRef holder) {
  const Lid sm = smLid(holder);
  auto timeout = subnetTimeouts_.find(holder);
  if (sm.value == 0 ||
      !mkeys_.mayTrap(holder, now_, timeout == subnetTimeouts_.end() ? 0 : timeout->second)) {
    return;  // no SM to tell yet, or a trap just went
  }
  if (sm != fabric_.port(smPort_).lid) return;  // another SM's: it never reaches this engine
  const Lid lid = fabric_.port(holder).lid;
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  trap.data = encode(FakeMKeys::badMKeyNotice(lid, request, fabric_.node(holder.node).isSwitch()));
  inject(trap, MadAddress::toLid(lid));
}

void FakeFabricTransport::protect(PortRef port, std::uint64_t key, std::uint8_t bits,
                                  std::chrono::seconds lease) {
  mkeys_.protect(FakeMKeys::holder(fabric_.node(port.node), port), key, bits, lease);
}

MKeyState FakeFabricTransport::mkeyState(PortRef port) const {
  return mkeys_.state(FakeMKeys::holder(fabric_.node(port.node), port), now_);
}

std::optional<Smp> FakeFabricTransport::foreignSmp(const Smp& request, PortRef from, Lid to) {
  const Method m = request.header.method;
  if (m != Method::Get && m != Method::Set && m != Method::TrapRepress) return std::nullopt;
  const auto at = destination(request, to, from);
  if (!at) return std::nullopt;
  return process(request, *at);
}

Result<void> FakeFabricTransport::send(const MadBuffer& mad, MadAddress to) {
  if (failNextSend_) {
    failNextSend_ = false;
    return fail("fake transport: send refused");
  }
  auto smp = decodeSmp(mad);
  if (!smp) return std::unexpected(smp.error());
  sent_.push_back(SentMad{*smp, to, now_});
  if (smp->header.method == Method::TrapRepress) {
    // Not answered, but checked: a wrong key is a violation, a right one stops the lease timer.
    if (auto at = destination(*smp, to.lid, smPort_)) (void)process(*smp, *at);
    return {};
  }
  if (smp->header.method != Method::Get && smp->header.method != Method::Set) return {};

  const Fate fate = faults_ ? faults_(*smp, requests_) : Fate{};
  ++requests_;
  if (fate.drop) return {};

  const std::optional<PortRef> at = destination(*smp, to.lid, smPort_);
  if (!at) return {};  // nobody there: the SMP is lost, as on a real fabric
  // Its node's SMA takes it after the SMPs already there (the latency model).
  const auto doneAt = sma_.serve(at->node, fabric_.node(at->node).isSwitch(), now_);
  std::optional<Smp> reply = process(*smp, *at);
  if (!reply) return {};  // refused by the M_Key check: silence
  if (fate.answerLost) return {};
  if (fate.status) reply->header.status = *fate.status;
  const MadAddress from =
      smp->isDirected() ? MadAddress::directed() : MadAddress::toLid(fabric_.port(*at).lid);
  const auto due = doneAt + fate.latency;
  for (unsigned copy = 0; copy <= fate.duplicates; ++copy) {
    deliver(ReceivedMad{encodeSmp(*reply), from}, due + std::chrono::microseconds(copy));
  }
  return {};
}

Result<std::optional<ReceivedMad>> FakeFabricTransport::receive(MadClock::time_point deadline) {
  auto next = std::ranges::min_element(inFlight_, [](const InFlight& a, const InFlight& b) {
    return a.due != b.due ? a.due < b.due : a.seq < b.seq;
  });
  if (next != inFlight_.end() && next->due <= deadline) {
    now_ = std::max(now_, next->due);
    ReceivedMad mad = next->mad;
    inFlight_.erase(next);
    return std::optional<ReceivedMad>{mad};
  }
  if (deadline == MadClock::time_point::max()) {
    return fail("fake transport: receive() would wait forever with nothing in flight");
  }
  now_ = std::max(now_, deadline);
  return std::optional<ReceivedMad>{};
}

}  // namespace ibsm::testing