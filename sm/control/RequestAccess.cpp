#include "sm/control/RequestAccess.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "sm/control/PathRequest.h"

namespace ibsm::sm::control {
namespace {

using enum RequestAccess;

// The one table: a request added to the server is added here, or it is
// unknown (and answered as such). Longer prefixes before shorter ones.
constexpr std::array<RequestRule, 17> kRules{{
    {"status", true, ReadOnly, "ibsm status"},
    {"status json", true, ReadOnly, "ibsm status --json"},
    {"health", true, ReadOnly, "ibsm health"},
    {"health json", true, ReadOnly, "ibsm health --json"},
    {"health ports", true, ReadOnly, "ibsm health --ports"},
    {"metrics", true, ReadOnly, "ibsm metrics"},
    {"draw", true, ReadOnly, "ibsm draw"},
    {"dump ", false, ReadOnly, "ibsm dump"},
    {kPathRequest, false, ReadOnly, "ibsm path"},
    {"sweep readmit ", false, Changing, "ibsm sweep --readmit"},
    {"sweep", true, Changing, "ibsm sweep"},
    {"sweep heavy", true, Changing, "ibsm sweep --heavy"},
    {"sweep rebalance", true, Changing, "ibsm sweep --rebalance"},
    {"log-level ", false, Changing, "ibsm log-level"},
    {"keys ", false, Changing, "ibsm keys"},
    {"keys", true, Changing, "ibsm keys"},
    // Not served yet; classified now so that a server that learns it
    // cannot serve it to the read group by omission.
    {"reload", true, Changing, "ibsm reload"},
}};

bool matches(const RequestRule& rule, std::string_view request) {
  return rule.exact ? request == rule.prefix : request.starts_with(rule.prefix);
}

bool inGroup(const PeerCred& peer, gid_t group) {
  if (peer.gid == group) return true;
  return peer.groups && std::ranges::find(*peer.groups, group) != peer.groups->end();
}

}  // namespace

std::span<const RequestRule> requestRules() {
  return kRules;
}

RequestRule classifyRequest(std::string_view request) {
  const auto it = std::ranges::find_if(kRules, [&](const auto& r) { return matches(r, request); });
  if (it != kRules.end()) return *it;
  return {request, true, ReadOnly, "unknown"};
}

Result<PeerCred> peerOf(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return fail(fmt::format("SO_PEERCRED: {}", std::strerror(errno)));
  PeerCred peer{.pid = cred.pid, .uid = cred.uid, .gid = cred.gid, .groups = std::nullopt};
  // Linux 4.13+; a larger list than this is asked again at its size.
  std::vector<gid_t> groups(64);
  socklen_t bytes = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  int ok = ::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &bytes);
  if (ok != 0 && errno == ERANGE) {
    groups.resize(bytes / sizeof(gid_t));
    ok = ::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &bytes);
  }
  if (ok == 0) {
    groups.resize(bytes / sizeof(gid_t));
    peer.groups = std::move(groups);
  }
  return peer;
}

bool privileged(const PeerCred& peer, const AccessPolicy& policy) {
  return peer.uid == 0 || peer.uid == policy.daemonUid;
}

std::optional<std::string> refusal(RequestAccess access, const PeerCred& peer,
                                   const AccessPolicy& policy) {
  if (privileged(peer, policy)) return std::nullopt;
  const bool member = policy.readGroup && inGroup(peer, *policy.readGroup);
  if (access == Changing)
    return member ? fmt::format("changing requests need root (uid {} is in group {})", peer.uid,
                                policy.readGroupName)
                  : fmt::format("changing requests need root (uid {})", peer.uid);
  if (member || (policy.readGroup && !peer.groups)) return std::nullopt;
  if (!policy.readGroup)
    return fmt::format("uid {} is not root (no sm.control_group lets others read)", peer.uid);
  return fmt::format("uid {} is not root and not in group {} (sm.control_group)", peer.uid,
                     policy.readGroupName);
}

}  // namespace ibsm::sm::control
