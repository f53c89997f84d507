// ChannelDependencies::addTree and the causes a cycle's waits are named by
// when multicast trees are judged with the unicast routes (see
// CreditLoopsMulticast.h).
#include "routing/analysis/CreditLoopsMulticast.h"

#include <fmt/format.h>
#include <ibsm/Dumps.h>

#include "routing/analysis/CreditLoops.h"
#include "routing/analysis/ForwardingView.h"
#include "routing/multicast/McSl.h"

namespace ibsm::analysis {
namespace {

using routing::kDropVl;

}  // namespace

std::uint16_t ChannelDependencies::treeVlsOut(SwitchIndex s, const McPortMask& mask,
                                              std::uint8_t out, std::uint8_t sl) const {
  std::uint16_t vls = 0;
  for (std::uint8_t p = 0; p <= view_.numPorts(s); ++p) {
    if (p == out || !mask.test(p)) continue;
    const std::uint8_t v = perVl_ ? view_.vl(s, p, out, sl) : 0;
    if (v < kDropVl) vls = static_cast<std::uint16_t>(vls | (1u << v));
  }
  return vls;
}

void ChannelDependencies::addTree(std::span<const McPortMask* const> masks, std::uint8_t sl) {
  for (SwitchIndex s = 0; s < masks.size(); ++s) {
    const McPortMask* m = masks[s];
    if (m == nullptr) continue;
    for (std::uint8_t p = 1; p <= view_.numPorts(s); ++p) {
      const PortTarget& in = view_.target(s, p);
      if (!m->test(p) || in.kind != PortTarget::Kind::Switch) continue;
      // c1: the cable from the neighbour into s by p, if the tree sends on it.
      const SwitchIndex n = in.next;
      const std::uint8_t back = view_.channel(in.channel).remotePort;
      if (masks[n] == nullptr || !masks[n]->test(back)) continue;
      const ChannelId c1 = view_.target(n, back).channel;
      const std::uint16_t v1 = treeVlsOut(n, *masks[n], back, sl);
      if (v1 == 0) continue;
      for (std::uint8_t q = 1; q <= view_.numPorts(s); ++q) {
        const PortTarget& out = view_.target(s, q);
        if (q == p || !m->test(q) || out.kind != PortTarget::Kind::Switch) continue;
        const std::size_t i = slot(c1, s, out.channel);
        if (!perVl_) {
          single_[i >> 6] |= std::uint64_t{1} << (i & 63);
          continue;
        }
        const std::uint8_t v2 = view_.vl(s, p, q, sl);
        if (v2 >= kDropVl) continue;
        depVls_[i * vls_ + v2] |= v1;
        used_ = static_cast<std::uint16_t>(used_ | v1 | (1u << v2));
      }
    }
  }
}

void ChannelDependencies::addTurn(ChannelId c1, ChannelId c2, std::uint8_t vl) {
  const std::size_t i = slot(c1, view_.channel(c1).to, c2);
  if (!perVl_) {
    single_[i >> 6] |= std::uint64_t{1} << (i & 63);
    return;
  }
  depVls_[i * vls_ + vl] |= static_cast<std::uint16_t>(1u << vl);
  used_ = static_cast<std::uint16_t>(used_ | (1u << vl));
}

bool ChannelDependencies::treeMakes(std::span<const McPortMask* const> masks, std::uint8_t sl,
                                    ChannelId c1, std::uint8_t v1, ChannelId c2,
                                    std::uint8_t v2) const {
  const Channel& a = view_.channel(c1);
  const Channel& b = view_.channel(c2);
  if (a.to != b.from || a.remotePort == b.port) return false;
  const McPortMask* from = masks[a.from];
  const McPortMask* at = masks[a.to];
  if (from == nullptr || at == nullptr || !from->test(a.port)) return false;
  if (!at->test(a.remotePort) || !at->test(b.port)) return false;
  if (!perVl_) return true;
  return ((treeVlsOut(a.from, *from, a.port, sl) >> v1) & 1u) != 0 &&
         view_.vl(a.to, a.remotePort, b.port, sl) == v2;
}

std::vector<TreeMasks> treeMasks(const ForwardingView& view, const McTreesToJudge& trees) {
  std::vector<TreeMasks> out;
  if (trees.mfts == nullptr) return out;
  const std::vector<SwitchMft>& mfts = *trees.mfts;
  for (std::size_t g = 0; g < trees.groups.size(); ++g) {
    TreeMasks t{std::vector<const McPortMask*>(view.switches(), nullptr),
                static_cast<std::uint8_t>(g < trees.sls.size() ? trees.sls[g] & 0xF : 0), g};
    bool any = false;
    for (SwitchIndex s = 0; s < view.switches(); ++s) {
      const NodeId id = view.graph().nodeId(s);
      if (id >= mfts.size()) continue;
      const auto it = mfts[id].entries.find(trees.groups[g].mlid.value);
      if (it == mfts[id].entries.end() || it->second.none()) continue;
      t.masks[s] = &it->second;
      any = true;
    }
    if (any) out.push_back(std::move(t));
  }
  return out;
}

ChannelDependencies::CycleCause cycleCauses(const ForwardingView& view,
                                            const ChannelDependencies& deps,
                                            const std::vector<TreeMasks>& trees,
                                            const McTreesToJudge& groups) {
  return [&view, &deps, &trees, &groups](ChannelId c1, std::uint8_t v1, ChannelId c2,
                                         std::uint8_t v2) {
    std::vector<std::string> causes;
    for (const TreeMasks& t : trees) {
      if (!deps.treeMakes(t.masks, t.sl, c1, v1, c2, v2)) continue;
      const McGroupRoute& g = groups.groups[t.group];
      causes.push_back(fmt::format("the tree of group {} (MLID {:#06x}) on SL {}", gidText(g.mgid),
                                   g.mlid.value, t.sl));
    }
    // A LID whose routes take the same turn (an example: the VL is not checked).
    const Channel& a = view.channel(c1);
    const std::uint8_t onward = view.channel(c2).port;
    for (const Destination& d : view.destinations()) {
      if (view.entry(a.from, d.lid) != a.port || view.entry(a.to, d.lid) != onward) continue;
      causes.push_back(
          fmt::format("unicast toward LID {} ({})", d.lid.value, view.fabric().describe(d.owner)));
      break;
    }
    return fmt::format("{}", fmt::join(causes, "; "));
  };
}

}  // namespace ibsm::analysis
