#include "sm/cli/DrawInputs.h"

#include <fmt/format.h>
#include <ibsm/GuidList.h>

#include <nlohmann/json.hpp>

namespace ibsm::sm::cli {
namespace {

using Json = nlohmann::json;

Result<Json> parseJson(std::string_view text, std::string_view file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string_view what = e.what();
    if (const auto close = what.find("] "); close != std::string_view::npos)
      what.remove_prefix(close + 2);
    return fail(fmt::format("{}: not JSON: {}", file, what));
  }
}

std::optional<Guid> guidIn(const Json& j) {
  if (!j.is_string()) return std::nullopt;
  const auto v = parseHex64(j.get<std::string>());
  if (!v) return std::nullopt;
  return Guid{*v};
}

std::optional<std::uint8_t> portIn(const Json& j) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() > 255) return std::nullopt;
  return static_cast<std::uint8_t>(j.get<std::uint64_t>());
}

Result<draw::HealthMark> markIn(const Json& e, std::string_view where) {
  if (!e.is_object()) return fail(fmt::format("{}: expected an object", where));
  if (!e.contains("condition") || !e["condition"].is_string())
    return fail(fmt::format("{}.condition: expected a string such as \"downgraded\"", where));
  draw::HealthMark mark{
      .node = {}, .port = 0, .condition = e["condition"].get<std::string>(), .detail = {}};
  const Json* holder = &e;  // where node_guid sits: in "port", or beside it
  if (e.contains("port") && e["port"].is_object()) holder = &e["port"];
  const auto guid = holder->contains("node_guid") ? guidIn((*holder)["node_guid"]) : std::nullopt;
  if (!guid)
    return fail(fmt::format(
        "{}.port.node_guid: expected a GUID string such as \"0x0002c903000a0b0c\"", where));
  mark.node = *guid;
  const auto port = holder->contains("port") ? portIn((*holder)["port"]) : std::nullopt;
  if (!port) return fail(fmt::format("{}.port.port: expected a port number 0-255", where));
  mark.port = *port;
  if (e.contains("detail") && e["detail"].is_string()) mark.detail = e["detail"].get<std::string>();
  return mark;
}

}  // namespace

Result<std::vector<draw::LinkLoadEntry>> parseReportLoads(std::string_view text,
                                                          std::string_view file) {
  auto json = parseJson(text, file);
  if (!json) return std::unexpected(json.error());
  if (!json->is_object() || !json->contains("linkLoad") || !(*json)["linkLoad"].is_object())
    return fail(
        fmt::format("{}: linkLoad: missing; expected report.json of `ibsm route -o DIR`", file));
  const Json& linkLoad = (*json)["linkLoad"];
  if (!linkLoad.contains("perLink") || !linkLoad["perLink"].is_array())
    return fail(
        fmt::format("{}: linkLoad.perLink: missing; the report is from an ibsm route "
                    "older than ibsm draw, run it again",
                    file));
  std::vector<draw::LinkLoadEntry> loads;
  const Json& perLink = linkLoad["perLink"];
  loads.reserve(perLink.size());
  for (std::size_t i = 0; i < perLink.size(); ++i) {
    const Json& e = perLink[i];
    const auto guid = e.is_array() && e.size() == 3 ? guidIn(e[0]) : std::nullopt;
    const auto port = guid ? portIn(e[1]) : std::nullopt;
    if (!guid || !port || !e[2].is_number_unsigned())
      return fail(
          fmt::format("{}: linkLoad.perLink[{}]: expected [\"0x<node guid>\", <port>, "
                      "<routes>]",
                      file, i));
    loads.push_back({*guid, *port, e[2].get<std::uint64_t>()});
  }
  return loads;
}

Result<std::vector<draw::HealthMark>> parseHealthMarks(std::string_view text,
                                                       std::string_view file) {
  auto json = parseJson(text, file);
  if (!json) return std::unexpected(json.error());
  const Json* list = &*json;
  if (json->is_object() && json->contains("unhealthy")) list = &(*json)["unhealthy"];
  if (!list->is_array())
    return fail(
        fmt::format("{}: unhealthy: expected a list of conditions (`ibsm health --json`)", file));
  std::vector<draw::HealthMark> marks;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto mark = markIn((*list)[i], fmt::format("{}: unhealthy[{}]", file, i));
    if (!mark) return std::unexpected(mark.error());
    marks.push_back(std::move(*mark));
  }
  return marks;
}

}  // namespace ibsm::sm::cli
