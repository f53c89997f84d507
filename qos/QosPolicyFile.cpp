// The reader of OpenSM's qos-policy.conf (QoS_management_in_OpenSM): one
// keyword a line, sections opened by a keyword and closed by its `end-`
// twin, `key: value` lines inside, `#` comments. Lists of names or numbers
// are comma separated and may repeat their key to go on. Every name a rule
// or scope uses must be defined somewhere in the file, and a level named
// DEFAULT (or a qos-ulps `default : SL` line) must exist, as OpenSM checks.
#include <fmt/format.h>
#include <ibsm/QosPolicy.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "qos/QosPolicyText.h"
#include "qos/QosUlps.h"

namespace ibsm::qos {
namespace {

enum class Block {
  Top,
  PortGroups,
  PortGroup,
  Setup,
  VlArbTables,
  VlArbScope,
  Sl2VlTables,
  Sl2VlScope,
  Levels,
  Level,
  Rules,
  Rule,
  Ulps
};

struct BlockSpec {
  Block block;
  std::string_view open;
  Block parent;
};

constexpr std::array kBlocks{
    BlockSpec{Block::PortGroups, "port-groups", Block::Top},
    BlockSpec{Block::PortGroup, "port-group", Block::PortGroups},
    BlockSpec{Block::Setup, "qos-setup", Block::Top},
    BlockSpec{Block::VlArbTables, "vlarb-tables", Block::Setup},
    BlockSpec{Block::VlArbScope, "vlarb-scope", Block::VlArbTables},
    BlockSpec{Block::Sl2VlTables, "sl2vl-tables", Block::Setup},
    BlockSpec{Block::Sl2VlScope, "sl2vl-scope", Block::Sl2VlTables},
    BlockSpec{Block::Levels, "qos-levels", Block::Top},
    BlockSpec{Block::Level, "qos-level", Block::Levels},
    BlockSpec{Block::Rules, "qos-match-rules", Block::Top},
    BlockSpec{Block::Rule, "qos-match-rule", Block::Rules},
    BlockSpec{Block::Ulps, "qos-ulps", Block::Top},
};

const BlockSpec* specOf(Block b) {
  for (const auto& s : kBlocks)
    if (s.block == b) return &s;
  return nullptr;
}

const BlockSpec* opening(std::string_view word) {
  for (const auto& s : kBlocks)
    if (s.open == word) return &s;
  return nullptr;
}

const BlockSpec* closing(std::string_view word) {
  if (!word.starts_with("end-")) return nullptr;
  return opening(word.substr(4));
}

// A name used before (or without) its definition, checked at the end.
struct Reference {
  std::size_t line{0};
  bool level{false};  // else a port group
  std::string name{};
};

std::string unquote(std::string_view s) {
  s = text::trim(s);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

class Parser {
 public:
  explicit Parser(const std::filesystem::path& file) : file_(file) { policy_.file = file; }

  Result<void> line(std::string_view raw, std::size_t no) {
    line_ = no;
    const auto text = text::trim(raw.substr(0, raw.find('#')));
    if (text.empty()) return {};
    if (const auto* s = opening(text)) return open(*s);
    if (const auto* s = closing(text)) return close(*s);
    if (block_ == Block::Ulps) return parseUlpLine(text, no, file_, ulps_);
    if (block_ == Block::Top)
      return error(
          fmt::format("unknown keyword `{}` (expected port-groups, qos-setup, "
                      "qos-levels, qos-match-rules or qos-ulps)",
                      text));
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
      return error(
          fmt::format("expected `keyword: value` or end-{}, got `{}`", specOf(block_)->open, text));
    return field(text::trim(text.substr(0, colon)), text::trim(text.substr(colon + 1)));
  }

  Result<QosPolicy> finish(std::size_t lastLine);

 private:
  Result<void> error(std::string what) const {
    return std::unexpected(Error::at(file_.string(), line_, what));
  }

  Result<void> open(const BlockSpec& s) {
    if (s.parent != block_)
      return error(fmt::format("`{}` belongs in {}", s.open,
                               s.parent == Block::Top ? "no section" : specOf(s.parent)->open));
    opened_.push_back(line_);
    block_ = s.block;
    seen_.clear();
    switch (s.block) {
      case Block::PortGroup:
        policy_.groups.push_back({.line = line_});
        break;
      case Block::VlArbScope:
        policy_.setup.vlArb.push_back({.line = line_});
        break;
      case Block::Sl2VlScope:
        policy_.setup.sl2vl.push_back({.line = line_});
        break;
      case Block::Level:
        policy_.levels.push_back({.line = line_});
        break;
      case Block::Rule:
        policy_.rules.push_back({.line = line_});
        break;
      default:
        break;
    }
    return {};
  }

  Result<void> close(const BlockSpec& s) {
    if (s.block != block_) return error(fmt::format("`end-{}` without an open {}", s.open, s.open));
    if (s.block == Block::PortGroup && policy_.groups.back().name.empty())
      return error("port-group without `name:`");
    if (s.block == Block::Level && policy_.levels.back().name.empty())
      return error("qos-level without `name:`");
    if (s.block == Block::Rule && policy_.rules.back().level.empty())
      return error("qos-match-rule without `qos-level-name:`");
    if (s.block == Block::Sl2VlScope && !seen_.contains("sl2vl-table"))
      return error("sl2vl-scope without `sl2vl-table:`");
    opened_.pop_back();
    block_ = s.parent;
    return {};
  }

  // Keys that take one value may not repeat within their block.
  Result<void> once(std::string_view key) {
    if (!seen_.insert(std::string(key)).second)
      return error(fmt::format("`{}` given twice in one {}", key, specOf(block_)->open));
    return {};
  }

  Result<void> field(std::string_view key, std::string_view value) {
    switch (block_) {
      case Block::PortGroup:
        return groupField(key, value);
      case Block::VlArbScope:
        return vlArbField(key, value);
      case Block::Sl2VlScope:
        return sl2vlField(key, value);
      case Block::Level:
        return levelField(key, value);
      case Block::Rule:
        return ruleField(key, value);
      default:
        return error(fmt::format("unknown keyword `{}` in {}", key, specOf(block_)->open));
    }
  }

  Result<void> groupField(std::string_view key, std::string_view value);
  Result<void> vlArbField(std::string_view key, std::string_view value);
  Result<void> sl2vlField(std::string_view key, std::string_view value);
  Result<void> levelField(std::string_view key, std::string_view value);
  Result<void> ruleField(std::string_view key, std::string_view value);

  Result<std::uint64_t> single(std::string_view key, std::string_view value, std::uint64_t max,
                               std::string_view what) {
    if (auto ok = once(key); !ok) return std::unexpected(ok.error());
    auto v = text::number(value, max);
    if (!v)
      return std::unexpected(Error::at(file_.string(), line_,
                                       fmt::format("{}: expected {}, got `{}`", key, what, value)));
    return *v;
  }

  template <typename T>
  Result<void> rangesInto(std::vector<Range<T>>& into, std::string_view key, std::string_view value,
                          std::uint64_t max, std::string_view what) {
    auto r = text::rangesOf<T>(value, max);
    if (!r) return error(fmt::format("{}: expected {}, got `{}`", key, what, value));
    into.insert(into.end(), r->begin(), r->end());
    return {};
  }

  // Names of port groups, checked once the whole file is read.
  Result<void> groupNames(std::vector<std::string>& into, std::string_view value) {
    for (auto name : text::splitList(value)) {
      auto n = unquote(name);
      if (n.empty()) return error("expected port group names separated by commas");
      refs_.push_back({line_, false, n});
      into.push_back(std::move(n));
    }
    return {};
  }

  Result<void> checkNames() const;
  Result<void> checkReferences(const std::map<std::string, std::size_t, std::less<>>& groups) const;

  const std::filesystem::path& file_;
  QosPolicy policy_{};
  UlpRules ulps_{};
  Block block_{Block::Top};
  std::vector<std::size_t> opened_{};
  std::set<std::string> seen_{};
  std::vector<Reference> refs_{};
  std::size_t line_{0};
};

Result<void> Parser::groupField(std::string_view key, std::string_view value) {
  auto& g = policy_.groups.back();
  if (key == "name") {
    if (auto ok = once(key); !ok) return ok;
    g.name = unquote(value);
    return g.name.empty() ? error("name: expected a port group name") : Result<void>{};
  }
  if (key == "use") return {};  // a description: OpenSM only logs it
  if (key == "port-guid")
    return rangesInto(g.portGuids, key, value, UINT64_MAX, "port GUIDs or ranges");
  if (key == "pkey") return rangesInto(g.pkeys, key, value, 0xFFFF, "PKeys or ranges");
  if (key == "port-name" || key == "partition") {
    auto& into = key == "port-name" ? g.portNames : g.partitions;
    for (auto item : text::splitList(value)) {
      auto s = unquote(item);
      if (s.empty()) return error(fmt::format("{}: expected names separated by commas", key));
      if (key == "port-name" && s.find("/P") == std::string::npos)
        return error(fmt::format("port-name: expected \"node description/P<port>\", got `{}`", s));
      into.push_back(std::move(s));
    }
    return {};
  }
  if (key == "node-type") {
    constexpr std::array<std::pair<std::string_view, std::uint8_t>, 5> kTypes{
        {{"CA", nodeTypeBit::kCa},
         {"SWITCH", nodeTypeBit::kSwitch},
         {"ROUTER", nodeTypeBit::kRouter},
         {"ALL", nodeTypeBit::kAll},
         {"SELF", nodeTypeBit::kSelf}}};
    for (auto item : text::splitList(value)) {
      const auto t =
          std::ranges::find_if(kTypes, [&](auto& k) { return text::sameWord(k.first, item); });
      if (t == kTypes.end())
        return error(
            fmt::format("node-type: expected CA, SWITCH, ROUTER, ALL or SELF, got `{}`", item));
      g.nodeTypes |= t->second;
    }
    return {};
  }
  return error(
      fmt::format("unknown keyword `{}` in port-group (expected name, use, port-guid, "
                  "port-name, pkey, partition or node-type)",
                  key));
}

Result<void> Parser::vlArbField(std::string_view key, std::string_view value) {
  auto& s = policy_.setup.vlArb.back();
  if (key == "group") return groupNames(s.groups, value);
  if (key == "across") return groupNames(s.across, value);
  if (key == "vl-high-limit") {
    auto v = single(key, value, 255, "a limit 0-255");
    if (!v) return std::unexpected(v.error());
    s.highLimit = static_cast<std::uint8_t>(*v);
    return {};
  }
  if (key == "vlarb-high" || key == "vlarb-low") {
    auto& table = key == "vlarb-high" ? s.high : s.low;
    auto entries = text::vlWeights(value);
    if (!entries)
      return error(fmt::format("{}: expected VL:weight pairs (VL 0-15, weight 0-255), got `{}`",
                               key, value));
    if (!table) table.emplace();
    table->insert(table->end(), entries->begin(), entries->end());
    if (table->size() > 64) return error(fmt::format("{}: more than 64 entries", key));
    return {};
  }
  return error(
      fmt::format("unknown keyword `{}` in vlarb-scope (expected group, across, "
                  "vlarb-high, vlarb-low or vl-high-limit)",
                  key));
}

Result<void> Parser::sl2vlField(std::string_view key, std::string_view value) {
  auto& s = policy_.setup.sl2vl.back();
  if (key == "group") return groupNames(s.groups, value);
  if (key == "across") {  // both ends of the link
    if (auto ok = groupNames(s.acrossFrom, value); !ok) return ok;
    return groupNames(s.acrossTo, value);
  }
  if (key == "across-from") return groupNames(s.acrossFrom, value);
  if (key == "across-to") return groupNames(s.acrossTo, value);
  if (key == "from" || key == "to") {
    if (value == "*") return {};  // every port, as an empty list means
    return rangesInto(key == "from" ? s.from : s.to, key, value, 254, "port numbers, ranges or *");
  }
  if (key == "sl2vl-table") {
    if (auto ok = once(key); !ok) return ok;
    const auto items = text::splitList(value);
    for (std::size_t sl = 0; sl < items.size() && sl < 16; ++sl) {
      auto vl = text::number(items[sl], 15);
      if (!vl) break;
      s.sl2vl[sl] = static_cast<std::uint8_t>(*vl);
      if (sl == 15 && items.size() == 16) return {};
    }
    return error(fmt::format("sl2vl-table: expected 16 VLs (0-15) for SL 0..15, got `{}`", value));
  }
  return error(
      fmt::format("unknown keyword `{}` in sl2vl-scope (expected group, across, "
                  "across-from, across-to, from, to or sl2vl-table)",
                  key));
}

Result<void> Parser::levelField(std::string_view key, std::string_view value) {
  auto& l = policy_.levels.back();
  if (key == "name") {
    if (auto ok = once(key); !ok) return ok;
    l.name = unquote(value);
    return l.name.empty() ? error("name: expected a QoS level name") : Result<void>{};
  }
  if (key == "use" || key == "path-bits") return {};  // a description; LMC path bits: not used
  if (key == "pkey") return rangesInto(l.pkeys, key, value, 0xFFFF, "PKeys or ranges");
  struct Numeric {
    std::string_view key;
    std::uint64_t max;
    std::string_view what;
  };
  constexpr std::array<Numeric, 4> kNumbers{{{"sl", 15, "a service level 0-15"},
                                             {"mtu-limit", 5, "an MTU code 1-5"},
                                             {"rate-limit", 63, "a rate code 0-63"},
                                             {"packet-life", 63, "a packet life code 0-63"}}};
  for (const auto& n : kNumbers) {
    if (key != n.key) continue;
    auto v = single(key, value, n.max, n.what);
    if (!v) return std::unexpected(v.error());
    const auto b = static_cast<std::uint8_t>(*v);
    if (key == "sl") l.sl = b;
    if (key == "mtu-limit") l.mtuLimit = b;
    if (key == "rate-limit") l.rateLimit = b;
    if (key == "packet-life") l.packetLife = b;
    return {};
  }
  return error(
      fmt::format("unknown keyword `{}` in qos-level (expected name, use, sl, mtu-limit, "
                  "rate-limit, packet-life or pkey)",
                  key));
}

Result<void> Parser::ruleField(std::string_view key, std::string_view value) {
  auto& r = policy_.rules.back();
  if (key == "use") return {};
  if (key == "source") return groupNames(r.sources, value);
  if (key == "destination") return groupNames(r.destinations, value);
  if (key == "qos-class") return rangesInto(r.qosClasses, key, value, 255, "QoS classes or ranges");
  if (key == "service-id")
    return rangesInto(r.serviceIds, key, value, UINT64_MAX, "service ids or ranges");
  if (key == "pkey") return rangesInto(r.pkeys, key, value, 0xFFFF, "PKeys or ranges");
  if (key == "qos-level-name") {
    if (auto ok = once(key); !ok) return ok;
    r.level = unquote(value);
    if (r.level.empty()) return error("qos-level-name: expected a QoS level name");
    refs_.push_back({line_, true, r.level});
    return {};
  }
  return error(
      fmt::format("unknown keyword `{}` in qos-match-rule (expected use, qos-class, "
                  "source, destination, service-id, pkey or qos-level-name)",
                  key));
}

Result<void> Parser::checkNames() const {
  std::map<std::string, std::size_t, std::less<>> groups;
  for (const auto& g : policy_.groups)
    if (auto [it, fresh] = groups.emplace(g.name, g.line); !fresh)
      return std::unexpected(Error::at(
          file_.string(), g.line,
          fmt::format("port group `{}` defined twice (first at line {})", g.name, it->second)));
  std::map<std::string, std::size_t, std::less<>> levels;
  for (const auto& l : policy_.levels)
    if (auto [it, fresh] = levels.emplace(l.name, l.line); !fresh)
      return std::unexpected(Error::at(
          file_.string(), l.line,
          fmt::format("QoS level `{}` defined twice (first at line {})", l.name, it->second)));
  return checkReferences(groups);
}

Result<void> Parser::checkReferences(
    const std::map<std::string, std::size_t, std::less<>>& groups) const {
  for (const auto& ref : refs_) {
    const bool known = ref.level ? policy_.level(ref.name) != nullptr || ref.name == "DEFAULT"
                                 : groups.contains(ref.name);
    if (!known)
      return std::unexpected(Error::at(
          file_.string(), ref.line,
          fmt::format("{} `{}` is not defined", ref.level ? "QoS level" : "port group", ref.name)));
  }
  return {};
}

Result<QosPolicy> Parser::finish(std::size_t lastLine) {
  if (block_ != Block::Top)
    return std::unexpected(Error::at(
        file_.string(), opened_.back(),
        fmt::format("`{}` is never closed (expected end-{} before the end of the file at line {})",
                    specOf(block_)->open, specOf(block_)->open, lastLine)));
  if (auto ok = checkNames(); !ok) return std::unexpected(ok.error());
  const bool hasDefault = policy_.level("DEFAULT") != nullptr;
  if (!hasDefault && !ulps_.defaultSl)
    return std::unexpected(Error::at(
        file_.string(), lastLine,
        "no QoS level named DEFAULT (expected a qos-level with `name: DEFAULT` or a qos-ulps "
        "`default : SL` line: it is what a query no rule matches gets)"));
  // A DEFAULT qos-level wins over the qos-ulps default, as in OpenSM.
  if (!hasDefault) policy_.levels.push_back({.name = "DEFAULT", .sl = *ulps_.defaultSl});
  for (auto sl : ulps_.sls)
    if (!policy_.level(ulpLevelName(sl)))
      policy_.levels.push_back({.name = ulpLevelName(sl), .sl = sl});
  policy_.groups.insert(policy_.groups.end(), ulps_.groups.begin(), ulps_.groups.end());
  policy_.rules.insert(policy_.rules.end(), ulps_.rules.begin(), ulps_.rules.end());
  return std::move(policy_);
}

}  // namespace

Result<QosPolicy> parseQosPolicy(std::string_view text, const std::filesystem::path& file) {
  Parser parser(file);
  std::size_t no = 0;
  while (!text.empty() || no == 0) {
    ++no;
    const auto eol = text.find('\n');
    if (auto ok = parser.line(text.substr(0, eol), no); !ok) return std::unexpected(ok.error());
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return parser.finish(no);
}

Result<QosPolicy> readQosPolicy(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return fail(fmt::format("{}: cannot read the QoS policy file", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parseQosPolicy(text.str(), file);
}

}  // namespace ibsm::qos
