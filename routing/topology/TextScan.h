// A cursor over one line of a topology file, shared by both readers. Only
// string_view and from_chars: a 100k-line capture must parse in milliseconds,
// so nothing here allocates or uses regex.
//
//   Cursor c{"[3]\t\"S-0000000000200001\"[5]"};
//   c.consume('['); auto port = c.decimal(); c.consume(']'); c.skipSpace();
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::topology {

inline bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline std::string_view trimRight(std::string_view s) {
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  return s;
}

inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// A file saved by a Windows editor may open with a UTF-8 byte-order mark; it
// is no part of the first line, and line numbers stay what the editor shows.
inline std::string_view withoutByteOrderMark(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

// Splits text into lines numbered from 1; a trailing '\r' (a file written on
// Windows) is not part of the line.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = text_.find('\n', pos_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    line = text_.substr(pos_, stop - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = stop + 1;
    ++number_;
    return true;
  }
  std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_{0};
  std::size_t number_{0};
};

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool atEnd() const { return pos_ >= s_.size(); }
  char peek() const { return atEnd() ? '\0' : s_[pos_]; }
  std::string_view rest() const { return s_.substr(pos_); }
  std::size_t position() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos < s_.size() ? pos : s_.size(); }

  std::size_t skipSpace() {
    const std::size_t start = pos_;
    while (!atEnd() && isBlank(s_[pos_])) ++pos_;
    return pos_ - start;
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view word) {
    if (!rest().starts_with(word)) return false;
    pos_ += word.size();
    return true;
  }

  // Unsigned number in `base`; nothing is consumed when there is none or it overflows.
  std::optional<std::uint64_t> number(int base = 10) {
    std::uint64_t v = 0;
    const char* first = s_.data() + pos_;
    const auto [ptr, ec] = std::from_chars(first, s_.data() + s_.size(), v, base);
    if (ec != std::errc{}) return std::nullopt;
    pos_ += static_cast<std::size_t>(ptr - first);
    return v;
  }
  std::optional<std::uint64_t> decimal() { return number(10); }
  // Hex digits with an optional 0x prefix, at most 16 of them (a GUID).
  std::optional<std::uint64_t> hex() {
    const std::size_t start = pos_;
    if (rest().starts_with("0x") || rest().starts_with("0X")) pos_ += 2;
    const std::size_t digits = pos_;
    auto v = number(16);
    if (!v || pos_ - digits > 16) {
      pos_ = start;
      return std::nullopt;
    }
    return v;
  }

  // "text" -> text, up to the next quote.
  std::optional<std::string_view> quoted() {
    if (peek() != '"') return std::nullopt;
    const std::size_t close = s_.find('"', pos_ + 1);
    if (close == std::string_view::npos) return std::nullopt;
    const auto inside = s_.substr(pos_ + 1, close - pos_ - 1);
    pos_ = close + 1;
    return inside;
  }

  // The run of non-blank characters at the cursor.
  std::string_view word() {
    const std::size_t start = pos_;
    while (!atEnd() && !isBlank(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::string_view letters() {
    const std::size_t start = pos_;
    while (!atEnd() &&
           ((s_[pos_] >= 'A' && s_[pos_] <= 'Z') || (s_[pos_] >= 'a' && s_[pos_] <= 'z')))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }

 private:
  std::string_view s_;
  std::size_t pos_{0};
};

// A line shaped like a node header, `<Word> <count> "...`, whatever the word:
// what the readers call an unknown node type rather than a malformed line.
inline bool looksLikeNodeHeader(std::string_view line) {
  Cursor c{line};
  return !c.letters().empty() && c.skipSpace() > 0 && c.decimal() && c.skipSpace() > 0 &&
         c.peek() == '"';
}

}  // namespace ibsm::topology
