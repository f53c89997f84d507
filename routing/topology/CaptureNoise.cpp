#include "routing/topology/CaptureNoise.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/topology/TextScan.h"

namespace ibsm::topology {
namespace {

std::string_view firstWord(std::string_view line) {
  return Cursor{line}.word();
}

bool endsWord(std::string_view line, std::size_t at) {
  return at >= line.size() || isBlank(line[at]);
}

// "[root@host dir]# cmd", "[me@host ~]$ cmd"
bool bracketPrompt(std::string_view line) {
  if (!line.starts_with('[')) return false;
  const std::size_t close = line.find(']');
  const std::size_t at = line.find('@');
  return close != std::string_view::npos && at > 1 && at < close && close + 1 < line.size() &&
         (line[close + 1] == '#' || line[close + 1] == '$') && endsWord(line, close + 2);
}

// "me@host:~/dir$ cmd", "root@host:/tmp# cmd", "$ cmd", SUSE's "host:~ # cmd"
bool plainPrompt(std::string_view line) {
  if (line == "$" || line.starts_with("$ ")) return true;
  const std::string_view word = firstWord(line);
  const std::size_t at = word.find('@');
  const std::size_t colon = word.find(':');
  if (at != std::string_view::npos && at > 0 && colon != std::string_view::npos && colon > at &&
      (word.ends_with('$') || word.ends_with('#')))
    return true;
  const std::string_view rest = trimLeft(line.substr(word.size()));
  return colon != std::string_view::npos && colon > 0 && word.find('"') == std::string_view::npos &&
         rest.starts_with('#') && endsWord(rest, 1);
}

// "src/query_smp.c:195; ...": libibnetdisc prints its source file and line.
bool sourceLocationMessage(std::string_view line) {
  const std::string_view word = firstWord(line);
  if (!word.ends_with(';')) return false;
  const std::size_t colon = word.rfind(':');
  if (colon == std::string_view::npos || colon + 2 > word.size() - 1) return false;
  const std::string_view number = word.substr(colon + 1, word.size() - colon - 2);
  return std::ranges::all_of(number, isDigit) && word.substr(0, colon).ends_with(".c");
}

bool stderrMessage(std::string_view line) {
  for (const std::string_view prefix : {"ibwarn: ", "iberror: ", "ibpanic: "})
    if (line.starts_with(prefix)) return true;
  // infiniband-diags' exit message: "<tool>: iberror: ..."
  const std::string_view word = firstWord(line);
  if (word.size() > 1 && word.ends_with(':') &&
      trimLeft(line.substr(word.size())).starts_with("iberror: "))
    return true;
  return sourceLocationMessage(line);
}

std::string_view phrase(NoiseKind kind, bool plural) {
  switch (kind) {
    case NoiseKind::ShellPrompt:
      return plural ? "shell prompts" : "a shell prompt";
    case NoiseKind::StderrMessage:
      return plural ? "messages printed on stderr" : "a message printed on stderr";
    case NoiseKind::Preamble:
      return plural ? "lines of other text before the first record"
                    : "a line of other text before the first record";
  }
  return "";
}

}  // namespace

std::optional<NoiseKind> noiseKind(std::string_view line) {
  line = trimRight(trimLeft(line));
  if (bracketPrompt(line) || plainPrompt(line)) return NoiseKind::ShellPrompt;
  if (stderrMessage(line)) return NoiseKind::StderrMessage;
  return std::nullopt;
}

void SkippedLines::skip(std::size_t line, NoiseKind kind, std::string_view text) {
  if (first_ == 0) {
    first_ = line;
    firstText_ = trimRight(trimLeft(text));
  }
  last_ = line;
  ++counts_[static_cast<std::size_t>(kind)];
}

bool SkippedLines::passOver(std::size_t line, std::string_view text, bool beforeFirstRecord) {
  if (const auto noise = noiseKind(text)) {
    skip(line, *noise, text);
    return true;
  }
  if (beforeFirstRecord) {
    skip(line, NoiseKind::Preamble, text);
    return true;
  }
  return false;
}

void SkippedLines::endRun() {
  if (first_ == 0) return;
  std::size_t lines = 0;
  std::vector<std::string> kinds;
  for (std::size_t k = 0; k < counts_.size(); ++k) {
    const std::size_t n = counts_[k];
    lines += n;
    if (n == 1) kinds.emplace_back(phrase(static_cast<NoiseKind>(k), false));
    if (n > 1) kinds.push_back(fmt::format("{} {}", n, phrase(static_cast<NoiseKind>(k), true)));
  }
  constexpr std::size_t kShown = 60;
  const std::string shown = firstText_.size() > kShown
                                ? fmt::format("{}...", firstText_.substr(0, kShown))
                                : std::string(firstText_);
  const std::string where = first_ == last_ ? fmt::format("{}:{}", file_, first_)
                                            : fmt::format("{}:{}-{}", file_, first_, last_);
  warnings_.push_back(lines == 1
                          ? fmt::format("{}: skipped 1 line that is not topology ({}): \"{}\"",
                                        where, kinds.front(), shown)
                          : fmt::format("{}: skipped {} lines that are not topology ({}), "
                                        "the first: \"{}\"",
                                        where, lines, fmt::join(kinds, ", "), shown));
  first_ = last_ = 0;
  counts_ = {};
}

std::vector<std::string> SkippedLines::takeWarnings() {
  endRun();
  return std::move(warnings_);
}

}  // namespace ibsm::topology
