// During an M_Key rotation the engine sends every SMP with the key its port
// holds (HeldKeys.h), on a fake fabric that checks keys as the IBA's SMA
// does (tests/sm/support/FakeMKeys.h, IBA 14.2.4): the Set that moves a port
// to its new key carries the previous one; later SMPs carry the new one; a
// Set whose answer is lost -- it took, the port now holds the new key -- is
// retried with the new key, and one whose request was lost with the
// previous again, so the port is reached either way.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;

constexpr Guid kSw0{0x200000};
constexpr Guid kCa0{0x100000};
constexpr Guid kCa0Port1{0x100001};
constexpr PortRef kHost{1, 1};

// sw0 (SM on port 0) --1-- ca0.
Fabric fabric() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(kSw0, 8, "sw0"));
  const NodeId c0 = *f.addNode(Node::makeCa(kCa0, {kCa0Port1}, "ca0"));
  EXPECT_TRUE(f.connect({s0, 1}, {c0, 1}));
  return f;
}

std::uint64_t oldKey(Guid port) {
  return 0xB000000000000000ULL | port.value;
}
std::uint64_t newKey(Guid port) {
  return 0xC000000000000000ULL | port.value;
}

const DrPath kToHost = *DrPath::fromPorts(std::vector<std::uint8_t>{1});

class MadEngineRotationTest : public ::testing::Test {
 protected:
  MadEngineRotationTest() {
    wire.protect(kHost, oldKey(kCa0Port1), 1, 60s);  // as the last rotation left it
    MadEngineOptions o;
    o.clock = wire.clock();
    engine = std::make_unique<MadEngine>(wire, o);
    engine->setPortKeys(newKey);
    engine->setPreviousPortKeys(oldKey);
    EXPECT_TRUE(send(SmpRequest::get(AttributeId::NodeInfo, 0, kToHost)).ok());
  }
  SmpReply send(const SmpRequest& r) {
    auto replies = engine->sendAll({r});
    EXPECT_TRUE(replies);
    return replies ? replies->at(0) : SmpReply{};
  }
  // The Set(PortInfo) that moves the host port to its new key.
  SmpRequest moveToNewKey() {
    const SmpReply read = send(SmpRequest::get(AttributeId::PortInfo, 1, kToHost));
    EXPECT_TRUE(read.ok());
    PortInfo pi = decodePortInfo(read.smp->data);
    pi.portState = PortState::NoChange;
    pi.mKey = newKey(kCa0Port1);
    pi.mKeyProtectBits = 1;
    pi.mKeyLeasePeriod = 60;
    return SmpRequest::set(AttributeId::PortInfo, 1, kToHost, encode(pi));
  }
  std::vector<std::uint64_t> keysOfSetsSent() const {
    std::vector<std::uint64_t> keys;
    for (const auto& s : wire.sent())
      if (s.smp.header.method == Method::Set) keys.push_back(s.smp.header.mKey);
    return keys;
  }

  FakeFabricTransport wire{fabric(), PortRef{0, 0}};
  std::unique_ptr<MadEngine> engine;
};

TEST_F(MadEngineRotationTest, TheMovingSetCarriesThePreviousKeyAndLaterSmpsTheNewOne) {
  ASSERT_TRUE(send(moveToNewKey()).ok());
  EXPECT_EQ(keysOfSetsSent(), std::vector<std::uint64_t>{oldKey(kCa0Port1)});
  EXPECT_EQ(wire.mkey(kHost), newKey(kCa0Port1));
  EXPECT_EQ(engine->keyFor(kToHost), newKey(kCa0Port1));
  ASSERT_TRUE(send(moveToNewKey()).ok());  // a Set now needs the new key
  EXPECT_EQ(wire.sent().back().smp.header.mKey, newKey(kCa0Port1));
  EXPECT_EQ(wire.violations(kHost), 0u);
}

TEST_F(MadEngineRotationTest, ASetWhoseAnswerIsLostIsRetriedWithTheNewKey) {
  const SmpRequest set = moveToNewKey();
  bool lost = false;
  wire.setFaults([&lost](const Smp& req, std::size_t) {
    if (req.header.method != Method::Set || std::exchange(lost, true))
      return FakeFabricTransport::Fate{};
    return FakeFabricTransport::Fate::lostAnswer();
  });
  const SmpReply reply = send(set);
  ASSERT_TRUE(reply.ok()) << describeFailure(reply);
  EXPECT_EQ(keysOfSetsSent(), (std::vector<std::uint64_t>{oldKey(kCa0Port1), newKey(kCa0Port1)}));
  EXPECT_EQ(wire.mkey(kHost), newKey(kCa0Port1));
  EXPECT_EQ(wire.protectBits(kHost), 1);
  EXPECT_EQ(wire.violations(kHost), 0u) << "no SMP with a key the port did not hold";
  EXPECT_EQ(engine->keyFor(kToHost), newKey(kCa0Port1));
}

TEST_F(MadEngineRotationTest, ASetWhoseRequestIsLostIsReachedWithThePreviousKeyAgain) {
  const SmpRequest set = moveToNewKey();
  bool dropped = false;
  wire.setFaults([&dropped](const Smp& req, std::size_t) {
    return FakeFabricTransport::Fate::dropped(req.header.method == Method::Set &&
                                              !std::exchange(dropped, true));
  });
  const SmpReply reply = send(set);
  ASSERT_TRUE(reply.ok()) << describeFailure(reply);
  // Lost, then the new key (refused: the port still held the old), then the old.
  EXPECT_EQ(keysOfSetsSent(),
            (std::vector<std::uint64_t>{oldKey(kCa0Port1), newKey(kCa0Port1), oldKey(kCa0Port1)}));
  EXPECT_EQ(wire.mkey(kHost), newKey(kCa0Port1));
  EXPECT_EQ(wire.protectBits(kHost), 1);
  EXPECT_EQ(engine->keyFor(kToHost), newKey(kCa0Port1));
}

TEST_F(MadEngineRotationTest, WithoutAPreviousKeyRetriesResendTheSameKey) {
  engine->setPreviousPortKeys({});
  wire.protect(kHost, newKey(kCa0Port1), 1, 60s);
  wire.setFaults([](const Smp& req, std::size_t) {
    return FakeFabricTransport::Fate::dropped(req.header.method == Method::Set);
  });
  PortInfo pi;
  (void)send(SmpRequest::set(AttributeId::PortInfo, 1, kToHost, encode(pi)));
  const auto keys = keysOfSetsSent();
  ASSERT_GT(keys.size(), 1u);
  for (std::uint64_t k : keys) EXPECT_EQ(k, newKey(kCa0Port1));
}

}  // namespace
}  // namespace ibsm
