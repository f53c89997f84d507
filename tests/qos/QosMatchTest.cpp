// matchQos(): the first rule whose every given criterion holds names the
// level; a criterion the query leaves out fails the rule; with no rule
// matching, the level called DEFAULT, else none.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

namespace ibsm::qos {
namespace {

const Guid kStorage{0x10};
const Guid kCompute{0x20};

ResolvedQos policyOf(std::vector<QosMatchRule> rules, bool withDefault) {
  auto p = std::make_shared<QosPolicy>();
  p->levels = {{.name = "Storage", .sl = 1}, {.name = "Mpi", .sl = 2}};
  if (withDefault) p->levels.push_back({.name = "DEFAULT", .sl = 5});
  p->rules = std::move(rules);
  ResolvedQos r;
  r.policy = p;
  r.members["storage"] = {kStorage};
  r.members["compute"] = {kCompute};
  return r;
}

TEST(QosMatch, TheFirstRuleThatMatchesNamesTheLevel) {
  const auto qos =
      policyOf({{.destinations = {"storage"}, .level = "Storage"}, {.level = "Mpi"}}, false);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage})->name, "Storage");
  EXPECT_EQ(matchQos(qos, {.source = kStorage, .destination = kCompute})->name, "Mpi");
}

TEST(QosMatch, ACriterionTheQueryLeavesOutFailsTheRule) {
  const auto qos = policyOf({{.serviceIds = {{0x100, 0x1ff}}, .level = "Storage"}}, true);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage})->name, "DEFAULT");
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .serviceId = 0x1ff})->name,
            "Storage");
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .serviceId = 0x200})->name,
            "DEFAULT");
}

TEST(QosMatch, PKeysMatchOnTheirLow15Bits) {
  const auto qos = policyOf({{.pkeys = {{0x8001, 0x8001}}, .level = "Mpi"}}, false);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .pkey = 0x0001})->name,
            "Mpi");
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .pkey = 0x0002}), nullptr);
}

TEST(QosMatch, WithoutAPolicyOrAMatchAndNoDefaultThereIsNoLevel) {
  EXPECT_EQ(matchQos(ResolvedQos{}, {.source = kCompute, .destination = kStorage}), nullptr);
  const auto qos = policyOf({{.qosClasses = {{7, 9}}, .level = "Mpi"}}, false);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .qosClass = 6}), nullptr);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .qosClass = 8})->name,
            "Mpi");
}

}  // namespace
}  // namespace ibsm::qos
