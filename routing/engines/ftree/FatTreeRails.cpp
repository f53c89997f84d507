#include "routing/engines/ftree/FatTreeRails.h"

#include <cctype>

namespace ibsm::routing::ftree {
namespace {

bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::optional<std::uint32_t> number(std::string_view digits) {
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  std::uint32_t v = 0;
  for (const char c : digits) {
    if (!isDigit(c)) return std::nullopt;
    v = v * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return v;
}

}  // namespace

std::optional<HcaName> parseHcaName(std::string_view description) {
  const auto space = description.find_last_of(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  std::string_view host = description.substr(0, space);
  while (!host.empty() && host.back() == ' ') host.remove_suffix(1);
  if (host.empty() || host.find(' ') != std::string_view::npos) return std::nullopt;
  const std::string_view device = description.substr(space + 1);
  for (const std::string_view prefix : {std::string_view{"mlx5_"}, std::string_view{"HCA-"}}) {
    if (!device.starts_with(prefix)) continue;
    if (const auto n = number(device.substr(prefix.size()))) return HcaName{host, *n};
  }
  return std::nullopt;
}

std::strong_ordering naturalCompare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && a[ei] == '0') ++ei;
      while (ej < b.size() && b[ej] == '0') ++ej;
      std::size_t ni = ei, nj = ej;
      while (ni < a.size() && isDigit(a[ni])) ++ni;
      while (nj < b.size() && isDigit(b[nj])) ++nj;
      if (ni - ei != nj - ej) return (ni - ei) <=> (nj - ej);
      if (const auto c = a.substr(ei, ni - ei) <=> b.substr(ej, nj - ej); c != 0) return c;
      i = ni;
      j = nj;
      continue;
    }
    if (a[i] != b[j]) return a[i] <=> b[j];
    ++i;
    ++j;
  }
  return (a.size() - i) <=> (b.size() - j);
}

}  // namespace ibsm::routing::ftree
