// The umad transport and the MAD engine on a simulated fabric. Run through
// run-with-ibsim.sh (ctest -L ibsim); the expected GUIDs come from parsing
// the same net file with ibsm's own reader, which names nodes as ibsim does.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/Topology.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "sm/mad/MadEngine.h"
#include "sm/transport/UmadTransport.h"

extern char** environ;

namespace ibsm {
namespace {

using namespace std::chrono_literals;

const Fabric& netFabric() {
  static const Fabric fabric = [] {
    const char* net = std::getenv("IBSIM_NETFILE");
    if (net == nullptr) {
      ADD_FAILURE() << "IBSIM_NETFILE is not set: run this through run-with-ibsim.sh";
      return Fabric{};
    }
    auto f = readTopologyFile(net);
    if (!f) ADD_FAILURE() << f.error().message;
    return f ? f->fabric : Fabric{};
  }();
  return fabric;
}

// Where ibsim attaches us: the first node of the file, port 0 of a switch.
NodeId smNode() {
  return 0;
}

// The node at the end of a directed route, walked on the parsed fabric.
std::optional<PortRef> walk(const Fabric& f, const DrPath& path) {
  PortRef at{smNode(), 0};
  for (std::uint8_t port : path.ports()) {
    const auto& remote = f.node(at.node).ports.at(port).remote;
    if (!remote) return std::nullopt;
    at = *remote;
  }
  return at;
}

std::unique_ptr<sm::transport::UmadTransport> openDefault() {
  auto port = sm::transport::UmadTransport::open({});
  EXPECT_TRUE(port) << port.error().message;
  return port ? std::move(*port) : nullptr;
}

// One raw round trip, without the engine.
std::optional<Smp> query(MadTransport& wire, const DrPath& path, AttributeId id,
                         std::uint32_t tid) {
  Smp request = Smp::directed(Method::Get, id, 0, path);
  request.header.tid = tid;
  if (auto sent = wire.send(encodeSmp(request), MadAddress::directed()); !sent) {
    ADD_FAILURE() << sent.error().message;
    return std::nullopt;
  }
  const auto deadline = MadClock::now() + 2s;
  while (MadClock::now() < deadline) {
    auto in = wire.receive(deadline);
    if (!in) {
      ADD_FAILURE() << in.error().message;
      return std::nullopt;
    }
    if (!*in) break;
    auto smp = decodeSmp((*in)->mad);
    if (smp && smp->header.method == Method::GetResp &&
        static_cast<std::uint32_t>(smp->header.tid) == tid) {
      return *smp;
    }
  }
  ADD_FAILURE() << "no response from DR " << path.toString();
  return std::nullopt;
}

TEST(UmadTransport, OpensTheFirstPortByDefaultAndReportsIt) {
  auto wire = openDefault();
  ASSERT_TRUE(wire);
  EXPECT_EQ(wire->port().portGuid, netFabric().node(smNode()).guid);
  EXPECT_FALSE(wire->port().caName.empty());
  EXPECT_GE(wire->pollFd(), 0);
  auto now = wire->queryPort();
  ASSERT_TRUE(now) << now.error().message;
  EXPECT_EQ(now->portGuid, wire->port().portGuid);
}

TEST(UmadTransport, OpensAPortByItsGuid) {
  const Guid guid = netFabric().node(smNode()).guid;
  sm::transport::UmadOptions options;
  options.portGuid = guid;
  auto wire = sm::transport::UmadTransport::open(options);
  ASSERT_TRUE(wire) << wire.error().message;
  EXPECT_EQ((*wire)->port().portGuid, guid);
}

TEST(UmadTransport, RefusesAGuidNoPortHasAndNamesIt) {
  sm::transport::UmadOptions options;
  options.portGuid = Guid{0xdeadbeef};
  auto wire = sm::transport::UmadTransport::open(options);
  ASSERT_FALSE(wire);
  EXPECT_NE(wire.error().message.find("0x00000000deadbeef"), std::string::npos)
      << wire.error().message;
}

TEST(UmadTransport, ReadsNodeInfoOfTheLocalNodeAndOfANodeTwoHopsAway) {
  auto wire = openDefault();
  ASSERT_TRUE(wire);
  const Fabric& f = netFabric();

  auto local = query(*wire, DrPath{}, AttributeId::NodeInfo, 1);
  ASSERT_TRUE(local);
  const NodeInfo self = decodeNodeInfo(local->data);
  EXPECT_EQ(self.nodeGuid, f.node(smNode()).guid);
  EXPECT_EQ(self.nodeType, NodeType::Switch);
  EXPECT_EQ(self.numPorts, f.node(smNode()).numPorts());

  const DrPath twoHops = *DrPath::parse("0,3,1");
  const auto expected = walk(f, twoHops);
  ASSERT_TRUE(expected);
  auto far = query(*wire, twoHops, AttributeId::NodeInfo, 2);
  ASSERT_TRUE(far);
  EXPECT_TRUE(far->header.direction);
  const NodeInfo ni = decodeNodeInfo(far->data);
  EXPECT_EQ(ni.nodeGuid, f.node(expected->node).guid);
  EXPECT_EQ(ni.portGuid, f.port(*expected).guid);
  EXPECT_EQ(ni.localPortNum, expected->port);
  EXPECT_EQ(ni.nodeType, NodeType::Ca);

  auto desc = query(*wire, twoHops, AttributeId::NodeDescription, 3);
  ASSERT_TRUE(desc);
  EXPECT_EQ(decodeNodeDescription(desc->data).text, f.node(expected->node).description);
}

TEST(UmadTransport, DrainsWhatIsQueuedWithoutAPollAndPollsOnlyToWait) {
  auto wire = openDefault();
  ASSERT_TRUE(wire);
  // Nothing sent: asked not to wait, it returns at once, without a poll().
  auto none = wire->receive(MadClock::now());
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(*none);
  EXPECT_EQ(wire->wireCounters().polls, 0U);
  EXPECT_EQ(wire->wireCounters().emptyReads, 1U);

  // Eight Gets answered while we sleep: all eight are read without a poll.
  constexpr std::uint32_t kAsked = 8;
  for (std::uint32_t tid = 1; tid <= kAsked; ++tid) {
    Smp request = Smp::directed(Method::Get, AttributeId::NodeInfo, 0, DrPath{});
    request.header.tid = tid;
    ASSERT_TRUE(wire->send(encodeSmp(request), MadAddress::directed()));
  }
  const auto giveUp = MadClock::now() + 2s;
  std::uint32_t read = 0;
  // The first answer may need a wait; what follows it is drained.
  if (auto first = wire->receive(giveUp); first && *first) ++read;
  std::this_thread::sleep_for(50ms);
  const std::uint64_t pollsBefore = wire->wireCounters().polls;
  for (;;) {
    auto in = wire->receive(MadClock::now());
    ASSERT_TRUE(in) << in.error().message;
    if (!*in) break;
    ++read;
  }
  EXPECT_EQ(read, kAsked);
  EXPECT_EQ(wire->wireCounters().smpsRead, kAsked);
  EXPECT_EQ(wire->wireCounters().polls, pollsBefore);  // the drain never polled
  EXPECT_EQ(wire->wireCounters().emptyReads, 2U);      // the first call's and the drain's end

  // Nothing more coming: a deadline ahead is waited out in poll().
  auto late = wire->receive(MadClock::now() + 20ms);
  ASSERT_TRUE(late);
  EXPECT_FALSE(*late);
  EXPECT_GT(wire->wireCounters().polls, pollsBefore);
}

TEST(MadEngineOnIbsim, FindsEveryNodeOfTheNetFile) {
  auto wire = openDefault();
  ASSERT_TRUE(wire);
  MadEngineOptions options;
  options.window = 8;
  MadEngine engine(*wire, options);
  std::set<Guid> found;
  std::function<void(const SmpRequest&, const SmpReply&)> visit;
  visit = [&](const SmpRequest& q, const SmpReply& r) {
    ASSERT_TRUE(r.ok()) << q.destination();
    const NodeInfo ni = decodeNodeInfo(r.smp->data);
    if (!found.insert(ni.nodeGuid).second || ni.nodeType != NodeType::Switch) return;
    const DrPath& here = std::get<DrPath>(q.to);
    for (std::uint8_t p = 1; p <= ni.numPorts; ++p) {
      engine.submit(SmpRequest::get(AttributeId::PortInfo, p, here),
                    [&, here, p](const SmpRequest&, const SmpReply& pr) {
                      ASSERT_TRUE(pr.ok());
                      if (decodePortInfo(pr.smp->data).portState == PortState::Down) return;
                      if (here.hopCount() > 0 && p == ni.localPortNum) return;
                      engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, *here.extended(p)),
                                    visit);
                    });
    }
  };
  engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}), visit);
  ASSERT_TRUE(engine.runUntilIdle());

  std::set<Guid> expected;
  for (const Node& n : netFabric().nodes()) expected.insert(n.guid);
  EXPECT_EQ(found, expected);
  EXPECT_EQ(engine.counters().timeouts, 0U);
  EXPECT_EQ(engine.counters().errors, 0U);
}

