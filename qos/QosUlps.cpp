// The qos-ulps lines (QoS_management_in_OpenSM, "Simplified QoS Policy"):
// each ULP is matched by what its PathRecord queries carry -- SDP, RDS and
// iSER by the service id their connection manager derives from the TCP
// port (SDP 0x000000000001PPPP; RDS and iSER 0x000000000106PPPP, by default
// port 0x48CA and 0x0CBC), IPoIB by PKey (0x7fff when none is named), SRP
// by the target's port GUID (vendors' SRP service ids differ).
#include "qos/QosUlps.h"

#include <fmt/format.h>

#include "qos/QosPolicyText.h"

namespace ibsm::qos {
namespace {

constexpr std::uint64_t kSdpServiceId = 0x10000;
constexpr std::uint64_t kRdmaTcpServiceId = 0x1060000;  // RDS and iSER
constexpr std::uint64_t kRdsPort = 0x48CA;
constexpr std::uint64_t kIserPort = 0x0CBC;
constexpr std::uint16_t kDefaultPKey = 0x7FFF;

// What a line says after its ULP name: "port-num 30000" -> {"port-num", "30000"}.
struct Criterion {
  std::string_view keyword{};
  std::string_view value{};
};

Criterion criterionOf(std::string_view rest) {
  rest = text::trim(rest);
  const auto space = rest.find_first_of(" \t");
  if (space == std::string_view::npos) return {rest, {}};
  return {rest.substr(0, space), text::trim(rest.substr(space))};
}

class UlpLine {
 public:
  UlpLine(std::size_t line, const std::filesystem::path& file, UlpRules& out)
      : line_(line), file_(file), out_(out) {}

  Result<void> parse(std::string_view lhs, std::uint8_t sl) {
    const auto comma = lhs.find(',');
    const auto ulp = text::trim(lhs.substr(0, comma));
    const auto c =
        comma == std::string_view::npos ? Criterion{} : criterionOf(lhs.substr(comma + 1));
    rule_.line = line_;
    rule_.level = ulpLevelName(sl);
    if (text::sameWord(ulp, "default")) return fail("`default : SL` takes no criterion", c);
    if (text::sameWord(ulp, "sdp")) return byPort(c, kSdpServiceId, std::nullopt);
    if (text::sameWord(ulp, "rds")) return byPort(c, kRdmaTcpServiceId, kRdsPort);
    if (text::sameWord(ulp, "iser")) return byPort(c, kRdmaTcpServiceId, kIserPort);
    if (text::sameWord(ulp, "ipoib")) return ipoib(c);
    if (text::sameWord(ulp, "srp")) return srp(c);
    if (text::sameWord(ulp, "any")) return any(c);
    return error(
        fmt::format("unknown ULP `{}` (expected default, sdp, rds, iser, srp, ipoib or any)", ulp));
  }
  QosMatchRule rule() const { return rule_; }

 private:
  Result<void> error(std::string what) const {
    return std::unexpected(Error::at(file_.string(), line_, what));
  }
  // `default` is handled by the caller; any criterion on it is an error.
  Result<void> fail(std::string_view what, const Criterion& c) const {
    if (c.keyword.empty()) return {};
    return error(std::string(what));
  }

  // SDP, RDS, iSER: "port-num P" or "port-num A-B" -> service ids base+P;
  // none: every port (SDP) or the ULP's default port.
  Result<void> byPort(const Criterion& c, std::uint64_t base, std::optional<std::uint64_t> port) {
    if (c.keyword.empty()) {
      rule_.serviceIds.push_back(port ? Range<std::uint64_t>{base + *port, base + *port}
                                      : Range<std::uint64_t>{base, base + 0xFFFF});
      return {};
    }
    if (c.keyword != "port-num") return error(expected("port-num", c.keyword));
    auto ports = text::ranges(c.value, 0xFFFF);
    if (!ports)
      return error(
          fmt::format("port-num: expected TCP ports 0-65535 or ranges, got `{}`", c.value));
    for (const auto& r : *ports) rule_.serviceIds.push_back({base + r.first, base + r.last});
    return {};
  }

