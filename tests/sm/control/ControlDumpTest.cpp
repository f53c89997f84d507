// The "dump KIND" request of the control socket and `ibsm dump`: the daemon
// answers the table it is given, framed with its length so that an answer
// cut short is refused; `ibsm dump KIND` prints one table to stdout, and
// `-o DIR` writes each table under the dry run's file name, never over a
// file DIR already has unless --force, and nothing at all when the daemon
// refuses one of them.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include "sm/control/ControlServer.h"
#include "sm/control/DumpRequest.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr std::string_view kLfts =
    "Unicast lids [0-2] of switch Lid 1 guid 0x0000000000000001 ('sw'):\n"
    "0x0001 000 # Switch portguid 0x0000000000000001: 'sw'\n"
    "0x0002 001 # Channel Adapter portguid 0x0000000000000002: 'host'\n"
    "2 lids dumped\n";
constexpr std::string_view kGuid2Lid = "0x0000000000000001 0x0001 0x0001\n";

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The tables a fake daemon holds: LFTs, guid2lid, no MFT entry, one VL.
Result<std::string> tables(DumpKind kind) {
  switch (kind) {
    case DumpKind::Lfts:
      return std::string(kLfts);
    case DumpKind::Guid2Lid:
      return std::string(kGuid2Lid);
    case DumpKind::Mfts:
    case DumpKind::Sl2Vl:
      return std::string();
  }
  return fail("?");
}

class ControlDump : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-dump-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ / "ibsm.sock";
    auto server = ControlServer::listen(path_);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }

  template <typename F>
  auto serveWhile(F ask) {
    auto answer = std::async(std::launch::async, ask);
    while (answer.wait_for(5ms) != std::future_status::ready)
      server_->serve([] { return DaemonStatus{}; }, [](SweepAsk) {});
    return answer.get();
  }
  // `ibsm dump ARGS`: its exit status; its stdout in out_.
  int ibsmDump(const std::string& args) {
    const std::string cmd =
        fmt::format("{} dump --socket {} {} >{} 2>{}", IBSM_BINARY, path_.string(), args,
                    (dir_ / "stdout").string(), (dir_ / "stderr").string());
    const auto run = [&] { return std::system(cmd.c_str()); };
    const int st = server_ ? serveWhile(run) : run();
    out_ = readText(dir_ / "stdout");
    err_ = readText(dir_ / "stderr");
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  fs::path dir_, path_;
  std::unique_ptr<ControlServer> server_;
  std::string out_, err_;
};

TEST(DumpRequest, AFramedAnswerGivesBackItsTextAndACutOneIsRefused) {
  const std::string framed = frameDump(DumpKind::Lfts, kLfts);
  EXPECT_TRUE(framed.starts_with(fmt::format("dump lfts {}\n", kLfts.size())));
  auto text = unframeDump(framed, DumpKind::Lfts);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, kLfts);

  auto cut = unframeDump(std::string_view(framed).substr(0, framed.size() - 5), DumpKind::Lfts);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("cut short"), std::string::npos) << cut.error().message;
  EXPECT_FALSE(unframeDump(framed, DumpKind::Mfts)) << "another kind's answer";
  auto refused = unframeDump("error: no sweep yet\n", DumpKind::Lfts);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "no sweep yet");
  EXPECT_EQ(*unframeDump(frameDump(DumpKind::Sl2Vl, ""), DumpKind::Sl2Vl), "");
}

TEST(DumpRequest, KindsAreNamedAsTheOperatorTypesThemAndFiledAsTheDryRunNamesThem) {
  for (const DumpKind kind : kDumpKinds) EXPECT_EQ(parseDumpKind(dumpKindName(kind)), kind);
  EXPECT_FALSE(parseDumpKind("lft"));
  EXPECT_EQ(dumpFileName(DumpKind::Lfts), "opensm-lfts.dump");
  EXPECT_EQ(dumpFileName(DumpKind::Mfts), "mfts.dump");
  EXPECT_EQ(dumpFileName(DumpKind::Guid2Lid), "guid2lid");
  EXPECT_EQ(dumpFileName(DumpKind::Sl2Vl), "sl2vl.dump");
}

