// The compact LFT dump (`ibsm route --dump-format compact`) holds what the
// OpenSM form holds: read back, it equals the OpenSM form's parse, stored
// or compressed; a file cut short or damaged is refused, naming the file
// and what was expected, never read as other tables.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>
#include <ibsm/Topology.h>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The two-switch sample fabric, its tables in every shape the OpenSM form
// must handle: routed entries, LIDs past a short table, a port the switch
// does not have, a switch with no table at all.
struct Tables {
  Fabric fabric;
  RoutingResult routing;
};

Tables sampleTables() {
  auto read = readTopologyFile(testing::testTopologyPath("two-switch-dual-port-hcas.net"));
  if (!read) throw std::runtime_error(read.error().message);
  Tables t{.fabric = std::move(read->fabric), .routing = {}};
  const auto plan = planLids(t.fabric, {}, 1);
  if (!plan) throw std::runtime_error(plan.error().message);
  applyLids(t.fabric, *plan);
  const unsigned maxLid = LidIndex(t.fabric).maxLid().value;
  const NodeId one = testing::nodeNamed(t.fabric, "Switch1");
  t.routing.lfts.resize(one + 1);  // Switch2 has none when it comes after
  auto& port = t.routing.lfts[one].port;
  for (unsigned lid = 0; lid + 2 <= maxLid; ++lid) port.push_back(lid % 4);
  port[3] = kNoRoute;
  port[4] = 200;  // no such port: left out of the OpenSM form too
  return t;
}

class CompactDump : public ::testing::TestWithParam<int> {};  // zstd level, 0: stored

TEST_P(CompactDump, ReadBackEqualsTheOpenSmFormsParse) {
  const Tables t = sampleTables();
  const auto text = parseLftDump(formatLftDump(t.fabric, t.routing), "opensm-lfts.dump");
  ASSERT_TRUE(text) << text.error().message;
  const std::string bytes = formatCompactLftDump(t.fabric, t.routing, GetParam());
  EXPECT_TRUE(isCompactLftDump(bytes));
  const auto compact = parseCompactLftDump(bytes, "lfts.ibsm");
  ASSERT_TRUE(compact) << compact.error().message;
  ASSERT_EQ(compact->size(), text->size());
  for (std::size_t i = 0; i < text->size(); ++i) {
    EXPECT_EQ((*compact)[i].switchGuid, (*text)[i].switchGuid);
    EXPECT_EQ((*compact)[i].switchLid, (*text)[i].switchLid);
    EXPECT_EQ((*compact)[i].description, (*text)[i].description);
    EXPECT_EQ((*compact)[i].lft.port, (*text)[i].lft.port) << "switch " << i;
  }
}

TEST_P(CompactDump, AFileCutShortAnywhereIsRefusedNamingTheFile) {
  const Tables t = sampleTables();
  const std::string bytes = formatCompactLftDump(t.fabric, t.routing, GetParam());
  for (const std::size_t keep : {std::size_t{0}, std::size_t{10}, std::size_t{30}, bytes.size() / 2,
                                 bytes.size() - 8, bytes.size() - 1}) {
    const auto cut = parseCompactLftDump(std::string_view(bytes).substr(0, keep), "b/lfts.ibsm");
    ASSERT_FALSE(cut) << "kept " << keep << " of " << bytes.size() << " bytes";
    EXPECT_THAT(cut.error().message, StartsWith("b/lfts.ibsm: at byte ")) << keep;
    EXPECT_THAT(cut.error().message, HasSubstr("expected ")) << keep;
  }
}

// Every byte between header and trailer damaged in turn: refused as
// corrupt, never read as other tables. (A few bytes of zstd's frame header,
// such as its window size, can change with the tables still the same: read
// as they were. Stored, every byte is under the checksum.)
TEST_P(CompactDump, ADamagedByteIsRefusedOrReadsTheSameTables) {
  const Tables t = sampleTables();
  const std::string bytes = formatCompactLftDump(t.fabric, t.routing, GetParam());
  const auto good = parseCompactLftDump(bytes, "lfts.ibsm");
  ASSERT_TRUE(good) << good.error().message;
  std::size_t refused = 0, bodyBytes = 0;
  for (std::size_t at = 24; at + 24 < bytes.size(); ++at, ++bodyBytes) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    const auto read = parseCompactLftDump(bad, "lfts.ibsm");
    if (!read) {
      ++refused;
      EXPECT_THAT(read.error().message, HasSubstr("the file is corrupt")) << "byte " << at;
      continue;
    }
    ASSERT_EQ(read->size(), good->size()) << "byte " << at;
    for (std::size_t i = 0; i < good->size(); ++i)
      EXPECT_EQ((*read)[i].lft.port, (*good)[i].lft.port) << "byte " << at;
  }
  if (GetParam() == 0) {
    EXPECT_EQ(refused, bodyBytes);
  }
  EXPECT_GT(refused * 10, bodyBytes * 9) << refused << " of " << bodyBytes << " refused";
}

INSTANTIATE_TEST_SUITE_P(StoredAndZstd, CompactDump, ::testing::Values(0, 1));

TEST(CompactDump, AnotherVersionIsRefusedByName) {
  const Tables t = sampleTables();
  std::string bytes = formatCompactLftDump(t.fabric, t.routing, 1);
  bytes[8] = 2;
  const auto read = parseCompactLftDump(bytes, "lfts.ibsm");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message,
            "lfts.ibsm: at byte 8: expected format version 1 (this ibsm reads 1), but it is "
            "version 2");
}

TEST(CompactDump, TextIsNotTakenForIt) {
  const Tables t = sampleTables();
  const std::string text = formatLftDump(t.fabric, t.routing);
  EXPECT_FALSE(isCompactLftDump(text));
  const auto read = parseCompactLftDump(text, "opensm-lfts.dump");
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("expected an ibsm compact LFT dump"));
}

}  // namespace
}  // namespace ibsm
