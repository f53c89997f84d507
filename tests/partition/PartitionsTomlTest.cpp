// [[partition]] tables in ibsm.toml, and merging them with partitions.conf.
#include <gtest/gtest.h>
#include <ibsm/Partitions.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ibsm::partition {
namespace {

using Kind = MemberSpec::Kind;

PartitionConfig tomlOk(std::string_view text) {
  auto c = parseTomlPartitions(text, "ibsm.toml");
  if (!c) ADD_FAILURE() << c.error().message;
  return c.value_or(PartitionConfig{});
}

std::string tomlError(std::string_view text) {
  auto c = parseTomlPartitions(text, "ibsm.toml");
  EXPECT_FALSE(c.has_value()) << "accepted:\n" << text;
  return c ? std::string{} : c.error().message;
}

TEST(PartitionsToml, ReadsPartitionTablesWithEveryFlagAndMemberForm) {
  const auto c = tomlOk(R"(
[sm]
priority = 3   # the config parser's business, not ours

[[partition]]
name = "storage"
pkey = 0x10
ipoib = true
indx0 = false
mtu = 4096
rate = 100
sl = 2
scope = [2, 5]
qkey = 0x1b
tclass = 1
flow_label = 7
defmember = "full"
members = [
  "ALL_CAS=limited",
  { guid = "0x0002c903000a1b2c", membership = "both" },
  { guid = "0x20" },
  "SELF",
]

[[partition]]
name = "mgmt"
pkey = "0x7fff"
rate = 2.5
members = ["ALL_SWITCHES=full"]
)");
  ASSERT_EQ(c.partitions.size(), 2u);
  const PartitionDef& s = c.partitions[0];
  EXPECT_EQ(s.name, "storage");
  EXPECT_EQ(s.pkey, 0x10);
  EXPECT_EQ(s.where, "ibsm.toml:5");
  EXPECT_TRUE(s.ipoib);
  EXPECT_FALSE(s.indx0);
  EXPECT_EQ(s.mtu, 5);
  EXPECT_EQ(s.rate, 16);
  EXPECT_EQ(s.sl, 2);
  EXPECT_EQ(s.scopes, (std::vector<std::uint8_t>{2, 5}));
  EXPECT_EQ(s.qkey, 0x1bu);
  EXPECT_EQ(s.tclass, 1);
  EXPECT_EQ(s.flowLabel, 7u);
  ASSERT_EQ(s.members.size(), 4u);
  EXPECT_EQ(s.members[0].kind, Kind::AllCas);
  EXPECT_EQ(s.members[0].membership, Membership::Limited);
  EXPECT_EQ(s.members[1].guid, Guid{0x0002c903000a1b2cULL});
  EXPECT_EQ(s.members[1].membership, Membership::Both);
  EXPECT_EQ(s.members[2].membership, Membership::Full);  // defmember
  EXPECT_EQ(s.members[3].kind, Kind::Self);
  EXPECT_EQ(c.partitions[1].pkey, 0x7fff);
  EXPECT_EQ(c.partitions[1].rate, 2);
}

TEST(PartitionsToml, AFileWithoutPartitionsHasNone) {
  EXPECT_TRUE(tomlOk("[sm]\npriority = 1\n").partitions.empty());
}

TEST(PartitionsToml, ErrorsNameTheLine) {
  EXPECT_NE(tomlError("[[partition]]\nname = \"a\"\n").find("ibsm.toml:1: expected pkey"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 0x10\ncolour = \"red\"\n")
                .find("ibsm.toml:3: unknown partition flag 'colour'"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 0\n").find("ibsm.toml:2: expected a PKey"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 1\nmembers = [\n  \"0xnope\",\n]\n")
                .find("ibsm.toml:4: expected a port GUID"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 1\nmembers = [{ guid = \"0x1\", role = \"x\" }]\n")
                .find("ibsm.toml:3: unknown member key 'role'"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 1\nipoib = \"yes\"\n")
                .find("ibsm.toml:3: expected ipoib = true or false"),
            std::string::npos);
  EXPECT_NE(tomlError("partition = 3\n").find("ibsm.toml:1: expected [[partition]]"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]]\npkey = 1\nname = \"a\"\n[[partition]]\npkey = 1\nname = "
                      "\"b\"\n")
                .find("ibsm.toml:4: duplicate PKey 0x0001"),
            std::string::npos);
  EXPECT_NE(tomlError("[[partition]\n").find("ibsm.toml:1:"), std::string::npos);
}

TEST(PartitionsToml, MergingKeepsIdenticalDefinitionsAndRefusesDifferentOnes) {
  const auto file = parsePartitionsFile("a=0x10, ipoib : ALL_CAS=full;\nb=0x20 : ;", "p.conf");
  ASSERT_TRUE(file);
  const auto same = tomlOk(
      "[[partition]]\nname = \"a\"\npkey = 0x10\nipoib = true\nmembers = [\"ALL_CAS=full\"]\n"
      "[[partition]]\nname = \"c\"\npkey = 0x30\n");
  auto merged = mergeSources(*file, same);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->partitions.size(), 3u);

  const auto different = tomlOk("\n[[partition]]\nname = \"a\"\npkey = 0x10\n");
  auto clash = mergeSources(*file, different);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().message,
            "ibsm.toml:2: PKey 0x0010 ('a') is also defined at p.conf:1 ('a'), differently; "
            "define it in one place");

  const auto renamed = tomlOk("[[partition]]\nname = \"b\"\npkey = 0x40\n");
  auto nameClash = mergeSources(*file, renamed);
  ASSERT_FALSE(nameClash);
  EXPECT_EQ(nameClash.error().message,
            "ibsm.toml:1: partition name 'b' is also used at p.conf:2 for PKey 0x0020");
}

TEST(PartitionsToml, LoadsFromAPath) {
  const auto path = std::filesystem::temp_directory_path() / "ibsm-partitions-toml-test.toml";
  std::ofstream(path) << "[[partition]]\nname = \"x\"\npkey = 0x11\n";
  auto c = loadTomlPartitions(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->partitions.at(0).where, path.string() + ":1");
  EXPECT_FALSE(loadTomlPartitions("/nonexistent/ibsm.toml"));
}

}  // namespace
}  // namespace ibsm::partition
