// resolveQos(): each port group's member ports on one fabric -- by port
// GUID (a switch answers to port 0's for every port), by "description/P<n>",
// by node type and SELF, by the full members of a partition named by PKey
// or by name.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

namespace ibsm::qos {
namespace {

const Guid kSwitch{0x100};
const Guid kHostA{0x201};  // port 1 of host-a
const Guid kHostA2{0x202};
const Guid kHostB{0x301};

Fabric smallFabric() {
  Fabric f;
  auto sw = f.addNode(Node::makeSwitch(kSwitch, 4, "leaf0"));
  auto a = f.addNode(Node::makeCa(Guid{0x200}, {kHostA, kHostA2}, "host-a HCA-1"));
  auto b = f.addNode(Node::makeCa(Guid{0x300}, {kHostB}, "host-b HCA-1"));
  EXPECT_TRUE(f.connect({*sw, 1}, {*a, 1}));
  EXPECT_TRUE(f.connect({*sw, 2}, {*b, 1}));
  return f;
}

ResolvedQos resolve(QosPortGroup group, const QosPartitions& partitions = {}, Guid sm = kHostB) {
  auto p = std::make_shared<QosPolicy>();
  group.name = std::string("g");  // moved in: GCC 12's -Wrestrict misfires on a char* copy
  p->groups.push_back(std::move(group));
  return resolveQos(p, smallFabric(), partitions, sm);
}

std::set<Guid> membersOf(const ResolvedQos& r) {
  return r.members.at("g");
}

TEST(QosResolve, PortGuidRangesNameThePortsInThem) {
  EXPECT_EQ(membersOf(resolve({.portGuids = {{0x200, 0x201}, {0x100, 0x100}}})),
            (std::set<Guid>{kSwitch, kHostA}));
  EXPECT_TRUE(membersOf(resolve({.portGuids = {{0x999, 0xFFF}}})).empty());
}

TEST(QosResolve, PortNamesAreDescriptionSlashPortAndASwitchAnswersToPort0) {
  EXPECT_EQ(membersOf(resolve({.portNames = {"host-a HCA-1/P2", "leaf0/P3"}})),
            (std::set<Guid>{kHostA2, kSwitch}));
  EXPECT_TRUE(membersOf(resolve({.portNames = {"host-a HCA-1/P3"}})).empty());
}

TEST(QosResolve, NodeTypesAndSelf) {
  EXPECT_EQ(membersOf(resolve({.nodeTypes = nodeTypeBit::kCa})),
            (std::set<Guid>{kHostA, kHostA2, kHostB}));
  EXPECT_EQ(membersOf(resolve({.nodeTypes = nodeTypeBit::kSwitch})), std::set<Guid>{kSwitch});
  EXPECT_EQ(membersOf(resolve({.nodeTypes = nodeTypeBit::kAll})),
            (std::set<Guid>{kSwitch, kHostA, kHostA2, kHostB}));
  EXPECT_EQ(membersOf(resolve({.nodeTypes = nodeTypeBit::kSelf}, {}, kHostA2)),
            std::set<Guid>{kHostA2});
  EXPECT_TRUE(membersOf(resolve({.nodeTypes = nodeTypeBit::kRouter})).empty());
}

TEST(QosResolve, PKeysAndPartitionNamesTakeTheFullMembers) {
  QosPartitions parts;
  parts.pkeyOf = {{"Storage", 0x0010}, {"Default", 0x7FFF}};
  parts.fullMembers = {{0x0010, {kHostA}}, {0x0011, {kHostB}}, {0x7FFF, {kHostA2}}};
  EXPECT_EQ(membersOf(resolve({.partitions = {"Storage"}}, parts)), std::set<Guid>{kHostA});
  // The membership bit of a PKey the file gives does not matter.
  EXPECT_EQ(membersOf(resolve({.pkeys = {{0x8010, 0x8011}}}, parts)),
            (std::set<Guid>{kHostA, kHostB}));
  EXPECT_TRUE(membersOf(resolve({.partitions = {"Unknown"}}, parts)).empty());
}

TEST(QosResolve, SelectorsAddUpAndEveryGroupHasAnEntry) {
  auto r = resolve({.portGuids = {{0x301, 0x301}}, .nodeTypes = nodeTypeBit::kSwitch});
  EXPECT_EQ(membersOf(r), (std::set<Guid>{kSwitch, kHostB}));
  EXPECT_TRUE(r.inGroup("g", kHostB));
  EXPECT_FALSE(r.inGroup("other", kHostB));
}

}  // namespace
}  // namespace ibsm::qos
