// Fixture of tests/scripts/check-sizes-test.py: braces in comments, strings,
// character literals, raw strings and preprocessor lines do not count.
// An unmatched { here, and a } there.
#include <string>

#define OPEN_BRACE {
#define LONG_MACRO(x) \
  do {                \
    (x);              \
  } while (0)

namespace fixture {

/* a block comment with { and
   } and { again */
std::string braces() {
  std::string s = "{ \" } {";
  char open = '{';
  char quote = '\'';
  long big = 1'000'000;
  std::string raw = R"(} { ")";
  std::string tagged = R"json({"a": "}"} )" )json";
  std::string wide = u8R"x(})x";
  return s + open + quote + raw + tagged + wide + std::to_string(big);
}

int after() {
  return 1;
}

}  // namespace fixture
