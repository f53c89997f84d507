// The daemon's control socket: `ibsm status`, `ibsm sweep`, `ibsm health`
// and `ibsm metrics` talk to a running SM through a unix stream socket, one
// request line per connection, one answer, then the server closes. The SM is single-threaded, so
// serving never blocks: each connection keeps its partial line and a deadline, and a client that
// connects and stays silent is dropped when the deadline passes.
//
//   auto server = ControlServer::listen(config.sm.controlSocket);   // once
//   server.value()->attach(loop, statusFn, sweepFn);  // served from the loop's waits
//   server.value()->provideHealth(healthFn);          // `health`, `metrics`
//   server.value()->serve(statusFn, sweepFn);         // or: serve what is pending now
//
// Attached to the SM's event loop (sm/loop/EventLoop.h), a request is
// answered as soon as its line is whole -- also in the middle of a sweep,
// since the MAD engine waits through the loop.
#pragma once

#include <ibsm/Error.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm/control/ControlClient.h"
#include "sm/control/DumpRequest.h"
#include "sm/control/RequestAccess.h"
#include "sm/control/StatusFormat.h"
#include "sm/health/HealthView.h"
#include "sm/loop/EventLoop.h"

namespace ibsm::sm::control {

// `ibsm draw` from the daemon: the SVG of the last sweep's fabric, or
// "error: ...\n" when there is nothing to draw.
using DrawingSource = std::function<std::string()>;
// `ibsm dump KIND` from the daemon: the table in the dry run's file format,
// or why there is none (DumpRequest.h frames it).
using DumpSource = std::function<Result<std::string>(DumpKind)>;
// `ibsm path` from the daemon: the answer to a path request line
// (PathRequest.h), or "error: ...\n".
using PathSource = std::function<std::string(std::string_view line)>;

// What an operator's `ibsm sweep` asks for: a light sweep, a heavy one
// (rediscover and route), or a heavy one whose routes are computed afresh
// rather than kept through changes (--rebalance).
enum class SweepAsk : std::uint8_t { Light, Heavy, Rebalance };
using SweepRequest = std::function<void(SweepAsk)>;
// `ibsm sweep --readmit LINK`: puts an isolated link back; returns the
// answer line ("ok: ..." or "error: ...").
using ReadmitRequest = std::function<std::string(std::string_view link)>;
// `ibsm log-level LEVEL`: sets the daemon's log level; returns the answer
// line ("ok: ..." or "error: ...").
using LogLevelRequest = std::function<std::string(std::string_view level)>;
// `ibsm keys rotate`: starts an M_Key rotation; returns the answer line
// ("ok: ..." or "error: ...").
using KeysRotateRequest = std::function<std::string()>;
// The fabric's health as of now (the daemon sets HealthView::at).
using HealthSource = std::function<health::HealthView()>;

class ControlServer {
 public:
  static constexpr std::chrono::milliseconds kRequestDeadline = ControlOptions{}.requestDeadline;
  // An answer larger than the socket buffer (metrics, health of a large
  // fabric: megabytes) goes out as the client reads it, sent again every
  // kSendRetry from the loop, and is dropped unfinished after kAnswerDeadline.
  static constexpr std::chrono::milliseconds kAnswerDeadline{10000};
  static constexpr std::chrono::milliseconds kSendRetry{2};
  static constexpr std::size_t kMaxRequestBytes = 256;
  // Connections held at once; more wait in the listen backlog.
  static constexpr std::size_t kMaxPendingClients = 16;
  // Of those, connections of peers other than root and the daemon's user:
  // past this they are answered "busy" and closed, so the read group can
  // never take the slots root needs to stop a sweep storm.
  static constexpr std::size_t kMaxUnprivilegedClients = 12;

  // Creates the parent directory if needed; refuses when a live daemon
  // answers on `path`; replaces a stale socket file; the destructor unlinks
  // it. The socket is bound 0600 (umask), then given `options.readGroup` and
  // 0660 when set, so it is never more open than meant. Errors name the path.
  [[nodiscard]] static Result<std::unique_ptr<ControlServer>> listen(
      const std::filesystem::path& path, ControlOptions options = {});

  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  ~ControlServer();

