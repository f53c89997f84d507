// `ibsm config import`: an OpenSM opensm.conf (as `opensm -c FILE` writes
// it, OpenSM 3.3) turned into an ibsm.toml, so an operator moving from
// OpenSM keeps what they configured. Pure: text in, TOML text and notes out.
//
//   auto imported = importOpenSmConf(text, "/etc/opensm/opensm.conf");
//   if (imported) write(imported->toml);  // a config parseConfig() accepts
//
// Every option with an equivalent becomes an ibsm key preceded by the
// OpenSM line it came from; every other one becomes a comment saying why it
// has none or means something else in ibsm. OpenSM reads the file as
// `name value` lines, '#' starting a comment, and only warns about a name it
// does not know ("Unrecognized token"): so does the import (a note, and the
// line kept as a comment). A line that is not `name value` at all, or a
// value an ibsm key cannot take, is an error naming file and line.
#pragma once

#include <ibsm/Error.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::sm::config {

struct ImportNote {
  std::size_t line{0};
  std::string message;  // what the operator should know about this line
};

struct ImportedConfig {
  std::string toml;
  std::vector<ImportNote> warnings;  // unknown options, values ibsm reads otherwise
  std::size_t mapped{0};             // ibsm keys set (subnet_timeout sets two)
  std::size_t commented{0};          // options and keys written as comments
};

[[nodiscard]] Result<ImportedConfig> importOpenSmConf(std::string_view text,
                                                      std::string_view fileName);

}  // namespace ibsm::sm::config
