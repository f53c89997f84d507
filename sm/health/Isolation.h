// The fabric routing sees when some links are isolated: the same Fabric
// with those cables removed, except a cable that is the only way to reach
// a node, which stays and is named with the reason. One pure function, so
// that the live SM's plan and a dry run of the same fabric and links agree.
//
//   IsolatedFabric cut = isolateLinks(discovered, {link});
//   planSubnet(cut.fabric, ...);  // routes avoid `link` unless cut.refused names it
#pragma once

#include <ibsm/Fabric.h>

#include <string>
#include <string_view>
#include <vector>

#include "sm/health/FlapTracker.h"

namespace ibsm::sm::health {

struct RefusedLink {
  LinkKey link{};
  std::string why{};  // "the only way to reach \"h1\" (0x...)"
};

struct IsolatedFabric {
  Fabric fabric{};
  std::vector<LinkKey> isolated{};  // removed, sorted
  std::vector<RefusedLink> refused{};
};

// Links not cabled in `fabric` are ignored (neither isolated nor refused).
// Links are removed in their sorted order, each only if its two ends stay
// connected without it (and without those removed before it).
[[nodiscard]] IsolatedFabric isolateLinks(Fabric fabric, std::vector<LinkKey> links);

// One end of a link as an operator names it, in `ibsm sweep --readmit` and
// `ibsm route --isolate`: GUID/port (a node or port GUID) or
// "node description"[port]. Errors say what was expected or not found.
[[nodiscard]] Result<PortRef> parseLinkEnd(const Fabric& fabric, std::string_view text);

// "\"s1\"[3] (0x..) - \"h1\"[1] (0x..)" when both ends are in `fabric`,
// else the GUIDs: "0x.../3 - 0x.../1".
std::string describeLink(const Fabric& fabric, const LinkKey& link);

}  // namespace ibsm::sm::health
