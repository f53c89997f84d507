// [[partition]] tables of ibsm.toml. Each key maps onto the partitions.conf
// flag of the same name, so both sources go through the same checks:
//
//   [[partition]]
//   name = "storage"
//   pkey = 0x0010
//   ipoib = true
//   mtu = 4096
//   defmember = "limited"
//   members = ["ALL_CAS", { guid = "0x0002c903000a1b2c", membership = "full" }]
#include <fmt/format.h>
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "partition/PartitionSyntax.h"

namespace ibsm::partition {
namespace {

std::string whereOf(const toml::node& n, std::string_view file) {
  return fmt::format("{}:{}", file, n.source().begin.line);
}

Result<void> expected(const toml::node& n, std::string_view file, std::string_view what) {
  return fail(fmt::format("{}: expected {}", whereOf(n, file), what));
}

// A flag value as the partitions.conf text would spell it.
std::optional<std::string> valueText(const toml::node& n) {
  if (auto s = n.value<std::string>()) return *s;
  if (auto i = n.value<std::int64_t>(); i && n.is_integer()) return std::to_string(*i);
  if (auto d = n.value<double>(); d && n.is_floating_point()) return fmt::format("{}G", *d);
  return std::nullopt;
}

Result<MemberSpec> tomlMember(const toml::node& n, Membership defmember, std::string_view file) {
  const std::string where = whereOf(n, file);
  if (auto s = n.value<std::string>()) return detail::parseMember(*s, defmember, where);
  const auto* t = n.as_table();
  if (!t) {
    return std::unexpected(Error{fmt::format(
        "{}: expected a member: \"ALL_CAS=limited\" or {{ guid = \"0x...\", membership = "
        "\"full\" }}",
        where)});
  }
  std::string text;
  std::string membership;
  for (const auto& [key, value] : *t) {
    if (key == "guid") {
      auto v = valueText(value);
      if (!v) return std::unexpected(Error{fmt::format("{}: expected guid = \"0x...\"", where)});
      text = *v;
    } else if (key == "membership") {
      auto v = value.value<std::string>();
      if (!v) {
        return std::unexpected(Error{
            fmt::format("{}: expected membership = \"full\", \"limited\" or \"both\"", where)});
      }
      membership = *v;
    } else {
      return std::unexpected(Error{fmt::format(
          "{}: unknown member key '{}' (expected guid, membership)", where, key.str())});
    }
  }
  if (text.empty()) return std::unexpected(Error{fmt::format("{}: member without guid", where)});
  if (!membership.empty()) text += "=" + membership;
  return detail::parseMember(text, defmember, where);
}

Result<PartitionDef> tomlPartition(const toml::table& t, std::string_view file) {
  PartitionDef def;
  def.where = whereOf(t, file);
  Membership defmember = Membership::Limited;
  const toml::node* members = nullptr;
  bool havePKey = false;
  for (const auto& [key, value] : t) {
    const std::string where = whereOf(value, file);
    const std::string_view k = key.str();
    if (k == "name") {
      auto s = value.value<std::string>();
      if (!s) return std::unexpected(expected(value, file, "name = \"...\"").error());
      def.name = *s;
    } else if (k == "pkey") {
      auto text = valueText(value);
      auto pkey = detail::parsePKey(text.value_or("?"), where);
      if (!pkey) return std::unexpected(pkey.error());
      def.pkey = *pkey;
      havePKey = true;
    } else if (k == "members") {
      members = &value;
    } else if (k == "ipoib" || k == "indx0") {
      auto b = value.value<bool>();
      if (!b || !value.is_boolean()) {
        return std::unexpected(expected(value, file, fmt::format("{} = true or false", k)).error());
      }
      if (*b) {
        if (auto ok = detail::applyFlag(def, defmember, k, "", where); !ok) {
          return std::unexpected(ok.error());
        }
      }
    } else if (const auto* arr = value.as_array(); arr && k == "scope") {
      for (const auto& s : *arr) {
        auto text = valueText(s);
        if (auto ok = detail::applyFlag(def, defmember, k, text.value_or("?"), whereOf(s, file));
            !ok) {
          return std::unexpected(ok.error());
        }
      }
    } else {
      const std::string flag = k == "flow_label" ? "FlowLabel" : std::string(k);
      auto text = valueText(value);
      if (auto ok = detail::applyFlag(def, defmember, flag, text.value_or("?"), where); !ok) {
        return std::unexpected(Error{ok.error().message + " (keys of [[partition]]: name, pkey, "
                                                          "members and the flags)"});
      }
    }
  }
  if (!havePKey) return std::unexpected(expected(t, file, "pkey = 0x... in [[partition]]").error());
  if (members) {
    const auto* arr = members->as_array();
    if (!arr) return std::unexpected(expected(*members, file, "members = [ ... ]").error());
    for (const auto& m : *arr) {
      auto spec = tomlMember(m, defmember, file);
      if (!spec) return std::unexpected(spec.error());
      def.members.push_back(std::move(*spec));
    }
  }
  return def;
}

}  // namespace

Result<PartitionConfig> parseTomlPartitions(std::string_view text, std::string_view fileName) {
  toml::table root;
  try {
    root = toml::parse(text, fileName);
  } catch (const toml::parse_error& e) {
    return fail(fmt::format("{}:{}: {}", fileName, e.source().begin.line, e.description()));
  }
  detail::ConfigBuilder builder;
  const toml::node* node = root.get("partition");
  if (!node) return builder.take();
  const auto* arr = node->as_array();
  if (!arr || !arr->is_array_of_tables()) {
    return std::unexpected(
        expected(*node, fileName, "[[partition]] tables (an array of tables)").error());
  }
  for (const auto& item : *arr) {
    auto def = tomlPartition(*item.as_table(), fileName);
    if (!def) return std::unexpected(def.error());
    if (auto ok = builder.add(std::move(*def)); !ok) return std::unexpected(ok.error());
  }
  return builder.take();
}

Result<PartitionConfig> loadTomlPartitions(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return fail(fmt::format("{}: cannot read the config file", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parseTomlPartitions(text.str(), path.string());
}

}  // namespace ibsm::partition
