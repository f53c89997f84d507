#include "sm/control/DumpRequest.h"

#include <fmt/format.h>

#include <charconv>

namespace ibsm::sm::control {

std::string_view dumpKindName(DumpKind kind) {
  switch (kind) {
    case DumpKind::Lfts:
      return "lfts";
    case DumpKind::Mfts:
      return "mfts";
    case DumpKind::Guid2Lid:
      return "guid2lid";
    case DumpKind::Sl2Vl:
      return "sl2vl";
  }
  return "?";
}

std::optional<DumpKind> parseDumpKind(std::string_view name) {
  for (const DumpKind kind : kDumpKinds)
    if (dumpKindName(kind) == name) return kind;
  return std::nullopt;
}

std::string_view dumpFileName(DumpKind kind) {
  switch (kind) {
    case DumpKind::Lfts:
      return "opensm-lfts.dump";
    case DumpKind::Mfts:
      return "mfts.dump";
    case DumpKind::Guid2Lid:
      return "guid2lid";
    case DumpKind::Sl2Vl:
      return "sl2vl.dump";
  }
  return "?";
}

std::string frameDump(DumpKind kind, std::string_view text) {
  return fmt::format("dump {} {}\n{}", dumpKindName(kind), text.size(), text);
}

Result<std::string> unframeDump(std::string_view answer, DumpKind kind) {
  if (answer.starts_with("error: ")) {
    answer.remove_prefix(7);
    if (answer.ends_with('\n')) answer.remove_suffix(1);
    return fail(std::string(answer));
  }
  const std::size_t eol = answer.find('\n');
  const std::string head = fmt::format("dump {} ", dumpKindName(kind));
  const std::string_view first = answer.substr(0, eol);
  std::size_t size = 0;
  const char* digits = first.data() + std::min(head.size(), first.size());
  const auto [end, ec] = std::from_chars(digits, first.data() + first.size(), size);
  if (eol == std::string_view::npos || !first.starts_with(head) || ec != std::errc{} ||
      end != first.data() + first.size())
    return fail(fmt::format("the daemon's answer does not start with '{}BYTES': '{}'", head,
                            first.substr(0, 64)));
  const std::string_view text = answer.substr(eol + 1);
  if (text.size() != size)
    return fail(
        fmt::format("the daemon's answer was cut short: {} of {} bytes", text.size(), size));
  return std::string(text);
}

}  // namespace ibsm::sm::control