// `sminfo -D 0`, started as another process on the same simulated node,
// asks the port's SM; the engine answers while it runs.
TEST(MadEngineOnIbsim, AnswersSminfoFromAnotherProcess) {
  auto wire = openDefault();
  ASSERT_TRUE(wire);
  MadEngine engine(*wire);
  const SmInfo mine{.guid = wire->port().portGuid,
                    .smKey = 0,
                    .actCount = 4242,
                    .priority = 11,
                    .smState = SmState::Master};
  int answered = 0;
  engine.onUnsolicited([&](const IncomingSmp& in) {
    if (in.smp.header.attributeId != AttributeId::SmInfo) return;
    ++answered;
    EXPECT_TRUE(engine.respond(in, encode(mine)));
  });

  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, "sminfo.out", O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  char arg0[] = "sminfo", arg1[] = "-D", arg2[] = "0";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawnp(&child, "sminfo", &io, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&io);

  int status = -1;
  const auto giveUp = MadClock::now() + 20s;
  while (waitpid(child, &status, WNOHANG) == 0 && MadClock::now() < giveUp) {
    ASSERT_TRUE(engine.runUntil(MadClock::now() + 50ms));
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "sminfo status " << status;
  std::ifstream out("sminfo.out");
  const std::string text((std::istreambuf_iterator<char>(out)), {});
  EXPECT_EQ(answered, 1);
  EXPECT_NE(text.find(fmt::format("sm guid 0x{:x}", mine.guid.value)), std::string::npos) << text;
  EXPECT_NE(text.find("activity count 4242 priority 11 state 3"), std::string::npos) << text;
}

}  // namespace
}  // namespace ibsm
