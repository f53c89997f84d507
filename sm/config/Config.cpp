#include "sm/config/Config.h"

#include <fmt/format.h>
#include <ibsm/GuidList.h>
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "sm/config/ControlOptions.h"
#include "sm/config/HealthOptions.h"
#include "sm/config/MKeyOptions.h"
#include "sm/config/MadOptions.h"
#include "sm/config/QosOptions.h"
#include "sm/config/SaQueueOptions.h"

namespace ibsm::sm::config {
namespace {

std::string lineOf(const toml::node& n, const std::string& file) {
  return fmt::format("{}:{}", file, n.source().begin.line);
}

Result<void> expected(const std::string& where, std::string_view what) {
  return fail(fmt::format("{}: expected {}", where, what));
}

Result<void> applyEngines(Config& c, const toml::node& v, const std::string& where) {
  std::vector<std::string> names;
  if (auto s = v.value<std::string>()) {
    names.push_back(*s);
  } else if (const auto* arr = v.as_array()) {
    for (const auto& item : *arr) {
      auto s2 = item.value<std::string>();
      if (!s2) return expected(where, "routing.engine to be a list of engine names (strings)");
      names.push_back(*s2);
    }
  } else {
    return expected(where, "routing.engine to be an engine name or a list of names");
  }
  if (names.empty()) return expected(where, "at least one engine in routing.engine");
  c.routing.engines = std::move(names);
  return {};
}

Result<void> applyRootGuidFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  if (!s) return expected(where, "routing.root_guid_file to be a path (string)");
  c.routing.rootGuidFile = *s;
  return {};
}

Result<void> applyLmc(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < 0 || *n > 7) return expected(where, "routing.lmc to be an integer from 0 to 7");
  c.routing.lmc = static_cast<std::uint8_t>(*n);
  return {};
}

// An integer key within [lo, hi], stored through `store`.
template <auto Lo, auto Hi, typename Store>
Result<void> applyInt(Config& c, const toml::node& v, const std::string& where,
                      std::string_view key, Store store) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < static_cast<std::int64_t>(Lo) || *n > static_cast<std::int64_t>(Hi))
    return expected(where, fmt::format("{} to be an integer from {} to {}", key, Lo, Hi));
  store(c, *n);
  return {};
}

Result<void> applyPortGuid(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  if (!s) return expected(where, "sm.port_guid to be a GUID string such as \"0x0002c90300a1b2c3\"");
  if (s->empty()) {
    c.sm.portGuid.reset();
    return {};
  }
  auto g = parseHex64(*s);
  if (!g || *g == 0)
    return expected(where, fmt::format("sm.port_guid to be a GUID such as \"0x0002c90300a1b2c3\", "
                                       "found \"{}\"",
                                       *s));
  c.sm.portGuid = Guid{*g};
  return {};
}

Result<void> applyPriority(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 15>(c, v, w, "sm.priority", [](Config& cc, std::int64_t n) {
    cc.sm.priority = static_cast<std::uint8_t>(n);
  });
}

Result<void> applyStateDir(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  if (!s || s->empty()) return expected(where, "sm.state_dir to be a directory path (string)");
  c.sm.stateDir = *s;
  return {};
}

Result<void> applySubnetPrefix(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  auto p = s ? parseHex64(*s) : std::nullopt;
  if (!p)
    return expected(where,
                    "sm.subnet_prefix to be a 64-bit hex string such as \"0xfe80000000000000\"");
  c.sm.subnetPrefix = *p;
  return {};
}

