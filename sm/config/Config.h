// ibsm's configuration: parsed once from TOML into an immutable typed
// struct. Every key is declared in one option table (name, type, default,
// doc); conf/ibsm.toml and man/ibsm.toml.5 are tested against that table,
// so the three cannot drift apart. Unknown keys and ill-typed values are
// errors naming file, line and what was expected.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Ids.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/QosOptions.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sm/health/HealthSettings.h"
#include "sm/security/MKeySettings.h"

namespace toml {
inline namespace v3 {
class node;
}
}  // namespace toml

namespace ibsm::sm::config {

struct RoutingConfig {
  std::vector<std::string> engines{"auto"};  // tried in order until one accepts the fabric
  std::optional<std::filesystem::path> rootGuidFile;
  std::uint8_t lmc{0};
  // Data VLs an engine may use against credit loops (dragonfly); the ports'
  // VLCap lowers it further. 1: one VL, no SL2VL tables to program.
  std::uint8_t maxVls{15};
  // Keep every entry whose path survives a change; only those that used
  // what was lost move (StableRoutes.h). False: fresh tables at every plan.
  bool stableRoutes{true};
  // Tables kept through changes are computed afresh once this old; 0:
  // only on `ibsm sweep --rebalance`.
  std::chrono::seconds rebalanceInterval{0};
  // Threads routing and the analysis of its tables may compute on; 0: every
  // core. Tables and report are the same for any count (ParallelFor.h).
  unsigned threads{0};
};

// Who may use the control socket, and how long a client may take to ask
// (sm.control_group, sm.control_timeout_ms; sm/control/RequestAccess.h).
struct ControlAccessConfig {
  std::string group;                 // empty: the socket is the daemon's user's alone (0600)
  std::optional<std::uint32_t> gid;  // the group's id, looked up when the key is read
  std::uint32_t requestTimeoutMs{3000};
};

struct SmConfig {
  std::optional<Guid> portGuid;  // unset: the first active IB port
  std::uint8_t priority{0};      // SMInfo priority 0-15
  std::filesystem::path stateDir{"/var/lib/ibsm"};
  std::uint64_t subnetPrefix{0xfe80000000000000ULL};
  std::uint32_t sweepIntervalSeconds{10};  // 0: sweep only when asked
  std::uint32_t maxSweepsOnce{5};          // --once gives up after this many sweeps
  std::uint32_t pollingTimeoutMs{1000};    // a standby polls the master this often
  std::uint32_t pollingRetries{3};         // unanswered polls before the master counts as gone
  std::uint64_t smKey{kDefaultSmKey};      // SMInfo SM_Key (OpenSM's default)
  std::filesystem::path controlSocket{"/run/ibsm/ibsm.sock"};
  ControlAccessConfig control;
  // OpenSM-style partitions.conf; empty: PKey tables are managed only when
  // the config file has [[partition]] tables, else left as they are.
  std::filesystem::path partitionsFile;  // `ibsm status` / `ibsm sweep`
  // qos.policy_file: OpenSM's qos-policy.conf (qos/QosPolicyFile.cpp);
  // empty: no QoS policy, paths get the partition's SL as before. Kept with
  // the other file paths the daemon reads at start and on SIGHUP.
  std::filesystem::path qosPolicyFile;
  // Timeouts the SM programs into the switches, 4.096 us * 2^value each (20
  // and above: infinite), OpenSM's defaults and names: PortInfo:HOQLife of
  // switch ports cabled to a switch (head_of_queue_lifetime) and to a CA or
  // router (leaf_head_of_queue_lifetime), SwitchInfo:LifeTimeValue
  // (OpenSM's packet_life_time).
  std::uint8_t headOfQueueLifetime{0x12};
  std::uint8_t leafHeadOfQueueLifetime{0x10};
  std::uint8_t switchLifeTime{0x12};
  // Joins and leaves gathered before one multicast pass programs their MFT
  // blocks (sm/manager/MulticastService.h).
  std::uint32_t multicastBatchMs{20};
  // A port sending more traps a second than this, averaged over the window,
  // is noisy: its traps ask for no sweep until it calms down
  // (sm/health/TrapWatch.h). 0: never.
  std::uint32_t trapNoisyRate{10};
  std::uint32_t trapNoisyWindowSeconds{2};
  ibsm::security::MKeySettings mKey;  // sm.m_key* (issue 29): M_Key protection
};

struct MadConfig {
  std::uint32_t window{32};        // measured on ibsim: no gain past 16-32
  std::uint32_t perNodeWindow{1};  // SMPs to one node at most; 0: no limit
  std::uint32_t timeoutMs{200};    // before any round trip is measured
  std::uint32_t timeoutMinMs{2};   // learnt timeouts' floor (sm/mad/MadRto.h)
  std::uint32_t timeoutMaxMs{50};  // and cap, back-off included
  std::uint32_t retries{3};
  std::uint32_t maxAttempts{64};  // on paths that lose MADs (sm/mad/MadLoss.h)
};

// Subnet Administration: what the SA answers with and how much it keeps.
struct SaConfig {
  std::uint8_t subnetTimeout{18};   // PortInfo:SubnetTimeout, 4.096 us * 2^value (OpenSM's 18)
  std::uint8_t packetLifeTime{18};  // PathRecord:PacketLifeTime code (OpenSM's packet_life_time)
  std::uint32_t maxRecords{65536};  // records in one answer at most
  // The longest ServiceRecord lease granted, seconds; 0xFFFFFFFF: any,
  // indefinite ones included (the IBA's "infinite" lease).
  std::uint32_t serviceLeaseMaxS{0xFFFFFFFFU};
  // Per-port caps: groups one port may be a member of, ServiceRecords one
  // port may own (past them: NO_RESOURCES).
  std::uint32_t maxJoinsPerPort{256};
  std::uint32_t maxServicesPerPort{64};
  // The fair queue of SA requests (sm/sa/FairQueue.h, SaQueueOptions.cpp):
  // requests one requester may have waiting, requests waiting in all (never
  // fewer than one requester's), and requests read in a row before a turn
  // of answers is served though more wait to be read.
  std::uint32_t queuePerRequester{16};
  std::uint32_t queueTotal{4096};
  std::uint32_t queueReadsPerTurn{8};
};

// [health] (issue 16): the counter sweep (sm/health/CounterSweep.h), what
// the health book judges and what the policy does, and the metrics file. The threshold files are
// read by the daemon (at start and on SIGHUP), where a bad one is reported with its file and line.
struct HealthConfig {
  std::uint32_t counterIntervalSeconds{180};  // 0: no counter sweep
  std::uint32_t counterWindow{8};             // PerfMgt GMPs outstanding at once
  std::filesystem::path thresholdFile;        // empty: any count is over (ibqueryerrors' 0)
  std::filesystem::path rateThresholdFile;    // empty: rates per hour are not judged
  // "report" or "isolate", by condition.
  bool isolateErrors{false};
  bool isolateDowngraded{false};
  bool isolateFlapping{false};
  // A condition gone this long: an errors port is clean, an isolated link re-admitted.
  std::chrono::seconds cleanPeriod{600};
  std::uint32_t flapCount{5};  // more downs than this within flapWindow: flapping
  std::chrono::seconds flapWindow{600};
  // Prometheus metrics for node_exporter's textfile collector, rewritten
  // (temp file + rename) after every sweep and counter pass; empty: none.
  std::filesystem::path metricsFile;
};

// [partitions]: how the partitions file is read (include/ibsm/Partitions.h
// PartitionsFileOptions).
struct PartitionsConfig {
  // false: what OpenSM reads past in a partitions.conf (an unknown flag, a
  // value it cannot take, ...) is skipped with a warning, not refused.
  bool strict{true};
};

struct LogConfig {
  std::filesystem::path file;  // empty: stderr
  std::string level{"info"};
};

struct Config {
  RoutingConfig routing;
  SmConfig sm;
  MadConfig mad;
  SaConfig sa;
  HealthConfig health;
  PartitionsConfig partitions;
  LogConfig log;
  // [qos]: opensm.conf's qos_* options (sm/config/QosOptions.cpp).
  qos::QosOptions qosOptions;
};

struct OptionSpec {
  std::string_view key;           // "section.name"
  std::string_view type;          // as the man page shows it
  std::string_view defaultValue;  // TOML literal
  std::string_view doc;
  // Stores the value into the config; `where` is "file:line" for errors.
  Result<void> (*apply)(Config& config, const toml::node& value, const std::string& where);
};

std::span<const OptionSpec> optionTable();

// The [health] keys as the daemon runs with them, the threshold files
// read: an error names the file and line of a bad one.
[[nodiscard]] Result<health::HealthSettings> healthSettings(const HealthConfig& config);

[[nodiscard]] Result<Config> parseConfig(std::string_view text, std::string_view fileName);

// A key parseConfig() would refuse: unknown, ill-typed or out of range.
struct KeyProblem {
  std::string key;      // "sm.priorty"; the section's name for a key outside any section
  std::string message;  // "file:line: ..." as parseConfig() says it
};
struct LenientConfig {
  Config config;  // every good key applied, the others at their defaults
  std::vector<KeyProblem> problems;
};
// Every key that can be applied, and what is wrong with the others, for the
// commands that need one key and must not be locked out by a typo in
// another (ControlSocket.h). A file that is not TOML at all is an error.
[[nodiscard]] Result<LenientConfig> parseConfigLeniently(std::string_view text,
                                                         std::string_view fileName);
// A missing file is an error only when `required` (an explicit --config).
[[nodiscard]] Result<Config> loadConfig(const std::filesystem::path& path, bool required);

}  // namespace ibsm::sm::config
