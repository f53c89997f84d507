// The contract between the SM and its routing engines. Routing is a pure
// function: a Fabric (with LIDs assigned) in, forwarding tables out, no I/O,
// no logging. The caller times it, logs it, and diffs the tables against
// what the switches hold.
//
//   auto registry = routing::defaultRegistry();
//   auto result = registry.route(fabric, {"ftree", "updn"}, options);
//   if (result) program(result->lfts);
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ibsm {

inline constexpr std::uint8_t kNoRoute = 0xFF;  // LFT entry of an unrouted LID

// A switch's linear forwarding table: out port by destination LID.
struct Lft {
  std::vector<std::uint8_t> port;  // index = LID; kNoRoute where unrouted

  std::uint8_t at(Lid lid) const { return lid.value < port.size() ? port[lid.value] : kNoRoute; }
  // Highest routed LID (SwitchInfo:LinearFDBTop); 0 when nothing is routed.
  // Inline: the analysis judges tables without linking the engines.
  Lid top() const {
    for (std::size_t l = port.size(); l-- > 1;)
      if (port[l] != kNoRoute) return Lid{static_cast<std::uint16_t>(l)};
    return Lid{};
  }
};

// SL -> VL for one (in port, out port) pair of a switch.
struct Sl2VlEntry {
  NodeId sw{0};
  std::uint8_t inPort{0};
  std::uint8_t outPort{0};
  std::array<std::uint8_t, 16> vl{};
};

// A pair the engine routes on an SL other than 0: its route is free of
// credit loops only on that SL's VLs (RoutingResult::pairSls).
struct PairSl {
  Lid dlid{};        // one LID of the destination (each LID of an LMC range its own)
  PortRef source{};  // the port the pair starts from (a CA port, or a switch's port 0)
  std::uint8_t sl{0};
  constexpr auto operator<=>(const PairSl&) const = default;
};

// Which previous chains still hold (PreviousChains.h's verdict), judged
// once by routeUnderChange for every LID a port holds: one row of bits per
// LID, one bit per switch numbered as routing/graph/SwitchGraph numbers them
// (node GUID order). An engine that takes the hint reads its verdicts here
// rather than walking the previous tables again; a LID past `lids` was not
// judged.
struct PreviousHolds {
  std::size_t lids{0};
  std::size_t words{0};  // 64-bit words per LID row
  std::vector<std::uint64_t> bits;
  // Per LID, bit lid % 64 of word lid / 64: its previous column holds whole
  // (from every switch the chain climbs, then only descends in the order
  // `frame`'s engine routes in: ftree's hub order), so that engine may copy
  // it rather than route it. Empty: none known.
  std::vector<std::uint64_t> whole;
  // What the judge built of the fabric to find them (ftree: its layout,
  // reach and hub order), for the engine to reuse rather than build again;
  // null: none. Opaque here: the engine that made it reads it.
  std::shared_ptr<const void> frame;

  void set(std::size_t lid, std::size_t sw) {
    bits[lid * words + sw / 64] |= std::uint64_t{1} << (sw % 64);
  }
  [[nodiscard]] bool at(std::size_t lid, std::size_t sw) const {
    return lid < lids && sw / 64 < words && ((bits[lid * words + sw / 64] >> (sw % 64)) & 1u) != 0;
  }
  [[nodiscard]] bool isWhole(std::size_t lid) const {
    return lid / 64 < whole.size() && ((whole[lid / 64] >> (lid % 64)) & 1u) != 0;
  }
};

struct RoutingOptions {
  std::vector<Guid> rootGuids;  // switches the operator names as roots (ftree, updn)
  std::uint8_t maxVls{1};       // data VLs the engine may use for deadlock avoidance
  // The tables the switches held before a loss of capacity, by NodeId of the
  // fabric routed (StableRoutes.h): an engine that takes the hint keeps
  // every entry whose previous path still holds and says so in
  // RoutingResult::followedPrevious. Empty: no hint.
  std::span<const Lft> previous{};
  // The verdicts on `previous` when the caller judged them already
  // (routeUnderChange does); null: the engine judges them itself.
  const PreviousHolds* previousHolds{nullptr};
  // Threads the engine may compute on (routing.threads; 0: all cores). The
  // tables are the same for any count (ParallelFor.h).
  unsigned threads{0};
};

struct RoutingResult {
  std::string engine;             // the engine that produced the tables
  std::vector<Lft> lfts;          // index = NodeId; empty for non-switches
  std::vector<Sl2VlEntry> sl2vl;  // only where the engine needs more than one VL
  std::uint8_t vlsUsed{1};
  std::vector<std::string> notes;      // what the engine observed or gave up
  std::vector<std::string> fallbacks;  // engines that refused before this one, with why
  // Set when these tables were taken although the registry's judge objected
  // (no later engine routed the fabric): the objection.
  std::optional<std::string> objection{};
  // CA ports the engine routed apart from the compute traffic (ftree: SHARP
  // aggregation nodes, hosts above the leaf level), sorted. The report
  // counts their pairs in reachability and credit loops, and keeps them out
  // of the hop and link-load figures of the compute CAs (RouteReport::apartHops).
  std::vector<PortRef> apart;
  // The engine took RoutingOptions::previous as its hint itself.
  bool followedPrevious{false};
  // Every chain of these tables climbs, then descends in one order of the
  // switches (ftree's hub order): free of credit loops on one VL by
  // construction, so routing under change need not walk their dependencies.
  bool legalByConstruction{false};
  // Cables from a node to itself (two ports of one switch cabled to each
  // other), lower port first: they carry no route, so planSubnet() routes
  // the fabric without them and names them here.
  std::vector<std::pair<PortRef, PortRef>> loopbacks{};
  // Pairs that must travel on an SL other than 0, sorted (by dlid, then
  // source); a pair not named travels on SL 0. The SA answers these SLs in
  // PathRecords, the credit-loop judge walks each pair on its SL, `ibsm path`
  // walks it so. Empty: every pair on SL 0.
  std::vector<PairSl> pairSls{};
  // Set where the engine's layers took every VL allowed and planSubnet()
  // found one of them the multicast trees can share without a credit loop
  // (routing/plan/SharedTreeVl.h): every group travels on SL 15, which
  // every switch's SL2VL maps to this VL, and every tree is part of one
  // rooted at the most central switch (MulticastOptions::oneTree). nullopt:
  // the trees own a VL (routing/multicast/McSl.h) or ride their groups' SLs.
  std::optional<std::uint8_t> treesShareVl{};
  // An order of the switches in which every route on VL 0 climbs, then
  // descends (updn's order; ftree's hub order on one VL): a position by
  // NodeId (a hop to an earlier switch is up; non-switches UINT32_MAX).
  // Empty where no such order holds. The multicast trees are kept to it
  // (MulticastOptions::upDownOrder).
  std::vector<std::uint32_t> upDownOrder{};
};

class RoutingEngine {
 public:
  virtual ~RoutingEngine() = default;
  virtual std::string_view name() const = 0;
  // An engine refuses (returns an Error) when the fabric is not its shape;
  // the registry then tries the next engine named.
  [[nodiscard]] virtual Result<RoutingResult> route(const Fabric& fabric,
                                                    const RoutingOptions& options) const = 0;
};

// A verdict on an engine's tables before they are taken: why they are not
// good enough, or nullopt. routing/plan judges credit loops with it.
using TablesJudge = std::function<std::optional<std::string>(const Fabric&, const RoutingResult&)>;

class EngineRegistry {
 public:
  using Factory = std::function<std::unique_ptr<RoutingEngine>()>;
  void add(std::string name, Factory factory);
  std::vector<std::string> names() const;
  // Tries the engines in order; the result records who refused and why.
  // With a judge, tables it objects to count as a refusal while another
  // engine follows, so the next is tried; the last engine's tables are
  // taken unjudged (connectivity first), and when every engine after the
  // first objected-to tables refuses the fabric, those tables are taken
  // (RoutingResult::objection says why they were not wanted).
  [[nodiscard]] Result<RoutingResult> route(const Fabric& fabric,
                                            const std::vector<std::string>& engines,
                                            const RoutingOptions& options,
                                            const TablesJudge& judge = {}) const;

 private:
  std::vector<std::pair<std::string, Factory>> factories_;
};

}  // namespace ibsm
