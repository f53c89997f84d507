// The small capture the reader tests start from, and the one edit they make
// to it: each test builds its own file by changing a line or adding some,
// so what it reads is in front of the reader of the test.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace ibsm::testcaptures {

// Two switches and a CA, as ibnetdiscover prints them; line numbers matter
// to the tests (a's port 1 is line 3, b's port 2 line 8, h's port 1 line 12).
inline constexpr std::string_view kSmall = R"(switchguid=0x10(10)
Switch	4 "S-0000000000000010"		# "a" base port 0 lid 1 lmc 0
[1]	"S-0000000000000020"[2]		# "b" lid 2 4xQDR
[3]	"H-0000000000000030"[1](31) 		# "h" lid 3 4xQDR

switchguid=0x20(20)
Switch	4 "S-0000000000000020"		# "b" base port 0 lid 2 lmc 0
[2]	"S-0000000000000010"[1]		# "a" lid 1 4xQDR

caguid=0x30
Ca	1 "H-0000000000000030"		# "h"
[1](31) 	"S-0000000000000010"[3]		# lid 3 lmc 0 "a" lid 1 4xQDR
)";

// `text` with the first occurrence of `from` replaced; a test whose edit no
// longer applies fails here rather than testing the unedited text.
inline std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string s{text};
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// The pieces one after the other: a capture with lines before, between or
// after its records. (Appends, so GCC 12's -O3 -Wrestrict false positive on
// `"literal" + std::string` never fires.)
inline std::string joined(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace ibsm::testcaptures
