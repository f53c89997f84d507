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

// OpenSM keeps a rule's PKey range as its ends' low 15 bits, put in order
// (osm_qos_parser_y.y, __pkey_rangelist2rangearr): 0x7fff-0x8001 is
// 0x0001-0x7fff once the membership bits are gone.
TEST(QosMatch, APKeyRangeIsItsEndsLow15BitsInOrder) {
  const auto qos = policyOf({{.pkeys = {{0x7FFF, 0x8001}}, .level = "Mpi"}}, false);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .pkey = 0x8005})->name,
            "Mpi");
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .pkey = 0x0000}), nullptr);
}

// A rule with both source and destination groups wants the source in the
// one and the destination in the other, not either way round
// (__qos_policy_get_match_rule_by_params).
TEST(QosMatch, SourceAndDestinationGroupsAreNotSymmetric) {
  const auto qos =
      policyOf({{.sources = {"compute"}, .destinations = {"storage"}, .level = "Storage"}}, true);
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage})->name, "Storage");
  EXPECT_EQ(matchQos(qos, {.source = kStorage, .destination = kCompute})->name, "DEFAULT");
}

// OpenSM finds levels and port groups by name ignoring case
// (__qos_policy_get_qos_level_by_name, __qos_policy_get_port_group_by_name).
TEST(QosMatch, LevelAndGroupNamesIgnoreCase) {
  auto qos = policyOf({{.qosClasses = {{1, 1}}, .level = "STORAGE"}}, false);
  auto policy = std::make_shared<QosPolicy>(*qos.policy);
  policy->levels.push_back({.name = "Default", .sl = 7});
  qos.policy = policy;
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage, .qosClass = 1})->name,
            "Storage");
  EXPECT_EQ(matchQos(qos, {.source = kCompute, .destination = kStorage})->name, "Default");
  const auto byGroup = policyOf({{.destinations = {"Storage"}, .level = "mpi"}}, false);
  EXPECT_EQ(matchQos(byGroup, {.source = kCompute, .destination = kStorage})->name, "Mpi");
  EXPECT_EQ(matchQos(byGroup, {.source = kStorage, .destination = kCompute}), nullptr);
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
