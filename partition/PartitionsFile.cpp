// OpenSM's partitions.conf: statements end at ';' and may span lines ('#'
// starts a comment up to the end of its line), so the text is read as one
// stream whose every character remembers its line.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "partition/PartitionSyntax.h"

namespace ibsm::partition {
namespace {

using detail::trim;

// A piece of the stream and the line its first visible character is on.
struct Piece {
  std::string text;
  std::size_t line{0};
};

class Stream {
 public:
  explicit Stream(std::string_view text) {
    std::size_t line = 1;
    bool comment = false;
    for (char c : text) {
      if (c == '\n') {
        comment = false;
      } else if (c == '#') {
        comment = true;
      }
      text_.push_back(comment ? ' ' : c);
      lines_.push_back(line);
      if (c == '\n') ++line;
    }
    lastLine_ = line;
  }

  // Splits [from, to) at `sep`, each piece trimmed and placed on its line.
  std::vector<Piece> split(std::size_t from, std::size_t to, char sep) const {
    std::vector<Piece> out;
    std::size_t start = from;
    for (std::size_t i = from; i <= to; ++i) {
      if (i == to || text_[i] == sep) {
        out.push_back(piece(start, i));
        start = i + 1;
      }
    }
    return out;
  }

  Piece piece(std::size_t from, std::size_t to) const {
    std::string_view all(text_);
    std::string_view raw = all.substr(from, to - from);
    const auto lead = raw.find_first_not_of(" \t\r\n");
    const std::size_t at = lead == std::string_view::npos ? from : from + lead;
    return Piece{std::string(trim(raw)), at < lines_.size() ? lines_[at] : lastLine_};
  }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::size_t> lines_;
  std::size_t lastLine_{1};
};

// The members after ':', split at ','; an `mgid=` entry takes the rest of
// its line, commas included (its flags), as in OpenSM.
Result<PartitionDef> parseMembers(const Stream& s, std::size_t from, std::size_t to,
                                  std::string_view file, Membership defmember, PartitionDef def) {
  auto where = [&](std::size_t line) { return fmt::format("{}:{}", file, line); };
  bool afterGroup = false;
  std::size_t pos = from;
  while (true) {
    const std::size_t comma = std::min(s.text().find(',', pos), to);
    const Piece p = s.piece(pos, comma);
    if (detail::isMcGroupEntry(p.text)) {
      const std::size_t start = s.text().find_first_not_of(" \t\r\n", pos);
      const std::size_t eol = std::min(s.text().find('\n', start), to);
      const Piece line = s.piece(start, eol);
      auto group = detail::parseMcGroup(line.text, where(line.line));
      if (!group) return std::unexpected(group.error());
      def.groups.push_back(std::move(*group));
      if (eol >= to) break;
      pos = eol + 1;
      afterGroup = true;
      continue;
    }
    // "Empty list means no ports in this partition"; a group may end it.
    if (p.text.empty() && comma == to && (afterGroup || pos == from)) break;
    if (p.text.empty())
      return std::unexpected(Error::at(file, p.line, "expected a member between ','"));
    auto m = detail::parseMember(p.text, defmember, where(p.line));
    if (!m) return std::unexpected(m.error());
    def.members.push_back(std::move(*m));
    afterGroup = false;
    if (comma == to) break;
    pos = comma + 1;
  }
  return def;
}

Result<PartitionDef> parseStatement(const Stream& s, std::size_t from, std::size_t to,
                                    std::string_view file) {
  auto where = [&](std::size_t line) { return fmt::format("{}:{}", file, line); };
  const std::size_t colon = s.text().find(':', from);
  if (colon == std::string::npos || colon >= to) {
    return std::unexpected(Error::at(
        file, s.piece(from, to).line,
        "expected 'Name=PKey [, flag ...] : member [, member ...] ;' (no ':' before ';')"));
  }
  PartitionDef def;
  Membership defmember = Membership::Limited;
  const std::vector<Piece> head = s.split(from, colon, ',');
  def.where = where(head.front().line);
  const std::string_view nameAndKey = head.front().text;
  const auto eq = nameAndKey.find('=');
  def.name = std::string(trim(nameAndKey.substr(0, eq)));
  if (eq == std::string_view::npos) {
    return std::unexpected(Error::at(
        file, head.front().line,
        fmt::format("expected Name=PKey, not '{}' (ibsm does not invent PKeys)", nameAndKey)));
  }
  auto pkey = detail::parsePKey(trim(nameAndKey.substr(eq + 1)), def.where);
  if (!pkey) return std::unexpected(pkey.error());
  def.pkey = *pkey;
  for (std::size_t i = 1; i < head.size(); ++i) {
    const std::string_view flag = head[i].text;
    const auto feq = flag.find('=');
    const std::string_view key = trim(flag.substr(0, feq));
    const std::string_view value = feq == std::string_view::npos ? "" : trim(flag.substr(feq + 1));
    if (key.empty()) {
      return std::unexpected(Error::at(file, head[i].line, "expected a flag after ','"));
    }
    if (auto ok = detail::applyFlag(def, defmember, key, value, where(head[i].line)); !ok) {
      return std::unexpected(ok.error());
    }
  }
  return parseMembers(s, colon + 1, to, file, defmember, def);
}

}  // namespace

Result<PartitionConfig> parsePartitionsFile(std::string_view text, std::string_view fileName) {
  const Stream s(text);
  detail::ConfigBuilder builder;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.text().size(); ++i) {
    if (s.text()[i] != ';') continue;
    if (!s.piece(start, i).text.empty()) {
      auto def = parseStatement(s, start, i, fileName);
      if (!def) return std::unexpected(def.error());
      if (auto ok = builder.add(std::move(*def)); !ok) return std::unexpected(ok.error());
    }
    start = i + 1;
  }
  if (const Piece rest = s.piece(start, s.text().size()); !rest.text.empty()) {
    return std::unexpected(Error::at(
        fileName, rest.line, fmt::format("expected ';' to end the definition '{}'", rest.text)));
  }
  return builder.take();
}

Result<PartitionConfig> readPartitionsFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return fail(fmt::format("{}: cannot read the partitions file", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parsePartitionsFile(text.str(), path.string());
}

}  // namespace ibsm::partition
