#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "partition/PartitionSyntax.h"

namespace ibsm::partition {
namespace {

// IBTA rate codes and the Gb/s they stand for (tenths, so 2.5 is exact).
constexpr std::pair<std::uint8_t, unsigned> kRates[] = {
    {2, 25},    {3, 100},   {4, 300},   {5, 50},   {6, 200},   {7, 400},   {8, 600},
    {9, 800},   {10, 1200}, {11, 140},  {12, 560}, {13, 1120}, {14, 1680}, {15, 250},
    {16, 1000}, {17, 2000}, {18, 3000}, {19, 280}, {20, 500},  {21, 4000}, {22, 6000}};

std::optional<std::uint8_t> rateOfTenths(unsigned tenths) {
  for (auto [code, t] : kRates) {
    if (t == tenths) return code;
  }
  return std::nullopt;
}

// "2.5" -> 25, "100" -> 1000.
std::optional<unsigned> tenthsOf(std::string_view text) {
  const auto dot = text.find('.');
  unsigned whole = 0;
  unsigned frac = 0;
  std::string_view w = text.substr(0, dot);
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), whole);
  if (w.empty() || ec != std::errc{} || p != w.data() + w.size()) return std::nullopt;
  if (dot != std::string_view::npos) {
    std::string_view f = text.substr(dot + 1);
    while (f.size() > 1 && f.back() == '0') f.remove_suffix(1);
    if (f.size() != 1 || !std::isdigit(static_cast<unsigned char>(f[0]))) return std::nullopt;
    frac = static_cast<unsigned>(f[0] - '0');
  }
  return whole * 10 + frac;
}

}  // namespace

std::optional<std::uint8_t> parseMtu(std::string_view text) {
  auto n = detail::parseNumber(detail::trim(text));
  if (!n) return std::nullopt;
  if (*n >= 1 && *n <= 5) return static_cast<std::uint8_t>(*n);
  for (std::uint8_t code = 1; code <= 5; ++code) {
    if (*n == (128u << code)) return code;
  }
  return std::nullopt;
}

std::optional<std::uint8_t> parseRate(std::string_view text) {
  std::string t(detail::trim(text));
  std::ranges::transform(t, t.begin(), [](unsigned char c) { return std::tolower(c); });
  bool unit = false;
  for (std::string_view suffix : {"gbps", "gb/s", "gb", "g"}) {
    if (t.size() > suffix.size() && t.ends_with(suffix)) {
      t.resize(t.size() - suffix.size());
      unit = true;
      break;
    }
  }
  if (!unit && t.find('.') == std::string::npos) {
    // A bare integer up to 22 is an IBTA code, as in OpenSM's files.
    auto n = detail::parseNumber(t);
    if (!n) return std::nullopt;
    if (*n >= 2 && *n <= 22) return static_cast<std::uint8_t>(*n);
  }
  auto tenths = tenthsOf(t);
  return tenths ? rateOfTenths(*tenths) : std::nullopt;
}

std::string_view membershipName(Membership m) {
  switch (m) {
    case Membership::Full:
      return "full";
    case Membership::Limited:
      return "limited";
    case Membership::Both:
      return "both";
  }
  return "?";
}

bool PartitionDef::sameAs(const PartitionDef& o) const {
  return name == o.name && pkey == o.pkey && ipoib == o.ipoib && indx0 == o.indx0 && mtu == o.mtu &&
         rate == o.rate && sl == o.sl && scopes == o.scopes && qkey == o.qkey &&
         tclass == o.tclass && flowLabel == o.flowLabel && members == o.members &&
         groups == o.groups;
}

PartitionConfig defaultPartitionConfig() {
  PartitionDef d;
  d.name = "Default";
  d.pkey = kDefaultPKey;
  d.ipoib = true;
  d.where = "(default partition: no partitions file, no [[partition]] table)";
  MemberSpec all;
  all.kind = MemberSpec::Kind::All;
  all.membership = Membership::Full;
  all.where = d.where;
  d.members = {all};
  PartitionConfig config;
  config.partitions = {d};
  return config;
}

const PartitionDef* PartitionConfig::find(std::uint16_t pkey) const {
  auto it = std::ranges::find(partitions, pkey, &PartitionDef::pkey);
  return it == partitions.end() ? nullptr : &*it;
}

Result<PartitionConfig> mergeSources(const PartitionConfig& a, const PartitionConfig& b) {
  PartitionConfig out = a;
  std::map<std::string, const PartitionDef*> names;
  for (const PartitionDef& d : a.partitions) {
    if (!d.name.empty()) names[d.name] = &d;
  }
  for (const PartitionDef& d : b.partitions) {
    if (const PartitionDef* there = a.find(d.pkey)) {
      if (!there->sameAs(d)) {
        return fail(fmt::format(
            "{}: PKey 0x{:04x} ('{}') is also defined at {} ('{}'), differently; define it in "
            "one place",
            d.where, d.pkey, d.name, there->where, there->name));
      }
      continue;
    }
    if (auto n = names.find(d.name); n != names.end()) {
      return fail(fmt::format("{}: partition name '{}' is also used at {} for PKey 0x{:04x}",
                              d.where, d.name, n->second->where, n->second->pkey));
    }
    out.partitions.push_back(d);
  }
  out.ignored.insert(out.ignored.end(), b.ignored.begin(), b.ignored.end());
  return out;
}

}  // namespace ibsm::partition
