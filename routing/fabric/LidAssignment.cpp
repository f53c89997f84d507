#include <fmt/format.h>
#include <ibsm/Lids.h>

#include <algorithm>

namespace ibsm {
namespace {

struct Candidate {
  PortRef port;
  Guid guid;
  bool isSwitch{false};
  Lid current;
};

class LidSpace {
 public:
  bool free(std::uint32_t base, std::uint32_t count) const {
    if (base == 0 || base + count - 1 > kMaxUnicastLid) return false;
    for (std::uint32_t l = base; l < base + count; ++l)
      if (taken_[l]) return false;
    return true;
  }
  void take(std::uint32_t base, std::uint32_t count) {
    for (std::uint32_t l = base; l < base + count; ++l) taken_[l] = true;
  }
  // Lowest aligned free range; LIDs handed out this way only grow, so a
  // cursor per alignment keeps the whole pass linear.
  std::optional<std::uint32_t> lowestFree(std::uint32_t count) {
    std::uint32_t& cursor = cursor_[count];
    if (cursor == 0) cursor = count;  // LID 0 is reserved; stay aligned
    for (; cursor + count - 1 <= kMaxUnicastLid; cursor += count)
      if (free(cursor, count)) return cursor;
    return std::nullopt;
  }

 private:
  std::vector<bool> taken_ = std::vector<bool>(kMaxUnicastLid + 1u, false);
  std::map<std::uint32_t, std::uint32_t> cursor_;
};

std::vector<Candidate> candidates(const Fabric& fabric) {
  std::vector<Candidate> out;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& n = fabric.node(id);
    for (const std::uint8_t p : n.endpointPorts()) {
      const Port& port = n.ports[p];
      if (!port.guid) continue;
      if (!n.isSwitch() && !port.connected()) continue;  // a dark CA port needs no LID
      out.push_back({PortRef{id, p}, port.guid, n.isSwitch(), port.lid});
    }
  }
  // Switches first (small switch LIDs are what operators expect), then by
  // GUID: the order must not depend on the order in which nodes were found.
  std::ranges::sort(out, [](const Candidate& a, const Candidate& b) {
    if (a.isSwitch != b.isSwitch) return a.isSwitch;
    return a.guid < b.guid;
  });
  return out;
}

}  // namespace

Result<LidPlan> planLids(const Fabric& fabric, const Guid2Lid& state, std::uint8_t lmc) {
  if (lmc > 7) return fail(fmt::format("LMC {} is out of range (0..7)", lmc));
  const auto all = candidates(fabric);
  const auto rangeOf = [lmc](const Candidate& c) { return c.isSwitch ? 1u : (1u << lmc); };

  LidPlan plan;
  plan.lmc = lmc;
  LidSpace space;
  std::vector<std::optional<LidAssignment>> chosen(all.size());
  const auto assign = [&](std::size_t i, std::uint32_t base, LidAssignment::Source src) {
    space.take(base, rangeOf(all[i]));
    chosen[i] = LidAssignment{all[i].port, all[i].guid, Lid{static_cast<std::uint16_t>(base)},
                              all[i].isSwitch ? std::uint8_t{0} : lmc, src};
  };

  // 1. LIDs the ports hold now: a running fabric is never renumbered.
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::uint32_t cur = all[i].current.value;
    if (cur == 0) continue;
    const std::uint32_t n = rangeOf(all[i]);
    if (cur % n != 0) {
      plan.notes.push_back(fmt::format("port {} holds LID {} which is not aligned to LMC {}",
                                       all[i].guid, cur, lmc));
    } else if (!space.free(cur, n)) {
      plan.notes.push_back(
          fmt::format("port {} holds LID {} which another port holds too", all[i].guid, cur));
    } else {
      assign(i, cur, LidAssignment::Source::Kept);
    }
  }
  // 2. The saved state. Ranges of ports that are absent stay reserved, so a
  // host that comes back gets its old LIDs.
  for (const auto& [guid, range] : state) {
    if (fabric.findPort(guid)) continue;
    const std::uint32_t n = range.last.value - range.first.value + 1u;
    if (range.first.value <= range.last.value && space.free(range.first.value, n))
      space.take(range.first.value, n);
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (chosen[i]) continue;
    const auto it = state.find(all[i].guid);
    if (it == state.end()) continue;
    const std::uint32_t base = it->second.first.value;
    const std::uint32_t n = rangeOf(all[i]);
    if (base % n == 0 && space.free(base, n)) assign(i, base, LidAssignment::Source::Guid2Lid);
  }
  // 3. Fresh LIDs, lowest first.
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (chosen[i]) continue;
    const auto base = space.lowestFree(rangeOf(all[i]));
    if (!base)
      return fail(
          fmt::format("out of unicast LIDs: {} ports need LIDs with LMC {}", all.size(), lmc));
    assign(i, *base, LidAssignment::Source::Fresh);
  }

  std::uint16_t maxLid = 0;
  for (const auto& a : chosen) {
    const LidAssignment& got = a.value();  // every candidate was assigned above
    const auto last = got.base.value + (1u << got.lmc) - 1u;
    maxLid = std::max<std::uint16_t>(maxLid, static_cast<std::uint16_t>(last));
    plan.assignments.push_back(got);
  }
  std::ranges::sort(plan.assignments, {}, &LidAssignment::portGuid);
  plan.maxLid = Lid{maxLid};
  return plan;
}

void applyLids(Fabric& fabric, const LidPlan& plan) {
  for (const NodeId id : fabric.switches()) fabric.node(id).ports[0].lid = Lid{};
  for (const NodeId id : fabric.endNodes())
    for (Port& p : fabric.node(id).ports) p.lid = Lid{};
  for (const auto& a : plan.assignments) {
    Port& p = fabric.port(a.port);
    p.lid = a.base;
    p.lmc = a.lmc;
  }
}

Guid2Lid toGuid2Lid(const LidPlan& plan) {
  Guid2Lid out;
  for (const auto& a : plan.assignments)
    out[a.portGuid] = {a.base, Lid{static_cast<std::uint16_t>(a.base.value + (1u << a.lmc) - 1)}};
  return out;
}

LidIndex::LidIndex(const Fabric& fabric) {
  std::uint32_t maxLid = 0;
  for (const Node& n : fabric.nodes())
    for (const std::uint8_t p : n.endpointPorts())
      if (n.ports[p].lid.value)
        maxLid = std::max<std::uint32_t>(maxLid, n.ports[p].lid.value + (1u << n.ports[p].lmc) - 1);
  owners_.assign(maxLid + 1, PortRef{kNone, 0});
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& n = fabric.node(id);
    for (const std::uint8_t p : n.endpointPorts()) {
      const Port& port = n.ports[p];
      if (!port.lid.value) continue;
      for (std::uint32_t l = port.lid.value; l < port.lid.value + (1u << port.lmc); ++l)
        owners_[l] = PortRef{id, p};
    }
  }
}

std::optional<PortRef> LidIndex::owner(Lid lid) const {
  if (lid.value >= owners_.size() || owners_[lid.value].node == kNone) return std::nullopt;
  return owners_[lid.value];
}

}  // namespace ibsm
