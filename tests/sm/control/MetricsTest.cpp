// The Prometheus text the daemon writes for node_exporter and `ibsm
// metrics` prints: valid exposition format 0.0.4 (checked by a strict
// reader here, since a file node_exporter refuses shows nothing at all) and
// the figures of the status and the health view under stable names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "sm/control/Exposition.h"
#include "sm/control/Metrics.h"
#include "tests/sm/control/HealthViewSample.h"

namespace ibsm::sm::control {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // the samples

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // values unescaped
  double value{0};
};

struct Parsed {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;
  std::vector<std::string> errors;  // empty: valid
};

// Reads `{a="x",b="y\"z"}` from `s` at `i`, unescaping values; nullopt when malformed.
std::optional<std::map<std::string, std::string>> readLabels(const std::string& s, std::size_t& i) {
  std::map<std::string, std::string> out;
  ++i;  // '{'
  const std::regex name("[a-zA-Z_][a-zA-Z0-9_]*");
  while (i < s.size() && s[i] != '}') {
    const auto eq = s.find("=\"", i);
    if (eq == std::string::npos || !std::regex_match(s.substr(i, eq - i), name))
      return std::nullopt;
    const std::string key = s.substr(i, eq - i);
    std::string value;
    std::size_t j = eq + 2;
    for (; j < s.size() && s[j] != '"'; ++j) {
      if (s[j] == '\n') return std::nullopt;
      if (s[j] != '\\') {
        value += s[j];
        continue;
      }
      if (++j >= s.size()) return std::nullopt;
      if (s[j] == 'n')
        value += '\n';
      else if (s[j] == '\\' || s[j] == '"')
        value += s[j];
      else
        return std::nullopt;  // no other escape exists
    }
    if (j >= s.size() || !out.emplace(key, value).second) return std::nullopt;
    i = j + 1;
    if (i < s.size() && s[i] == ',') ++i;
  }
  if (i >= s.size()) return std::nullopt;
  ++i;  // '}'
  return out;
}

// A strict reader of the text format: HELP then TYPE once per family,
// before its samples, families never split, values that parse as floats.
Parsed parse(const std::string& text) {
  Parsed p;
  std::set<std::string> helped, finished;
  std::string current;
  std::istringstream in(text);
  std::string line;
  const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*))");
  const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge))");
  const std::regex metricName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  if (text.empty() || text.back() != '\n') p.errors.push_back("no final newline");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      if (!helped.insert(m[1]).second) p.errors.push_back("HELP twice: " + line);
      if (!current.empty()) finished.insert(current);
      current = m[1];
      continue;
    }
    if (std::regex_match(line, m, type)) {
      if (m[1] != current || p.types.contains(m[1])) p.errors.push_back("TYPE misplaced: " + line);
      p.types[m[1]] = m[2];
      continue;
    }
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!std::regex_match(s.name, metricName)) p.errors.push_back("bad name: " + line);
    if (s.name != current || !p.types.contains(s.name) || finished.contains(s.name))
      p.errors.push_back("sample outside its family: " + line);
    if (i < line.size() && line[i] == '{') {
      auto labels = readLabels(line, i);
      if (!labels) {
        p.errors.push_back("bad labels: " + line);
        continue;
      }
      s.labels = *labels;
    }
    if (i >= line.size() || line[i] != ' ') {
      p.errors.push_back("no value: " + line);
      continue;
    }
    const std::string value = line.substr(i + 1);
    char* end = nullptr;
    s.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') p.errors.push_back("bad value: " + line);
    p.samples.push_back(std::move(s));
  }
  return p;
}

std::optional<double> valueOf(const Parsed& p, const std::string& name,
                              const std::map<std::string, std::string>& labels = {}) {
  for (const auto& s : p.samples)
    if (s.name == name && s.labels == labels) return s.value;
  return std::nullopt;
}

