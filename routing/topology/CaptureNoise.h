// Lines that real capture files carry and that are not topology: the shell
// prompt and command the operator copied along with the output, and what the
// diagnostics printed on stderr into the same file (`2>&1`, or a terminal
// copied whole). The readers skip them with one warning per run instead of
// refusing the capture. They are recognised by shape, strictly, so that a
// line that merely looks wrong still stops the reader:
//
//   [root@host dir]# ibnetdiscover         a shell prompt (also user@host:~$, $)
//   ibwarn: [4242] mad_rpc: _do_madrpc...   libibmad / libibumad (iberror:, ibpanic:)
//   src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,3) bad status 110; ...
//                                           libibnetdisc's errors: source file:line;
//   ibnetdiscover: iberror: failed: discover failed
//
// Before the first record a reader may skip any line that does not start like
// one of its records (NoiseKind::Preamble): the command's own banner, a login
// message. Between records only prompts and stderr messages are skipped.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::topology {

enum class NoiseKind : std::uint8_t { ShellPrompt, StderrMessage, Preamble };

// ShellPrompt or StderrMessage when `line` (trimmed) has that shape.
std::optional<NoiseKind> noiseKind(std::string_view line);

// Gathers skipped lines into runs (lines skipped one after the other, blank
// lines between them included) and words one warning per run:
//   cap.txt:1-3: skipped 3 lines that are not topology (a shell prompt, 2
//   messages printed on stderr), the first: "[root@host dir]# ibnetdiscover"
//   cap.txt:9: skipped 1 line that is not topology (a message printed on
//   stderr): "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path ..."
class SkippedLines {
 public:
  explicit SkippedLines(std::string_view file) : file_(file) {}

  void skip(std::size_t line, NoiseKind kind, std::string_view text);
  // Skips `text` when it is noise: a prompt or a stderr message anywhere, any
  // other line only before the first record. False: the reader must read it.
  bool passOver(std::size_t line, std::string_view text, bool beforeFirstRecord);
  // A topology line or a comment ends the run; blank lines do not.
  void endRun();
  // Ends the run and hands over the warnings, in file order.
  std::vector<std::string> takeWarnings();

 private:
  std::string_view file_;
  std::size_t first_{0};
  std::size_t last_{0};
  std::array<std::size_t, 3> counts_{};  // by NoiseKind
  std::string_view firstText_;
  std::vector<std::string> warnings_;
};

}  // namespace ibsm::topology
