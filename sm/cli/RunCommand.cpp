#include "RunCommand.h"

#include <fmt/format.h>
#include <ibsm/Engines.h>
#include <ibsm/GuidList.h>
#include <ibsm/Partitions.h>
#include <ibsm/Report.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <filesystem>
#include <optional>

#include "ConfigInUse.h"
#include "MasterSweep.h"
#include "PartitionSources.h"
#include "PlanSettings.h"
#include "SignalWatch.h"
#include "SmDaemon.h"
#include "SmInfoAgent.h"
#include "StateStore.h"
#include "UmadTransport.h"

namespace ibsm::cli {
namespace {

struct Setup {
  config::Config config;
  sm::SweepSettings sweep;
};

Result<Guid> parseGuidArg(const std::string& text) {
  const auto v = parseHex64(text);
  if (!v || *v == 0)
    return fail(fmt::format("--guid {}: expected a port GUID such as 0x0002c90300a1b2c3", text));
  return Guid{*v};
}

Result<std::shared_ptr<spdlog::logger>> makeLogger(const config::LogConfig& log) {
  try {
    std::shared_ptr<spdlog::logger> logger;
    if (log.file.empty())
      logger = spdlog::stderr_color_mt("ibsm");
    else
      logger = spdlog::basic_logger_mt("ibsm", log.file.string());
    logger->set_level(spdlog::level::from_str(log.level));
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    return logger;
  } catch (const spdlog::spdlog_ex& e) {
    return fail(fmt::format("log.file {}: {}", log.file.string(), e.what()));
  }
}

// Reads and checks everything; sends nothing. Called again on SIGHUP, so it
// must not create anything that exists once per process (the logger).
Result<Setup> prepare(const RunArgs& args) {
  auto in = config::loadConfigInUse(args.config);
  if (!in) return std::unexpected(in.error());
  Setup s;
  s.config = in->config;
  auto& c = s.config;
  if (args.guid) {
    auto g = parseGuidArg(*args.guid);
    if (!g) return std::unexpected(g.error());
    c.sm.portGuid = *g;
  }
  if (args.priority) {
    if (*args.priority < 0 || *args.priority > 15)
      return fail(fmt::format("--priority {}: expected 0 to 15", *args.priority));
    c.sm.priority = static_cast<std::uint8_t>(*args.priority);
  }
  // What `ibsm route` plans from the same config and flags.
  auto plan = config::planInputs(c, {.engines = args.engines, .lmc = args.lmc}, defaultRegistry());
  if (!plan) return std::unexpected(plan.error());
  s.sweep.plan = std::move(*plan);
  if (args.stateDir) c.sm.stateDir = *args.stateDir;
  if (args.logFile) c.log.file = *args.logFile;
  if (args.logLevel) c.log.level = *args.logLevel;
  if (spdlog::level::from_str(c.log.level) == spdlog::level::off && c.log.level != "off")
    return fail(fmt::format(
        "--log-level {}: expected trace, debug, info, warn, error, critical or off", c.log.level));
  s.sweep.program.subnetPrefix = c.sm.subnetPrefix;
  // What `ibsm partitions` plans from the same config and flags.
  auto partitions = config::readPartitionSources(*in, args.partitions);
  if (!partitions) return std::unexpected(partitions.error());
  if (args.partitions) c.sm.partitionsFile = *args.partitions;
  if (*partitions) {
    s.sweep.partitions = [config = std::move(**partitions)](const Fabric& fabric, Guid smPort) {
      return partition::planPartitions(fabric, config, smPort);
    };
  }
  // A state file that does not parse would lose LIDs: refuse before sending.
  if (auto saved = sm::StateStore(c.sm.stateDir).loadGuid2Lid(); !saved)
    return std::unexpected(saved.error());
  return s;
}

sm::DaemonSettings daemonSettings(const Setup& s) {
  const auto& c = s.config;
  sm::DaemonSettings d;
  d.sweep = s.sweep;
  d.sweepInterval = std::chrono::seconds(c.sm.sweepIntervalSeconds);
  d.pollingTimeout = std::chrono::milliseconds(c.sm.pollingTimeoutMs);
  d.pollingRetries = c.sm.pollingRetries;
  d.priority = c.sm.priority;
  d.smKey = c.sm.smKey;
  d.controlSocket = c.sm.controlSocket;
  return d;
}

void logUp(spdlog::logger& log, const sm::SweepResult& r, double seconds, std::uint64_t mads) {
  log.info(
      "SM-0001 subnet up: {} switches, {} CA ports, {} pairs routed by {}, {} ports active; "
      "{} MADs, {:.2f} s since start",
      r.switches, r.caPorts, r.routedPairs, r.engine, r.program.portsActivated, mads, seconds);
}

}  // namespace

void addRunCommand(CLI::App& app, RunArgs& args) {
  auto* cmd = app.add_subcommand("run", "Run as the master subnet manager on a port");
  cmd->add_option("-F,--config", args.config,
                  fmt::format("TOML config (default {} if present)", config::kDefaultConfigPath));
  cmd->add_option("-P,--partitions", args.partitions,
                  "OpenSM-style partitions.conf (overrides sm.partitions_file)");
  cmd->add_option("-g,--guid", args.guid, "Port GUID to run on (default: first active port)");
  cmd->add_option("-p,--priority", args.priority, "SMInfo priority 0-15");
  cmd->add_option("-R,--engine", args.engines, "Routing engine(s) to try in order")->delimiter(',');
  cmd->add_option("--lmc", args.lmc, "LID Mask Control (0-7)");
  cmd->add_flag(
      "-o,--once", args.once,
      "Sweep until the subnet is up, then exit (0: every reachable port ACTIVE and routed)");
  cmd->add_option("--state-dir", args.stateDir, "Directory for guid2lid (default /var/lib/ibsm)");
  cmd->add_option("-f,--log-file", args.logFile, "Log to this file instead of stderr");
  cmd->add_option("--log-level", args.logLevel, "trace, debug, info, warn, error, critical, off");
}

int runRun(const RunArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  auto setup = prepare(args);
  if (!setup) {
    fmt::print(stderr, "ibsm run: {}\n", setup.error().message);
    return 2;
  }
  const auto& c = setup->config;
  auto logger = makeLogger(c.log);
  if (!logger) {
    fmt::print(stderr, "ibsm run: {}\n", logger.error().message);
    return 2;
  }
  auto& log = **logger;

  // Before the port opens: a signal mask is per thread, and a thread started
  // without it (umad2sim's receiver is one) would take SIGTERM's default
  // action and kill the SM instead of letting it stop cleanly. --once keeps
  // the default actions, so that Ctrl-C stops it even in the middle of a sweep.
  std::optional<sm::SignalWatch> signals;
  if (!args.once) signals.emplace();

  UmadOptions portOptions;
  portOptions.portGuid = c.sm.portGuid;
  auto transport = UmadTransport::open(portOptions);
  if (!transport) {
    fmt::print(stderr, "ibsm run: {}\n", transport.error().message);
    return 2;
  }
  const UmadPort port = (*transport)->port();
  log.info("SM-0002 ibsm starting on {} port {} (GUID {}), priority {}", port.caName,
           port.portNumber, port.portGuid, c.sm.priority);

  MadEngineOptions engineOptions;
  engineOptions.window = c.mad.window;
  engineOptions.timeout = std::chrono::milliseconds(c.mad.timeoutMs);
  engineOptions.retries = c.mad.retries;
  engineOptions.logger = *logger;
  MadEngine engine(**transport, engineOptions);

  sm::StateStore store(c.sm.stateDir);
  if (!args.once) {
    // The daemon: the IBA state machine decides when to sweep, poll or hand over.
    const auto reload = [&args]() -> Result<sm::DaemonSettings> {
      auto fresh = prepare(args);
      if (!fresh) return std::unexpected(fresh.error());
      return daemonSettings(*fresh);
    };
    sm::SmDaemon daemon(engine, store, port.portGuid, daemonSettings(*setup), reload, *logger);
    return daemon.run([&signals] { return signals->poll(); });
  }

  SmInfo self;
  self.guid = port.portGuid;
  self.priority = c.sm.priority;
  self.smState = SmState::Discovering;
  sm::SmInfoAgent agent(engine, self, *logger);
  sm::MasterSweep sweep(engine, store, setup->sweep, *logger);
  const auto secondsSinceStart = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  // --once: sweep at once until the subnet is up or out of tries.
  for (std::uint32_t n = 1;; ++n) {
    auto result = sweep.run();
    if (!result) {
      log.error("SM-0003 sweep failed: {}", result.error().message);
      return 1;
    }
    agent.setState(SmState::Master);
    agent.countActivity(static_cast<std::uint32_t>(result->mads));
    sm::logSweep(log, *result);
    // A link that changed while the sweep ran (Trap 128) means the tables
    // just written may point into a dead port: sweep again.
    const bool stale = agent.takeLinkChange();
    if (stale) log.warn("SM-0407 a link changed during the sweep (Trap 128): sweeping again");
    if (result->up && !stale) {
      logUp(log, *result, secondsSinceStart(), engine.counters().sent);
      // The verdict for the operator (or the script) that ran --once.
      fmt::print("{}", reportSummary(result->report));
      return 0;
    }
    if (n >= c.sm.maxSweepsOnce) {
      if (stale) result->reasons.push_back("links kept changing during every sweep");
      log.error("SM-0004 subnet not up after {} sweeps: {}", n, fmt::join(result->reasons, "; "));
      return 1;
    }
  }
}

}  // namespace ibsm::cli