DaemonStatus master() {
  DaemonStatus s;
  s.state = "MASTER";
  s.up = true;
  s.routes.switches = 12;
  s.routes.caPorts = 64;
  s.routes.routedPairs = 4032;
  s.routes.unreachablePairs = 2;
  s.sweeps.byKind[SweepCount::Heavy] = 3;
  s.sweeps.byKind[SweepCount::LightQuiet] = 120;
  s.sweeps.last.emplace();
  s.sweeps.last->kind = SweepKind::Light;
  s.sweeps.last->duration = 250ms;
  s.mads.sent = 99;
  return s;
}

TEST(Metrics, AreValidExpositionFormat) {
  const Parsed p = parse(formatMetrics(master(), twoUnhealthy()));
  EXPECT_TRUE(p.errors.empty()) << ::testing::PrintToString(p.errors);
  EXPECT_GT(p.samples.size(), 2 * health::kCounterCount);
}

TEST(Metrics, AnEmptyViewAndStatusAreValidToo) {
  const Parsed p = parse(formatMetrics(DaemonStatus{}, health::HealthView{}));
  EXPECT_TRUE(p.errors.empty()) << ::testing::PrintToString(p.errors);
  EXPECT_EQ(p.types.at("ibsm_port_counter_total"), "counter");
}

TEST(Metrics, ShowTheSmsStateSweepsAndFabric) {
  const Parsed p = parse(formatMetrics(master(), healthy()));
  EXPECT_EQ(valueOf(p, "ibsm_sm_state", {{"state", "MASTER"}}), 1.0);
  EXPECT_EQ(valueOf(p, "ibsm_sm_state", {{"state", "STANDBY"}}), 0.0);
  EXPECT_EQ(valueOf(p, "ibsm_subnet_up"), 1.0);
  EXPECT_EQ(valueOf(p, "ibsm_sweeps_total", {{"kind", "heavy"}}), 3.0);
  EXPECT_EQ(valueOf(p, "ibsm_sweeps_total", {{"kind", "light_quiet"}}), 120.0);
  EXPECT_EQ(valueOf(p, "ibsm_last_sweep_duration_seconds"), 0.25);
  EXPECT_EQ(valueOf(p, "ibsm_switches"), 12.0);
  EXPECT_EQ(valueOf(p, "ibsm_ca_ports"), 64.0);
  EXPECT_EQ(valueOf(p, "ibsm_routed_pairs"), 4032.0);
  EXPECT_EQ(valueOf(p, "ibsm_unreachable_pairs"), 2.0);
  EXPECT_EQ(p.types.at("ibsm_sweeps_total"), "counter");
  EXPECT_EQ(p.types.at("ibsm_subnet_up"), "gauge");
}

TEST(Metrics, ShowHealthByConditionIsolatedLinksAndTheCounterSweep) {
  const Parsed p = parse(formatMetrics(master(), twoUnhealthy()));
  EXPECT_EQ(valueOf(p, "ibsm_unhealthy", {{"condition", "errors"}}), 1.0);
  EXPECT_EQ(valueOf(p, "ibsm_unhealthy", {{"condition", "downgraded"}}), 1.0);
  EXPECT_EQ(valueOf(p, "ibsm_unhealthy", {{"condition", "flapping"}}), 0.0);
  EXPECT_EQ(valueOf(p, "ibsm_unhealthy", {{"condition", "rebooted"}}), 0.0);
  EXPECT_EQ(valueOf(p, "ibsm_isolated_links"), 1.0);
  EXPECT_EQ(valueOf(p, "ibsm_counter_sweep_interval_seconds"), 60.0);
  EXPECT_EQ(valueOf(p, "ibsm_counter_gmps_total"), 144942.0);
  EXPECT_EQ(valueOf(p, "ibsm_counter_pass_duration_seconds"), 0.812);
}

