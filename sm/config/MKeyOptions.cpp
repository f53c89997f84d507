#include "sm/config/MKeyOptions.h"

#include <fmt/format.h>
#include <ibsm/GuidList.h>
#include <toml++/toml.h>

#include <array>

namespace ibsm::sm::config {
namespace {

Result<void> expected(const std::string& where, std::string_view what) {
  return fail(fmt::format("{}: expected {}", where, what));
}

// sm.m_key is one fixed key for every port (OpenSM's); the secret file
// derives a key per port. Both set is a mistake either way round.
constexpr std::string_view kChooseOne =
    "either sm.m_key (OpenSM's one key for every port) or sm.m_key_secret_file (a key per "
    "port derived from the secret), not both: choose one";

Result<void> applyEnable(Config& c, const toml::node& v, const std::string& where) {
  auto b = v.value_exact<bool>();
  if (!b) return expected(where, "sm.m_key_enable to be true or false");
  c.sm.mKey.enabled = *b;
  return {};
}

Result<void> applySecretFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s)
    return expected(where, "sm.m_key_secret_file to be a path (string; \"\" for the default)");
  if (s->empty()) {
    c.sm.mKey.secretFile.reset();
    return {};
  }
  if (c.sm.mKey.singleKey) return expected(where, kChooseOne);
  c.sm.mKey.secretFile = *s;
  return {};
}

Result<void> applyMKey(Config& c, const toml::node& v, const std::string& where) {
  if (auto s = v.value_exact<std::string>(); s && s->empty()) {
    c.sm.mKey.singleKey.reset();
    return {};
  }
  const auto key = key64(v);
  if (!key)
    return expected(where,
                    "sm.m_key to be a 64-bit hex string such as \"0x00000000000000ff\", "
                    "an integer >= 0, or \"\" (keys derived per port)");
  if (c.sm.mKey.secretFile) return expected(where, kChooseOne);
  if (*key != 0 && c.sm.mKey.rotateInterval.count() != 0)
    return expected(where,
                    "sm.m_key_rotate_interval = 0 with sm.m_key: one fixed key is not "
                    "rotated (rotation moves ports to keys of a new secret)");
  c.sm.mKey.singleKey = *key;
  return {};
}

Result<void> applyProtect(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value_exact<std::int64_t>();
  if (!n || *n < 0 || *n > ibsm::security::kMaxProtectBits)
    return expected(where, "sm.m_key_protect to be an integer from 0 to 3 (M_KeyProtectBits)");
  c.sm.mKey.protectBits = static_cast<std::uint8_t>(*n);
  return {};
}

Result<void> applyLease(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value_exact<std::int64_t>();
  if (!n || *n < 0 || *n > 65535)
    return expected(where, "sm.m_key_lease to be seconds from 0 to 65535 (0: never expires)");
  c.sm.mKey.leaseSeconds = static_cast<std::uint16_t>(*n);
  return {};
}

Result<void> applyRotate(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value_exact<std::int64_t>();
  if (!n || (*n != 0 && (*n < ibsm::security::kMinRotateInterval.count() || *n > 31536000)))
    return expected(where,
                    "sm.m_key_rotate_interval to be 0 (never) or seconds from 600 to "
                    "31536000");
  if (*n != 0 && c.sm.mKey.singleKey.value_or(0) != 0)
    return expected(where,
                    "sm.m_key_rotate_interval = 0 with sm.m_key: one fixed key is not "
                    "rotated (rotation moves ports to keys of a new secret)");
  c.sm.mKey.rotateInterval = std::chrono::seconds{*n};
  return {};
}

const std::array kMKey{
    OptionSpec{"sm.m_key_enable", "boolean", "true",
               "Protect the fabric with M_Keys (IBA 14.2.4): every port gets a key only the SM "
               "knows, and Sets (LFTs, PortInfo, PKeys) without it fail. true with no other "
               "M_Key key: a key per port derived from a 32-byte secret, made at first start "
               "in the state directory (mkey.secret, 0600).",
               applyEnable},
    OptionSpec{"sm.m_key_secret_file", "path", R"("")",
               "The secret the per-port keys are derived from (HMAC-SHA256 of the port GUID). "
               "Give master and standby the same file so that either can take over a protected "
               "fabric. Empty: <state_dir>/mkey.secret, made at first start; a file named here "
               "must exist (32 bytes or 64 hex digits), be owned by the daemon's user and have "
               "mode 0600 or 0400.",
               applySecretFile},
    OptionSpec{"sm.m_key", "64-bit hex string, integer or \"\"", R"("")",
               "OpenSM's m_key: one key for every port. 0 turns M_Key protection off, as in "
               "OpenSM. Empty: keys derived per port from the secret (ibsm's default). Not "
               "together with m_key_secret_file.",
               applyMKey},
    OptionSpec{"sm.m_key_protect", "integer 0-3", "1",
               "PortInfo:M_KeyProtectBits written with each key (IBA 14.2.4.1). 0: Gets show the "
               "key, Sets need it. 1: Gets answer with the M_Key read as 0, Sets and "
               "TrapRepresses need the key, so smpquery, ibnetdiscover and ibdiagnet keep "
               "working for administrators. 2 and 3: Gets need the key too, hiding the "
               "topology from hosts, and infiniband-diags need the key (ibdiagnet --m_key).",
               applyProtect},
    OptionSpec{"sm.m_key_lease", "seconds 0-65535", "60",
               "PortInfo:M_KeyLeasePeriod: after a failed key check, a port whose SM has not "
               "refreshed it for this long drops its protection (IBA 14.2.4.2), which lets a "
               "new SM take over a fabric whose keys it does not know. 0: never expires.",
               applyLease},
    OptionSpec{"sm.m_key_rotate_interval", "seconds 0 or 600-31536000", "0",
               "As master, move every port to keys of a new secret this often (as `ibsm keys "
               "rotate` does), each port reachable and protected throughout: the previous "
               "secret is kept beside the secret file until every port holds its new key. "
               "0: never.",
               applyRotate},
};

}  // namespace

std::span<const OptionSpec> mKeyOptions() {
  return kMKey;
}

std::optional<std::uint64_t> key64(const toml::node& value) {
  if (auto n = value.value_exact<std::int64_t>())
    return *n < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(*n));
  auto s = value.value_exact<std::string>();
  return s ? parseHex64(*s) : std::nullopt;
}

}  // namespace ibsm::sm::config
