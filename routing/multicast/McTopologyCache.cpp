#include "routing/multicast/McTopologyCache.h"

namespace ibsm {

McTopologyCache::McTopologyCache() : state(std::make_unique<State>()) {}
McTopologyCache::~McTopologyCache() = default;
McTopologyCache::McTopologyCache(McTopologyCache&&) noexcept = default;
McTopologyCache& McTopologyCache::operator=(McTopologyCache&&) noexcept = default;

std::uint64_t McTopologyCache::reused() const {
  return state ? state->reused : 0;
}

std::uint64_t McTopologyCache::computed() const {
  return state ? state->computed : 0;
}

namespace routing {

std::vector<std::uint64_t> graphSignature(const SwitchGraph& graph) {
  std::vector<std::uint64_t> out;
  out.reserve(graph.size() * 8);
  out.push_back(graph.size());
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    out.push_back((std::uint64_t{graph.nodeId(s)} << 32) | graph.caCount(s));
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
      out.push_back((std::uint64_t{t} << 32) | (std::uint64_t{c.port} << 16) | c.remotePort);
    });
    out.push_back(~std::uint64_t{0});  // ends the switch's cables
  }
  return out;
}

McRoots& rootsFor(const SwitchGraph& graph, McTopologyCache& cache) {
  if (!cache.state) cache.state = std::make_unique<McTopologyCache::State>();
  McTopologyCache::State& st = *cache.state;
  auto signature = graphSignature(graph);
  if (st.roots && signature == st.signature) {
    ++st.reused;
    return *st.roots;
  }
  ++st.computed;
  st.roots.reset();
  st.graph = std::make_unique<SwitchGraph>(graph);
  st.signature = std::move(signature);
  st.roots = std::make_unique<McRoots>(*st.graph);
  return *st.roots;
}

}  // namespace routing
}  // namespace ibsm
