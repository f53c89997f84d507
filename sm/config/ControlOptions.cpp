#include "sm/config/ControlOptions.h"

#include <fmt/format.h>
#include <grp.h>
#include <toml++/toml.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ibsm::sm::config {
namespace {

Result<void> expected(const std::string& where, std::string_view what) {
  return fail(fmt::format("{}: expected {}", where, what));
}

// The group's id now, so that a name this host does not know is refused at
// start (and on SIGHUP) with the file and line, not when the socket is made.
std::optional<gid_t> groupId(const std::string& name) {
  std::vector<char> buf(16384);
  group entry{};
  group* found = nullptr;
  if (::getgrnam_r(name.c_str(), &entry, buf.data(), buf.size(), &found) != 0 || !found)
    return std::nullopt;
  return found->gr_gid;
}

Result<void> applyControlGroup(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s) return expected(where, "sm.control_group to be a group name (string)");
  if (s->empty()) {
    c.sm.control.group.clear();
    c.sm.control.gid.reset();
    return {};
  }
  const auto gid = groupId(*s);
  if (!gid)
    return expected(where, fmt::format("sm.control_group to name a group of this host; there is "
                                       "no group '{}' (getent group {})",
                                       *s, *s));
  c.sm.control.group = *s;
  c.sm.control.gid = *gid;
  return {};
}

Result<void> applyControlTimeout(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < 100 || *n > 60000)
    return expected(where, "sm.control_timeout_ms to be an integer from 100 to 60000");
  c.sm.control.requestTimeoutMs = static_cast<std::uint32_t>(*n);
  return {};
}

const std::array<OptionSpec, 2> kControlOptions{{
    {"sm.control_group", "group name", R"("")",
     "Group whose members may ask the control socket read-only requests (status, health, "
     "metrics, path, dump, draw): the socket is made 0660 with this group. Changing requests "
     "(sweep, readmit, log-level) stay root's and the daemon user's, checked on each "
     "connection's credentials (SO_PEERCRED). Empty: the socket is 0600, the daemon's user's "
     "alone. A name the host does not know is refused.",
     applyControlGroup},
    {"sm.control_timeout_ms", "milliseconds 100-60000", "3000",
     "A control client must send its whole request within this time after connecting; one "
     "that sends nothing, or sends slowly, is closed then (counted as control.timed_out).",
     applyControlTimeout},
}};

}  // namespace

std::span<const OptionSpec> controlOptions() {
  return kControlOptions;
}

}  // namespace ibsm::sm::config
