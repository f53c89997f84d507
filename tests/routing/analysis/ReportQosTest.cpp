// The dry run's QoS figures (`ibsm route --qos-policy`): in the JSON under
// "qos", in the summary as one line of levels beside the total, and absent
// altogether without a policy, so a run without one reads as before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <sstream>

namespace ibsm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RouteReport withQos() {
  RouteReport r;
  r.qos = QosReport{.policyFile = "site.conf",
                    .pairs = 90,
                    .levels = {{"DEFAULT", 0, 70}, {"storage", 1, 18}},
                    .noSharedPKey = 2};
  return r;
}

TEST(ReportQos, JsonCarriesEveryLevelAndTheTotal) {
  std::istringstream in(reportJson(withQos()));
  boost::property_tree::ptree tree;
  boost::property_tree::read_json(in, tree);
  EXPECT_EQ(tree.get<std::string>("qos.policy"), "site.conf");
  EXPECT_EQ(tree.get<std::uint64_t>("qos.caPairs"), 90u);
  EXPECT_EQ(tree.get<std::uint64_t>("qos.noSharedPKey"), 2u);
  std::vector<std::string> levels;
  std::uint64_t counted = 0;
  for (const auto& [key, l] : tree.get_child("qos.levels")) {
    levels.push_back(l.get<std::string>("name"));
    counted += l.get<std::uint64_t>("pairs");
  }
  EXPECT_EQ(levels, (std::vector<std::string>{"DEFAULT", "storage"}));
  EXPECT_EQ(counted + 2, 90u);
}

TEST(ReportQos, SummarySaysEachLevelBesideTheTotal) {
  const auto text = reportSummary(withQos());
  EXPECT_THAT(text, HasSubstr("qos (site.conf): 90 CA port pairs, a plain PathRecord each: "
                              "DEFAULT (SL 0) 70, storage (SL 1) 18\n"));
  EXPECT_THAT(text, HasSubstr("no PKey in common (no path): 2"));
}

TEST(ReportQos, WithoutAPolicyThereIsNoQosAnywhere) {
  const RouteReport r;
  EXPECT_THAT(reportJson(r), Not(HasSubstr("\"qos\"")));
  EXPECT_THAT(reportSummary(r), Not(HasSubstr("qos")));
}

}  // namespace
}  // namespace ibsm
