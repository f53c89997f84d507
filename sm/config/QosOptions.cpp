#include "sm/config/QosOptions.h"

#include <fmt/format.h>
#include <ibsm/QosOptions.h>
#include <toml++/toml.h>

#include <array>

namespace ibsm::sm::config {
namespace {

using qos::QosOptions;
using qos::QosTableOptions;

Result<void> expected(const std::string& where, std::string_view key, std::string_view what) {
  return fail(fmt::format("{}: {}: expected {}", where, key, what));
}

// The per-type keys (ca_, sw0_, swe_, rtr_) are unset with 0 (max_vls), -1
// (high_limit) or "" (tables), as OpenSM's own dump writes them; the
// general ones always have a value.
template <QosTableOptions QosOptions::*Set>
constexpr bool kGeneral = Set == &QosOptions::all;

template <QosTableOptions QosOptions::*Set>
Result<void> maxVls(Config& c, const toml::node& v, const std::string& w, std::string_view key) {
  constexpr std::int64_t lo = kGeneral<Set> ? 1 : 0;
  const auto n = v.value<std::int64_t>();
  if (!n || *n < lo || *n > 15)
    return expected(w, key,
                    kGeneral<Set> ? "an integer from 1 to 15"
                                  : "an integer from 1 to 15, or 0 for qos.max_vls");
  auto& into = (c.qosOptions.*Set).maxVls;
  into = *n == 0 ? std::nullopt : std::optional<std::uint8_t>(*n);
  return {};
}

template <QosTableOptions QosOptions::*Set>
Result<void> highLimit(Config& c, const toml::node& v, const std::string& w, std::string_view key) {
  constexpr std::int64_t lo = kGeneral<Set> ? 0 : -1;
  const auto n = v.value<std::int64_t>();
  if (!n || *n < lo || *n > 255)
    return expected(w, key,
                    kGeneral<Set> ? "an integer from 0 to 255"
                                  : "an integer from 0 to 255, or -1 for qos.high_limit");
  auto& into = (c.qosOptions.*Set).highLimit;
  into = *n < 0 ? std::nullopt : std::optional<std::uint8_t>(*n);
  return {};
}

// A table in OpenSM's syntax; "" leaves a per-type key to the general one.
template <auto Parse, typename T>
Result<void> tableValue(const toml::node& v, const std::string& w, std::string_view key,
                        bool general, std::optional<T>& into) {
  const auto s = v.value<std::string>();
  if (!s) return expected(w, key, "a string in OpenSM's syntax");
  if (s->empty() && !general) {
    into.reset();
    return {};
  }
  auto parsed = Parse(*s);
  if (!parsed) return fail(fmt::format("{}: {}: {}", w, key, parsed.error().message));
  into = std::move(*parsed);
  return {};
}

template <QosTableOptions QosOptions::*Set>
Result<void> vlarbHigh(Config& c, const toml::node& v, const std::string& w, std::string_view key) {
  return tableValue<qos::parseVlArbOption>(v, w, key, kGeneral<Set>, (c.qosOptions.*Set).vlarbHigh);
}
template <QosTableOptions QosOptions::*Set>
Result<void> vlarbLow(Config& c, const toml::node& v, const std::string& w, std::string_view key) {
  return tableValue<qos::parseVlArbOption>(v, w, key, kGeneral<Set>, (c.qosOptions.*Set).vlarbLow);
}
template <QosTableOptions QosOptions::*Set>
Result<void> sl2vl(Config& c, const toml::node& v, const std::string& w, std::string_view key) {
  return tableValue<qos::parseSl2VlOption>(v, w, key, kGeneral<Set>, (c.qosOptions.*Set).sl2vl);
}

#define IBSM_QOS_KEY(key, type, dflt, doc, fn, set)                                  \
  OptionSpec {                                                                       \
    key, type, dflt, doc, [](Config& c, const toml::node& v, const std::string& w) { \
      return fn<&QosOptions::set>(c, v, w, key);                                     \
    }                                                                                \
  }

// One port type's five keys.
#define IBSM_QOS_TYPE(prefix, set, who)                                                   \
  IBSM_QOS_KEY("qos." prefix "max_vls", "integer 0-15", "0",                              \
               "qos.max_vls for " who "; 0: qos.max_vls.", maxVls, set),                  \
      IBSM_QOS_KEY("qos." prefix "high_limit", "integer -1-255", "-1",                    \
                   "qos.high_limit for " who "; -1: qos.high_limit.", highLimit, set),    \
      IBSM_QOS_KEY("qos." prefix "vlarb_high", "VL:weight list", R"("")",                 \
                   "qos.vlarb_high for " who "; empty: qos.vlarb_high.", vlarbHigh, set), \
      IBSM_QOS_KEY("qos." prefix "vlarb_low", "VL:weight list", R"("")",                  \
                   "qos.vlarb_low for " who "; empty: qos.vlarb_low.", vlarbLow, set),    \
      IBSM_QOS_KEY("qos." prefix "sl2vl", "16 VLs", R"("")",                              \
                   "qos.sl2vl for " who "; empty: qos.sl2vl.", sl2vl, set)

const std::array kQos{
    OptionSpec{"qos.enabled", "boolean", "false",
               "Program SL2VL and VLArbitration on every port from the qos.* keys (and a QoS "
               "policy's qos-setup section), as OpenSM's `qos TRUE`. false: those tables are left "
               "as the ports hold them.",
               [](Config& c, const toml::node& v, const std::string& w) -> Result<void> {
                 const auto b = v.value<bool>();
                 if (!b) return expected(w, "qos.enabled", "true or false");
                 c.qosOptions.enabled = *b;
                 return {};
               }},
    IBSM_QOS_KEY("qos.max_vls", "integer 1-15", "15",
                 "The most VLs QoS uses, as OpenSM's qos_max_vls (which, as in OpenSM, changes "
                 "no table: a port's tables are cut to its operational VLs).",
                 maxVls, all),
    IBSM_QOS_KEY("qos.high_limit", "integer 0-255", "0",
                 "PortInfo:VLHighLimit: high-priority bytes (in 4 KiB units) sent before a "
                 "low-priority packet may go; 255: no limit.",
                 highLimit, all),
    IBSM_QOS_KEY("qos.vlarb_high", "VL:weight list",
                 R"("0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0")",
                 "The high-priority VLArbitration table: up to 64 VL:weight pairs (VL 0-14, "
                 "weight 0-255 in 64-byte units); the rest of the 64 entries are 0:0.",
                 vlarbHigh, all),
    IBSM_QOS_KEY("qos.vlarb_low", "VL:weight list",
                 R"("0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4")",
                 "The low-priority VLArbitration table, as qos.vlarb_high.", vlarbLow, all),
    IBSM_QOS_KEY("qos.sl2vl", "16 VLs", R"("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7")",
                 "The SL2VL table: the VL (0-15; 15 drops) of SL 0 to SL 15.", sl2vl, all),
    IBSM_QOS_TYPE("ca_", ca, "CA ports"),
    IBSM_QOS_TYPE("sw0_", sw0, "a switch's enhanced port 0"),
    IBSM_QOS_TYPE("swe_", swe, "switch external ports"),
    IBSM_QOS_TYPE("rtr_", rtr, "router ports"),
};

#undef IBSM_QOS_TYPE
#undef IBSM_QOS_KEY

}  // namespace

std::span<const OptionSpec> qosOptions() {
  return kQos;
}

}  // namespace ibsm::sm::config
