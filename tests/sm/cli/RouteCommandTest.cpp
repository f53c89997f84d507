// `ibsm route` and `ibsm topo generate` as an operator runs them: exit
// codes, files written or not, and the words of the error messages.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sm/cli/IbsmProcess.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Outcome {
  int status{-1};
  std::string out;  // stdout and stderr together
};

Outcome shell(const std::string& cmd) {
  Outcome r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

Outcome ibsm(const std::string& args) {
  return shell(fmt::format("{} {} 2>&1", IBSM_BINARY, args));
}

// As run from `cwd`.
Outcome ibsmIn(const fs::path& cwd, const std::string& args) {
  return shell(fmt::format("cd {} && {} {} 2>&1", cwd.string(), IBSM_BINARY, args));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class RouteCommand : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = ibsm::sm::cli::testing::freshTestDir("ibsm-cli"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(RouteCommand, RoutesASampleCaptureAndWritesTheDumps) {
  const auto out = dir_ / "out";
  const Outcome r =
      ibsm(fmt::format("route --topology {}/fat-tree-3level-k8.ibnetdiscover --out {}",
                       IBSM_TEST_TOPOLOGIES, out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("routing engine: ftree"));
  EXPECT_THAT(r.out, HasSubstr("0 unreachable"));
  EXPECT_THAT(slurp(out / "opensm-lfts.dump"), HasSubstr("Unicast lids"));
  EXPECT_THAT(slurp(out / "guid2lid"), HasSubstr("0x0000000000200000 "));
  EXPECT_THAT(slurp(out / "report.json"), HasSubstr("\"engine\""));
}

TEST_F(RouteCommand, AGeneratedNetFileRoutesEndToEnd) {
  const auto net = dir_ / "ft.net";
  ASSERT_EQ(
      ibsm(fmt::format("topo generate fat-tree --levels 3 --radix 8 --degrade 4 --seed 7 -o {}",
                       net.string()))
          .status,
      0);
  const Outcome r = ibsm(fmt::format("route --topology {} --engine ftree --check --out {}",
                                     net.string(), (dir_ / "out").string()));
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(RouteCommand, AMalformedTopologyNamesFileAndLineAndWritesNothing) {
  const auto bad =
      write("bad.net", "Switch 4 \"s0\"\n[1] \"h0\"[1]\n\nBanana 1 \"h0\"\n[1] \"s0\"[1]\n");
  const auto out = dir_ / "out";
  const Outcome r = ibsm(fmt::format("route --topology {} --out {}", bad.string(), out.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(bad.string() + ":4:"));
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(RouteCommand, AnUnknownEngineIsRefusedByName) {
  const Outcome r =
      ibsm(fmt::format("route --topology {}/two-switch-dual-port-hcas.net --engine warp --out {}",
                       IBSM_TEST_TOPOLOGIES, dir_.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("unknown routing engine 'warp'"));
}

TEST_F(RouteCommand, AnUnknownConfigKeyNamesTheKeyAndLine) {
  const auto conf = write("ibsm.toml", "[routing]\nengines = [\"updn\"]\n");
  const Outcome r =
      ibsm(fmt::format("route --topology {}/two-switch-dual-port-hcas.net --config {} --out {}",
                       IBSM_TEST_TOPOLOGIES, conf.string(), dir_.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr(conf.string() + ":2: unknown key 'routing.engines'"));
}

// partitions.strict = false: the dry run reads the partitions file as the
// live SM does, and says what it read past, as the live SM logs it.
TEST_F(RouteCommand, WhatThePartitionsFileHadThatWasReadPastIsAWarning) {
  const auto parts = write("p.conf", "Default=0x7fff, ipoib, fast : ALL=full;\n");
  const auto topo = fmt::format("{}/two-switch-dual-port-hcas.net", IBSM_TEST_TOPOLOGIES);
  const auto strict =
      write("strict.toml", fmt::format("[sm]\npartitions_file = \"{}\"\n", parts.string()));
  EXPECT_EQ(
      ibsm(fmt::format("route -t {} -F {} -o {}", topo, strict.string(), dir_.string())).status, 2);
  const auto lenient =
      write("lenient.toml", fmt::format("[sm]\npartitions_file = \"{}\"\n[partitions]\nstrict = "
                                        "false\n",
                                        parts.string()));
  const Outcome r =
      ibsm(fmt::format("route -t {} -F {} -o {}", topo, lenient.string(), dir_.string()));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("warning: " + parts.string() +
                               ":1: ignored (partitions.strict = false): unknown partition flag "
                               "'fast'"));
}

TEST_F(RouteCommand, TheConfigChoosesTheEngineAndTheFlagOverridesIt) {
  const auto conf = write("ibsm.toml", "[routing]\nengine = \"minhop\"\n");
  const auto topo = fmt::format("{}/two-switch-dual-port-hcas.net", IBSM_TEST_TOPOLOGIES);
  EXPECT_THAT(ibsm(fmt::format("route -t {} -F {} -o {}", topo, conf.string(), dir_.string())).out,
              HasSubstr("routing engine: minhop"));
  EXPECT_THAT(
      ibsm(fmt::format("route -t {} -F {} -R updn -o {}", topo, conf.string(), dir_.string())).out,
      HasSubstr("routing engine: updn"));
}

// qos.enabled: sl2vl.dump holds every port's table and vlarb.dump every
// port's VLArbitration; without it neither is written (one VL engine), and
// a run without QoS removes the dumps an earlier run with it left.
TEST_F(RouteCommand, WithQosTheDumpsGiveEveryPortsSl2VlAndVlArbitration) {
  const auto conf = write("ibsm.toml",
                          "[qos]\nenabled = true\nca_vlarb_low = \"0:8,1:16\"\n"
                          "swe_high_limit = 7\n");
  const auto topo = fmt::format("{}/two-switch-dual-port-hcas.net", IBSM_TEST_TOPOLOGIES);
  const auto out = dir_ / "out";
  const Outcome r =
      ibsm(fmt::format("route -t {} -F {} -R minhop -o {}", topo, conf.string(), out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string sl2vl = slurp(out / "sl2vl.dump");
  EXPECT_THAT(sl2vl, HasSubstr("\nca 0x"));
  EXPECT_THAT(sl2vl, HasSubstr(" in_port 0 out_port 1 : "));
  const std::string vlarb = slurp(out / "vlarb.dump");
  EXPECT_THAT(vlarb, HasSubstr(" low : 0:8 1:16\n"));
  EXPECT_THAT(vlarb, HasSubstr(" high_limit 7\n"));

  const Outcome plain = ibsm(fmt::format("route -t {} -R minhop -o {}", topo, out.string()));
  ASSERT_EQ(plain.status, 0) << plain.out;
  EXPECT_FALSE(fs::exists(out / "sl2vl.dump"));
  EXPECT_FALSE(fs::exists(out / "vlarb.dump"));
}

// minhop on a ring of five switches has a credit loop (every two-hop route
// is the unique shortest one, so each direction's channels chain all the way
// round); --check turns that into a failing exit status for scripts.
TEST_F(RouteCommand, CheckFailsOnACreditLoop) {
  std::string net;
  for (int i = 0; i < 5; ++i)
    net += fmt::format("Switch 4 \"s{}\"\n[1] \"h{}\"[1]\n[2] \"s{}\"[3]\n[3] \"s{}\"[2]\n\n", i, i,
                       (i + 1) % 5, (i + 4) % 5);
  for (int i = 0; i < 5; ++i) net += fmt::format("Hca 1 \"h{}\"\n[1] \"s{}\"[1]\n\n", i, i);
  const auto ring = write("ring.net", net);
  const Outcome minhop =
      ibsm(fmt::format("route -t {} -R minhop --check -o {}", ring.string(), dir_.string()));
  EXPECT_EQ(minhop.status, 1) << minhop.out;
  const Outcome updn =
      ibsm(fmt::format("route -t {} -R updn --check -o {}", ring.string(), dir_.string()));
  EXPECT_EQ(updn.status, 0) << updn.out;
}

TEST_F(RouteCommand, GuidToLidStateIsHonoured) {
  const auto state = write("g2l", "0x0000000000100001 0x0040 0x0040\n");
  const Outcome r =
      ibsm(fmt::format("route -t {}/two-switch-dual-port-hcas.net --guid2lid {} -o {}",
                       IBSM_TEST_TOPOLOGIES, state.string(), dir_.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(slurp(dir_ / "guid2lid"), HasSubstr("0x0000000000100001 0x0040 0x0040"));
}

// A capture as an operator pastes it: saved on Windows with a byte-order
// mark, the prompt copied along, one cable trained down to 1x at one end.
constexpr std::string_view kPastedCapture =
    "\xEF\xBB\xBF[root@host ~]# ibnetdiscover\r\n"
    "switchguid=0x10(10)\r\n"
    "Switch\t4 \"S-0000000000000010\"\t\t# \"a\" base port 0 lid 1 lmc 0\r\n"
    "[1]\t\"S-0000000000000020\"[2]\t\t# \"b\" lid 2 4xQDR\r\n"
    "[3]\t\"H-0000000000000030\"[1](31) \t\t# \"h\" lid 3 4xQDR\r\n"
    "switchguid=0x20(20)\r\n"
    "Switch\t4 \"S-0000000000000020\"\t\t# \"b\" base port 0 lid 2 lmc 0\r\n"
    "[2]\t\"S-0000000000000010\"[1]\t\t# \"a\" lid 1 1xQDR\r\n"
    "caguid=0x30\r\n"
    "Ca\t1 \"H-0000000000000030\"\t\t# \"h\"\r\n"
    "[1](31) \t\"S-0000000000000010\"[3]\t\t# lid 3 lmc 0 \"a\" lid 1 4xQDR";

TEST_F(RouteCommand, APastedCaptureRoutesAndSaysWhatItSkippedAndReconciled) {
  const auto cap = write("pasted.txt", std::string(kPastedCapture));
  const auto out = dir_ / "out";
  const Outcome r = ibsm(fmt::format("route -t {} -o {}", cap.string(), out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string skipped = cap.string() + ":1: skipped 1 line that is not topology";
  const std::string rates = cap.string() + ":4: the two ends of a cable report different rates";
  EXPECT_THAT(r.out, HasSubstr("ibsm route: warning: " + skipped));
  EXPECT_THAT(r.out, HasSubstr("ibsm route: warning: " + rates));
  EXPECT_THAT(r.out, HasSubstr("input: 2 warnings about the topology file"));
  const std::string report = slurp(out / "report.json");
  EXPECT_THAT(report, HasSubstr("\"warnings\""));
  EXPECT_THAT(report, HasSubstr(skipped));
  EXPECT_THAT(report, HasSubstr(rates));

  const Outcome p = ibsm(fmt::format("partitions -t {}", cap.string()));
  EXPECT_EQ(p.status, 0) << p.out;
  EXPECT_THAT(p.out, HasSubstr("ibsm partitions: warning: " + skipped));
}

TEST_F(RouteCommand, APortsReportRoutesWithANoteOnWhatItLacks) {
  const auto ports = write(
      "ports.txt",
      "SW     1  2 0x0000000000000010 4x QDR - SW     2  1 0x0000000000000020 ( 'a' - 'b' )\n"
      "SW     1  1 0x0000000000000010 4x QDR - CA     3  1 0x0000000000000031 ( 'a' - 'h0' )\n"
      "SW     2  2 0x0000000000000020 4x QDR - CA     4  1 0x0000000000000041 ( 'b' - 'h1' )\n"
      "SW     2  1 0x0000000000000020 4x QDR - SW     1  2 0x0000000000000010 ( 'b' - 'a' )\n"
      "CA     3  1 0x0000000000000031 4x QDR - SW     1  1 0x0000000000000010 ( 'h0' - 'a' )\n"
      "CA     4  1 0x0000000000000041 4x QDR - SW     2  2 0x0000000000000020 ( 'h1' - 'b' )\n");
  const Outcome r = ibsm(fmt::format("route -t {} -R updn -o {}", ports.string(), dir_.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("0 unreachable"));
  EXPECT_THAT(r.out, HasSubstr("ibsm route: warning: " + ports.string() +
                               ":1: an 'ibnetdiscover -p' ports report names ports, not nodes"));
}

// Without partitions anywhere the dry run plans what `ibsm run` manages then:
// the default partition with IPoIB, whose broadcast group every CA port joins.
TEST_F(RouteCommand, TheDefaultPartitionsBroadcastGroupIsPlannedAndChecked) {
  const auto out = dir_ / "out";
  const Outcome r =
      ibsm(fmt::format("route -t {}/fat-tree-3level-k8.net --check -F {} -o {}",
                       IBSM_TEST_TOPOLOGIES, write("empty.toml", "").string(), out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("multicast: 1 groups (1 with a tree), 128 receiving ports"));
  EXPECT_THAT(r.out, HasSubstr("check: every receiver reached once"));
  EXPECT_THAT(slurp(out / "mcast-groups"),
              HasSubstr("mgid ff12:401b:ffff::ffff:ffff mlid 0xc000 pkey 0xffff qkey 0x00000b1b "
                        "mtu 4 rate 3 sl 0 scope 0x2 tclass 0 flow_label 0x00000 members 128"));
  EXPECT_THAT(slurp(out / "mfts.dump"), HasSubstr("Multicast mlids [0xc000-0xc000] of switch"));
  EXPECT_THAT(slurp(out / "report.json"), HasSubstr("\"problems\":[]"));
}

TEST_F(RouteCommand, APartitionsFilesGroupsGetMlidsInOrderAndSpreadRoots) {
  const auto parts = write("p.conf",
                           "Default=0x7fff, ipoib : ALL=full;\n"
                           "storage=0x0b0b, ipoib, scope=2, scope=5, mtu=4096 :\n"
                           "  mgid=ff12:401b::16\n"
                           "  ALL_CAS=full;\n");
  const auto out = dir_ / "out";
  const Outcome r = ibsm(fmt::format(
      "route -t {}/fat-tree-3level-k8.net --check --partitions {} -F {} -o {}",
      IBSM_TEST_TOPOLOGIES, parts.string(), write("e.toml", "").string(), out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string groups = slurp(out / "mcast-groups");
  EXPECT_THAT(groups, HasSubstr("mgid ff12:401b:ffff::ffff:ffff mlid 0xc000"));
  EXPECT_THAT(groups, HasSubstr("mgid ff12:401b:8b0b::ffff:ffff mlid 0xc001 pkey 0x8b0b"));
  EXPECT_THAT(groups, HasSubstr("mgid ff15:401b:8b0b::ffff:ffff mlid 0xc002"));
  // The IP group takes the partition's scopes, as in OpenSM: one per scope.
  EXPECT_THAT(groups, HasSubstr("mgid ff12:401b:8b0b::16 mlid 0xc003 pkey 0x8b0b qkey 0x00000b1b "
                                "mtu 5"));
  EXPECT_THAT(groups, HasSubstr("mgid ff15:401b:8b0b::16 mlid 0xc004"));
  EXPECT_THAT(r.out, HasSubstr("multicast: 5 groups (5 with a tree)"));
  // Five trees over the 16 core switches of the k=8 tree: five roots, on
  // cores of different aggregation switches, so no cable carries more
  // than two trees (four groups of four cores: one group holds two roots).
  EXPECT_THAT(r.out, HasSubstr("roots: 5 switches, 1 to 1 trees each"));
  EXPECT_THAT(r.out, HasSubstr("at most 2 trees on one"));
}

TEST_F(RouteCommand, ABadMgidLineNamesFileAndLineAndWritesNothing) {
  const auto parts = write("p.conf", "a=0x1, ipoib :\n  mgid=fe80::1\n  ALL;\n");
  const auto out = dir_ / "out";
  const Outcome r = ibsm(fmt::format("route -t {}/fat-tree-3level-k8.net --partitions {} -o {}",
                                     IBSM_TEST_TOPOLOGIES, parts.string(), out.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(parts.string() + ":2: mgid= takes a multicast GID"));
  EXPECT_FALSE(fs::exists(out / "mfts.dump"));
}

// Without --out, a new directory in the current one: run where OpenSM keeps
// its cache (/var/cache/opensm), the dry run must not replace its guid2lid.
TEST_F(RouteCommand, WithoutOutItWritesIntoANewDirectoryAndReplacesNothing) {
  const auto cache = dir_ / "cache";
  fs::create_directories(cache);
  const std::string opensms = "0x0000000000100001 0x0040 0x0040\n";
  std::ofstream(cache / "guid2lid") << opensms;
  std::ofstream(cache / "opensm-lfts.dump") << "OpenSM's\n";
  const std::string args =
      fmt::format("route -t {}/two-switch-dual-port-hcas.net", IBSM_TEST_TOPOLOGIES);
  const Outcome first = ibsmIn(cache, args);
  ASSERT_EQ(first.status, 0) << first.out;
  const Outcome second = ibsmIn(cache, args);  // within the same second, as often as not
  ASSERT_EQ(second.status, 0) << second.out;
  EXPECT_EQ(slurp(cache / "guid2lid"), opensms);
  EXPECT_EQ(slurp(cache / "opensm-lfts.dump"), "OpenSM's\n");
  std::vector<fs::path> made;
  for (const auto& e : fs::directory_iterator(cache))
    if (e.is_directory()) made.push_back(e.path());
  ASSERT_EQ(made.size(), 2u) << first.out << second.out;
  for (const auto& d : made) {
    EXPECT_THAT(d.filename().string(), ::testing::StartsWith("ibsm-route-"));
    EXPECT_THAT(first.out + second.out,
                HasSubstr(fmt::format("ibsm route: writing into {}/", d.filename().string())));
    EXPECT_THAT(slurp(d / "guid2lid"), HasSubstr("0x0000000000200000 "));
    EXPECT_TRUE(fs::exists(d / "report.json"));
  }
}

// --out into a directory where another program wrote a file of the same name
// is refused before anything is routed, naming the file; --force replaces it.
TEST_F(RouteCommand, AnOutputThatIbsmRouteDidNotWriteIsNeverReplacedWithoutForce) {
  const auto cache = dir_ / "cache";
  fs::create_directories(cache);
  const std::string opensms = "0x0000000000100001 0x0040 0x0040\n";
  std::ofstream(cache / "guid2lid") << opensms;
  const std::string args = fmt::format("route -t {}/two-switch-dual-port-hcas.net -o {}",
                                       IBSM_TEST_TOPOLOGIES, cache.string());
  const Outcome refused = ibsm(args);
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_THAT(refused.out, HasSubstr((cache / "guid2lid").string() +
                                     ": exists and was not written by ibsm route"));
  EXPECT_THAT(refused.out, HasSubstr("--force"));
  EXPECT_EQ(slurp(cache / "guid2lid"), opensms);
  EXPECT_FALSE(fs::exists(cache / "report.json"));
  EXPECT_FALSE(fs::exists(cache / "opensm-lfts.dump"));

  const Outcome forced = ibsm(args + " --force");
  ASSERT_EQ(forced.status, 0) << forced.out;
  EXPECT_THAT(slurp(cache / "guid2lid"), HasSubstr("0x0000000000200000 "));
  // Forced once is not forced for good: the next run is refused again.
  EXPECT_EQ(ibsm(args).status, 2);
}

TEST_F(RouteCommand, ItsOwnOutputDirectoryIsWrittenAgain) {
  const std::string args = fmt::format("route -t {}/two-switch-dual-port-hcas.net -o {}",
                                       IBSM_TEST_TOPOLOGIES, (dir_ / "out").string());
  ASSERT_EQ(ibsm(args).status, 0);
  const Outcome again = ibsm(args + " -R updn");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_THAT(slurp(dir_ / "out/report.json"), HasSubstr("\"engine\":\"updn\""));
}

// ibdiagnet's director chips (switchguid=0x<chassis>(<chip>)) read as the
// chips they are, and the fabric routes.
TEST_F(RouteCommand, TheDirectorCaptureOfIbdiagnetRoutesEveryPair) {
  const auto out = dir_ / "out";
  const Outcome r = ibsm(fmt::format("route -t {}/director-ibdiagnet.ibnetdiscover --check -o {}",
                                     IBSM_TEST_TOPOLOGIES, out.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("fabric: 12 switches, 8 CA ports"));
  EXPECT_THAT(r.out, HasSubstr(", 0 unreachable"));
  const std::string lids = slurp(out / "guid2lid");
  EXPECT_THAT(lids, HasSubstr("0xb8cef6030019c882 0x0001 0x0001"));  // the LID the capture gives
  EXPECT_THAT(lids, ::testing::Not(HasSubstr("0xb8cef603008fbe36")));
}

// Two spare ports of one edge switch cabled to each other: the tree is
// still routed by ftree, as the clean tree is, and the cable named once.
TEST_F(RouteCommand, ALoopbackCableIsNamedOnceAndTheTreeStaysAFatTree) {
  std::string net = slurp(fs::path{IBSM_TEST_TOPOLOGIES} / "fat-tree-3level-k8.net");
  const auto at = net.find("Switch\t8 \"edge0_0\"\n");
  ASSERT_NE(at, std::string::npos);
  net.replace(at, 7, "Switch\t10");
  const std::string last = "[8]\t\"agg0_3\"[1]\n";
  net.insert(net.find(last, at) + last.size(), "[9]\t\"edge0_0\"[10]\n[10]\t\"edge0_0\"[9]\n");
  const auto looped = write("looped.net", net);
  ASSERT_EQ(ibsm(fmt::format("route -t {}/fat-tree-3level-k8.net -R ftree -o {}",
                             IBSM_TEST_TOPOLOGIES, (dir_ / "clean").string()))
                .status,
            0);
  const Outcome r =
      ibsm(fmt::format("route -t {} -R ftree --check --previous {} -o {}", looped.string(),
                       (dir_ / "clean/opensm-lfts.dump").string(), (dir_ / "out").string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("routing engine: ftree"));
  const std::string named = "loopback cable, carries no route, left out of routing: \"edge0_0\"[9]";
  const auto first = r.out.find(named);
  EXPECT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(named, first + 1), std::string::npos) << "named once";
  EXPECT_THAT(r.out, HasSubstr("entries that differ: 0 of "));
  EXPECT_THAT(slurp(dir_ / "out/report.json"),
              HasSubstr("\"loopbackCables\":[\"\\\"edge0_0\\\"[9]"));
}

TEST(TopoCommand, ABadSpecNamesTheParameter) {
  const Outcome r = ibsm("topo generate fat-tree --levels 3 --radix 7");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.out, HasSubstr("radix"));
}

}  // namespace
