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

// A member with a membership OpenSM does not know: OpenSM's
// partition_add_port() makes it a limited member.
Result<std::string> knownMembership(std::string_view text, const std::string& where,
                                    const detail::Tolerance& tolerance) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) return std::string(text);
  const std::string_view value = trim(text.substr(eq + 1));
  if (detail::parseMembership(value)) return std::string(text);
  const std::string_view spec = trim(text.substr(0, eq));
  if (auto ok = tolerance.pass(where,
                               fmt::format("membership of '{}' must be full, limited or both, not "
                                           "'{}'",
                                           spec, value),
                               "make it a limited member");
      !ok)
    return std::unexpected(ok.error());
  return fmt::format("{}=limited", spec);
}

// The members after ':', split at ','; an `mgid=` entry takes the rest of
// its line, commas included (its flags), as in OpenSM.
Result<PartitionDef> parseMembers(const Stream& s, std::size_t from, std::size_t to,
                                  std::string_view file, Membership defmember, PartitionDef def,
                                  const detail::Tolerance& tolerance) {
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
      auto group = detail::parseMcGroup(line.text, where(line.line), tolerance);
      if (!group) return std::unexpected(group.error());
      if (*group) def.groups.push_back(std::move(**group));
      if (eol >= to) break;
      pos = eol + 1;
      afterGroup = true;
      continue;
    }
    // "Empty list means no ports in this partition"; a group may end it.
    if (p.text.empty() && comma == to && (afterGroup || pos == from)) break;
    if (p.text.empty()) {
      if (auto ok = tolerance.pass(where(p.line), "expected a member between ','",
                                   "skip the empty entry");
          !ok)
        return std::unexpected(ok.error());
    } else {
      auto text = knownMembership(p.text, where(p.line), tolerance);
      if (!text) return std::unexpected(text.error());
      auto m = detail::parseMember(*text, defmember, where(p.line));
      if (!m) return std::unexpected(detail::openSmDropsTheFile(m.error()));
      def.members.push_back(std::move(*m));
    }
    afterGroup = false;
    if (comma == to) break;
    pos = comma + 1;
  }
  return def;
}

// A flag of the partition's header. OpenSM's partition_add_flag() ignores
// a flag it does not know and skips a value it cannot take; ipoib and indx0
// take no value, and OpenSM sets them whatever follows '='.
Result<void> headerFlag(PartitionDef& def, Membership& defmember, std::string_view key,
                        std::string_view value, const std::string& where,
                        const detail::Tolerance& tolerance) {
  const std::string k = detail::lower(key);
  if ((k == "ipoib" || k == "indx0") && !value.empty()) {
    if (auto ok = tolerance.pass(where, fmt::format("'{}' takes no value, not '{}'", key, value),
                                 "set the flag and ignore the value");
        !ok)
      return ok;
    value = {};
  }
  if (auto ok = detail::applyFlag(def, defmember, key, value, where); !ok) {
    return tolerance.pass(where, ok.error(),
                          k == "q_key" || k == "qkey" || k == "tclass"
                              ? "use 0 for it (ibsm, not strict, leaves it unset)"
                              : "ignore this flag");
  }
  return {};
}

Result<PartitionDef> parseStatement(const Stream& s, std::size_t from, std::size_t to,
                                    std::string_view file, const detail::Tolerance& tolerance) {
  auto where = [&](std::size_t line) { return fmt::format("{}:{}", file, line); };
  const std::size_t colon = s.text().find(':', from);
  if (colon == std::string::npos || colon >= to) {
    return std::unexpected(detail::openSmDropsTheFile(Error::at(
        file, s.piece(from, to).line,
        "expected 'Name=PKey [, flag ...] : member [, member ...] ;' (no ':' before ';')")));
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
        fmt::format("expected Name=PKey, not '{}' (ibsm does not invent PKeys; OpenSM would give "
                    "the partition one of its choosing)",
                    nameAndKey)));
  }
  auto pkey = detail::parsePKey(trim(nameAndKey.substr(eq + 1)), def.where);
  if (!pkey) return std::unexpected(detail::openSmDropsTheFile(pkey.error()));
  def.pkey = *pkey;
  for (std::size_t i = 1; i < head.size(); ++i) {
    const std::string_view flag = head[i].text;
    const auto feq = flag.find('=');
    const std::string_view key = trim(flag.substr(0, feq));
    const std::string_view value = feq == std::string_view::npos ? "" : trim(flag.substr(feq + 1));
    if (key.empty()) {
      return std::unexpected(
          detail::openSmDropsTheFile(Error::at(file, head[i].line, "expected a flag after ','")));
    }
    if (auto ok = headerFlag(def, defmember, key, value, where(head[i].line), tolerance); !ok) {
      return std::unexpected(ok.error());
    }
  }
  return parseMembers(s, colon + 1, to, file, defmember, def, tolerance);
}

}  // namespace

Result<PartitionConfig> parsePartitionsFile(std::string_view text, std::string_view fileName,
                                            PartitionsFileOptions options) {
  const Stream s(text);
  std::vector<IgnoredItem> ignored;
  const detail::Tolerance tolerance(options.strict, ignored);
  detail::ConfigBuilder builder;
  auto add = [&](std::size_t from, std::size_t to) -> Result<void> {
    auto def = parseStatement(s, from, to, fileName, tolerance);
    if (!def) return std::unexpected(def.error());
    return builder.add(std::move(*def));
  };
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.text().size(); ++i) {
    if (s.text()[i] != ';') continue;
    if (!s.piece(start, i).text.empty())
      if (auto ok = add(start, i); !ok) return std::unexpected(ok.error());
    start = i + 1;
  }
  // OpenSM reads a last definition that lacks its ';' as if it had one.
  if (const Piece rest = s.piece(start, s.text().size()); !rest.text.empty()) {
    if (auto ok = tolerance.pass(fmt::format("{}:{}", fileName, rest.line),
                                 fmt::format("expected ';' to end the definition '{}'", rest.text),
                                 "read it as if ended");
        !ok)
      return std::unexpected(ok.error());
    if (auto ok = add(start, s.text().size()); !ok) return std::unexpected(ok.error());
  }
  PartitionConfig config = builder.take();
  config.ignored = std::move(ignored);
  return config;
}

Result<PartitionConfig> readPartitionsFile(const std::filesystem::path& path,
                                           PartitionsFileOptions options) {
  std::ifstream in(path);
  if (!in) return fail(fmt::format("{}: cannot read the partitions file", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parsePartitionsFile(text.str(), path.string(), options);
}

}  // namespace ibsm::partition