Result<void> applySweepInterval(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 86400>(c, v, w, "sm.sweep_interval", [](Config& cc, std::int64_t n) {
    cc.sm.sweepIntervalSeconds = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyMaxSweepsOnce(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 100>(c, v, w, "sm.max_sweeps_once", [](Config& cc, std::int64_t n) {
    cc.sm.maxSweepsOnce = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyPollingTimeout(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<100, 3600000>(c, v, w, "sm.polling_timeout_ms", [](Config& cc, std::int64_t n) {
    cc.sm.pollingTimeoutMs = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyPollingRetries(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 100>(c, v, w, "sm.polling_retries", [](Config& cc, std::int64_t n) {
    cc.sm.pollingRetries = static_cast<std::uint32_t>(n);
  });
}

// A 64-bit key: a hex string like the GUID keys, or a plain (non-negative)
// integer, since TOML integers stop at 2^63-1 and operators write both.
Result<void> applySmKey(Config& c, const toml::node& v, const std::string& where) {
  const auto k = key64(v);
  if (!k)
    return expected(
        where,
        "sm.sm_key to be a 64-bit hex string such as \"0x0000000000000001\" or an integer >= 0");
  c.sm.smKey = *k;
  return {};
}

Result<void> applyMaxVls(Config& c, const toml::node& v, const std::string& where) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < 1 || *n > 15)
    return expected(where, "routing.max_vls to be an integer from 1 to 15");
  c.routing.maxVls = static_cast<std::uint8_t>(*n);
  return {};
}

Result<void> applyStableRoutes(Config& c, const toml::node& v, const std::string& where) {
  auto b = v.value_exact<bool>();
  if (!b) return expected(where, "routing.stable_routes to be true or false");
  c.routing.stableRoutes = *b;
  return {};
}

Result<void> applyRebalanceInterval(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 31536000>(
      c, v, w, "routing.rebalance_interval",
      [](Config& cc, std::int64_t n) { cc.routing.rebalanceInterval = std::chrono::seconds(n); });
}

Result<void> applyThreads(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 1024>(c, v, w, "routing.threads", [](Config& cc, std::int64_t n) {
    cc.routing.threads = static_cast<unsigned>(n);
  });
}

Result<void> applyPartitionsFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s) return expected(where, "sm.partitions_file to be a path (string)");
  c.sm.partitionsFile = *s;
  return {};
}

Result<void> applyQosPolicyFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s) return expected(where, "qos.policy_file to be a path (string)");
  c.sm.qosPolicyFile = *s;
  return {};
}

Result<void> applyControlSocket(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s || s->empty()) return expected(where, "sm.control_socket to be a socket path (string)");
  // sockaddr_un holds 108 bytes including the terminating NUL.
  if (s->size() > 107) return expected(where, "sm.control_socket to be at most 107 bytes long");
  c.sm.controlSocket = *s;
  return {};
}

Result<void> applyHeadOfQueueLifetime(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 31>(c, v, w, "sm.head_of_queue_lifetime", [](Config& cc, std::int64_t n) {
    cc.sm.headOfQueueLifetime = static_cast<std::uint8_t>(n);
  });
}

Result<void> applyLeafHeadOfQueueLifetime(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 31>(c, v, w, "sm.leaf_head_of_queue_lifetime", [](Config& cc, std::int64_t n) {
    cc.sm.leafHeadOfQueueLifetime = static_cast<std::uint8_t>(n);
  });
}

Result<void> applySwitchLifeTime(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 31>(c, v, w, "sm.switch_life_time", [](Config& cc, std::int64_t n) {
    cc.sm.switchLifeTime = static_cast<std::uint8_t>(n);
  });
}

Result<void> applyMulticastBatch(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 10000>(c, v, w, "sm.multicast_batch_ms", [](Config& cc, std::int64_t n) {
    cc.sm.multicastBatchMs = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyTrapNoisyRate(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 100000>(c, v, w, "sm.trap_noisy_rate", [](Config& cc, std::int64_t n) {
    cc.sm.trapNoisyRate = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyTrapNoisyWindow(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 3600>(c, v, w, "sm.trap_noisy_window", [](Config& cc, std::int64_t n) {
    cc.sm.trapNoisyWindowSeconds = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyWindow(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 1024>(c, v, w, "mad.window", [](Config& cc, std::int64_t n) {
    cc.mad.window = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyTimeout(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 60000>(c, v, w, "mad.timeout_ms", [](Config& cc, std::int64_t n) {
    cc.mad.timeoutMs = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyRetries(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 20>(c, v, w, "mad.retries", [](Config& cc, std::int64_t n) {
    cc.mad.retries = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyMaxAttempts(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 64>(c, v, w, "mad.max_attempts", [](Config& cc, std::int64_t n) {
    cc.mad.maxAttempts = static_cast<std::uint32_t>(n);
  });
}

Result<void> applySubnetTimeout(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 31>(c, v, w, "sa.subnet_timeout", [](Config& cc, std::int64_t n) {
    cc.sa.subnetTimeout = static_cast<std::uint8_t>(n);
  });
}

Result<void> applyPacketLifeTime(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 63>(c, v, w, "sa.packet_life_time", [](Config& cc, std::int64_t n) {
    cc.sa.packetLifeTime = static_cast<std::uint8_t>(n);
  });
}

Result<void> applyMaxRecords(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 1048576>(c, v, w, "sa.max_records", [](Config& cc, std::int64_t n) {
    cc.sa.maxRecords = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyServiceLeaseMax(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 0xFFFFFFFFU>(
      c, v, w, "sa.service_lease_max_s",
      [](Config& cc, std::int64_t n) { cc.sa.serviceLeaseMaxS = static_cast<std::uint32_t>(n); });
}

Result<void> applyMaxJoinsPerPort(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 65536>(c, v, w, "sa.max_joins_per_port", [](Config& cc, std::int64_t n) {
    cc.sa.maxJoinsPerPort = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyMaxServicesPerPort(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 16384>(c, v, w, "sa.max_services_per_port", [](Config& cc, std::int64_t n) {
    cc.sa.maxServicesPerPort = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyCounterInterval(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<0, 86400>(c, v, w, "health.counter_interval", [](Config& cc, std::int64_t n) {
    cc.health.counterIntervalSeconds = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyCounterWindow(Config& c, const toml::node& v, const std::string& w) {
  return applyInt<1, 64>(c, v, w, "health.counter_window", [](Config& cc, std::int64_t n) {
    cc.health.counterWindow = static_cast<std::uint32_t>(n);
  });
}

Result<void> applyMetricsFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value_exact<std::string>();
  if (!s) return expected(where, "health.metrics_file to be a path (string)");
  c.health.metricsFile = *s;
  return {};
}

Result<void> applyPartitionsStrict(Config& c, const toml::node& v, const std::string& where) {
  auto b = v.value_exact<bool>();
  if (!b) return expected(where, "partitions.strict to be true or false");
  c.partitions.strict = *b;
  return {};
}

Result<void> applyLogFile(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  if (!s) return expected(where, "log.file to be a path (string; empty for stderr)");
  c.log.file = *s;
  return {};
}

Result<void> applyLogLevel(Config& c, const toml::node& v, const std::string& where) {
  auto s = v.value<std::string>();
  constexpr std::string_view kLevels[] = {"trace", "debug",    "info", "warn",
                                          "error", "critical", "off"};
  if (!s || std::ranges::find(kLevels, *s) == std::end(kLevels))
    return expected(where, "log.level to be one of trace, debug, info, warn, error, critical, off");
  c.log.level = *s;
  return {};
}

constexpr OptionSpec kOptions[] = {
    {"routing.engine", "string or list of strings", R"(["auto"])",
     "Routing engines to try in order: minhop, updn, ftree, ftree-vl, dragonfly, sssp, auto. The "
     "first that "
     "accepts the fabric routes it; the report names it and why the ones before it refused. "
     "Tables with a credit loop count as a refusal while another engine follows; the last "
     "engine's are programmed as they are, the subnet up with routes_credit_loop in status.",
     applyEngines},
    {"routing.root_guid_file", "path", R"("")",
     "File of root switch node GUIDs, one per line, for updn and ftree (default: detect roots).",
     applyRootGuidFile},
    {"routing.lmc", "integer 0-7", "0",
     "LID Mask Control: each CA port gets 2^lmc LIDs, each routed on its own path where possible.",
     applyLmc},
    {"routing.max_vls", "integer 1-15", "15",
     "Data VLs a routing engine may use to avoid credit loops (dragonfly: 2-3); the ports' VLCap "
     "lowers it (default: as many as the ports have). 1: every route on VL 0, no SL2VL tables.",
     applyMaxVls},
    {"routing.stable_routes", "boolean", "true",
     "Keep every LFT entry whose path survives a change: a lost cable or switch moves only the "
     "entries that used it, a host that reboots writes no block, and capacity that comes back "
     "restores the tables a fresh computation gives. false: tables computed afresh at every "
     "sweep (OpenSM's behaviour), which may move most entries for one lost cable.",
     applyStableRoutes},
    {"routing.rebalance_interval", "seconds 0-31536000", "0",
     "Tables mended in place after lost capacity are computed afresh once they have been so "
     "this long, at the next light sweep (the best balance for the fabric as it is, at the "
     "cost of moving entries). 0: only when the operator runs `ibsm sweep --rebalance`.",
     applyRebalanceInterval},
    {"routing.threads", "integer 0-1024", "0",
     "Threads routing and the analysis of its tables (the dry run's report, the live SM's "
     "verdict walk) compute on. 0: every core the process may use. Tables and report are the "
     "same for any count; `ibsm route --threads` overrides it.",
     applyThreads},
    {"sm.port_guid", "GUID string", R"("")",
     "Port GUID the SM runs on. Empty: the first active InfiniBand port, as OpenSM chooses.",
     applyPortGuid},
    {"sm.priority", "integer 0-15", "0",
     "SMInfo priority: the SM with the highest priority (then the lowest GUID) becomes master.",
     applyPriority},
    {"sm.state_dir", "path", R"("/var/lib/ibsm")",
     "Directory for state kept across restarts (guid2lid), written atomically.", applyStateDir},
    {"sm.subnet_prefix", "64-bit hex string", R"("0xfe80000000000000")",
     "PortInfo:GidPrefix written to every port that carries a LID.", applySubnetPrefix},
    {"sm.sweep_interval", "seconds 0-86400", "10",
     "Seconds between sweeps of a running master; 0 sweeps only when asked.", applySweepInterval},
    {"sm.max_sweeps_once", "integer 1-100", "5",
     "With --once: sweeps to try before giving up on bringing every reachable port up.",
     applyMaxSweepsOnce},
    {"sm.polling_timeout_ms", "milliseconds 100-3600000", "1000",
     "A standby SM polls the master's SMInfo this often (OpenSM's sminfo_polling_timeout, "
     "10000 there). A poll is one SMP (retried as mad.retries says before it counts as missed).",
     applyPollingTimeout},
    {"sm.polling_retries", "integer 1-100", "3",
     "Polls the master may leave unanswered in a row before the standby takes over "
     "(OpenSM's polling_retry_number, 4 there). With the defaults a dead master is found "
     "within 3 x 1 s plus one poll's wait for its answer: under 4 s.",
     applyPollingRetries},
    {"sm.sm_key", "64-bit hex string or integer", R"("0x0000000000000001")",
     "SMInfo SM_Key, OpenSM's default. Only SMs showing the same key take part in the election; "
     "control packets (but HANDOVER) must carry it; an SM showing another key is reported.",
     applySmKey},
    {"sm.control_socket", "path", R"("/run/ibsm/ibsm.sock")",
     "Unix socket the daemon listens on for `ibsm status` and `ibsm sweep`; its directory is "
     "created if missing.",
     applyControlSocket},
    {"sm.partitions_file", "path", R"("")",
     "OpenSM-style partitions.conf (man ibsm-partitions.conf). Empty: PKey tables are managed only "
     "if this file has [[partition]] tables.",
     applyPartitionsFile},
    {"sm.head_of_queue_lifetime", "integer 0-31", "18",
     "PortInfo:HOQLife of switch ports cabled to another switch: how long a packet may wait at "
     "the head of an output queue before the switch drops it, 4.096 us * 2^value (20 and above: "
     "never), which unblocks credit loops (OpenSM's head_of_queue_lifetime).",
     applyHeadOfQueueLifetime},
    {"sm.leaf_head_of_queue_lifetime", "integer 0-31", "16",
     "PortInfo:HOQLife of switch ports cabled to a CA or router, shorter so that a stuck host "
     "does not back traffic up into the fabric (OpenSM's leaf_head_of_queue_lifetime).",
     applyLeafHeadOfQueueLifetime},
    {"sm.switch_life_time", "integer 0-31", "18",
     "SwitchInfo:LifeTimeValue: how long a packet may live in a switch, 4.096 us * 2^value "
     "(20 and above: for ever) (OpenSM's packet_life_time).",
     applySwitchLifeTime},
    {"sm.multicast_batch_ms", "milliseconds 0-10000", "20",
     "How long multicast joins and leaves are gathered before one pass writes the MFT blocks "
     "they change: each join is answered at once, the switches follow within this time, and a "
     "burst of joins writes each block once rather than once per join.",
     applyMulticastBatch},
    {"sm.trap_noisy_rate", "traps per second 0-100000", "10",
     "A port sending more traps a second than this (averaged over sm.trap_noisy_window) is "
     "noisy: its traps are still repressed and counted but ask for no sweep until its rate is "
     "back under half of this for a window; `ibsm health` names it. 0: no port is ever noisy.",
     applyTrapNoisyRate},
    {"sm.trap_noisy_window", "seconds 1-3600", "2",
     "The window over which sm.trap_noisy_rate is averaged: a port is noisy after more than "
     "rate x window traps within it.",
     applyTrapNoisyWindow},
    {"mad.window", "integer 1-1024", "32",
     "SMPs outstanding at once (measured on ibsim: no gain past 16-32).", applyWindow},
    {"mad.timeout_ms", "milliseconds 1-60000", "200",
     "Time an SMP waits for its response on a path length whose round trips are not measured "
     "yet, each attempt (then see mad.timeout_min_ms); and the least the last attempt waits.",
     applyTimeout},
    {"mad.retries", "integer 0-20", "3",
     "Times an unanswered SMP is sent again before it counts as lost.", applyRetries},
    {"mad.max_attempts", "integer 1-64", "64",
     "Attempts an SMP may get on paths that lose MADs: as many as leave it a 1e-4 chance of "
     "failing at the loss seen lately on paths of its length (at least 1 + retries). 64: at "
     "20% loss per switch a 5-hop probe gets through about once in 9 attempts, and 16 leave "
     "one in 6 unanswered; a dead port on such a path costs 64 short timeouts, on a path "
     "that loses nothing 1 + retries.",
     applyMaxAttempts},
    {"sa.subnet_timeout", "integer 0-31", "18",
     "PortInfo:SubnetTimeout written to every port that carries a LID: how long its clients wait "
     "for the SA, 4.096 us * 2^value (OpenSM's subnet_timeout; 18 is about 1 s).",
     applySubnetTimeout},
    {"sa.packet_life_time", "integer 0-63", "18",
     "PacketLifeTime code the SA puts in PathRecords (OpenSM puts its subnet_timeout there).",
     applyPacketLifeTime},
    {"sa.max_records", "integer 1-1048576", "65536",
     "Records one SA answer carries at most (GetTable); a query matching more gets the first ones.",
     applyMaxRecords},
    {"sa.service_lease_max_s", "seconds 1-4294967295", "4294967295",
     "Longest ServiceRecord lease the SA grants; 4294967295 grants any, the IBA's indefinite lease "
     "included.",
     applyServiceLeaseMax},
    {"sa.max_joins_per_port", "integer 1-65536", "256",
     "Multicast groups one port may be a member of (MCMemberRecord Sets that add a membership); "
     "one more is refused with ERR_NO_RESOURCES and counted (sa_fairness joins_over_cap). IPoIB "
     "joins a handful per interface and partition.",
     applyMaxJoinsPerPort},
    {"sa.max_services_per_port", "integer 1-16384", "64",
     "ServiceRecords one port may own at once; one more is refused with ERR_NO_RESOURCES and "
     "counted (sa_fairness services_over_cap); renewing one it owns is never refused.",
     applyMaxServicesPerPort},
    {"health.counter_interval", "seconds 0-86400", "180",
     "Seconds between passes of the counter sweep (the performance manager): every linked "
     "port's PortCounters read over PerfMgt GMPs by the master, between sweeps; saturated "
     "counters cleared. 0: no counter sweep.",
     applyCounterInterval},
    {"health.counter_window", "integer 1-64", "8",
     "PerfMgt GMPs the counter sweep keeps outstanding at once. Modest: they share QP1 with the "
     "SA and the switches' management processors with the SM's SMPs.",
     applyCounterWindow},
    {"health.metrics_file", "path", R"("")",
     "Prometheus metrics (text format) for node_exporter's textfile collector, rewritten "
     "atomically after every sweep and counter pass: name it *.prom in the collector's "
     "directory. Empty: no file (`ibsm metrics` prints the same text).",
     applyMetricsFile},
    {"partitions.strict", "boolean", "true",
     "How the partitions file is read. true: whatever OpenSM would read past (an unknown flag, "
     "a flag value it cannot take, an mgid= group it cannot create, a membership it does not "
     "know, a last definition without ';') refuses the file, and the error says what OpenSM "
     "would have done instead. false: such items are skipped as OpenSM skips them, each logged "
     "with its file and line and counted. A line OpenSM cannot parse at all refuses the file "
     "either way.",
     applyPartitionsStrict},
    {"qos.policy_file", "path", R"("")",
     "OpenSM's qos-policy.conf (read unchanged): the QoS level -- SL, MTU, rate, packet life -- "
     "the SA gives each path. Empty: no policy. A file that does not parse refuses the start "
     "(file:line); reread on SIGHUP.",
     applyQosPolicyFile},
    {"log.file", "path", R"("")", "Log file; empty logs to stderr.", applyLogFile},
    {"log.level", "string", R"("info")",
     "Log level: trace, debug, info, warn, error, critical or off.", applyLogLevel},
};

}  // namespace

std::span<const OptionSpec> optionTable() {
  // One table: the keys above, the [health] ones (HealthOptions.cpp), the
  // control socket's access (ControlOptions.cpp), the M_Key ones
  // (MKeyOptions.cpp), the SA's fair queue's (SaQueueOptions.cpp), the QoS
  // ones (QosOptions.cpp) and the learnt timeouts' (MadOptions.cpp).
  static const std::vector<OptionSpec> all = [] {
    std::vector<OptionSpec> v(std::begin(kOptions), std::end(kOptions));
    const auto health = healthOptions();
    v.insert(v.end(), health.begin(), health.end());
    const auto control = controlOptions();
    v.insert(v.end(), control.begin(), control.end());
    const auto mKey = mKeyOptions();
    v.insert(v.end(), mKey.begin(), mKey.end());
    const auto saQueue = saQueueOptions();
    v.insert(v.end(), saQueue.begin(), saQueue.end());
    const auto qos = qosOptions();
    v.insert(v.end(), qos.begin(), qos.end());
    const auto madTimeouts = madOptions();
    v.insert(v.end(), madTimeouts.begin(), madTimeouts.end());
    return v;
  }();
  return all;
}

Result<LenientConfig> parseConfigLeniently(std::string_view text, std::string_view fileName) {
  const std::string file(fileName);
  toml::table root;
  try {
    root = toml::parse(text, fileName);
  } catch (const toml::parse_error& e) {
    return fail(fmt::format("{}:{}: {}", file, e.source().begin.line, e.description()));
  }
  LenientConfig out;
  for (const auto& [section, sectionNode] : root) {
    // [[partition]] tables belong to the partition manager (partition/).
    if (section.str() == "partition" && sectionNode.is_array_of_tables()) continue;
    const auto* table = sectionNode.as_table();
    if (!table) {
      out.problems.push_back(
          {std::string(section.str()), fmt::format("{}: expected a [section] table, found key '{}'",
                                                   lineOf(sectionNode, file), section.str())});
      continue;
    }
    for (const auto& [key, value] : *table) {
      const std::string full = fmt::format("{}.{}", section.str(), key.str());
      const auto options = optionTable();
      const auto spec = std::ranges::find(options, full, &OptionSpec::key);
      if (spec == options.end()) {
        out.problems.push_back({full, fmt::format("{}: unknown key '{}' (see man ibsm.toml)",
                                                  lineOf(value, file), full)});
        continue;
      }
      // An apply stores nothing when it fails: the key keeps its default.
      if (auto ok = spec->apply(out.config, value, lineOf(value, file)); !ok)
        out.problems.push_back({full, ok.error().message});
    }
  }
  // Keys that bound each other, once every key is read.
  if (auto problem = checkSaQueue(root, out.config, file)) out.problems.push_back(*problem);
  if (auto problem = checkMadTimeouts(root, out.config, file)) out.problems.push_back(*problem);
  return out;
}

Result<Config> parseConfig(std::string_view text, std::string_view fileName) {
  auto lenient = parseConfigLeniently(text, fileName);
  if (!lenient) return std::unexpected(lenient.error());
  if (!lenient->problems.empty()) return fail(lenient->problems.front().message);
  return std::move(lenient->config);
}

Result<Config> loadConfig(const std::filesystem::path& path, bool required) {
  std::ifstream in(path);
  if (!in) {
    if (!required) return Config{};
    return fail(fmt::format("{}: cannot read config file", path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseConfig(text.str(), path.string());
}

}  // namespace ibsm::sm::config
