// The log ids stay one catalog with one meaning each: every id an operator
// can see (a string literal such as "SM-0101 state {}" in the product
// sources sm/, routing/ and partition/, comments left out) is in exactly one
// literal -- one message, one level, one place -- and in the LOG MESSAGES
// section of man/ibsm.8, and every id of that section is in the code. The
// sources are read from the source tree (IBSM_SOURCE_DIR), so a new log
// line without its catalog entry fails here, not in an operator's search.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::regex kId{R"(\b(SM|DISC|PROG|MAD)-[0-9]{4}\b)"};

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Literal {
  std::string text;  // as written between the quotes
  std::size_t line{0};
};

// Skips a quoted run starting at `i` (on the opening quote); returns the
// index after the closing quote.
std::size_t skipQuoted(std::string_view s, std::size_t i, char quote) {
  for (++i; i < s.size() && s[i] != quote; ++i)
    if (s[i] == '\\') ++i;
  return i + 1;
}

// The string literals of C++ source, comments skipped. Raw strings
// R"d(...)d" are read whole; character literals are skipped (a digit
// separator 1'000 is not one).
std::vector<Literal> stringLiterals(std::string_view s) {
  std::vector<Literal> out;
  std::size_t line = 1;
  auto countLines = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < s.size(); ++k) line += s[k] == '\n' ? 1 : 0;
  };
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    std::size_t end = i + 1;
    if (c == '/' && next == '/') {
      end = s.find('\n', i);
      if (end == std::string_view::npos) end = s.size();
    } else if (c == '/' && next == '*') {
      end = s.find("*/", i + 2);
      end = end == std::string_view::npos ? s.size() : end + 2;
    } else if (c == 'R' && next == '"' &&
               (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])))) {
      const std::size_t open = s.find('(', i + 2);
      const std::string close = fmt::format("){}\"", s.substr(i + 2, open - i - 2));
      const std::size_t stop = s.find(close, open);
      out.push_back({std::string(s.substr(open + 1, stop - open - 1)), line});
      end = stop + close.size();
    } else if (c == '"') {
      end = skipQuoted(s, i, '"');
      out.push_back({std::string(s.substr(i + 1, end - i - 2)), line});
    } else if (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1])) &&
                              std::isalnum(static_cast<unsigned char>(next)))) {
      end = skipQuoted(s, i, '\'');
    }
    countLines(i, end);
    i = end;
  }
  return out;
}

// Id -> "file:line" of each literal that holds it.
using Places = std::map<std::string, std::vector<std::string>>;

void addIds(Places& places, const std::string& file, std::string_view source) {
  for (const Literal& lit : stringLiterals(source)) {
    std::set<std::string> ids;
    for (std::sregex_iterator m(lit.text.begin(), lit.text.end(), kId), e; m != e; ++m)
      ids.insert(m->str());
    for (const auto& id : ids) places[id].push_back(fmt::format("{}:{}", file, lit.line));
  }
}

// The ids of the LOG MESSAGES section of a man page (groff writes '-' as "\-").
std::multiset<std::string> catalogIds(std::string_view source) {
  std::string man;
  for (std::size_t i = 0; i < source.size(); ++i)
    if (!(source[i] == '\\' && i + 1 < source.size() && source[i + 1] == '-')) man += source[i];
  const auto start = man.find(".SH \"LOG MESSAGES\"");
  if (start == std::string::npos) return {};
  const auto stop = man.find("\n.SH ", start + 1);
  const std::string section = man.substr(start, stop == std::string::npos ? stop : stop - start);
  // Entries are ".B "ID level"" lines; prose may mention ids again.
  std::multiset<std::string> ids;
  const std::regex entry{
      R"re(\n\.B "((SM|DISC|PROG|MAD)-[0-9]{4}) (trace|debug|info|warn|error)")re"};
  for (std::sregex_iterator m(section.begin(), section.end(), entry), e; m != e; ++m)
    ids.insert((*m)[1].str());
  return ids;
}

