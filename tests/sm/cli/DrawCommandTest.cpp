// `ibsm draw` as an operator runs it, judged from the SVG as a reader sees
// it: svg_facts.py parses it with python3's xml.etree (so it must be
// well-formed) and lists switches, links and host summaries with their
// classes, figures and tooltips.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <sstream>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

namespace fs = std::filesystem;
using ibsm::sm::cli::testing::freshTestDir;
using ibsm::sm::cli::testing::Outcome;
using ibsm::sm::cli::testing::runIbsm;
using Json = nlohmann::json;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class DrawCommand : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = freshTestDir("ibsm-draw"); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // A generated fabric, routed: its net file, and report.json in dir_/route.
  fs::path generateAndRoute(const std::string& spec) {
    const fs::path net = dir_ / "fabric.net";
    const Outcome gen = runIbsm(fmt::format("topo generate {} -o {}", spec, net.string()));
    EXPECT_EQ(gen.status, 0) << gen.out;
    const Outcome route =
        runIbsm(fmt::format("route -t {} -o {}", net.string(), (dir_ / "route").string()));
    EXPECT_EQ(route.status, 0) << route.out;
    return net;
  }
  Outcome draw(const std::string& args) {
    return runIbsm(fmt::format("draw {} -o {}", args, svg().string()));
  }
  fs::path svg() const { return dir_ / "fabric.svg"; }
  fs::path report() const { return dir_ / "route" / "report.json"; }

  // Fails the test when the SVG is not well-formed XML.
  Json facts() {
    const std::string cmd = fmt::format("python3 {} {} 2>&1", SVG_FACTS, svg().string());
    FILE* p = ::popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    EXPECT_EQ(::pclose(p), 0) << out;
    return Json::parse(out, nullptr, false);
  }
  static std::set<std::string> switchNames(const fs::path& net) {
    auto read = ibsm::readTopologyFile(net);
    std::set<std::string> names;
    for (auto s : read->fabric.switches()) names.insert(read->fabric.node(s).description);
    return names;
  }
  fs::path dir_;
};

