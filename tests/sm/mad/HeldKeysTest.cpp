// Which of two keys a port holds during an M_Key rotation (HeldKeys.h):
// what the answers prove, the previous key first for a port never seen,
// the two keys in turn from one attempt to the next, and outside a
// rotation the current key alone with nothing remembered.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include "sm/mad/HeldKeys.h"

namespace ibsm::sm::mad {
namespace {

constexpr Guid kPort{0x100001};
constexpr PortKeys kRotating{.current = 0xC0, .previous = 0xB0};
constexpr PortKeys kSettled{.current = 0xC0, .previous = 0};

// An answer to an SMP sent with `sent`: PortInfo showing `shown` and `bits`.
Smp portInfoAnswer(std::uint64_t sent, std::uint64_t shown, std::uint8_t bits) {
  Smp smp = Smp::directed(Method::GetResp, AttributeId::PortInfo, 0, DrPath{});
  smp.header.mKey = sent;
  PortInfo pi;
  pi.mKey = shown;
  pi.mKeyProtectBits = bits;
  smp.data = encode(pi);
  return smp;
}

Smp lftAnswer(std::uint64_t sent) {
  Smp smp = Smp::directed(Method::GetResp, AttributeId::LinearForwardingTable, 0, DrPath{});
  smp.header.mKey = sent;
  return smp;
}

TEST(HeldKeys, APortNeverSeenIsSentThePreviousKeyThenTheNewOneOnTheRetry) {
  HeldKeys keys;
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 1), 0xB0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 2), 0xC0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 3), 0xB0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 4), 0xC0u);
}

TEST(HeldKeys, APortInfoAnswerShowingOneOfTheKeysIsWhatThePortHolds) {
  HeldKeys keys;
  // The Set that moved the port: sent with the previous key, shows the new.
  keys.learn(kPort, kRotating, Method::Set, portInfoAnswer(0xB0, 0xC0, 1));
  EXPECT_EQ(keys.held(kPort), 0xC0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 1), 0xC0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 2), 0xB0u);
}

TEST(HeldKeys, AGetAnsweredWithTheKeyHiddenWasSentTheKeyThePortDoesNotHold) {
  // IBA 14.2.4.1: protect bits 1 show M_Key 0 to a Get without the key.
  HeldKeys keys;
  keys.learn(kPort, kRotating, Method::Get, portInfoAnswer(0xB0, 0, 1));
  EXPECT_EQ(keys.held(kPort), 0xC0u);
  // Unprotected, a 0 shown proves nothing.
  HeldKeys open;
  open.learn(kPort, kRotating, Method::Get, portInfoAnswer(0xB0, 0, 0));
  EXPECT_EQ(open.held(kPort), 0u);
}

TEST(HeldKeys, ASetAnsweredWasSentTheKeyThePortHeld) {
  HeldKeys keys;
  keys.learn(kPort, kRotating, Method::Set, lftAnswer(0xC0));
  EXPECT_EQ(keys.held(kPort), 0xC0u);
  // A Get of anything else passes at level 1 with any key: it proves nothing.
  HeldKeys gets;
  gets.learn(kPort, kRotating, Method::Get, lftAnswer(0xC0));
  EXPECT_EQ(gets.held(kPort), 0u);
}

TEST(HeldKeys, AKeyThatIsNeitherOfOursIsNotRemembered) {
  HeldKeys keys;
  keys.learn(kPort, kRotating, Method::Get, portInfoAnswer(0xB0, 0xF00, 1));
  EXPECT_EQ(keys.held(kPort), 0u);
  EXPECT_EQ(keys.keyFor(kPort, kRotating, 1), 0xB0u);
}

TEST(HeldKeys, OutsideARotationTheCurrentKeyAloneAndNothingRemembered) {
  HeldKeys keys;
  keys.learn(kPort, kRotating, Method::Set, portInfoAnswer(0xB0, 0xC0, 1));
  ASSERT_EQ(keys.size(), 1u);
  for (unsigned attempt = 1; attempt <= 4; ++attempt)
    EXPECT_EQ(keys.keyFor(kPort, kSettled, attempt), 0xC0u);
  keys.learn(kPort, kSettled, Method::Get, portInfoAnswer(0xC0, 0xC0, 1));
  EXPECT_EQ(keys.size(), 0u);
  // The same key as previous and current is no rotation either.
  const PortKeys same{.current = 0xC0, .previous = 0xC0};
  EXPECT_EQ(keys.keyFor(kPort, same, 2), 0xC0u);
}

}  // namespace
}  // namespace ibsm::sm::mad