// What is wrong with the catalog, one line per problem; empty when nothing.
std::vector<std::string> problems(const Places& code, const std::multiset<std::string>& catalog) {
  std::vector<std::string> out;
  for (const auto& [id, where] : code) {
    if (where.size() != 1) {
      out.push_back(
          fmt::format("{} is in {} literals: {}", id, where.size(), fmt::join(where, " ")));
    }
    if (!catalog.contains(id))
      out.push_back(fmt::format("{} ({}) is not in LOG MESSAGES", id, where.front()));
  }
  for (const auto& id : std::set<std::string>(catalog.begin(), catalog.end())) {
    if (catalog.count(id) > 1)
      out.push_back(fmt::format("{} is listed more than once in LOG MESSAGES", id));
    if (!code.contains(id))
      out.push_back(fmt::format("{} is in LOG MESSAGES but in no log line", id));
  }
  return out;
}

Places productIds() {
  const fs::path root = IBSM_SOURCE_DIR;
  Places places;
  for (const char* dir : {"sm", "routing", "partition"}) {
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = f.path().extension();
      if (!f.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      addIds(places, fs::relative(f.path(), root).string(), readFile(f.path()));
    }
  }
  return places;
}

TEST(LogCatalog, EveryIdIsOneLiteralAndInTheManPage) {
  const Places code = productIds();
  ASSERT_GT(code.size(), 50U) << "no log ids found under " << IBSM_SOURCE_DIR;
  const auto catalog = catalogIds(readFile(fs::path(IBSM_SOURCE_DIR) / "man/ibsm.8"));
  EXPECT_THAT(problems(code, catalog), ::testing::IsEmpty());
}

// Ids retired with the message they meant: never logged again, so an
// operator's search for one finds only the old meaning. Each is named in a
// comment of LOG MESSAGES in man/ibsm.8 with what it said.
TEST(LogCatalog, RetiredIdsAreNeverReused) {
  const Places code = productIds();
  const std::string man = readFile(fs::path(IBSM_SOURCE_DIR) / "man/ibsm.8");
  for (const char* id : {"SM-2952"}) {  // sm.m_key_rotate_interval "not built" (rotation is)
    EXPECT_FALSE(code.contains(id)) << id << " is retired: " << code.at(id).front();
    EXPECT_NE(man.find(fmt::format(".\\\" {} is retired", id)), std::string::npos) << id;
  }
}

// The check itself can fail: an id used twice, an id missing from the
// catalog, a catalog entry the code lost.
TEST(LogCatalog, FindsAnIdInTwoLiteralsOrMissingOnEitherSide) {
  Places code;
  addIds(code, "a.cpp",
         "// SM-0009 in a comment does not count\n"
         "log->info(\"SM-0001 subnet up\");\n"
         "/* \"SM-0002 nor here\" */ log->warn(\"SM-0001 subnet up again\");\n"
         "const char c = '\"'; auto s = R\"(DISC-0101 raw)\"; int n = 1'000;\n");
  ASSERT_EQ(code.size(), 2U);
  EXPECT_EQ(code.at("SM-0001"), (std::vector<std::string>{"a.cpp:2", "a.cpp:3"}));
  EXPECT_EQ(code.at("DISC-0101"), (std::vector<std::string>{"a.cpp:4"}));
  const auto catalog = catalogIds(
      ".SH \"LOG MESSAGES\"\n.TP\n.B \"SM\\-0001 info\"\nUp.\n.TP\n.B \"MAD\\-0101 "
      "warn\"\nLost.\n"
      ".SH \"EXIT STATUS\"\n.B \"DISC\\-0101 info\"\n");
  EXPECT_EQ(catalog, (std::multiset<std::string>{"SM-0001", "MAD-0101"}));
  EXPECT_THAT(problems(code, catalog),
              ::testing::ElementsAre("DISC-0101 (a.cpp:4) is not in LOG MESSAGES",
                                     "SM-0001 is in 2 literals: a.cpp:2 a.cpp:3",
                                     "MAD-0101 is in LOG MESSAGES but in no log line"));
}

}  // namespace
