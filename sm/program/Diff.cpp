#include "sm/program/Diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <iterator>
#include <type_traits>
#include <variant>

#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

Result<void> checkPlanMatches(const discovery::DiscoveredSubnet& seen, const SubnetPlan& plan) {
  const Fabric& f = seen.fabric;
  if (plan.fabric.size() != f.size()) {
    return fail(fmt::format("the plan has {} nodes but discovery found {}: plan again",
                            plan.fabric.size(), f.size()));
  }
  for (NodeId n = 0; n < f.size(); ++n) {
    if (plan.fabric.node(n).guid != f.node(n).guid) {
      return fail(fmt::format("node {} is {} in the plan but {} in the discovery: plan again", n,
                              plan.fabric.node(n).guid, f.node(n).guid));
    }
  }
  if (plan.pkeys) {
    if (auto ok = checkPKeyTables(f, *plan.pkeys); !ok) return ok;
  }
  // One table a port pair: the engine's (QoS classes multiplied in by
  // qos::planQosTables when there are both) or QoS's.
  std::vector<Sl2VlEntry> sl2vl = plan.routing.sl2vl;
  std::ranges::copy(qosSl2VlEntries(plan), std::back_inserter(sl2vl));
  if (auto ok = checkSl2VlEntries(f, sl2vl); !ok) return ok;
  if (plan.qosTables) {
    for (const qos::QosVlArb& v : plan.qosTables->vlArb) {
      if (v.port.node >= f.size() || v.port.port >= f.node(v.port.node).ports.size() ||
          (!f.node(v.port.node).isSwitch() && v.port.port == 0)) {
        return fail(fmt::format(
            "the VLArbitration tables name node {} port {}, which the fabric lacks: plan again",
            v.port.node, v.port.port));
      }
    }
  }
  return {};
}

}  // namespace

std::optional<DrPath> pathToPort(const discovery::DiscoveredSubnet& seen, PortRef port) {
  const Fabric& fabric = seen.fabric;
  if (port == seen.smPort) return DrPath{};
  auto pathToNode = [&](NodeId n) -> std::optional<DrPath> {
    if (n == seen.smPort.node) return DrPath{};
    if (n < seen.pathTo.size()) return seen.pathTo[n];
    return std::nullopt;
  };
  if (fabric.node(port.node).isSwitch()) return pathToNode(port.node);
  // A CA port: one hop beyond the port at the other end of its cable. Only
  // switches forward directed routes, or the SM's own node sends out of it.
  const auto& remote = fabric.port(port).remote;
  if (!remote) return std::nullopt;
  if (!fabric.node(remote->node).isSwitch() && remote->node != seen.smPort.node)
    return std::nullopt;
  auto base = pathToNode(remote->node);
  if (!base) return std::nullopt;
  auto path = base->extended(remote->port);
  if (!path) return std::nullopt;
  return *path;
}

namespace {

// The SM port's LID in the plan, once the plan is known to be the held
// observation's.
Result<Lid> checkedSmLid(const SubnetPlan& plan, const HeldSubnet& held) {
  if (!held.hasObservation()) return fail("nothing observed yet: discover the subnet first");
  const discovery::DiscoveredSubnet& seen = held.observed();
  if (auto ok = checkPlanMatches(seen, plan); !ok) return std::unexpected(ok.error());
  const PortRef smPort = seen.smPort;
  if (smPort.node >= seen.fabric.size() || !seen.portInfo.contains(smPort))
    return fail("the SM's own port was not read by discovery");
  const Lid smLid = plan.fabric.port(smPort).lid;
  if (!smLid.isUnicast())
    return fail(
        fmt::format("the plan gives the SM's port {} no LID", seen.fabric.describe(smPort)));
  return smLid;
}

}  // namespace

Result<ProgramDiff> diffMulticast(const SubnetPlan& plan, const MulticastPlan* mfts,
                                  const HeldSubnet& held, const ProgramOptions& options) {
  auto smLid = checkedSmLid(plan, held);
  if (!smLid) return std::unexpected(smLid.error());
  ProgramDiff out;
  const DiffInput in{.plan = plan,
                     .held = held,
                     .seen = held.observed(),
                     .options = options,
                     .smLid = *smLid,
                     .mfts = mfts};
  if (mfts) diffMfts(in, out);
  return out;
}