TEST_F(ControlDump, TheServerAnswersTheProvidedTableFramed) {
  server_->provideDump(tables);
  const auto answer = serveWhile([&] { return request(path_, "dump lfts"); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, frameDump(DumpKind::Lfts, kLfts));
  const auto unknown = serveWhile([&] { return request(path_, "dump lft"); });
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(unknown->starts_with("error: unknown table 'lft'")) << *unknown;
}

TEST_F(ControlDump, WithoutASourceTheServerAnswersAnError) {
  const auto answer = serveWhile([&] { return request(path_, "dump lfts"); });
  ASSERT_TRUE(answer);
  EXPECT_TRUE(answer->starts_with("error: ")) << *answer;
}

TEST_F(ControlDump, OneTablePrintsToStdout) {
  server_->provideDump(tables);
  EXPECT_EQ(ibsmDump("lfts"), 0) << err_;
  EXPECT_EQ(out_, kLfts);
  EXPECT_EQ(ibsmDump("guid2lid"), 0) << err_;
  EXPECT_EQ(out_, kGuid2Lid);
}

TEST_F(ControlDump, WithoutOutTwoTablesAreBadInputAndNothingIsAsked) {
  bool asked = false;
  server_->provideDump([&](DumpKind kind) {
    asked = true;
    return tables(kind);
  });
  EXPECT_EQ(ibsmDump("lfts guid2lid"), 2);
  EXPECT_NE(err_.find("without -o DIR"), std::string::npos) << err_;
  EXPECT_EQ(ibsmDump("routes"), 2);
  EXPECT_NE(err_.find("unknown table 'routes'"), std::string::npos) << err_;
  EXPECT_FALSE(asked);
}

TEST_F(ControlDump, AllWritesEachTableUnderTheDryRunsNameAndNoSl2VlForOneVl) {
  server_->provideDump(tables);
  const fs::path out = dir_ / "held" / "now";
  EXPECT_EQ(ibsmDump(fmt::format("all -o {}", out.string())), 0) << err_;
  EXPECT_EQ(readText(out / "opensm-lfts.dump"), kLfts);
  EXPECT_EQ(readText(out / "guid2lid"), kGuid2Lid);
  EXPECT_TRUE(fs::exists(out / "mfts.dump"));
  EXPECT_EQ(fs::file_size(out / "mfts.dump"), 0U);
  EXPECT_FALSE(fs::exists(out / "sl2vl.dump")) << "the dry run writes none for one VL";
  EXPECT_NE(err_.find("one VL"), std::string::npos) << err_;
}

TEST_F(ControlDump, AFileTheDirectoryHasIsNotReplacedWithoutForce) {
  server_->provideDump(tables);
  const fs::path out = dir_ / "cache";
  fs::create_directories(out);
  std::ofstream(out / "guid2lid") << "0x0000000000000009 0x0009 0x0009\n";
  EXPECT_EQ(ibsmDump(fmt::format("lfts guid2lid -o {}", out.string())), 2);
  EXPECT_NE(err_.find("guid2lid"), std::string::npos) << err_;
  EXPECT_NE(err_.find("--force"), std::string::npos) << err_;
  EXPECT_EQ(readText(out / "guid2lid"), "0x0000000000000009 0x0009 0x0009\n");
  EXPECT_FALSE(fs::exists(out / "opensm-lfts.dump")) << "nothing written";

  EXPECT_EQ(ibsmDump(fmt::format("lfts guid2lid -o {} --force", out.string())), 0) << err_;
  EXPECT_EQ(readText(out / "guid2lid"), kGuid2Lid);
  EXPECT_EQ(readText(out / "opensm-lfts.dump"), kLfts);
}

TEST_F(ControlDump, ATableTheDaemonRefusesWritesNothingAndExitsOne) {
  server_->provideDump([](DumpKind kind) -> Result<std::string> {
    if (kind == DumpKind::Mfts) return fail("no sweep has programmed the fabric yet");
    return tables(kind);
  });
  const fs::path out = dir_ / "held";
  EXPECT_EQ(ibsmDump(fmt::format("all -o {}", out.string())), 1);
  EXPECT_NE(err_.find("no sweep has programmed"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(out / "opensm-lfts.dump"));
  EXPECT_FALSE(fs::exists(out / "guid2lid"));
}

TEST_F(ControlDump, NoDaemonExitsTwoNamingTheSocket) {
  server_.reset();
  EXPECT_EQ(ibsmDump("lfts"), 2);
  EXPECT_NE(err_.find(path_.string()), std::string::npos) << err_;
}

}  // namespace
}  // namespace ibsm::sm::control
