// Who may ask the control socket what. The socket's file mode decides who
// can connect at all (0600 for the daemon's user; 0660 with sm.control_group);
// this decides, per request, on the peer's credentials as the kernel gives
// them (SO_PEERCRED, SO_PEERGROUPS), so a socket file whose mode was loosened
// behind the daemon's back still lets nobody else change anything.
//
//   const auto rule = classifyRequest("sweep heavy");       // Changing
//   if (auto why = refusal(rule.access, peer, policy))      // "changing requests need root ..."
//     answer("error: refused: " + *why);
#pragma once

#include <ibsm/Error.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::sm::control {

enum class RequestAccess : std::uint8_t {
  ReadOnly,  // shows the SM's state; the control group may ask it
  Changing,  // changes what the SM does or holds: root or the daemon's user only
};

// One request the server knows: its first word(s) as sent on the socket.
struct RequestRule {
  std::string_view prefix;  // "sweep readmit ", "status"
  bool exact;               // the whole line, or a prefix of it
  RequestAccess access;
  std::string_view command;  // what the operator typed: "ibsm sweep --readmit"
};

// Every request ControlServer answers, in the order they are matched (the
// longer prefix first). ControlServerTest checks that each is answered.
std::span<const RequestRule> requestRules();
// The rule of `request`; a line no rule matches is answered "unknown
// request", which changes nothing: ReadOnly.
RequestRule classifyRequest(std::string_view request);

// The peer of a unix socket connection as the kernel saw it at connect().
struct PeerCred {
  pid_t pid{0};
  uid_t uid{0};
  gid_t gid{0};
  // Supplementary groups (SO_PEERGROUPS); nullopt where the kernel does not
  // tell them.
  std::optional<std::vector<gid_t>> groups;
};
[[nodiscard]] Result<PeerCred> peerOf(int fd);

struct AccessPolicy {
  uid_t daemonUid{0};
  // sm.control_group: its members may ask read-only requests; unset: nobody
  // but root and the daemon's user.
  std::optional<gid_t> readGroup;
  std::string readGroupName;  // for the refusal's text
};

// Root and the daemon's own user may ask anything.
bool privileged(const PeerCred& peer, const AccessPolicy& policy);
// Why `peer` may not ask a request of `access`, or nullopt when it may.
// Read-only: privileged, or a member of the read group (primary or
// supplementary; when the kernel does not give the supplementary groups,
// the socket's mode, which let the peer connect, decides).
std::optional<std::string> refusal(RequestAccess access, const PeerCred& peer,
                                   const AccessPolicy& policy);

// Who may connect and ask what, and how long a request may take to arrive
// (sm.control_group, sm.control_timeout_ms).
struct ControlOptions {
  // The socket's group: the file is made 0660 with it (else 0600), and its
  // members may ask read-only requests (RequestAccess.h).
  std::optional<gid_t> readGroup;
  std::string readGroupName;
  // A request must arrive whole within this time after connecting: a client
  // that sends nothing, or sends slowly, is closed then.
  std::chrono::milliseconds requestDeadline{3000};
};

}  // namespace ibsm::sm::control
