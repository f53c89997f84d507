// The daemon's StrictModes (issue 29, as sshd's): a config file, partitions
// file or any file the config names that another user could have written
// -- writable by group or others, or owned by someone other than root or
// the daemon's user -- is refused at start with the file and its mode.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm/config/FileModes.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

class FileModes : public testing::ScratchFiles {
 protected:
  std::filesystem::path file(const std::string& name, mode_t mode) const {
    const auto p = write(name, "[sm]\npriority = 3\n");
    ::chmod(p.c_str(), mode);
    return p;
  }
};

TEST_F(FileModes, AFileOnlyItsOwnerMayWriteIsTrusted) {
  for (mode_t mode : {0600, 0644, 0640, 0444})
    EXPECT_TRUE(checkTrustedFile(file("ibsm.toml", mode), "config file", ::geteuid())) << mode;
}

TEST_F(FileModes, AFileOthersMayWriteIsRefusedWithItsNameAndMode) {
  const auto p = file("ibsm.toml", 0666);
  const auto ok = checkTrustedFile(p, "config file", ::geteuid());
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().message,
            p.string() +
                ": the config file has mode 0666, writable by others; refused, as "
                "another user could change it (StrictModes): chmod go-w " +
                p.string());
}

TEST_F(FileModes, AFileItsGroupMayWriteIsRefused) {
  const auto ok = checkTrustedFile(file("partitions.conf", 0664), "partitions file", ::geteuid());
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("has mode 0664, writable by its group"), std::string::npos)
      << ok.error().message;
}

TEST_F(FileModes, AFileOfAnotherUserIsRefused) {
  const auto p = file("ibsm.toml", 0644);
  // As the daemon running as uid 4321 would see a file of this test's user.
  const uid_t daemon = 4321;
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(p.c_str(), 1234, static_cast<gid_t>(-1)), 0);
  }
  const auto ok = checkTrustedFile(p, "config file", daemon);
  if (::geteuid() != 0) {
    ASSERT_FALSE(ok);  // owned by this user, neither root nor uid 4321
    EXPECT_NE(ok.error().message.find("not by root or the daemon's user (uid 4321)"),
              std::string::npos);
    return;
  }
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("is owned by uid 1234, not by root or the daemon's user (uid "
                                    "4321)"),
            std::string::npos)
      << ok.error().message;
}

TEST_F(FileModes, AMissingFileIsLeftToItsReader) {
  EXPECT_TRUE(checkTrustedFile(path("absent.toml"), "config file", ::geteuid()));
}

TEST_F(FileModes, TheDaemonChecksTheConfigAndEveryFileItNames) {
  ConfigInUse in;
  in.file = file("ibsm.toml", 0644);
  Config c;
  c.sm.partitionsFile = file("partitions.conf", 0644);
  c.health.thresholdFile = file("thresholds", 0644);
  c.health.rateThresholdFile = file("rates", 0644);
  c.routing.rootGuidFile = file("roots", 0644);
  EXPECT_TRUE(checkDaemonFiles(in, c, std::nullopt));
  for (const auto& [name, what] : {std::pair{"ibsm.toml", "config file"},
                                   {"partitions.conf", "sm.partitions_file"},
                                   {"thresholds", "health.threshold_file"},
                                   {"rates", "health.rate_threshold_file"},
                                   {"roots", "routing.root_guid_file"}}) {
    ::chmod(path(name).c_str(), 0646);
    const auto ok = checkDaemonFiles(in, c, std::nullopt);
    ASSERT_FALSE(ok) << name;
    EXPECT_NE(ok.error().message.find(path(name).string() + ": the "), std::string::npos);
    EXPECT_NE(ok.error().message.find(what), std::string::npos) << ok.error().message;
    ::chmod(path(name).c_str(), 0644);
  }
}

TEST_F(FileModes, PartitionsGivenOnTheCommandLineAreCheckedInsteadOfTheConfigs) {
  ConfigInUse in;
  Config c;
  c.sm.partitionsFile = file("config-partitions.conf", 0666);  // not read: --partitions wins
  const auto flag = file("flag-partitions.conf", 0644);
  EXPECT_TRUE(checkDaemonFiles(in, c, flag));
  ::chmod(flag.c_str(), 0666);
  const auto ok = checkDaemonFiles(in, c, flag);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("(--partitions)"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::config
