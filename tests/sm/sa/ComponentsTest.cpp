// The component tables beside the record layouts: each lists its record's
// fields in order, end to end, and a field set through the codec lands in
// the component the IBA numbers it with.
#include <gtest/gtest.h>

#include "sm/mad/BitField.h"
#include "sm/sa/Components.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {
namespace {

struct Expected {
  std::uint16_t attribute;
  std::size_t components;
  std::size_t fieldBits;  // where the last component ends
};

class ComponentTable : public ::testing::TestWithParam<Expected> {};

TEST_P(ComponentTable, ListsTheFieldsInOrderEndToEnd) {
  const auto [attribute, count, fieldBits] = GetParam();
  const auto table = componentsOf(attribute);
  ASSERT_EQ(table.size(), count);
  EXPECT_EQ(table[0].bit, 0);
  for (std::size_t i = 1; i < table.size(); ++i) {
    EXPECT_EQ(table[i].bit, table[i - 1].bit + table[i - 1].width) << "component " << i;
  }
  EXPECT_EQ(table.back().bit + table.back().width, fieldBits);
  EXPECT_LE(fieldBits, recordSizeOf(attribute) * 8);
}

INSTANTIATE_TEST_SUITE_P(
    Records, ComponentTable,
    ::testing::Values(
        Expected{saAttr::kNodeRecord, 15, 864}, Expected{saAttr::kPortInfoRecord, 58, 544},
        Expected{saAttr::kLinkRecord, 4, 48}, Expected{saAttr::kSwitchInfoRecord, 21, 192},
        Expected{saAttr::kLftRecord, 4, 576}, Expected{saAttr::kSl2VlTableRecord, 5, 128},
        Expected{saAttr::kPKeyTableRecord, 5, 576}, Expected{saAttr::kGuidInfoRecord, 12, 576},
        Expected{saAttr::kSmInfoRecord, 7, 200}, Expected{saAttr::kPathRecord, 23, 464},
        Expected{saAttr::kServiceRecord, 37, 1408}, Expected{saAttr::kInformInfoRecord, 16, 480},
        Expected{saAttr::kMcMemberRecord, 19, 416}));

// The value of component `i` of an encoded record.
std::uint64_t component(std::uint16_t attribute, const std::vector<std::uint8_t>& bytes,
                        std::size_t i) {
  const Component c = componentsOf(attribute)[i];
  return mad::getBits(bytes, c.bit, std::min<unsigned>(c.width, 64));
}

TEST(ComponentNumbers, AreTheIbaOnesForTheFieldsClientsAskBy) {
  PortInfoRecord pir;
  pir.portNum = 9;
  pir.portInfo.capabilityMask = 0x02510868;
  pir.portInfo.lmc = 5;
  const auto p = encodeRecord(pir);
  EXPECT_EQ(component(saAttr::kPortInfoRecord, p, 1), 9U);           // PortNum
  EXPECT_EQ(component(saAttr::kPortInfoRecord, p, 7), 0x02510868U);  // CapabilityMask
  EXPECT_EQ(component(saAttr::kPortInfoRecord, p, 20), 5U);          // LMC

  NodeRecord nr;
  nr.nodeInfo.nodeGuid = Guid{0x1122334455667788};
  nr.nodeInfo.vendorId = 0x02C9;
  const auto n = encodeRecord(nr);
  EXPECT_EQ(component(saAttr::kNodeRecord, n, 7), 0x1122334455667788U);  // NodeGUID
  EXPECT_EQ(component(saAttr::kNodeRecord, n, 13), 0x02C9U);             // VendorID

  SwitchInfoRecord sw;
  sw.switchInfo.linearFdbTop = 0x0123;
  sw.switchInfo.multicastFdbTop = 0xC001;
  const auto s = encodeRecord(sw);
  EXPECT_EQ(component(saAttr::kSwitchInfoRecord, s, 5), 0x0123U);   // LinearFDBTop
  EXPECT_EQ(component(saAttr::kSwitchInfoRecord, s, 20), 0xC001U);  // MulticastFDBTop

  PathRecord pr;
  pr.pkey = 0x8001;
  pr.sl = 7;
  pr.packetLifeTime = 0x12;
  const auto r = encodeRecord(pr);
  EXPECT_EQ(component(saAttr::kPathRecord, r, 13), 0x8001U);  // P_Key
  EXPECT_EQ(component(saAttr::kPathRecord, r, 15), 7U);       // SL
  EXPECT_EQ(component(saAttr::kPathRecord, r, 21), 0x12U);    // PacketLifeTime
}

TEST(Matching, ComparesOnlyTheSelectedComponents) {
  LinkRecord a{.fromLid = Lid{1}, .fromPort = 2, .toPort = 3, .toLid = Lid{4}};
  LinkRecord b = a;
  b.toLid = Lid{5};
  const auto table = componentsOf(saAttr::kLinkRecord);
  EXPECT_TRUE(matches(encodeRecord(a), encodeRecord(b), 0b0111, table));
  EXPECT_FALSE(matches(encodeRecord(a), encodeRecord(b), 0b1000, table));
  EXPECT_TRUE(maskFits(0b1111, table));
  EXPECT_FALSE(maskFits(0b10000, table));
}

}  // namespace
}  // namespace ibsm::sm::sa
