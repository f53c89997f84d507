// NodeDescriptions apart from the walk (issue 32). A standby's discovery
// reads every node's description; its takeover's discovery takes them from
// there (DiscoveryOptions::knownDescriptions) instead of sending 4,176
// NodeDescription Gets at radix 24 before up -- nothing routes or comes up
// by a description -- and reads them once the subnet is up, when the SA's
// NodeRecords take any that changed meanwhile (a host renamed while this
// SM stood by). Until then the SA answers with the description the standby
// read.
//
//   KnownDescriptions known = knownDescriptions(standbysDiscovery);
//   Discovery discovery(engine, {.knownDescriptions = &known}, log);
//   auto subnet = discovery.run();          // subnet->describedFromBefore
//   ... plan, program, up ...
//   auto read = readDescriptions(engine, *subnet, subnet->describedFromBefore);
#pragma once

#include <ibsm/Ids.h>

#include <cstddef>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::sm::discovery {

using KnownDescriptions = std::unordered_map<Guid, std::string>;

// Node GUID -> description of every node of `subnet` whose description was
// read there (one left empty by a failed read is not known).
KnownDescriptions knownDescriptions(const DiscoveredSubnet& subnet);

struct DescriptionsRead {
  std::size_t asked{0};
  std::size_t failed{0};  // no answer after the engine's retries: kept as they were
  // Answered, by node: only those that differ from what `subnet` holds.
  std::vector<std::pair<NodeId, std::string>> changed;
};

// The NodeDescription of each of `nodes` of `subnet`, by subnet.pathTo, all
// in the engine's window at once. Fails only when the transport does.
[[nodiscard]] Result<DescriptionsRead> readDescriptions(MadEngine& engine,
                                                        const DiscoveredSubnet& subnet,
                                                        std::span<const NodeId> nodes);

}  // namespace ibsm::sm::discovery
