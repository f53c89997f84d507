#include "sm/manager/PeerSms.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace ibsm::sm::manager {

namespace {

std::shared_ptr<spdlog::logger> logOf(const MadEngine& engine) {
  return engine.options().logger ? engine.options().logger : spdlog::default_logger();
}

std::string describe(const PeerSm& p) {
  if (const auto* path = std::get_if<DrPath>(&p.address))
    return fmt::format("{} (DR {})", p.portGuid, *path);
  return fmt::format("{} (LID {})", p.portGuid, std::get<Lid>(p.address));
}

// The route to `port`: through the cable at its far end when that end is a
// switch (or our own port, back to back), else the node's own route.
std::optional<DrPath> routeTo(const discovery::DiscoveredSubnet& s, PortRef port) {
  const Fabric& f = s.fabric;
  const Node& node = f.node(port.node);
  if (node.isSwitch() || port.port == 0) return s.pathTo.at(port.node);
  const Port& p = f.port(port);
  if (p.remote) {
    const Node& far = f.node(p.remote->node);
    if (far.isSwitch() || *p.remote == s.smPort) {
      auto path = s.pathTo.at(p.remote->node).extended(p.remote->port);
      if (path) return *path;
    }
  }
  return s.pathTo.at(port.node);
}

}  // namespace

std::vector<PeerSm> findPeerSms(const discovery::DiscoveredSubnet& subnet) {
  std::vector<PeerSm> peers;
  const Fabric& f = subnet.fabric;
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    for (std::uint8_t i = 0; i < node.ports.size(); ++i) {
      const PortRef ref{n, i};
      if (ref == subnet.smPort || (i == 0 && !node.isSwitch())) continue;
      const Port& port = node.ports[i];
      if ((port.capabilityMask & capability::kIsSm) == 0) continue;
      if (n >= subnet.pathTo.size()) continue;
      auto route = routeTo(subnet, ref);
      if (!route) continue;
      peers.push_back(PeerSm{.portGuid = port.guid, .address = *route, .lid = port.lid});
      spdlog::debug("SM-0601 SM port {} at {}", f.describe(ref), *route);
    }
  }
  return peers;
}

namespace {

Result<std::vector<PeerSmInfo>> readSmInfos(MadEngine& engine, std::span<const PeerSm> peers,
                                            const SmInfo& self,
                                            std::chrono::milliseconds patience) {
  const SmpData query = encode(self);
  std::vector<SmpRequest> requests;
  for (const PeerSm& p : peers)
    requests.push_back(SmpRequest{.method = Method::Get,
                                  .attributeId = AttributeId::SmInfo,
                                  .to = p.address,
                                  .data = query,
                                  // Two quick tries for a lost SMP, then the long wait.
                                  .attempts = patience.count() > 0 ? 3U : 0U,
                                  .patience = patience});
  // All in the engine's window at once; the replies come back in `peers` order.
  auto replies = engine.sendAll(requests);
  if (!replies) return std::unexpected(replies.error());
  const auto log = logOf(engine);
  std::vector<PeerSmInfo> out;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const SmpReply& reply = (*replies)[i];
    if (!reply.ok() || !reply.smp) {
      log->info("SM-0603 SM port {} did not answer SMInfo", describe(peers[i]));
      continue;
    }
    const SmInfo info = decodeSmInfo(reply.smp->data);
    log->debug("SM-0602 SM port {}: {} priority {} state {}", describe(peers[i]), info.guid,
               info.priority, static_cast<unsigned>(info.smState));
    out.push_back(PeerSmInfo{.peer = peers[i], .info = info});
  }
  return out;
}

}  // namespace

Result<std::vector<PeerSmInfo>> readPeerSmInfos(MadEngine& engine, std::span<const PeerSm> peers,
                                                const SmInfo& self) {
  return readSmInfos(engine, peers, self, std::chrono::milliseconds{0});
}

Result<std::optional<SmInfo>> pollSmInfo(MadEngine& engine, const PeerSm& peer, const SmInfo& self,
                                         std::chrono::milliseconds patience) {
  auto infos = readSmInfos(engine, std::span(&peer, 1), self, patience);
  if (!infos) return std::unexpected(infos.error());
  if (infos->empty()) return std::optional<SmInfo>{};
  return std::optional<SmInfo>{infos->front().info};
}

Result<bool> sendSmControl(MadEngine& engine, const PeerSm& peer, std::uint32_t control,
                           const SmInfo& self) {
  auto replies = engine.sendAll({SmpRequest{.method = Method::Set,
                                            .attributeId = AttributeId::SmInfo,
                                            .attributeModifier = control,
                                            .to = peer.address,
                                            .data = encode(self)}});
  if (!replies) return std::unexpected(replies.error());
  const SmpReply& answer = replies->front();
  logOf(engine)->info("SM-0604 SMInfo control {} (as {}) to SM port {}: {}", control,
                      static_cast<unsigned>(self.smState), describe(peer),
                      answer.ok() ? "accepted" : (answer.smp ? "refused" : "no answer"));
  return answer.ok();
}

Notice smPriorityNotice(Lid ourLid, std::uint32_t capabilityMask, NodeType producer) {
  Notice n;
  n.isGeneric = true;
  n.type = 4;  // informational
  n.producerType = static_cast<std::uint32_t>(producer);
  n.trapNumber = 144;
  n.issuerLid = ourLid;
  n.dataDetails = encodeDetails(Trap144Details{
      .lid = ourLid, .capabilityMask = capabilityMask, .changeFlags = trap144::kSmPriorityChange});
  return n;
}

Result<void> notifyMaster(MadEngine& engine, const PeerSm& master, Lid ourLid, const SmInfo& self,
                          std::uint32_t capabilityMask, NodeType producer) {
  const Lid to =
      std::holds_alternative<Lid>(master.address) ? std::get<Lid>(master.address) : master.lid;
  if (!to.isUnicast())
    return fail(
        fmt::format("trap 144 to SM port {}: it has no LID to route the trap to", master.portGuid));
  if (!ourLid.isUnicast())
    return fail(fmt::format("trap 144 to SM port {}: our port has no LID to send it from",
                            master.portGuid));
  auto sent = engine.sendTrap(to, encode(smPriorityNotice(ourLid, capabilityMask, producer)));
  if (!sent) return sent;
  logOf(engine)->info("SM-0605 trap 144 (SM priority {}) sent to SM port {} at LID {}",
                      self.priority, master.portGuid, to);
  return {};
}

}  // namespace ibsm::sm::manager