  // Accepts and answers what is pending without blocking:
  //   "status" / "status json" -> the formatted status()
  //   "sweep" / "sweep heavy" / "sweep rebalance"
  //                            -> sweep(ask), then "ok: ... requested"
  //   "sweep readmit LINK"     -> the readmit handler's answer
  //   "log-level LEVEL"        -> the log-level handler's answer
  //   "keys rotate"            -> the keys handler's answer
  //   "health" / "health json" / "health ports"
  //                            -> the formatted health() (HealthFormat.h)
  //   "metrics"                -> Prometheus text of status() and health()
  // anything else -> "error: ...".
  void serve(const std::function<DaemonStatus()>& status, const SweepRequest& sweep);
  // Where `health` and `metrics` take the fabric's health from; set once,
  // before serving. Unset, `health` answers an error and `metrics` shows
  // the SM's figures alone.
  void provideHealth(HealthSource health) { health_ = std::move(health); }
  // Serves from `loop`'s waits from now on: the listening socket and every
  // client are watched, and each client has a timer that wakes the server
  // when its deadline is due. Deadlines are kept on the real clock, never
  // the loop's: a client is a process, and a loop on simulated time (the
  // fake fabric's, where an idle loop jumps to its next timer) would drop
  // a client that took a few microseconds between connect and send. Detaches itself when destroyed;
  // the loop must outlive the server. Not mixed with serve().
  void attach(loop::EventLoop& loop, std::function<DaemonStatus()> status, SweepRequest sweep);
  // "draw" -> the SVG `draw` makes (or its "error: ..."). Set once, before
  // serving; unset, "draw" answers an error.
  void provideDrawing(DrawingSource draw) { draw_ = std::move(draw); }
  // "dump KIND" -> frameDump(KIND, dump(KIND)) (or "error: ..."). Set once,
  // before serving; unset, "dump" answers an error.
  void provideDump(DumpSource dump) { dump_ = std::move(dump); }
  // "path\t..." -> the walk `path` answers. Set once, before serving;
  // unset, a path request answers an error.
  void providePaths(PathSource paths) { paths_ = std::move(paths); }

  // Who answers "sweep readmit LINK"; without one it is an error.
  void onReadmit(ReadmitRequest readmit) { readmit_ = std::move(readmit); }
  // Who answers "log-level LEVEL"; without one it is an error.
  void onLogLevel(LogLevelRequest logLevel) { logLevel_ = std::move(logLevel); }
  // Who answers "keys rotate"; without one it is an error.
  void onKeysRotate(KeysRotateRequest rotate) { keysRotate_ = std::move(rotate); }

  // Requests served, refused, and clients dropped, since start.
  const ControlCounts& counts() const { return counts_; }

  // Readable when a client connects, for a daemon that polls its fds.
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  struct Client {
    int fd;
    std::string line;
    MadClock::time_point deadline;
    loop::EventLoop::TimerId timer{0};  // attached: the deadline's timer
    bool answered{false};
    std::string out{};    // answered: the answer
    std::size_t sent{0};  // of which the client has taken this much
    PeerCred peer{};
  };

  ControlServer(int fd, std::filesystem::path path, ControlOptions options);
  // The answer to a whole request line, access checked; counted.
  std::string answerRequest(const Client& client, const std::string& request,
                            const std::function<DaemonStatus()>& status, const SweepRequest& sweep);
  // Accepts one pending connection; false when none is pending.
  bool acceptOne();
  // SM-0808, at most once a kRefusalLogInterval.
  void logRefusal(const PeerCred& peer, const RequestRule& rule, const std::string& why);
  static constexpr std::chrono::seconds kRefusalLogInterval{1};
  void acceptPending();
  // Answered: sends what the socket takes; true when done (all sent, the
  // client gone, or past its deadline).
  bool flush(Client& client);
  // True when the client is finished (answered or dropped).
  bool progress(Client& client, const std::function<DaemonStatus()>& status,
                const SweepRequest& sweep);
  // Attached: the listening socket is readable / a client is readable or due.
  void onListening();
  void onClient(int fd);
  // The client's timer, due on the loop's clock when its deadline is on the real one.
  void armTimer(Client& client, MadClock::duration after);

  int fd_;
  std::filesystem::path path_;
  ControlOptions options_;
  AccessPolicy policy_;
  ControlCounts counts_;
  std::optional<MadClock::time_point> lastRefusalLog_;
  std::uint64_t refusalsUnlogged_{0};
  std::vector<Client> clients_;
  // The real clock, for clients' deadlines and the refusal log's pace.
  loop::EventLoop::Clock clock_{[] { return MadClock::now(); }};
  loop::EventLoop* loop_{nullptr};  // attached to; not owned
  DrawingSource draw_;
  DumpSource dump_;
  PathSource paths_;
  std::function<DaemonStatus()> status_;
  SweepRequest sweep_;
  ReadmitRequest readmit_;
  LogLevelRequest logLevel_;
  KeysRotateRequest keysRotate_;
  HealthSource health_;
};

}  // namespace ibsm::sm::control
