#include "partition/PartitionSyntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ibsm::partition::detail {
namespace {

template <typename T>
Result<T> boundedNumber(std::string_view key, std::string_view value, std::uint64_t max,
                        const std::string& where) {
  auto n = parseNumber(value);
  if (!n || *n > max) {
    return std::unexpected(Error{
        fmt::format("{}: {}= takes a number from 0 to {}, not '{}'", where, key, max, value)});
  }
  return static_cast<T>(*n);
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

std::optional<std::uint64_t> parseNumber(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, base);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return v;
}

std::optional<Membership> parseMembership(std::string_view text) {
  const std::string t = lower(text);
  if (t == "full") return Membership::Full;
  if (t == "limited") return Membership::Limited;
  if (t == "both") return Membership::Both;
  return std::nullopt;
}

Result<std::uint16_t> parsePKey(std::string_view text, const std::string& where) {
  auto n = parseNumber(text);
  if (!n || *n > 0xffff || (*n & 0x7fff) == 0) {
    return std::unexpected(Error{fmt::format(
        "{}: expected a PKey from 0x0001 to 0x7fff (0x8000 bit ignored), not '{}'", where, text)});
  }
  return static_cast<std::uint16_t>(*n & 0x7fff);
}

Result<void> applyFlag(PartitionDef& def, Membership& defmember, std::string_view key,
                       std::string_view value, const std::string& where) {
  const std::string k = lower(key);
  static constexpr std::string_view kKnown[] = {"ipoib", "indx0",  "defmember", "mtu",
                                                "rate",  "sl",     "scope",     "q_key",
                                                "qkey",  "tclass", "flowlabel"};
  if (std::ranges::find(kKnown, k) == std::end(kKnown)) {
    return std::unexpected(Error{fmt::format(
        "{}: unknown partition flag '{}' (expected ipoib, indx0, defmember, mtu, rate, sl, scope, "
        "Q_Key, TClass, FlowLabel)",
        where, key)});
  }
  const bool bare = k == "ipoib" || k == "indx0";
  if (bare != value.empty()) {
    return std::unexpected(Error{
        fmt::format("{}: '{}' {}", where, key, bare ? "takes no value" : "expected key=value")});
  }
  if (k == "ipoib") {
    def.ipoib = true;
  } else if (k == "indx0") {
    def.indx0 = true;
  } else if (k == "defmember") {
    auto m = parseMembership(value);
    if (!m) {
      return std::unexpected(
          Error{fmt::format("{}: defmember= takes full, limited or both, not '{}'", where, value)});
    }
    defmember = *m;
  } else if (k == "mtu") {
    def.mtu = parseMtu(value);
    if (!def.mtu) {
      return std::unexpected(Error{
          fmt::format("{}: mtu= takes an IBTA code 1-5 or 256, 512, 1024, 2048, 4096, not '{}'",
                      where, value)});
    }
  } else if (k == "rate") {
    def.rate = parseRate(value);
    if (!def.rate) {
      return std::unexpected(Error{fmt::format(
          "{}: rate= takes an IBTA code 2-22 or a rate in Gb/s (100, 10G, 2.5G), not '{}'", where,
          value)});
    }
  } else if (k == "sl") {
    auto v = boundedNumber<std::uint8_t>(key, value, 15, where);
    if (!v) return std::unexpected(v.error());
    def.sl = *v;
  } else if (k == "scope") {
    auto v = boundedNumber<std::uint8_t>(key, value, 15, where);
    if (!v) return std::unexpected(v.error());
    if (std::ranges::find(def.scopes, *v) == def.scopes.end()) def.scopes.push_back(*v);
  } else if (k == "q_key" || k == "qkey") {
    auto v = boundedNumber<std::uint32_t>(key, value, 0xffffffff, where);
    if (!v) return std::unexpected(v.error());
    def.qkey = *v;
  } else if (k == "tclass") {
    auto v = boundedNumber<std::uint8_t>(key, value, 0xff, where);
    if (!v) return std::unexpected(v.error());
    def.tclass = *v;
  } else if (k == "flowlabel") {
    auto v = boundedNumber<std::uint32_t>(key, value, 0xfffff, where);
    if (!v) return std::unexpected(v.error());
    def.flowLabel = *v;
  }
  return {};
}

Result<MemberSpec> parseMember(std::string_view text, Membership defmember,
                               const std::string& where) {
  MemberSpec m;
  m.membership = defmember;
  m.where = where;
  std::string_view spec = trim(text);
  if (auto eq = spec.find('='); eq != std::string_view::npos) {
    const std::string_view value = trim(spec.substr(eq + 1));
    spec = trim(spec.substr(0, eq));
    auto membership = parseMembership(value);
    if (!membership) {
      return std::unexpected(Error{fmt::format(
          "{}: membership of '{}' must be full, limited or both, not '{}'", where, spec, value)});
    }
    m.membership = *membership;
  }
  using K = MemberSpec::Kind;
  if (spec == "ALL") {
    m.kind = K::All;
  } else if (spec == "ALL_CAS") {
    m.kind = K::AllCas;
  } else if (spec == "ALL_SWITCHES") {
    m.kind = K::AllSwitches;
  } else if (spec == "ALL_ROUTERS") {
    m.kind = K::AllRouters;
  } else if (spec == "SELF") {
    m.kind = K::Self;
  } else if (auto guid = parseNumber(spec); guid && *guid != 0) {
    m.guid = Guid{*guid};
  } else {
    return std::unexpected(Error{
        fmt::format("{}: expected a port GUID (0x... or decimal) or ALL, ALL_CAS, ALL_SWITCHES, "
                    "ALL_ROUTERS, SELF, not '{}'",
                    where, spec)});
  }
  return m;
}

Result<void> Tolerance::pass(const std::string& where, std::string_view problem,
                             std::string_view openSm) const {
  if (strict_) {
    return std::unexpected(Error{fmt::format(
        "{}: {}; OpenSM would {} (with partitions.strict = false, so does ibsm, with a warning)",
        where, problem, openSm)});
  }
  ignored_->push_back(IgnoredItem{where, fmt::format("{}: as OpenSM would, {}", problem, openSm)});
  return {};
}

Result<void> Tolerance::pass(const std::string& where, const Error& error,
                             std::string_view openSm) const {
  std::string_view problem = error.message;
  if (problem.starts_with(where + ": ")) problem.remove_prefix(where.size() + 2);
  return pass(where, problem, openSm);
}

Error openSmDropsTheFile(Error error) {
  error.message +=
      "; OpenSM would drop the whole file and manage only its default partition (Default=0x7fff, "
      "every port a full member), saying only PARSE ERROR in its log";
  return error;
}

namespace {

template <typename T>
Result<void> mergeOptional(std::optional<T>& into, const std::optional<T>& from,
                           std::string_view flag, const PartitionDef& def,
                           const PartitionDef& first) {
  if (!from) return {};
  if (into && *into != *from) {
    return std::unexpected(
        Error{fmt::format("{}: partition '{}' (0x{:04x}) sets {} differently than at {}", def.where,
                          def.name, def.pkey, flag, first.where)});
  }
  into = from;
  return {};
}

}  // namespace

Result<void> ConfigBuilder::add(PartitionDef def) {
  if (auto named = byName_.find(def.name);
      !def.name.empty() && named != byName_.end() && named->second.first != def.pkey) {
    return std::unexpected(Error{fmt::format(
        "{}: duplicate partition name '{}': {} names PKey 0x{:04x}, this names 0x{:04x}", def.where,
        def.name, named->second.second, named->second.first, def.pkey)});
  }
  auto same = byPKey_.find(def.pkey);
  if (same == byPKey_.end()) {
    byPKey_[def.pkey] = config_.partitions.size();
    if (!def.name.empty()) byName_[def.name] = {def.pkey, def.where};
    config_.partitions.push_back(std::move(def));
    return {};
  }
  PartitionDef& first = config_.partitions[same->second];
  if (first.name != def.name) {
    return std::unexpected(Error{fmt::format(
        "{}: duplicate PKey 0x{:04x}: partition '{}' here, '{}' at {} (split definitions of one "
        "partition must use the same name)",
        def.where, def.pkey, def.name, first.name, first.where)});
  }
  // One partition written in several definitions: the union of members,
  // flags that agree.
  if (auto ok = mergeOptional(first.mtu, def.mtu, "mtu", def, first); !ok) return ok;
  if (auto ok = mergeOptional(first.rate, def.rate, "rate", def, first); !ok) return ok;
  if (auto ok = mergeOptional(first.sl, def.sl, "sl", def, first); !ok) return ok;
  if (auto ok = mergeOptional(first.qkey, def.qkey, "Q_Key", def, first); !ok) return ok;
  if (auto ok = mergeOptional(first.tclass, def.tclass, "TClass", def, first); !ok) return ok;
  if (auto ok = mergeOptional(first.flowLabel, def.flowLabel, "FlowLabel", def, first); !ok) {
    return ok;
  }
  first.ipoib = first.ipoib || def.ipoib;
  first.indx0 = first.indx0 || def.indx0;
  for (std::uint8_t s : def.scopes) {
    if (std::ranges::find(first.scopes, s) == first.scopes.end()) first.scopes.push_back(s);
  }
  for (MemberSpec& m : def.members) first.members.push_back(std::move(m));
  for (McGroupDef& g : def.groups) first.groups.push_back(std::move(g));
  return {};
}

}  // namespace ibsm::partition::detail
