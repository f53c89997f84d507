#include "tests/fuzz/SmpSeeds.h"

#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/MadPath.h>

#include <algorithm>
#include <span>

#include "sm/fsm/SmStateMachine.h"
#include "sm/sa/Notices.h"
#include "sm/sa/SaRecords.h"
#include "tests/fuzz/SmallSubnet.h"
#include "tests/fuzz/SmpRig.h"

namespace ibsm::fuzz {
namespace {

using sm::fsm::sminfo::kAcknowledge;
using sm::fsm::sminfo::kDisable;
using sm::fsm::sminfo::kDiscover;
using sm::fsm::sminfo::kHandover;
using sm::fsm::sminfo::kStandby;

std::vector<std::uint8_t> input(std::uint8_t setup, const std::vector<Smp>& smps) {
  std::vector<std::uint8_t> out(1 + smps.size() * kMadSize);
  out[0] = setup;
  auto at = out.begin() + 1;
  for (const Smp& smp : smps) at = std::ranges::copy(encodeSmp(smp), at).out;
  return out;
}

Smp getSmInfo(std::uint64_t presentedKey, std::uint64_t tid) {
  Smp get = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  get.header.tid = tid;
  get.data = encode(SmInfo{.guid = kPeerGuid, .smKey = presentedKey});
  return get;
}

// As it arrives from the SM on host 2, two hops away (out of its port 1,
// then the switch's port 1): at the end of its path, the switch's entry
// port in the return path.
Smp directedGetSmInfo(std::uint64_t tid) {
  const std::uint8_t ports[] = {1, 1};
  Smp get = Smp::directed(Method::Get, AttributeId::SmInfo, 0, *DrPath::fromPorts(ports));
  get.header.tid = tid;
  get.header.hopPointer = 3;
  get.returnPath[1] = 2;
  return get;
}

// Another SM's control packet, its SMInfo in the payload (IBA 14.4.1).
Smp setSmInfo(std::uint32_t control, SmState senderState, std::uint64_t tid) {
  Smp set = Smp::lidRouted(Method::Set, AttributeId::SmInfo, control);
  set.header.tid = tid;
  set.data = encode(SmInfo{
      .guid = kPeerGuid, .smKey = kSmKey, .actCount = 7, .priority = 15, .smState = senderState});
  return set;
}

Smp trap(const Notice& notice, std::uint64_t tid, std::uint64_t mKey = 0) {
  Smp t = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  t.header.tid = tid;
  t.header.mKey = mKey;
  t.data = encode(notice);
  return t;
}

Notice generic(std::uint16_t number, std::uint8_t type, std::uint32_t producer, Lid issuer) {
  Notice n;
  n.type = type;
  n.producerType = producer;
  n.trapNumber = number;
  n.issuerLid = issuer;
  return n;
}

// Big-endian fields of DataDetails where ibsm has no encoder of its own
// (traps 256-258 are read by no code of the SM yet).
void put(std::array<std::uint8_t, 54>& details, std::size_t at, std::size_t bytes,
         std::uint64_t value) {
  for (std::size_t i = 0; i < bytes; ++i)
    details.at(at + i) = static_cast<std::uint8_t>(value >> (8 * (bytes - 1 - i)));
}

// Trap 256, Bad M_Key (IBA 14.2.5.1; OpenSM's ntc_256 reads the same
// offsets): LIDADDR 2, DRSLID 4, Method 6, AttributeID 8,
// AttributeModifier 10, M_Key 14, DRNotice|DRPathTruncated|DRHopCount 23.
Notice trap256(Lid reporter) {
  Notice n = generic(256, 2, 2, reporter);
  put(n.dataDetails, 2, 2, kHost2Lid.value);
  put(n.dataDetails, 4, 2, 0xFFFF);
  put(n.dataDetails, 6, 1, static_cast<std::uint8_t>(Method::Set));
  put(n.dataDetails, 8, 2, static_cast<std::uint16_t>(AttributeId::PortInfo));
  put(n.dataDetails, 10, 4, 1);
  put(n.dataDetails, 14, 8, 0xBADBADBADBADBAD);
  put(n.dataDetails, 23, 1, 0x80 | 2);
  return n;
}

// Traps 257/258, Bad P_Key / Q_Key (IBA 14.2.5.1; OpenSM's ntc_257_258):
// LID1 2, LID2 4, Key 6, SL|QP1 10, QP2 14, GID1 18, GID2 34.
Notice trap257or258(std::uint16_t number, std::uint32_t key) {
  Notice n = generic(number, 2, 1, kHost3Lid);
  put(n.dataDetails, 2, 2, kHost2Lid.value);
  put(n.dataDetails, 4, 2, kHost3Lid.value);
  put(n.dataDetails, 6, 4, key);
  put(n.dataDetails, 10, 4, (std::uint32_t{3} << 28) | 0x48);
  put(n.dataDetails, 14, 4, 0x49);
  const Gid g1 = makeGid(kDefaultSubnetPrefix, Guid{0x302});
  const Gid g2 = makeGid(kDefaultSubnetPrefix, Guid{0x303});
  std::ranges::copy(g1, n.dataDetails.begin() + 18);
  std::ranges::copy(g2, n.dataDetails.begin() + 34);
  return n;
}

Notice gidTrap(std::uint16_t number, Guid port) {
  return sm::sa::gidNotice(number, makeGid(kDefaultSubnetPrefix, port), kHost2Lid,
                           makeGid(kDefaultSubnetPrefix, Guid{0x302}))
      .notice;
}

Notice trap128() {
  Notice n = generic(128, 1, 2, kSwitchLid);
  n.dataDetails = encodeDetails(Trap128Details{.lid = kSwitchLid});
  return n;
}

Notice trap144() {
  Notice n = generic(144, 4, 1, kHost2Lid);
  n.dataDetails = encodeDetails(
      Trap144Details{.lid = kHost2Lid, .capabilityMask = 0x0251086A, .changeFlags = 0x0008});
  return n;
}

std::vector<SmpSeed> smInfoSeeds() {
  const auto host2 = RigSender::Host2;
  return {
      {"get-sminfo", input(setupByte(RigPhase::MasterIdle, false, host2), {getSmInfo(0, 1)})},
      {"get-sminfo-directed",
       input(setupByte(RigPhase::Standby, false, RigSender::Directed), {directedGetSmInfo(2)})},
      {"get-sminfo-protected-port",
       input(setupByte(RigPhase::MasterIdle, true, host2), {getSmInfo(kSmKey, 3)})},
      {"set-handover", input(setupByte(RigPhase::Standby, false, host2),
                             {setSmInfo(kHandover, SmState::Master, 4)})},
      {"set-acknowledge", input(setupByte(RigPhase::MasterHandover, false, host2),
                                {setSmInfo(kAcknowledge, SmState::Master, 5)})},
      {"set-disable", input(setupByte(RigPhase::Standby, false, host2),
                            {setSmInfo(kDisable, SmState::Master, 6)})},
      {"set-standby", input(setupByte(RigPhase::NotActive, false, host2),
                            {setSmInfo(kStandby, SmState::Master, 7)})},
      {"set-discover", input(setupByte(RigPhase::Standby, false, host2),
                             {setSmInfo(kDiscover, SmState::Master, 8)})},
      {"handover-then-get", input(setupByte(RigPhase::Standby, false, host2),
                                  {setSmInfo(kHandover, SmState::Master, 9), getSmInfo(0, 10)})},
  };
}

std::vector<SmpSeed> trapSeeds() {
  const auto master = [](RigSender from, bool mKey = false) {
    return setupByte(RigPhase::MasterIdle, mKey, from);
  };
  return {
      {"trap-64", input(master(RigSender::Host2), {trap(gidTrap(64, Guid{0x303}), 11)})},
      {"trap-65", input(master(RigSender::Host2), {trap(gidTrap(65, Guid{0x303}), 12)})},
      {"trap-128", input(master(RigSender::Switch), {trap(trap128(), 13)})},
      {"trap-144", input(master(RigSender::Host2), {trap(trap144(), 14)})},
      {"trap-256-bad-mkey", input(master(RigSender::Switch), {trap(trap256(kSwitchLid), 15)})},
      {"trap-257-bad-pkey", input(master(RigSender::Host3), {trap(trap257or258(257, 0x8001), 16)})},
      {"trap-258-bad-qkey", input(master(RigSender::Host3), {trap(trap257or258(258, 0x1234), 17)})},
      // A trap whose M_Key is not our port's, while our port holds one.
      {"trap-128-wrong-mkey",
       input(master(RigSender::Switch, true), {trap(trap128(), 18, kPortMKey ^ 1)})},
      {"trap-128-while-sweeping",
       input(setupByte(RigPhase::MasterSweeping, false, RigSender::Switch), {trap(trap128(), 19)})},
  };
}

}  // namespace

std::vector<SmpSeed> smpSeeds() {
  auto seeds = smInfoSeeds();
  for (SmpSeed& s : trapSeeds()) seeds.push_back(std::move(s));
  return seeds;
}

}  // namespace ibsm::fuzz