TEST_F(DrawCommand, AFatTreeHasEverySwitchNamedAndItsLeavesBelowItsSpines) {
  const fs::path net = generateAndRoute("fat-tree --levels 3 --radix 8");
  const Outcome r = draw(fmt::format("-t {}", net.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json f = facts();
  std::set<std::string> drawn;
  std::map<int, std::pair<double, double>> yRange;  // tier -> min, max y
  for (const auto& s : f["switches"]) {
    drawn.insert(s["name"].get<std::string>());
    EXPECT_TRUE(s["labelled"].get<bool>());
    EXPECT_THAT(s["title"].get<std::string>(), HasSubstr(s["name"].get<std::string>()));
    auto [it, fresh] = yRange.try_emplace(s["tier"].get<int>(), s["y"], s["y"]);
    it->second = {std::min(it->second.first, s["y"].get<double>()),
                  std::max(it->second.second, s["y"].get<double>())};
  }
  EXPECT_EQ(drawn, switchNames(net));
  ASSERT_EQ(yRange.size(), 3u);  // leaves, aggregation, cores
  // SVG y grows downwards: every leaf lower on the page than every switch above it.
  EXPECT_GT(yRange[0].first, yRange[1].second);
  EXPECT_GT(yRange[1].first, yRange[2].second);
  for (const auto& l : f["links"]) EXPECT_THAT(l["classes"].dump(), HasSubstr("noload"));
}

TEST_F(DrawCommand, HostsAreOneSummaryPerLeafNotOneElementPerCa) {
  const fs::path net = generateAndRoute("fat-tree --levels 3 --radix 8");
  ASSERT_EQ(draw(fmt::format("-t {}", net.string())).status, 0);
  const Json f = facts();
  auto read = ibsm::readTopologyFile(net);
  std::size_t leaves = 0;
  for (auto s : read->fabric.switches())
    for (const auto& p : read->fabric.node(s).ports)
      if (p.remote && !read->fabric.node(p.remote->node).isSwitch()) {
        ++leaves;
        break;
      }
  ASSERT_EQ(f["hosts"].size(), leaves);
  std::size_t hosts = 0;
  for (const auto& h : f["hosts"]) hosts += h["hosts"].get<std::size_t>();
  EXPECT_EQ(hosts, read->fabric.endNodes().size());  // 128 hosts
  // A handful of elements per switch and per link; none per CA.
  const std::size_t perThing =
      6 * f["switches"].size() + 3 * f["hosts"].size() + 2 * f["links"].size() + 60;
  EXPECT_LT(f["elements"].get<std::size_t>(), perThing);
  EXPECT_LT(f["elements"].get<std::size_t>(), perThing - hosts + f["hosts"].size());
}

TEST_F(DrawCommand, ADragonflysGroupsAreContiguousAroundTheCircle) {
  const fs::path net = generateAndRoute("dragonfly -a 4 -p 2 -H 2");
  ASSERT_EQ(draw(fmt::format("-t {}", net.string())).status, 0);
  const Json f = facts();
  ASSERT_EQ(f["switches"].size(), 36u);  // 9 groups of 4
  double cx = 0, cy = 0;
  for (const auto& s : f["switches"]) cx += s["x"].get<double>(), cy += s["y"].get<double>();
  cx /= 36, cy /= 36;
  std::vector<std::pair<double, int>> byAngle;
  for (const auto& s : f["switches"])
    byAngle.emplace_back(std::atan2(s["y"].get<double>() - cy, s["x"].get<double>() - cx),
                         s["tier"].get<int>());
  std::ranges::sort(byAngle);
  // Around the circle each group is one run: the group changes 9 times, counting the wrap.
  int changes = 0;
  for (std::size_t i = 0; i < byAngle.size(); ++i)
    changes += byAngle[i].second != byAngle[(i + 1) % byAngle.size()].second;
  EXPECT_EQ(changes, 9);
}

TEST_F(DrawCommand, LoadColoursFollowTheReport) {
  const fs::path net = generateAndRoute("fat-tree --levels 2 --radix 8 --degrade 3 --seed 7");
  const Outcome r = draw(fmt::format("-t {} --report {}", net.string(), report().string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json rep = Json::parse(slurp(report()));
  const auto max = rep["linkLoad"]["max"].get<std::uint64_t>();
  ASSERT_GT(max, 0u);
  const Json f = facts();
  std::uint64_t drawnMax = 0;
  for (const auto& l : f["links"]) {
    const auto routes = l["routes"].get<std::uint64_t>();
    drawnMax = std::max(drawnMax, routes);
    const auto cls = l["classes"].get<std::vector<std::string>>();
    // Equal slices of (0, max]: the busiest link gets the top colour, l7.
    const std::string want =
        routes == 0 ? "unused"
                    : fmt::format("l{}", std::min<std::uint64_t>(7, (routes * 8 - 1) / max));
    EXPECT_NE(std::ranges::find(cls, want), cls.end()) << l["title"] << " wants " << want;
  }
  EXPECT_EQ(drawnMax, max);
  // The report's busiest link is drawn top-coloured, named in the tooltip.
  const Json& busiest = rep["linkLoad"]["busiest"][0];
  bool found = false;
  for (const auto& l : f["links"])
    found |=
        l["routes"] == busiest["routes"] && l["classes"].dump().find("\"l7\"") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST_F(DrawCommand, HealthMarksTheLinksAndHostsItNames) {
  const fs::path net = generateAndRoute("fat-tree --levels 2 --radix 8");
  auto read = ibsm::readTopologyFile(net);
  const auto& fabric = read->fabric;
  // A leaf's first up-link (downgraded), and a host port of it (errors).
  unsigned up = 0, down = 0;  // 0: none yet
  ibsm::NodeId leafId = 0;
  for (ibsm::NodeId s : fabric.switches()) {
    up = down = 0;
    for (std::uint8_t p = 1; p < fabric.node(s).ports.size(); ++p) {
      const auto& remote = fabric.node(s).ports[p].remote;
      if (!remote) continue;
      if (fabric.node(remote->node).isSwitch() && up == 0) up = p;
      if (!fabric.node(remote->node).isSwitch() && down == 0) down = p;
    }
    leafId = s;
    if (up && down) break;
  }
  const auto& leaf = fabric.node(leafId);
  ASSERT_TRUE(up != 0 && down != 0);
  const fs::path health = write("health.json", fmt::format(R"({{"unhealthy": [
        {{"condition": "downgraded", "port": {{"node_guid": "{0}", "port": {1}}}, "peer": null,
          "detail": "4x expected, 1x active"}},
        {{"condition": "errors", "port": {{"node_guid": "{0}", "port": {2}}},
          "detail": "SymbolErrorCounter 1205 > 10"}}]}})",
                                                           leaf.guid, up, down));
  const Outcome r = draw(fmt::format("-t {} --report {} --health {}", net.string(),
                                     report().string(), health.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json f = facts();
  std::vector<std::string> marked;
  for (const auto& l : f["links"])
    if (l["classes"].dump().find("unhealthy") != std::string::npos) marked.push_back(l["title"]);
  ASSERT_EQ(marked.size(), 1u);
  EXPECT_THAT(marked[0], HasSubstr("downgraded"));
  EXPECT_THAT(marked[0], HasSubstr("4x expected, 1x active"));
  EXPECT_THAT(marked[0], HasSubstr(leaf.description));
  std::size_t markedHosts = 0;
  for (const auto& h : f["hosts"])
    if (h["classes"].dump().find("unhealthy") != std::string::npos) {
      ++markedHosts;
      EXPECT_EQ(h["switch"], leaf.description);
      EXPECT_THAT(h["title"].get<std::string>(), HasSubstr("SymbolErrorCounter 1205 > 10"));
    }
  EXPECT_EQ(markedHosts, 1u);
}

TEST_F(DrawCommand, OtherFabricsAreRingsAroundACentre) {
  // Five switches in a ring with one host each: neither fat tree nor dragonfly.
  std::string text;
  for (int i = 0; i < 5; ++i)
    text += fmt::format(
        "Switch\t8 \"s{0}\"\n[1]\t\"s{1}\"[2]\n[2]\t\"s{2}\"[1]\n[3]\t\"h{0}\"[1]\n\n"
        "Hca\t1 \"h{0}\"\n[1]\t\"s{0}\"[3]\n\n",
        i, (i + 1) % 5, (i + 4) % 5);
  const fs::path net = write("ring.net", text);
  const Outcome r = draw(fmt::format("-t {}", net.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const Json f = facts();
  ASSERT_EQ(f["switches"].size(), 5u);
  std::map<int, int> perTier;
  for (const auto& s : f["switches"]) ++perTier[s["tier"].get<int>()];
  EXPECT_EQ(perTier, (std::map<int, int>{{0, 1}, {1, 2}, {2, 2}}));
  EXPECT_EQ(f["links"].size(), 5u);
}

TEST_F(DrawCommand, BadInputsFailNamingFileAndFieldAndWriteNothing) {
  const fs::path net = generateAndRoute("fat-tree --levels 2 --radix 4");
  const fs::path other = dir_ / "other.net";
  ASSERT_EQ(
      runIbsm(fmt::format("topo generate dragonfly -a 4 -p 2 -H 2 -o {}", other.string())).status,
      0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fmt::format("-t {}", (dir_ / "missing.net").string()), "missing.net"},
      {fmt::format("-t {} --report {}", net.string(),
                   write("bad.json", "{\"linkLoad\": [1,\n").string()),
       "bad.json: not JSON: parse error at line 2"},
      {fmt::format("-t {} --report {}", net.string(),
                   write("old.json", R"({"linkLoad": {"max": 3}})").string()),
       "old.json: linkLoad.perLink: missing"},
      {fmt::format("-t {} --report {}", net.string(),
                   write("shape.json", R"({"linkLoad": {"perLink": [["0x1", 2]]}})").string()),
       "shape.json: linkLoad.perLink[0]: expected [\"0x<node guid>\", <port>, <routes>]"},
      {fmt::format("-t {} --report {}", other.string(), report().string()),
       "report.json: linkLoad.perLink[0]: 0x"},
      {fmt::format(
           "-t {} --health {}", net.string(),
           write("h1.json", R"({"unhealthy": [{"condition": "errors", "port": {"port": 3}}]})")
               .string()),
       "h1.json: unhealthy[0].port.node_guid: expected a GUID"},
      {fmt::format("-t {} --health {}", net.string(),
                   write("h2.json", R"({"unhealthy": [{"port": {"node_guid": "0x1", "port": 3}}]})")
                       .string()),
       "h2.json: unhealthy[0].condition: expected a string"},
      {fmt::format(
           "-t {} --health {}", net.string(),
           write(
               "h3.json",
               R"({"unhealthy": [{"condition": "errors", "port": {"node_guid": "0x1", "port": 3}}]})")
               .string()),
       "h3.json: unhealthy[0].port: 0x0000000000000001 port 3 is not in this fabric"},
  };
  for (const auto& [args, words] : cases) {
    const Outcome r = draw(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_THAT(r.out, HasSubstr(words)) << args;
    EXPECT_FALSE(fs::exists(svg())) << args;
  }
}

TEST_F(DrawCommand, WithoutATopologyItAsksTheDaemonAndSaysWhenNoneListens) {
  const Outcome r = draw(fmt::format("--socket {}", (dir_ / "none.sock").string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("no ibsm daemon listening"));
  EXPECT_FALSE(fs::exists(svg()));
}

}  // namespace