namespace {

// A block write the reads showed to be needless: the block is Known and
// holds the bytes the Set would write.
template <typename Kind>
bool holdsAlready(const HeldSubnet& held, const BlockTarget<Kind>& t, const SmpRequest& set) {
  const auto known = held.table<Kind>().block(t.owner, t.index);
  return known && encode(*known) == set.data;
}

// TableKinds read in `reads`, as a mask of bits 1 << TableKind.
unsigned kindsRead(const std::vector<ProgramStep>& reads) {
  unsigned mask = 0;
  for (const ProgramStep& s : reads)
    if (auto kind = tableKindOf(s.target)) mask |= 1U << static_cast<unsigned>(*kind);
  return mask;
}

// No Lids-phase Set gives its port another LID or LMC than the port holds
// (ProgramDiff::lidsKept).
bool keepsLids(const std::vector<ProgramStep>& lids, const discovery::DiscoveredSubnet& seen) {
  return std::ranges::all_of(lids, [&seen](const ProgramStep& s) {
    const auto* t = std::get_if<PortInfoTarget>(&s.target);
    const auto held = t ? seen.portInfo.find(t->port) : seen.portInfo.end();
    if (held == seen.portInfo.end()) return false;
    const PortInfo asked = decodePortInfo(s.request.data);
    return asked.lid == held->second.lid && asked.lmc == held->second.lmc;
  });
}

// `more`'s steps after `out`'s, phase by phase, and its notes after
// `out`'s.
void appendDiff(ProgramDiff& out, ProgramDiff more) {
  for (std::size_t p = 0; p < kProgramPhases; ++p) {
    auto& to = out.phases[p];
    auto& from = more.phases[p];
    if (to.empty()) {
      to = std::move(from);
      continue;
    }
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }
  std::ranges::move(more.notes, std::back_inserter(out.notes));
  out.lidsKept = out.lidsKept && more.lidsKept;
}

}  // namespace

Result<void> settleAfterReads(const SubnetPlan& plan, const HeldSubnet& held,
                              const ProgramOptions& options, ProgramDiff& d) {
  auto& reads = d.phase(ProgramPhase::ReadTables);
  if (reads.empty()) return {};
  const unsigned mask = kindsRead(reads);
  reads.clear();
  auto wasRead = [mask](TableKind k) { return (mask & (1U << static_cast<unsigned>(k))) != 0; };
  const bool vlArbRead = wasRead(TableKind::VlArb);
  for (std::size_t p = 0; p < kProgramPhases; ++p) {
    std::erase_if(d.phases[p], [&](const ProgramStep& s) {
      const auto kind = tableKindOf(s.target);
      if (!kind || !wasRead(*kind) || s.request.method != Method::Set) return false;
      if (*kind == TableKind::VlArb) return true;  // made again below
      return std::visit(
          [&]<typename T>(const T& t) {
            if constexpr (std::is_same_v<T, PortInfoTarget> || std::is_same_v<T, SwitchInfoTarget>)
              return false;
            else
              return holdsAlready(held, t, s.request);
          },
          s.target);
    });
  }
  if (!vlArbRead) return {};
  auto smLid = checkedSmLid(plan, held);
  if (!smLid) return std::unexpected(smLid.error());
  ProgramDiff again;
  const DiffInput in{.plan = plan,
                     .held = held,
                     .seen = held.observed(),
                     .options = options,
                     .smLid = *smLid,
                     .saReads = false};
  diffVlArb(in, again);
  // diff() makes them last in the Sl2Vl phase, after the SL2VL tables.
  auto& sl2vl = d.phase(ProgramPhase::Sl2Vl);
  for (ProgramStep& s : again.phase(ProgramPhase::Sl2Vl)) sl2vl.push_back(std::move(s));
  return {};
}

Result<ProgramDiff> diff(const SubnetPlan& plan, const HeldSubnet& held,
                         const ProgramOptions& options, DiffScope scope) {
  auto smLid = checkedSmLid(plan, held);
  if (!smLid) return std::unexpected(smLid.error());
  const discovery::DiscoveredSubnet& seen = held.observed();
  const PortRef smPort = seen.smPort;
  const auto smHeld = seen.portInfo.find(smPort);

  ProgramDiff out;
  if ((smHeld->second.capabilityMask & capability::kIsSm) == 0) {
    out.notes.push_back(fmt::format(
        "the SM's port {} does not advertise IsSM: traps and other SMs' queries will not reach "
        "it (the transport opens the issm device for that)",
        seen.fabric.describe(smPort)));
  }
  const DiffInput in{.plan = plan,
                     .held = held,
                     .seen = seen,
                     .options = options,
                     .smLid = *smLid,
                     .mfts = plan.multicast ? &*plan.multicast : nullptr,
                     .saReads = scope != DiffScope::Program};
  if (scope == DiffScope::SaReads) {
    diffVlArb(in, out);
    return out;
  }
  // The LFT part, the largest (48,240 blocks at radix 24, the wire idle
  // until the diff is made: issue 32), beside the PortInfo part on a second
  // thread. Both only read the plan and the held model -- the M_Key memo
  // (HeldSubnet::keyCache) is diffPorts' alone -- and each writes its own
  // ProgramDiff; the LFT steps and notes follow the PortInfo ones as when
  // made one after the other.
  ProgramDiff lfts;
  auto lftPart = std::async(std::launch::async, [&in, &lfts] { diffLfts(in, lfts); });
  diffPorts(in, out);
  out.lidsKept = keepsLids(out.phase(ProgramPhase::Lids), seen);
  lftPart.get();
  appendDiff(out, std::move(lfts));
  if (plan.multicast) diffMfts(in, out);
  if (plan.pkeys) diffPKeys(in, out);
  if (!plan.routing.sl2vl.empty() || plan.qosTables) diffSl2Vl(in, out);
  diffVlArb(in, out);
  return out;
}

}  // namespace ibsm::sm::program
