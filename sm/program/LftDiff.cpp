// diff()'s LFT part: per switch, SwitchInfo:LinearFDBTop (and LifeTimeValue
// when configured) and the 64-entry LFT blocks up to the new top that are
// not known to hold what the plan routes, round robin over the switches.
#include <fmt/format.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

// A switch whose LFT blocks are to be diffed, once its top is settled.
struct SwitchLft {
  NodeId sw;
  Guid guid;
  DrPath path;
  const Lft* lft;
  std::uint16_t lastBlock;
};

// The switch's LinearFDBTop Set, if it needs one; what its blocks need, or
// nullopt when it routes nothing or is left alone (with a note).
std::optional<SwitchLft> diffTop(const DiffInput& in, NodeId sw, ProgramDiff& out) {
  const Node& node = in.seen.fabric.node(sw);
  auto held = in.seen.switchInfo.find(sw);
  auto path = pathToPort(in.seen, PortRef{sw, 0});
  if (held == in.seen.switchInfo.end() || !path) {
    out.notes.push_back(fmt::format("switch {} ({}): SwitchInfo not read, its LFT is left alone",
                                    node.description, node.guid));
    return std::nullopt;
  }
  static const Lft kNothingRouted;
  const auto& lfts = in.plan.routing.lfts;
  const Lft& lft = sw < lfts.size() ? lfts[sw] : kNothingRouted;
  const Lid top = lft.top();
  const SwitchInfo& si = held->second;
  if (top.value >= si.linearFdbCap) {
    out.notes.push_back(
        fmt::format("switch {} ({}): routes LIDs up to {} but its LFT holds only {}; left alone",
                    node.description, node.guid, top, si.linearFdbCap));
    return std::nullopt;
  }

  SwitchInfo want = switchInfoAfterLfts(in, sw, si);
  if (want.linearFdbTop != si.linearFdbTop || want.lifeTimeValue != si.lifeTimeValue) {
    // The PortStateChange clear (write 1, ProgramSteps.h) rides on this Set
    // when the switch flags it: one SMP a switch fewer at bring-up (issue
    // 32). It means the same here as after the Active phase: IBA 14.2.5.4
    // sets the flag on a port going to or from Down by the link's own logic
    // only, never on a SubnSet(PortInfo) -- the Armed and Active Sets do
    // not raise it (ibsim's sim_mad.c keeps to that) -- so clearing it
    // sooner loses nothing the later clear would keep. The reply carries
    // the flag cleared, and portStateChangeClears() then skips the switch.
    want.portStateChange = si.portStateChange;
    out.phase(ProgramPhase::Lfts)
        .push_back(ProgramStep{SwitchInfoTarget{sw, top, Lid{want.multicastFdbTop}},
                               SmpRequest::set(AttributeId::SwitchInfo, 0, *path, encode(want))});
  }
  if (top.value == 0) return std::nullopt;
  return SwitchLft{sw, node.guid, *path, &lft,
                   static_cast<std::uint16_t>(top.value / kLftBlockSize)};
}

void diffBlock(const DiffInput& in, const SwitchLft& s, std::uint16_t b, ProgramDiff& out) {
  const LftBlock contents = lftBlock(s.lft->port, b, kNoRoute);
  const auto modifier = lftModifier(b);
  program::diffBlock(
      in.held, BlockTarget<LftKind>{.node = s.sw, .owner = s.guid, .index = b}, contents,
      ProgramPhase::Lfts,
      [&] { return SmpRequest::get(AttributeId::LinearForwardingTable, modifier, s.path); },
      [&] {
        return SmpRequest::set(AttributeId::LinearForwardingTable, modifier, s.path,
                               encode(contents));
      },
      out);
}

}  // namespace

SwitchInfo switchInfoAfterLfts(const DiffInput& in, NodeId sw, const SwitchInfo& held) {
  static const Lft kNothingRouted;
  const auto& lfts = in.plan.routing.lfts;
  const Lft& lft = sw < lfts.size() ? lfts[sw] : kNothingRouted;
  SwitchInfo want = held;
  // A top past the switch's LFT is left alone (diffSwitch() notes why).
  if (lft.top().value < held.linearFdbCap) want.linearFdbTop = lft.top().value;
  want.portStateChange = false;  // writing 1 would clear it under discovery's feet
  if (in.options.switchLifeTime) want.lifeTimeValue = *in.options.switchLifeTime;
  return want;
}

// Blocks round robin over the switches (block 0 of each, then block 1...),
// not switch after switch: a switch's SMA answers one SMP at a time and the
// MAD engine keeps mad.per_node_window of them outstanding to it, so a
// phase queued switch after switch ends with a last wave of a few switches
// each working through all its blocks while the rest of the window idles;
// round robin keeps every switch's queue short and the window full to the
// end (LftOrderTest).
void diffLfts(const DiffInput& in, ProgramDiff& out) {
  std::vector<SwitchLft> routed;
  std::uint16_t last = 0;
  for (const NodeId sw : in.seen.fabric.switches()) {
    if (auto s = diffTop(in, sw, out)) {
      last = std::max(last, s->lastBlock);
      routed.push_back(std::move(*s));
    }
  }
  std::size_t blocks = 0;
  for (const SwitchLft& s : routed) blocks += std::size_t{s.lastBlock} + 1;
  auto& steps = out.phase(ProgramPhase::Lfts);
  steps.reserve(steps.size() + blocks);  // tens of thousands of steps: no regrowth
  for (std::uint32_t b = 0; b <= last && !routed.empty(); ++b) {
    for (const SwitchLft& s : routed)
      if (b <= s.lastBlock) diffBlock(in, s, static_cast<std::uint16_t>(b), out);
  }
}

}  // namespace ibsm::sm::program
