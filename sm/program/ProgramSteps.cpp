#include "sm/program/ProgramSteps.h"

#include <fmt/format.h>
#include <ibsm/Multicast.h>

namespace ibsm::sm::program {
namespace {

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};

std::string switchName(const Node& n) {
  return fmt::format("switch {} ({})", n.description, n.guid);
}

}  // namespace

std::string_view phaseName(ProgramPhase phase) {
  switch (phase) {
    case ProgramPhase::ReadTables:
      return "read-tables";
    case ProgramPhase::PKeys:
      return "pkeys";
    case ProgramPhase::SmLid:
      return "sm-lid";
    case ProgramPhase::Lids:
      return "lids";
    case ProgramPhase::Lfts:
      return "lfts";
    case ProgramPhase::MftPrune:
      return "mft-prune";
    case ProgramPhase::Mfts:
      return "mfts";
    case ProgramPhase::MftTop:
      return "mft-top";
    case ProgramPhase::Sl2Vl:
      return "sl2vl";
    case ProgramPhase::Armed:
      return "armed";
    case ProgramPhase::Active:
      return "active";
    case ProgramPhase::PortStateChange:
      return "port-state-change";
    case ProgramPhase::ReadVlArb:
      return "read-vlarb";
  }
  return "?";
}

std::string_view tableKindName(TableKind kind) {
  switch (kind) {
    case TableKind::Lft:
      return "LFT";
    case TableKind::PKey:
      return "PKey";
    case TableKind::Sl2Vl:
      return "SL2VL";
    case TableKind::VlArb:
      return "VLArb";
    case TableKind::Mft:
      return "MFT";
  }
  return "?";
}

std::optional<NodeId> nodeHeldOnFailure(const StepTarget& target) {
  return std::visit(
      Overloaded{[](const PortInfoTarget&) -> std::optional<NodeId> { return std::nullopt; },
                 [](const SwitchInfoTarget& t) -> std::optional<NodeId> { return t.sw; },
                 []<typename Kind>(const BlockTarget<Kind>& t) -> std::optional<NodeId> {
                   if constexpr (Kind::kHoldsLinks) return t.node;
                   return std::nullopt;
                 }},
      target);
}

std::optional<TableKind> tableKindOf(const StepTarget& target) {
  return std::visit(
      Overloaded{[](const PortInfoTarget&) -> std::optional<TableKind> { return std::nullopt; },
                 [](const SwitchInfoTarget&) -> std::optional<TableKind> { return std::nullopt; },
                 []<typename Kind>(const BlockTarget<Kind>&) -> std::optional<TableKind> {
                   return Kind::kId;
                 }},
      target);
}

std::string describeTarget(const Fabric& fabric, const StepTarget& target) {
  return std::visit(
      Overloaded{[&](const PortInfoTarget& t) {
                   return fmt::format("PortInfo of {}", fabric.describe(t.port));
                 },
                 [&](const SwitchInfoTarget& t) {
                   return fmt::format("SwitchInfo (LinearFDBTop {}, MulticastFDBTop {}) of {}",
                                      t.top, t.mcastTop, switchName(fabric.node(t.sw)));
                 },
                 [&](const BlockTarget<LftKind>& t) {
                   return fmt::format("LFT block {} of {}", t.index,
                                      switchName(fabric.node(t.node)));
                 },
                 [&](const BlockTarget<PKeyKind>& t) {
                   return fmt::format("PKey block {} of {}", t.index,
                                      fabric.describe(PortRef{t.node, t.owner.port}));
                 },
                 [&](const BlockTarget<Sl2VlKind>& t) {
                   const Node& n = fabric.node(t.node);
                   if (!n.isSwitch())
                     return fmt::format("SL2VL table of {}",
                                        fabric.describe(PortRef{t.node, t.owner.out}));
                   return fmt::format("SL2VL table in port {} out port {} of {}", t.owner.in,
                                      t.owner.out, switchName(n));
                 },
                 [&](const BlockTarget<MftKind>& t) {
                   return fmt::format(
                       "MFT block {} (MLIDs from {}) position {} of {}", mftMlidBlock(t.index),
                       Lid{static_cast<std::uint16_t>(kFirstMlid.value +
                                                      mftMlidBlock(t.index) * kMftBlockSize)},
                       mftPosition(t.index), switchName(fabric.node(t.node)));
                 },
                 [&](const BlockTarget<VlArbKind>& t) {
                   return fmt::format("VLArbitration block {} of {}", t.index,
                                      fabric.describe(PortRef{t.node, t.owner.port}));
                 }},
      target);
}

}  // namespace ibsm::sm::program