TEST(Metrics, ShowEveryPortCounterByIbaNameWithTheNameEscaped) {
  const Parsed p = parse(formatMetrics(master(), twoUnhealthy()));
  // The port name carries double quotes: escaped on the wire, whole when read back.
  const std::map<std::string, std::string> symbols{{"node_guid", "0x0002c90300000001"},
                                                   {"port", "3"},
                                                   {"name", "\"leaf0\"[3] (0x0002c90300000001)"},
                                                   {"counter", "SymbolErrorCounter"}};
  EXPECT_EQ(valueOf(p, "ibsm_port_counter_total", symbols), 1205.0);
  EXPECT_EQ(valueOf(p, "ibsm_port_counter_rate_per_second", symbols), 0.2);
  auto data = symbols;
  data["counter"] = "PortXmitData";
  EXPECT_EQ(valueOf(p, "ibsm_port_counter_total", data), 123456789012.0);
  std::size_t totals = 0, rates = 0;
  for (const auto& s : p.samples) {
    totals += s.name == "ibsm_port_counter_total";
    rates += s.name == "ibsm_port_counter_rate_per_second";
  }
  EXPECT_EQ(totals, 2 * health::kCounterCount);
  EXPECT_EQ(rates, health::kCounterCount);  // the port read once has none
}

// The daemon writes the two halves, the port half kept from the last
// counter pass: together they must be the whole, and each valid alone.
TEST(Metrics, AreTheSmHalfThenThePortHalfWithNoFamilyInBoth) {
  const std::string sm = formatSmMetrics(master(), twoUnhealthy());
  const std::string ports = formatPortMetrics(twoUnhealthy());
  EXPECT_EQ(formatMetrics(master(), twoUnhealthy()), sm + ports);
  const Parsed a = parse(sm), b = parse(ports);
  EXPECT_TRUE(a.errors.empty() && b.errors.empty());
  EXPECT_TRUE(b.types.contains("ibsm_port_counter_total"));
  for (const auto& [name, type] : b.types) EXPECT_FALSE(a.types.contains(name)) << name;
}

TEST(Exposition, EscapesLabelValuesAndHelpAsTheFormatAsks) {
  EXPECT_EQ(escapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(escapeHelp("a\"b\\c\nd"), "a\"b\\\\c\\nd");
  Exposition e;
  e.family("x_total", MetricType::Counter, "Line one\nline two.");
  e.sample({{"node", "sw\\1 \"core\"\n"}}, std::uint64_t{7});
  EXPECT_EQ(e.text(),
            "# HELP x_total Line one\\nline two.\n"
            "# TYPE x_total counter\n"
            "x_total{node=\"sw\\\\1 \\\"core\\\"\\n\"} 7\n");
  const Parsed p = parse(e.text());
  EXPECT_TRUE(p.errors.empty()) << ::testing::PrintToString(p.errors);
  EXPECT_EQ(p.samples.at(0).labels.at("node"), "sw\\1 \"core\"\n");
}

TEST(Exposition, NumbersReadBackAsTheFormatSpellsThem) {
  EXPECT_EQ(metricNumber(0.25), "0.25");
  EXPECT_EQ(metricNumber(3.0), "3");
  EXPECT_EQ(metricNumber(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(metricNumber(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(metricNumber(std::numeric_limits<double>::quiet_NaN()), "NaN");
  const double tiny = 1.0 / 3.0;
  EXPECT_EQ(std::strtod(metricNumber(tiny).c_str(), nullptr), tiny);
  // A 64-bit counter keeps every digit (a double would not).
  Exposition e;
  e.family("big_total", MetricType::Counter, "Big.");
  e.sample({}, std::uint64_t{18446744073709551615ULL});
  EXPECT_THAT(e.text(), HasSubstr("big_total 18446744073709551615\n"));
}

// The reader above is what makes the format tests able to fail: it must
// refuse what node_exporter refuses.
TEST(ExpositionReader, RefusesASplitFamilyAMissingTypeAndABadValue) {
  EXPECT_FALSE(parse("# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 1\na 2\n")
                   .errors.empty());
  EXPECT_FALSE(parse("# HELP a A.\na 1\n").errors.empty());
  EXPECT_FALSE(parse("# HELP a A.\n# TYPE a gauge\na one\n").errors.empty());
  EXPECT_FALSE(parse("# HELP a A.\n# TYPE a gauge\na{l=\"x\"y\"} 1\n").errors.empty());
  EXPECT_TRUE(parse("# HELP a A.\n# TYPE a gauge\na{l=\"x\\\"y\"} 1\n").errors.empty());
}

}  // namespace
}  // namespace ibsm::sm::control