  Result<void> ipoib(const Criterion& c) {
    if (c.keyword.empty()) {
      rule_.pkeys.push_back({kDefaultPKey, kDefaultPKey});
      return {};
    }
    if (c.keyword != "pkey") return error(expected("pkey", c.keyword));
    return pkeys(c.value);
  }

  Result<void> srp(const Criterion& c) {
    if (c.keyword != "target-port-guid") return error(expected("target-port-guid", c.keyword));
    return guids(c.value, "SRPTargets", true, false);
  }

  Result<void> any(const Criterion& c) {
    if (c.keyword == "service-id") {
      auto ids = text::ranges(c.value, UINT64_MAX);
      if (!ids)
        return error(fmt::format("service-id: expected service ids or ranges, got `{}`", c.value));
      rule_.serviceIds = *ids;
      return {};
    }
    if (c.keyword == "pkey") return pkeys(c.value);
    if (c.keyword == "target-port-guid") return guids(c.value, "Targets", true, false);
    if (c.keyword == "source-port-guid") return guids(c.value, "Sources", false, true);
    if (c.keyword == "source-target-port-guid") return guids(c.value, "SourcesTargets", true, true);
    return error(
        expected("service-id, pkey, target-port-guid, source-port-guid or source-target-port-guid",
                 c.keyword));
  }

  Result<void> pkeys(std::string_view value) {
    auto keys = text::rangesOf<std::uint16_t>(value, 0xFFFF);
    if (!keys) return error(fmt::format("pkey: expected PKeys or ranges, got `{}`", value));
    rule_.pkeys = *keys;
    return {};
  }

  // The GUIDs become a port group of their own, as OpenSM makes one.
  Result<void> guids(std::string_view value, std::string_view kind, bool destination, bool source) {
    auto r = text::ranges(value, UINT64_MAX);
    if (!r) return error(fmt::format("expected port GUIDs or ranges, got `{}`", value));
    QosPortGroup g;
    g.name = fmt::format("_ULP_{}_line{}_", kind, line_);
    g.line = line_;
    g.portGuids = *r;
    if (destination) rule_.destinations.push_back(g.name);
    if (source) rule_.sources.push_back(g.name);
    out_.groups.push_back(std::move(g));
    return {};
  }

  static std::string expected(std::string_view what, std::string_view got) {
    return got.empty() ? fmt::format("expected `{} <value>` before the `:`", what)
                       : fmt::format("expected {}, got `{}`", what, got);
  }

  std::size_t line_;
  const std::filesystem::path& file_;
  UlpRules& out_;
  QosMatchRule rule_{};
};

}  // namespace

std::string ulpLevelName(std::uint8_t sl) {
  return fmt::format("ULP_SL{}", sl);
}

Result<void> parseUlpLine(std::string_view text, std::size_t line,
                          const std::filesystem::path& file, UlpRules& out) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return std::unexpected(
        Error::at(file.string(), line, "expected `ULP[, criterion] : SL` or end-qos-ulps"));
  const auto slText = text::trim(text.substr(colon + 1));
  auto sl = text::number(slText, 15);
  if (!sl)
    return std::unexpected(
        Error::at(file.string(), line,
                  fmt::format("expected a service level 0-15 after `:`, got `{}`", slText)));
  const auto lhs = text::trim(text.substr(0, colon));
  UlpLine parsed(line, file, out);
  auto ok = parsed.parse(lhs, static_cast<std::uint8_t>(*sl));
  if (!ok) return ok;
  if (text::sameWord(text::trim(lhs.substr(0, lhs.find(','))), "default")) {
    if (out.defaultSl)
      return std::unexpected(Error::at(file.string(), line, "a second `default : SL` line"));
    out.defaultSl = static_cast<std::uint8_t>(*sl);
    return {};
  }
  out.sls.insert(static_cast<std::uint8_t>(*sl));
  out.rules.push_back(parsed.rule());
  return {};
}

}  // namespace ibsm::qos
