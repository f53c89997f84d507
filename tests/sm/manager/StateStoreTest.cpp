// The state directory is the daemon's alone (issue 29): created 0700, an
// old one that others could read tightened to 0700 (and said), one that
// others could write refused; guid2lid written 0600 whatever the umask,
// an older readable one tightened.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "sm/manager/StateStore.h"

namespace ibsm::sm::manager {
namespace {

namespace fs = std::filesystem;

class StateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-state-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }

  static mode_t modeOf(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  }
  static LidPlan onePort() {
    LidPlan plan;
    LidAssignment a;
    a.portGuid = Guid{0x10};
    a.base = Lid{5};
    plan.assignments.push_back(a);
    return plan;
  }

  fs::path root_;
};

TEST_F(StateDir, IsCreated0700WhateverTheUmask) {
  const mode_t before = ::umask(0);
  const StateStore store(root_ / "var" / "ibsm");
  const auto notes = store.prepare();
  ::umask(before);
  ASSERT_TRUE(notes) << notes.error().message;
  EXPECT_TRUE(notes->empty());
  EXPECT_EQ(modeOf(root_ / "var" / "ibsm"), 0700u);
}

TEST_F(StateDir, AnOldOneOthersCouldReadIsTightenedAndSaidSo) {
  const auto dir = root_ / "ibsm";
  fs::create_directory(dir);
  ::chmod(dir.c_str(), 0755);
  std::ofstream(dir / "guid2lid") << "0x0000000000000010 5 5\n";
  ::chmod((dir / "guid2lid").c_str(), 0644);
  const auto notes = StateStore(dir).prepare();
  ASSERT_TRUE(notes) << notes.error().message;
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(dir / "guid2lid"), 0600u);
  ASSERT_EQ(notes->size(), 2u);
  EXPECT_EQ((*notes)[0], dir.string() + ": state directory tightened from 0755 to 0700");
  EXPECT_EQ((*notes)[1],
            (dir / "guid2lid").string() + ": guid2lid file tightened from 0644 to 0600");
}

TEST_F(StateDir, OneOthersCouldWriteIsRefused) {
  const auto dir = root_ / "ibsm";
  fs::create_directory(dir);
  ::chmod(dir.c_str(), 0777);
  const auto notes = StateStore(dir).prepare();
  ASSERT_FALSE(notes);
  EXPECT_EQ(notes.error().message.rfind(dir.string() + ": the state directory has mode 0777", 0),
            0u)
      << notes.error().message;
  EXPECT_EQ(modeOf(dir), 0777u);  // refused, not changed
}

TEST_F(StateDir, Guid2LidIsWritten0600WhateverTheUmask) {
  const StateStore store(root_ / "ibsm");
  ASSERT_TRUE(store.prepare());
  const mode_t before = ::umask(0);
  const auto saved = store.saveGuid2Lid({}, onePort());
  ::umask(before);
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(modeOf(store.guid2lidPath()), 0600u);
  const auto loaded = store.loadGuid2Lid();
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->size(), 1u);
}

}  // namespace
}  // namespace ibsm::sm::manager
