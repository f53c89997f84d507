#include "sm/cli/DumpCommand.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "sm/control/ControlClient.h"
#include "sm/control/DumpRequest.h"
#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

using control::DumpKind;

// A radix-36 fat tree's LFT dump is a gigabyte: the daemon sends it as the
// client reads it, for at most ControlServer::kAnswerDeadline.
constexpr std::chrono::seconds kAnswerTimeout{30};

int inputError(std::string_view message) {
  fmt::print(stderr, "ibsm dump: {}\n", message);
  return 2;
}

Result<std::vector<DumpKind>> kindsAsked(const DumpArgs& args) {
  std::vector<DumpKind> kinds;
  for (const auto& name : args.kinds) {
    if (name == "all") {
      kinds.assign(control::kDumpKinds.begin(), control::kDumpKinds.end());
      continue;
    }
    const auto kind = control::parseDumpKind(name);
    if (!kind)
      return fail(
          fmt::format("unknown table '{}': expected lfts, mfts, guid2lid, sl2vl or all", name));
    if (std::ranges::find(kinds, *kind) == kinds.end()) kinds.push_back(*kind);
  }
  if (!args.out && kinds.size() != 1)
    return fail(
        "without -o DIR, name one table (lfts, mfts, guid2lid or sl2vl): it goes to stdout");
  return kinds;
}

// Files of DIR this run would replace: never without --force, since DIR may
// be OpenSM's cache (/var/cache/opensm/guid2lid) or a dry run's output.
std::vector<std::string> wouldOverwrite(const std::filesystem::path& dir,
                                        const std::vector<DumpKind>& kinds) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const DumpKind kind : kinds) {
    const auto file = dir / control::dumpFileName(kind);
    if (std::filesystem::exists(std::filesystem::symlink_status(file, ec)))
      out.push_back(file.string());
  }
  return out;
}

struct Answer {
  DumpKind kind;
  std::string text;
};

// Every table asked, before anything is written: a refused one writes none.
// Exit status on failure (1: the daemon's error; 2: no daemon, cut short).
std::expected<std::vector<Answer>, int> askAll(const std::filesystem::path& socket,
                                               const std::vector<DumpKind>& kinds) {
  std::vector<Answer> answers;
  for (const DumpKind kind : kinds) {
    const auto name = control::dumpKindName(kind);
    auto answer = control::request(socket, fmt::format("dump {}", name), kAnswerTimeout);
    if (!answer) return std::unexpected(inputError(answer.error().message));
    auto text = control::unframeDump(*answer, kind);
    if (!text) {
      fmt::print(stderr, "ibsm dump {}: {}\n", name, text.error().message);
      return std::unexpected(answer->starts_with("error:") ? 1 : 2);
    }
    answers.push_back({kind, std::move(*text)});
  }
  return answers;
}

int writeAll(const std::filesystem::path& dir, const std::vector<Answer>& answers) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return inputError(fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  for (const auto& [kind, text] : answers) {
    // As the dry run: no sl2vl.dump when the routes use one VL.
    if (kind == DumpKind::Sl2Vl && text.empty()) {
      fmt::print(stderr, "ibsm dump: the routes use one VL: no SL2VL tables, no {} written\n",
                 control::dumpFileName(kind));
      continue;
    }
    if (auto ok = files::writeFileAtomically(dir / control::dumpFileName(kind), text); !ok)
      return inputError(ok.error().message);
  }
  return 0;
}

}  // namespace

void addDumpCommand(CLI::App& app, DumpArgs& args) {
  auto* cmd = app.add_subcommand(
      "dump", "Print or write the running master's tables in the dry run's file formats");
  cmd->add_option("table", args.kinds,
                  "lfts (opensm-lfts.dump), mfts (mfts.dump), guid2lid, sl2vl (sl2vl.dump), or "
                  "all (with -o)")
      ->required();
  cmd->add_option("-o,--out", args.out,
                  "Directory to write each table to under the dry run's file name (created if "
                  "needed); default: the one table to stdout");
  cmd->add_flag("--force", args.force, "With -o: replace files the directory already has");
  addControlSocketOptions(cmd, args.control);
}

int runDump(const DumpArgs& args) {
  auto kinds = kindsAsked(args);
  if (!kinds) return inputError(kinds.error().message);
  if (args.out && !args.force) {
    if (const auto existing = wouldOverwrite(*args.out, *kinds); !existing.empty())
      return inputError(fmt::format("{} already exist(s): not replaced (give --force to replace)",
                                    fmt::join(existing, ", ")));
  }
  auto socket = controlSocketPath("dump", args.control);
  if (!socket) return inputError(socket.error().message);
  auto answers = askAll(*socket, *kinds);
  if (!answers) return answers.error();
  if (args.out) return writeAll(*args.out, *answers);
  const auto& [kind, text] = answers->front();
  if (kind == DumpKind::Sl2Vl && text.empty())
    fmt::print(stderr, "ibsm dump: the routes use one VL: no SL2VL tables\n");
  fmt::print("{}", text);
  return 0;
}

}  // namespace ibsm::sm::cli
