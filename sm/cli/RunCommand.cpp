#include "sm/cli/RunCommand.h"

#include <fmt/format.h>
#include <ibsm/Engines.h>
#include <ibsm/GuidList.h>
#include <ibsm/Partitions.h>
#include <ibsm/Report.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <filesystem>
#include <optional>
#include <variant>

#include "sm/cli/JournalSink.h"
#include "sm/cli/LogFile.h"
#include "sm/cli/ServiceNotify.h"
#include "sm/config/ConfigInUse.h"
#include "sm/config/FileModes.h"
#include "sm/config/PartitionSources.h"
#include "sm/config/PlanSettings.h"
#include "sm/config/QosPolicySource.h"
#include "sm/files/FileIo.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/SaFeed.h"
#include "sm/manager/SignalWatch.h"
#include "sm/manager/SmDaemon.h"
#include "sm/manager/StateStore.h"
#include "sm/sa/Notifier.h"
#include "sm/sa/SaResponder.h"
#include "sm/security/KeyScheme.h"
#include "sm/security/MKeySettings.h"
#include "sm/transport/UmadTransport.h"

namespace ibsm::sm::cli {
namespace {

struct Setup {
  config::Config config;
  std::optional<transport::UmadPortName> portName;  // --port DEVICE:PORT
  sm::manager::SweepSettings sweep;
  std::vector<McGroupSpec> multicastGroups;  // the partitions' pre-created groups
  sm::health::HealthSettings health;         // [health], threshold files read
  // partitions.strict = false: items of the partitions file read past.
  std::vector<partition::IgnoredItem> partitionsIgnored;
  // sm.m_key*: the scheme is made from them once the state directory exists.
  security::MKeySettings mKey;
};

// The M_Keys ports are given: one configured key, or keys derived from the
// secret (sm.m_key_secret_file, else the state directory's, made at first
// start: security::schemeFor). A secret that cannot be read refuses the start.
Result<security::KeyScheme> mKeyScheme(const security::MKeySettings& s,
                                       const std::filesystem::path& stateDir) {
  auto scheme = security::schemeFor(s, stateDir);
  if (!scheme) return std::unexpected(Error{scheme.error()});
  return *scheme;
}

void applyMKeys(Setup& s, const security::KeyScheme& keys) {
  s.sweep.program.mKeys = keys;
  s.sweep.program.mKeyProtectBits = s.mKey.protectBits;
  s.sweep.program.mKeyLeaseSeconds = s.mKey.leaseSeconds;
}

// Each item the partitions file had that was read past as OpenSM reads it,
// and how many: logged at start and at every SIGHUP that reads the file.
void logIgnoredPartitionItems(spdlog::logger& log,
                              const std::vector<partition::IgnoredItem>& ignored) {
  for (const auto& i : ignored)
    log.warn("SM-0443 partitions file: {}: ignored: {}", i.where, i.what);
  if (!ignored.empty())
    log.warn("SM-0444 partitions file read with partitions.strict = false: {} items ignored",
             ignored.size());
}

Result<Guid> parseGuidArg(const std::string& text) {
  const auto v = parseHex64(text);
  if (!v || *v == 0)
    return fail(fmt::format("--guid {}: expected a port GUID such as 0x0002c90300a1b2c3", text));
  return Guid{*v};
}

// --port: "0x0002c903000e0b71" (a GUID) or "mlx5_0:1" (device and port).
Result<std::variant<Guid, transport::UmadPortName>> parsePortArg(const std::string& text) {
  const auto bad = [&] {
    return fail(fmt::format(
        "--port {}: expected a port GUID (0x0002c90300a1b2c3) or device:port (mlx5_0:1)", text));
  };
  if (text.starts_with("0x") || text.starts_with("0X")) {
    const auto v = parseHex64(text);
    if (!v || *v == 0) return bad();
    return Guid{*v};
  }
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return bad();
  const std::string number = text.substr(colon + 1);
  if (number.size() > 3 || number.find_first_not_of("0123456789") != std::string::npos)
    return bad();
  const int port = std::stoi(number);
  if (port < 1 || port > 254) return bad();
  return transport::UmadPortName{text.substr(0, colon), port};
}

// The logger, and its file when it writes one: reopened on SIGHUP.
struct Logging {
  std::shared_ptr<spdlog::logger> logger;
  std::shared_ptr<LogFileSink> file;
};

Result<Logging> makeLogger(const config::LogConfig& log) {
  try {
    Logging made;
    if (log.file.empty() && stderrIsJournal()) {
      made.logger = std::make_shared<spdlog::logger>("ibsm", std::make_shared<JournalSink>());
    } else if (log.file.empty()) {
      made.logger = spdlog::stderr_color_mt("ibsm");
    } else {
      made.file = std::make_shared<LogFileSink>(log.file);
      made.logger = std::make_shared<spdlog::logger>("ibsm", made.file);
    }
    made.logger->set_level(spdlog::level::from_str(log.level));
    made.logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(made.logger);
    return made;
  } catch (const spdlog::spdlog_ex& e) {
    return fail(fmt::format("log.file {}: {}", log.file.string(), e.what()));
  }
}

// SIGHUP: the log file opened again at its path, so the lines after a
// logrotate go to the new file. A path that cannot be opened is said on
// stderr (the log has nowhere to go), and the daemon runs on.
void reopenLog(const Logging& logging, const std::filesystem::path& path) {
  if (!logging.file) return;
  try {
    logging.file->reopen();
  } catch (const spdlog::spdlog_ex& e) {
    fmt::print(stderr, "ibsm run: log.file {}: {}\n", path.string(), e.what());
  }
}

// --guid, --port, --control-socket and --priority over the config's values.
Result<void> applyPortFlags(const RunArgs& args, Setup& s) {
  auto& c = s.config;
  if (args.guid) {
    auto g = parseGuidArg(*args.guid);
    if (!g) return std::unexpected(g.error());
    c.sm.portGuid = *g;
  }
  if (args.port) {
    if (args.guid) return fail("--port and --guid both name the port: give one");
    auto where = parsePortArg(*args.port);
    if (!where) return std::unexpected(where.error());
    if (const auto* g = std::get_if<Guid>(&*where))
      c.sm.portGuid = *g;
    else
      s.portName = std::get<transport::UmadPortName>(*where);
  }
  if (args.controlSocket) {
    // sockaddr_un's limit, as sm.control_socket has it.
    if (args.controlSocket->empty() || args.controlSocket->string().size() > 107)
      return fail(fmt::format("--control-socket {}: expected a socket path of 1 to 107 bytes",
                              args.controlSocket->string()));
    c.sm.controlSocket = *args.controlSocket;
  }
  if (args.priority) {
    if (*args.priority < 0 || *args.priority > 15)
      return fail(fmt::format("--priority {}: expected 0 to 15", *args.priority));
    c.sm.priority = static_cast<std::uint8_t>(*args.priority);
  }
  return {};
}

// The QoS policy as `ibsm route --qos-policy` reads it; a bad one refuses
// the start, and on SIGHUP keeps the running one (file:line either way).
Result<void> applyQosPolicy(const RunArgs& args, Setup& s) {
  // Orders, like the partitions file: refused if another user could write it.
  const auto file = args.qosPolicy.value_or(s.config.sm.qosPolicyFile);
  if (!file.empty())
    if (auto ok = config::checkTrustedFile(file, "QoS policy file", ::geteuid()); !ok) return ok;
  auto policy = config::readQosPolicySource(s.config, args.qosPolicy);
  if (!policy) return std::unexpected(policy.error());
  if (args.qosPolicy) s.config.sm.qosPolicyFile = *args.qosPolicy;
  s.sweep.qosPolicy = std::move(*policy);
  return {};
}

// Reads and checks everything; sends nothing. Called again on SIGHUP, so it
// must not create anything that exists once per process (the logger).
Result<Setup> prepare(const RunArgs& args) {
  auto in = config::loadConfigInUse(args.config);
  if (!in) return std::unexpected(in.error());
  Setup s;
  s.config = in->config;
  auto& c = s.config;
  if (auto flags = applyPortFlags(args, s); !flags) return std::unexpected(flags.error());
  // Files another user could have written are refused before they are used.
  if (auto trusted = config::checkDaemonFiles(*in, c, args.partitions); !trusted)
    return std::unexpected(trusted.error());
  // What `ibsm route` plans from the same config and flags.
  auto plan = config::planInputs(c, {.engines = args.engines, .lmc = args.lmc}, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  s.sweep.plan = std::move(*plan);
  s.sweep.stableRoutes = c.routing.stableRoutes;
  s.sweep.rebalanceInterval = c.routing.rebalanceInterval;
  if (args.stateDir) c.sm.stateDir = *args.stateDir;
  if (args.logFile) c.log.file = *args.logFile;
  if (args.logLevel) c.log.level = *args.logLevel;
  if (spdlog::level::from_str(c.log.level) == spdlog::level::off && c.log.level != "off")
    return fail(fmt::format(
        "--log-level {}: expected trace, debug, info, warn, error, critical or off", c.log.level));
  s.mKey = c.sm.mKey;
  s.sweep.program.subnetPrefix = c.sm.subnetPrefix;
  s.sweep.program.subnetTimeout = c.sa.subnetTimeout;
  s.sweep.program.headOfQueueLifetime = c.sm.headOfQueueLifetime;
  s.sweep.program.leafHeadOfQueueLifetime = c.sm.leafHeadOfQueueLifetime;
  s.sweep.program.switchLifeTime = c.sm.switchLifeTime;
  s.sweep.qos = c.qosOptions;
  // What `ibsm partitions` plans from the same config and flags.
  auto partitions = config::readPartitionSources(*in, args.partitions);
  if (!partitions) return std::unexpected(partitions.error());
  if (args.partitions) c.sm.partitionsFile = *args.partitions;
  s.partitionsIgnored = partitions->ignored;
  // IPoIB broadcast groups and mgid= lines: bad values fail here, before
  // anything is sent.
  auto groups = partition::multicastGroups(*partitions);
  if (!groups) return std::unexpected(groups.error());
  s.multicastGroups = std::move(*groups);
  s.sweep.partitions = [config = std::move(*partitions)](const Fabric& fabric, Guid smPort) {
    return partition::planPartitions(fabric, config, smPort);
  };
  if (auto qos = applyQosPolicy(args, s); !qos) return std::unexpected(qos.error());
  // A threshold file that does not parse: refused here (file:line), at start
  // and on SIGHUP alike, before it can change anything.
  auto health = config::healthSettings(c.health);
  if (!health) return std::unexpected(health.error());
  s.health = std::move(*health);
  // A state file that does not parse would lose LIDs: refuse before sending.
  if (auto saved = sm::manager::StateStore(c.sm.stateDir).loadGuid2Lid(); !saved)
    return std::unexpected(saved.error());
  return s;
}

sm::manager::DaemonSettings daemonSettings(const Setup& s) {
  const auto& c = s.config;
  sm::manager::DaemonSettings d;
  d.sweep = s.sweep;
  d.sweepInterval = std::chrono::seconds(c.sm.sweepIntervalSeconds);
  d.pollingTimeout = std::chrono::milliseconds(c.sm.pollingTimeoutMs);
  d.pollingRetries = c.sm.pollingRetries;
  d.priority = c.sm.priority;
  d.smKey = c.sm.smKey;
  d.controlSocket = c.sm.controlSocket;
  d.controlAccess = {.readGroup = c.sm.control.gid,
                     .readGroupName = c.sm.control.group,
                     .requestDeadline = std::chrono::milliseconds(c.sm.control.requestTimeoutMs)};
  d.multicastBatch = std::chrono::milliseconds(c.sm.multicastBatchMs);
  d.traps.noisyRate = c.sm.trapNoisyRate;
  d.traps.window = std::chrono::seconds(c.sm.trapNoisyWindowSeconds);
  d.traps.lmc = c.routing.lmc;
  d.saQueue = {.perRequester = c.sa.queuePerRequester, .total = c.sa.queueTotal};
  d.saReadsPerTurn = c.sa.queueReadsPerTurn;
  d.multicastGroups = s.multicastGroups;
  d.counterInterval = std::chrono::seconds(c.health.counterIntervalSeconds);
  d.counterWindow = c.health.counterWindow;
  d.health = s.health;
  d.metricsFile = c.health.metricsFile;
  d.logLevel = c.log.level;
  // Keys derived from a secret rotate (the file a rotation rewrites);
  // sm.m_key's one key cannot (refused with sm.m_key_rotate_interval).
  if (s.mKey.enabled && !s.mKey.singleKey)
    d.mKeyRotation.secretFile = security::secretPath(s.mKey, c.sm.stateDir);
  d.mKeyRotation.interval = s.mKey.rotateInterval;
  return d;
}

}  // namespace

void addRunCommand(CLI::App& app, RunArgs& args) {
  auto* cmd = app.add_subcommand("run", "Run as the master subnet manager on a port");
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config (default {} if present)", config::kDefaultConfigPath));
  cmd->add_option("-P,--partitions", args.partitions,
                  "OpenSM-style partitions.conf (overrides sm.partitions_file)");
  cmd->add_option("--qos-policy", args.qosPolicy,
                  "OpenSM's qos-policy.conf: the QoS level of each path (overrides "
                  "qos.policy_file)");
  cmd->add_option("-g,--guid", args.guid, "Port GUID to run on (default: first active port)");
  cmd->add_option("--port", args.port,
                  "Port to run on as a GUID or device:port, e.g. mlx5_0:1 (ibsm@.service's "
                  "instance)");
  cmd->add_option("--control-socket", args.controlSocket,
                  "Control socket to listen on (overrides sm.control_socket)");
  cmd->add_option("-p,--priority", args.priority, "SMInfo priority 0-15");
  cmd->add_option("-R,--engine", args.engines, "Routing engine(s) to try in order")->delimiter(',');
  cmd->add_option("--lmc", args.lmc, "LID Mask Control (0-7)");
  cmd->add_flag(
      "-o,--once", args.once,
      "Sweep until the subnet is up, then exit (0: every reachable port ACTIVE and routed; 1: "
      "not up after sm.max_sweeps_once sweeps, another SM has the subnet, or stopped)");
  cmd->add_option("--state-dir", args.stateDir, "Directory for guid2lid (default /var/lib/ibsm)");
  cmd->add_option("-f,--log-file", args.logFile, "Log to this file instead of stderr");
  cmd->add_option("--log-level", args.logLevel, "trace, debug, info, warn, error, critical, off");
  cmd->add_option("--stats", args.stats,
                  "When the run ends, write its status and counters here as JSON (as ibsm status "
                  "--json prints them, with how it ended)");
}

namespace {

MadEngineOptions engineOptions(const config::Config& c, loop::EventLoop& loop,
                               std::shared_ptr<spdlog::logger> logger) {
  MadEngineOptions o;
  o.window = c.mad.window;
  o.perNodeWindow = c.mad.perNodeWindow;
  o.timeout = std::chrono::milliseconds(c.mad.timeoutMs);
  o.timeoutMin = std::chrono::milliseconds(c.mad.timeoutMinMs);
  o.timeoutMax = std::chrono::milliseconds(c.mad.timeoutMaxMs);
  o.retries = c.mad.retries;
  o.maxAttempts = c.mad.maxAttempts;
  o.clock = loop.clock();
  o.waiter = &loop;
  o.logger = std::move(logger);
  return o;
}

// What the SA answers with, from the configuration: the PacketLifeTime of
// paths, the records and leases it grants at most, and the key that lets a
// requester see PKey tables (the SM_Key, as OpenSM's sa_key defaults to its
// sm_key).
sa::SaSettings saSettings(const config::Config& c) {
  sa::SaSettings s;
  s.packetLifeTime = c.sa.packetLifeTime;
  s.saKey = c.sm.smKey;
  s.maxRecords = c.sa.maxRecords;
  s.serviceLeaseMaxS = c.sa.serviceLeaseMaxS;
  s.maxJoinsPerPort = c.sa.maxJoinsPerPort;
  s.maxServicesPerPort = c.sa.maxServicesPerPort;
  return s;
}

// What the run leaves behind once the daemon returned: the --stats file and,
// for the operator (or the script) that ran --once, the route verdict.
int afterRun(const RunArgs& args, const sm::manager::SmDaemon& daemon, int status) {
  if (args.stats) {
    if (auto saved =
            files::writeFileAtomically(*args.stats, control::formatStatusJson(daemon.status()));
        !saved) {
      fmt::print(stderr, "ibsm run: --stats: {}\n", saved.error().message);
      return status == 0 ? 1 : status;
    }
  }
  if (args.once && status == 0)
    if (const sm::manager::SweepResult* last = daemon.lastResult())
      fmt::print("{}", reportSummary(last->report));
  return status;
}

// --once is the daemon's state machine with an end (SmDaemon.h): it stops
// when the subnet is up or after sm.max_sweeps_once heavy sweeps, and
// opens no control socket (it needs no writable /run/ibsm).
sm::manager::DaemonSettings startSettings(const RunArgs& args, const Setup& setup) {
  sm::manager::DaemonSettings settings = daemonSettings(setup);
  if (args.once) {
    settings.onceMaxSweeps = setup.config.sm.maxSweepsOnce;
    settings.controlSocket.clear();
  }
  return settings;
}

// A run refused before the daemon starts: said on stderr, exit 2.
int refuse(const Error& error) {
  fmt::print(stderr, "ibsm run: {}\n", error.message);
  return 2;
}

// Everything once the port is open: the one loop, the engine, the daemon and
// what it serves (SA, multicast, notices), until the daemon returns.
int serve(const RunArgs& args, const Setup& setup, const Logging& logging,
          const sm::manager::StateStore& store, sm::manager::SignalWatch& signals,
          transport::UmadTransport& umad) {
  const auto& c = setup.config;
  const std::shared_ptr<spdlog::logger> logger = logging.logger;
  auto& log = *logger;
  const transport::UmadPort port = umad.port();
  log.info("SM-0002 ibsm starting on {} port {} (GUID {}), priority {}", port.caName,
           port.portNumber, port.portGuid, c.sm.priority);

  // The one loop and the one clock: the engine waits through the loop, so
  // its waits serve the signal fd and the control socket too (SmDaemon.h).
  loop::EventLoop loop;
  MadEngine engine(umad, engineOptions(c, loop, logger));

  const auto reload = [&args, &log,
                       keys = setup.sweep.program.mKeys]() -> Result<sm::manager::DaemonSettings> {
    auto fresh = prepare(args);
    if (!fresh) return std::unexpected(fresh.error());
    applyMKeys(*fresh, keys);  // the secret is read once, at start
    logIgnoredPartitionItems(log, fresh->partitionsIgnored);
    return daemonSettings(*fresh);
  };
  sm::manager::SmDaemon daemon(engine, loop, store, port.portGuid, startSettings(args, setup),
                               reload, logger);
  // Subnet Administration: answered while master from the snapshot of the
  // last sweep that programmed (SaFeed.h), on the engine's clock.
  auto sa = std::make_shared<sa::SaResponder>(nullptr, loop.clock());
  daemon.serveSa(umad, sa);
  daemon.onSubnetProgrammed([sa, settings = saSettings(c)](const sm::manager::SweepResult& result,
                                                           const program::HeldSubnet& held,
                                                           const SmInfo& self) {
    sa->setSubnet(sm::manager::saSnapshot(result, held, self, settings));
  });
  daemon.describeSa([sa](control::SaStatus& c) { sm::manager::describeSa(*sa, c); });
  // Multicast: the SA's groups are what every sweep and every pass routes.
  daemon.manageMulticast(sm::manager::multicastGroupsOf(sa));
  // Notices: traps 64/65 and the traps received, as Reports to subscribers.
  {
    const sa::SaSettings s = saSettings(c);
    sa::ReportSettings reports;
    reports.packetLifeTime = s.packetLifeTime;
    daemon.sendNotices(std::make_shared<sa::Notifier>(sa, s.subnetPrefix, reports));
  }
  daemon.onLifecycle(tellServiceManager);
  if (signals.fd() >= 0)
    loop.watch(signals.fd(), [&] {
      while (auto sig = signals.poll()) {
        if (*sig == SIGHUP) reopenLog(logging, c.log.file);
        daemon.signal(*sig);
      }
    });
  const int status = daemon.run();
  loop.unwatch(signals.fd());
  return afterRun(args, daemon, status);
}

}  // namespace

int runRun(const RunArgs& args) {
  auto setup = prepare(args);
  if (!setup) return refuse(setup.error());
  auto logging = makeLogger(setup->config.log);
  if (!logging) return refuse(logging.error());
  // Bad setup, like a bad config: exit 2 before the port opens. A run that
  // could not save guid2lid would hand ports other LIDs when it restarts.
  sm::manager::StateStore store(setup->config.sm.stateDir);
  auto ready = store.prepare();
  if (!ready) return refuse(ready.error());
  for (const auto& tightened : *ready) logging->logger->warn("SM-0810 {}", tightened);
  auto keys = mKeyScheme(setup->mKey, setup->config.sm.stateDir);
  if (!keys) return refuse(keys.error());
  applyMKeys(*setup, *keys);
  logIgnoredPartitionItems(*logging->logger, setup->partitionsIgnored);

  // Before the port opens: a signal mask is per thread, and a thread started
  // without it (umad2sim's receiver is one) would take SIGTERM's default
  // action and kill the SM instead of letting it stop cleanly. The signals
  // are then read from the signalfd by the event loop, also in the middle
  // of a sweep, so SIGTERM and Ctrl-C stop the daemon and --once alike
  // within milliseconds.
  sm::manager::SignalWatch signals;

  transport::UmadOptions portOptions;
  portOptions.portGuid = setup->config.sm.portGuid;
  portOptions.portName = setup->portName;
  auto transport = transport::UmadTransport::open(portOptions);
  if (!transport) return refuse(transport.error());
  return serve(args, *setup, *logging, store, signals, **transport);
}

}  // namespace ibsm::sm::cli
