// The "dump KIND" request of the control socket: `ibsm dump` asks the daemon
// for one of its tables in the dry run's file format, and the answer says
// how long it is, so that an answer cut short (the server drops what a
// client does not take within its deadline) is told from a whole one:
//
//   request:  "dump lfts"
//   answer:   "dump lfts 123456\n" then 123456 bytes of opensm-lfts.dump
//             or "error: ...\n"
//
//   auto kind = parseDumpKind("mfts");            // DumpKind::Mfts
//   std::string answer = frameDump(*kind, text);  // the daemon's side
//   auto body = unframeDump(answer, *kind);       // the client's: text, or why not
#pragma once

#include <ibsm/Error.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::sm::control {

enum class DumpKind : std::uint8_t { Lfts, Mfts, Guid2Lid, Sl2Vl };
inline constexpr std::array kDumpKinds{DumpKind::Lfts, DumpKind::Mfts, DumpKind::Guid2Lid,
                                       DumpKind::Sl2Vl};

// "lfts", "mfts", "guid2lid", "sl2vl": what the operator types.
std::string_view dumpKindName(DumpKind kind);
std::optional<DumpKind> parseDumpKind(std::string_view name);
// The file `ibsm route -o DIR` writes the same table to: "opensm-lfts.dump",
// "mfts.dump", "guid2lid", "sl2vl.dump".
std::string_view dumpFileName(DumpKind kind);

std::string frameDump(DumpKind kind, std::string_view text);
// The text of a framed answer; an error when the daemon answered "error:"
// (its line, without the prefix), another kind, or fewer or more bytes
// than announced.
[[nodiscard]] Result<std::string> unframeDump(std::string_view answer, DumpKind kind);

}  // namespace ibsm::sm::control
