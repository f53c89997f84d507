#include "sm/cli/ConfigCommand.h"

#include <fmt/format.h>

#include "sm/config/Config.h"
#include "sm/config/ConfigCheck.h"
#include "sm/config/OpenSmConfImport.h"
#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

int inputError(std::string_view command, const Error& e) {
  fmt::print(stderr, "ibsm config {}: {}\n", command, e.message);
  return 2;
}

int runImport(const ConfigArgs& args) {
  auto text = files::readFile(args.input);
  if (!text) return inputError("import", text.error());
  auto imported = config::importOpenSmConf(*text, args.input.string());
  if (!imported) return inputError("import", imported.error());
  // What is written must be a config ibsm reads: checked before writing.
  const std::string name = args.output ? args.output->string() : std::string("(output)");
  if (auto ok = config::parseConfig(imported->toml, name); !ok) {
    fmt::print(stderr, "ibsm config import: internal error, the mapped config is refused: {}\n",
               ok.error().message);
    return 1;
  }
  if (args.output && !args.force && std::filesystem::exists(*args.output))
    return inputError("import", Error{fmt::format("{}: exists; choose another name or add --force",
                                                  args.output->string())});
  for (const auto& w : imported->warnings)
    fmt::print(stderr, "{}:{}: warning: {}\n", args.input.string(), w.line, w.message);
  if (args.output) {
    if (auto ok = files::writeFileAtomically(*args.output, imported->toml); !ok)
      return inputError("import", ok.error());
  } else {
    fmt::print("{}", imported->toml);
  }
  fmt::print(stderr,
             "{}: {} ibsm keys set, {} lines commented (no equivalent, or left to ibsm's "
             "default), {} warnings{}\n",
             args.input.string(), imported->mapped, imported->commented, imported->warnings.size(),
             args.output ? fmt::format("; wrote {}", args.output->string()) : "");
  return 0;
}

int runCheck(const ConfigArgs& args) {
  auto summary = config::checkConfigFile(args.input);
  if (!summary) return inputError("check", summary.error());
  for (const auto& i : summary->partitionsIgnored)
    fmt::print("{}: warning: ignored (partitions.strict = false): {}\n", i.where, i.what);
  fmt::print("{}: valid: {} keys, {} partitions, {} root GUIDs, {} files it names read\n",
             args.input.string(), summary->keys, summary->partitions, summary->rootGuids,
             summary->filesRead);
  return 0;
}

}  // namespace

void addConfigCommand(CLI::App& app, ConfigArgs& importArgs, ConfigArgs& checkArgs) {
  auto* cmd = app.add_subcommand("config", "Import an OpenSM opensm.conf, check an ibsm.toml");
  cmd->require_subcommand(1);
  auto* importCmd = cmd->add_subcommand(
      "import",
      "Write the ibsm.toml equivalent of an OpenSM opensm.conf (3.3, as opensm -c writes)");
  importCmd->add_option("opensm_conf", importArgs.input, "OpenSM config file")->required();
  importCmd->add_option("-o,--output", importArgs.output, "ibsm.toml to write (default: stdout)");
  importCmd->add_flag("--force", importArgs.force, "Replace the output file if it exists");
  auto* check = cmd->add_subcommand(
      "check", "Validate an ibsm.toml and the files it names; exit 0, or 2 with file:line");
  check->add_option("ibsm_toml", checkArgs.input, "ibsm config file")->required();
}

int runConfig(const CLI::App& app, const ConfigArgs& importArgs, const ConfigArgs& checkArgs) {
  const CLI::App* cmd = app.get_subcommand("config");
  if (cmd->got_subcommand("import")) return runImport(importArgs);
  if (cmd->got_subcommand("check")) return runCheck(checkArgs);
  return 2;
}

}  // namespace ibsm::sm::cli
