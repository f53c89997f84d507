// `ibsm partitions` reads the partitions exactly as `ibsm run` does with the
// same --config and --partitions: the config's sm.partitions_file and its
// [[partition]] tables, the flag over the key, nothing named meaning "not
// managed". What run then programs is checked against this command's plan
// on ibsim (tests/sm/run/partitions-config.sh); here, without a fabric, both
// commands must refuse the same bad sources with the same words.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/sm/cli/IbsmProcess.h"

namespace ibsm::sm::cli {
namespace {

namespace fs = std::filesystem;
using testing::freshTestDir;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Outcome;
using testing::runIbsm;

class PartitionsCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTestDir("ibsm-partitions-cli");
    topology_ = dir_ / "ft.net";
    ASSERT_EQ(runIbsm(fmt::format("topo generate fat-tree --levels 2 --radix 4 -o {}",
                                  topology_.string()))
                  .status,
              0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // A config naming `partitionsFile` (if any) and holding `tables`.
  fs::path config(const std::string& tables, const fs::path& partitionsFile = {}) const {
    std::string text = "[sm]\npriority = 1\n";
    if (!partitionsFile.empty())
      text += fmt::format("partitions_file = \"{}\"\n", partitionsFile.string());
    return write("ibsm.toml", text + tables);
  }
  Outcome partitions(const std::string& args) const {
    return runIbsm(fmt::format("partitions --topology {} {}", topology_.string(), args));
  }
  // `ibsm run` refuses bad input before it opens a port: what it says then
  // is what it read.
  Outcome run(const std::string& args) const {
    return runIbsm(fmt::format("run --once --state-dir {} {}", (dir_ / "state").string(), args));
  }

  static constexpr const char* kStorage =
      "[[partition]]\nname = \"storage\"\npkey = 0x0b0b\nmembers = [\"ALL_CAS\"]\n";
  fs::path dir_;
  fs::path topology_;
};

TEST_F(PartitionsCommand, TheConfigsPartitionsFileAndTablesArePlannedTogether) {
  const auto conf = write("partitions.conf", "mix=0x0a0a : ALL=full ;\n");
  const Outcome r = partitions(fmt::format("--config {}", config(kStorage, conf).string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("partitions: 3;"));
  EXPECT_THAT(r.out, HasSubstr("partition 'mix' 0x0a0a: 14 members"));
  EXPECT_THAT(r.out, HasSubstr("partition 'storage' 0x0b0b: 8 members"));
}

// The file: OpenSM loses group B without a word. ibsm refuses it by
// default saying so, and with partitions.strict = false plans what OpenSM
// would, naming what it read past; `ibsm run` reads it by the same rule.
TEST_F(PartitionsCommand, WhatOpenSmReadsPastIsRefusedOrWithStrictOffNamed) {
  const auto conf = write("p.conf",
                          "storage=0x0b0b : ALL_CAS=full,\n"
                          "  mgid=ff12:a01b::1,mtu=4 , mgid=ff12:a01b::2;\n");
  const Outcome strict = partitions(fmt::format("--config {}", config("", conf).string()));
  EXPECT_EQ(strict.status, 2) << strict.out;
  EXPECT_THAT(strict.out, HasSubstr("p.conf:2: a second group 'mgid=ff12:a01b::2'"));
  EXPECT_THAT(strict.out, HasSubstr("OpenSM would take it for an unknown flag"));
  EXPECT_EQ(run(fmt::format("--config {}", config("", conf).string())).status, 2);
  const Outcome lenient = partitions(
      fmt::format("--config {}", config("[partitions]\nstrict = false\n", conf).string()));
  ASSERT_EQ(lenient.status, 0) << lenient.out;
  EXPECT_THAT(lenient.out, HasSubstr("p.conf:2: ignored: a second group 'mgid=ff12:a01b::2'"));
  EXPECT_THAT(lenient.out, HasSubstr("1 items of the partitions file ignored"));
  EXPECT_THAT(lenient.out, HasSubstr("partition 'storage' 0x0b0b"));
}

TEST_F(PartitionsCommand, ThePartitionsFlagReplacesTheConfigsFile) {
  const auto configured = write("configured.conf", "old=0x0c0c : ALL ;\n");
  const auto given = write("given.conf", "new=0x0d0d : ALL ;\n");
  const Outcome r = partitions(fmt::format("--config {} --partitions {}",
                                           config(kStorage, configured).string(), given.string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("partition 'new' 0x0d0d"));
  EXPECT_THAT(r.out, HasSubstr("partition 'storage' 0x0b0b"));
  EXPECT_THAT(r.out, Not(HasSubstr("0x0c0c")));
}

TEST_F(PartitionsCommand, NothingNamedManagesTheDefaultPartitionEveryPortFull) {
  const Outcome r = partitions(fmt::format("--config {}", config("").string()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("partition 'Default' 0x7fff"));
  EXPECT_THAT(r.out, Not(HasSubstr("limited")));
}

// The same clash between the two sources, refused by both commands with the
// same message naming both places.
TEST_F(PartitionsCommand, RunAndPartitionsRefuseAClashBetweenTheSourcesAlike) {
  const auto conf = write("partitions.conf", "storage=0x0b0b : ALL=full ;\n");
  const auto toml = config(kStorage, conf);  // [[partition]] on line 4
  const std::string why = fmt::format(
      "{}:4: PKey 0x0b0b ('storage') is also defined at {}:1 ('storage'), "
      "differently; define it in one place",
      toml.string(), conf.string());

  const Outcome planned = partitions(fmt::format("--config {}", toml.string()));
  EXPECT_EQ(planned.status, 2) << planned.out;
  EXPECT_THAT(planned.out, HasSubstr("ibsm partitions: " + why));

  const Outcome started = run(fmt::format("--config {}", toml.string()));
  EXPECT_EQ(started.status, 2) << started.out;
  EXPECT_THAT(started.out, HasSubstr("ibsm run: " + why));
}

TEST_F(PartitionsCommand, RunAndPartitionsBothReadTheConfigsPartitionsFile) {
  const auto bad = write("bad.conf", "good=0x0a0a : ALL ;\nbad=0x1zz : ALL_CAS ;\n");
  const auto toml = config("", bad);

  const Outcome planned = partitions(fmt::format("--config {}", toml.string()));
  EXPECT_EQ(planned.status, 2) << planned.out;
  EXPECT_THAT(planned.out, HasSubstr(bad.string() + ":2"));

  const Outcome started = run(fmt::format("--config {}", toml.string()));
  EXPECT_EQ(started.status, 2) << started.out;
  EXPECT_THAT(started.out, HasSubstr(bad.string() + ":2"));
}

// Every command takes its config as -F; -c, this command's own spelling
// before, still reads it, with a warning.
TEST_F(PartitionsCommand, TakesTheConfigAsDashFLikeEveryOtherCommand) {
  const auto toml = config(kStorage);
  const Outcome dashF = partitions(fmt::format("-F {}", toml.string()));
  ASSERT_EQ(dashF.status, 0) << dashF.out;
  EXPECT_THAT(dashF.out, HasSubstr("partition 'storage' 0x0b0b"));
  EXPECT_THAT(dashF.out, Not(HasSubstr("deprecated")));

  const Outcome dashC = partitions(fmt::format("-c {}", toml.string()));
  ASSERT_EQ(dashC.status, 0) << dashC.out;
  EXPECT_THAT(dashC.out, HasSubstr("partition 'storage' 0x0b0b"));
  EXPECT_THAT(dashC.out, HasSubstr("ibsm partitions: warning: -c is deprecated, give -F"));

  EXPECT_EQ(partitions(fmt::format("-c {} -F {}", toml.string(), toml.string())).status, 2);
}

}  // namespace
}  // namespace ibsm::sm::cli
