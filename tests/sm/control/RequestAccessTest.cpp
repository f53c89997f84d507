// Who may ask the control socket what (issue 29): every request the server
// knows is read-only or changing, in one table; root and the daemon's user
// may ask anything, the members of sm.control_group read-only requests,
// nobody else anything. The decision is a function of the peer's
// credentials, tested here with given uids and groups; the credentials
// themselves come from the kernel (SO_PEERCRED on a socketpair gives this
// process's own).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "sm/control/PathRequest.h"
#include "sm/control/RequestAccess.h"

namespace ibsm::sm::control {
namespace {

using enum RequestAccess;

constexpr uid_t kDaemon = 0;
constexpr uid_t kUser = 1000;
constexpr gid_t kReaders = 990;

AccessPolicy withGroup() {
  return {.daemonUid = kDaemon, .readGroup = kReaders, .readGroupName = "ibsm-read"};
}

PeerCred user(gid_t primary, std::vector<gid_t> groups = {}) {
  return {.pid = 4242, .uid = kUser, .gid = primary, .groups = std::move(groups)};
}

TEST(RequestAccess, EveryRequestThatShowsStateIsReadOnly) {
  for (const char* r : {"status", "status json", "health", "health json", "health ports", "metrics",
                        "draw", "dump lfts", "dump guid2lid"})
    EXPECT_EQ(classifyRequest(r).access, ReadOnly) << r;
  EXPECT_EQ(classifyRequest(std::string(kPathRequest) + "1\t2").access, ReadOnly);
}

TEST(RequestAccess, EveryRequestThatChangesSomethingIsChanging) {
  for (const char* r : {"sweep", "sweep heavy", "sweep rebalance", "sweep readmit 0x1/3",
                        "log-level debug", "reload", "keys rotate"})
    EXPECT_EQ(classifyRequest(r).access, Changing) << r;
}

TEST(RequestAccess, AnUnknownRequestChangesNothingAndIsReadOnly) {
  EXPECT_EQ(classifyRequest("sweepx").access, ReadOnly);
  EXPECT_EQ(classifyRequest("status  json").access, ReadOnly);
  EXPECT_EQ(classifyRequest("").access, ReadOnly);
}

TEST(RequestAccess, TheTableNamesEachRequestOnceWithTheCommandThatSendsIt) {
  std::set<std::string_view> seen;
  for (const RequestRule& r : requestRules()) {
    EXPECT_TRUE(seen.insert(r.prefix).second) << r.prefix;
    EXPECT_TRUE(r.command.starts_with("ibsm ")) << r.prefix;
    EXPECT_EQ(classifyRequest(r.exact ? std::string(r.prefix) : std::string(r.prefix) + "x").access,
              r.access)
        << r.prefix;
  }
}

TEST(RequestAccess, RootAndTheDaemonsUserMayAskAnything) {
  const AccessPolicy daemonAsIbsm{.daemonUid = 123, .readGroup = {}, .readGroupName = {}};
  for (auto access : {ReadOnly, Changing}) {
    EXPECT_EQ(refusal(access, {.pid = 1, .uid = 0, .gid = 0, .groups = {}}, daemonAsIbsm),
              std::nullopt);
    EXPECT_EQ(refusal(access, {.pid = 1, .uid = 123, .gid = 5, .groups = {}}, daemonAsIbsm),
              std::nullopt);
  }
}

TEST(RequestAccess, TheReadGroupMayReadButNotChange) {
  EXPECT_EQ(refusal(ReadOnly, user(100, {kReaders}), withGroup()), std::nullopt);
  EXPECT_EQ(refusal(ReadOnly, user(kReaders), withGroup()), std::nullopt);  // primary group
  EXPECT_EQ(refusal(Changing, user(100, {kReaders}), withGroup()),
            "changing requests need root (uid 1000 is in group ibsm-read)");
}

TEST(RequestAccess, OthersMayNeitherReadNorChange) {
  const auto read = refusal(ReadOnly, user(100, {7, 8}), withGroup());
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, "uid 1000 is not root and not in group ibsm-read (sm.control_group)");
  EXPECT_EQ(refusal(Changing, user(100), withGroup()), "changing requests need root (uid 1000)");
  const AccessPolicy rootOnly{.daemonUid = 0, .readGroup = {}, .readGroupName = {}};
  EXPECT_TRUE(refusal(ReadOnly, user(kReaders, {kReaders}), rootOnly));
}

TEST(RequestAccess, WithoutTheSupplementaryGroupsTheSocketsModeDecidesWhoReads) {
  PeerCred unknownGroups = user(100);
  unknownGroups.groups.reset();
  EXPECT_EQ(refusal(ReadOnly, unknownGroups, withGroup()), std::nullopt);
  EXPECT_TRUE(refusal(Changing, unknownGroups, withGroup()));
}

TEST(RequestAccess, TheKernelGivesThePeersCredentials) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const auto peer = peerOf(fds[0]);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_TRUE(peer) << peer.error().message;
  EXPECT_EQ(peer->pid, ::getpid());
  EXPECT_EQ(peer->uid, ::geteuid());
  EXPECT_EQ(peer->gid, ::getegid());
  ASSERT_TRUE(peer->groups);
  std::vector<gid_t> mine(static_cast<std::size_t>(::getgroups(0, nullptr)));
  ::getgroups(static_cast<int>(mine.size()), mine.data());
  EXPECT_EQ(peer->groups->size(), mine.size());
}

}  // namespace
}  // namespace ibsm::sm::control
