// The fake fabric's SMAs check M_Keys as IBA 1.3 volume 1, 14.2.4
// "Management Key" says (paraphrased: the IBA is not public; compliance
// numbers as Linux's qib commit 6199c896 quotes them). ibsim checks none,
// so these tests are what proves that a protected port refuses a foreign
// SM and that ibsm's own keys get through.
#include <gtest/gtest.h>
#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>
#include <spdlog/sinks/null_sink.h>

#include <chrono>
#include <optional>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm::testing {
namespace {

using namespace std::chrono_literals;

constexpr NodeId kSwitch = 0;
constexpr NodeId kSmHost = 1;
constexpr NodeId kOtherHost = 2;
constexpr Lid kSwitchLid{1};
constexpr Lid kSmLid{2};
constexpr Lid kOtherLid{3};
constexpr std::uint64_t kKey = 0x5EC12E7000000001;
constexpr std::uint64_t kWrongKey = 0xBAD0BAD0BAD0BAD0;

// sw ports 1 and 2 cable the SM's host (LID 2) and another host (LID 3).
Fabric oneSwitchTwoHosts() {
  Fabric f;
  EXPECT_EQ(*f.addNode(Node::makeSwitch(Guid{0x200}, 4, "sw")), kSwitch);
  EXPECT_EQ(*f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "sm")), kSmHost);
  EXPECT_EQ(*f.addNode(Node::makeCa(Guid{0x110}, {Guid{0x111}}, "other")), kOtherHost);
  EXPECT_TRUE(f.connect({kSwitch, 1}, {kSmHost, 1}));
  EXPECT_TRUE(f.connect({kSwitch, 2}, {kOtherHost, 1}));
  f.port({kSwitch, 0}).lid = kSwitchLid;
  f.port({kSmHost, 1}).lid = kSmLid;
  f.port({kOtherHost, 1}).lid = kOtherLid;
  return f;
}

DrPath path(std::initializer_list<std::uint8_t> ports) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(ports));
}

Smp smp(Method method, AttributeId id, std::uint32_t modifier, const DrPath& to, std::uint64_t key,
        const SmpData& data = {}) {
  Smp s = Smp::directed(method, id, modifier, to);
  s.header.mKey = key;
  s.data = data;
  return s;
}

class FakeMKeysTest : public ::testing::Test {
 protected:
  // Sends as the SM and returns what arrives within a millisecond: the
  // answer (if any) and any trap the SMP caused.
  struct Arrivals {
    std::optional<Smp> reply;
    std::vector<std::pair<Smp, MadAddress>> traps;
  };
  Arrivals exchange(const Smp& request, MadAddress to = MadAddress::directed()) {
    EXPECT_TRUE(wire.send(encodeSmp(request), to));
    Arrivals got;
    const auto deadline = wire.now() + 1ms;
    while (true) {
      auto mad = wire.receive(deadline);
      if (!mad || !*mad) break;
      const Smp in = *decodeSmp((*mad)->mad);
      if (in.header.method == Method::Trap) {
        got.traps.emplace_back(in, (*mad)->from);
      } else {
        got.reply = in;
      }
    }
    return got;
  }
  // Set(PortInfo) as the SM would, with the key the port holds now.
  void setPortInfo(const DrPath& to, PortRef port, PortInfo pi) {
    pi.lid = wire.fabric().port(port).lid;
    ASSERT_TRUE(
        exchange(smp(Method::Set, AttributeId::PortInfo, 0, to, wire.mkey(port), encode(pi)))
            .reply);
  }
  // The switch's PortInfo names this SM as its master (where trap 256 goes).
  void pointSwitchAtTheSm() {
    PortInfo pi;
    pi.masterSmLid = kSmLid;
    setPortInfo(path({1}), {kSwitch, 0}, pi);
  }
  PortInfo switchPortInfo(std::uint64_t key) {
    auto got = exchange(smp(Method::Get, AttributeId::PortInfo, 0, path({1}), key));
    EXPECT_TRUE(got.reply);
    return got.reply ? decodePortInfo(got.reply->data) : PortInfo{};
  }

  FakeFabricTransport wire{oneSwitchTwoHosts(), PortRef{kSmHost, 1}};
};

// 14.2.4: a port whose M_Key is zero does no M_Key checking. A fresh fabric
// answers every key, which is why every test written before M_Keys passes.
TEST_F(FakeMKeysTest, NothingIsProtectedUntilAPortHasAKey) {
  for (std::uint64_t key : {std::uint64_t{0}, kWrongKey}) {
    EXPECT_TRUE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), key)).reply);
    EXPECT_TRUE(exchange(smp(Method::Set, AttributeId::LinearForwardingTable, 0, path({1}), key,
                             encode(LftBlock{})))
                    .reply);
  }
  EXPECT_EQ(wire.violations({kSwitch, 0}), 0);
  EXPECT_EQ(wire.mkey({kSwitch, 0}), 0U);
}

// 14.2.4.1, the table of protection levels (M_KeyProtectBits), one row per
// (level, method, key):
//   0: SubnGet with any key succeeds and PortInfo shows the M_Key;
//   1: SubnGet with any key succeeds, but PortInfo:M_Key reads as zero
//      unless the SMP carried the key;
//   2, 3: SubnGet needs the key;
//   every level: SubnSet and SubnTrapRepress need the key.
// A check that fails is a violation (14.2.4.3): no response, M_KeyViolations
// counts it.
struct Row {
  std::uint8_t level;
  Method method;
  bool rightKey;
  bool answered;           // a GetResp comes back
  bool violation;          // M_KeyViolations counted it
  std::uint64_t keyShown;  // PortInfo:M_Key in the answer
};

class ProtectionTable : public FakeMKeysTest, public ::testing::WithParamInterface<Row> {};

TEST_P(ProtectionTable, FollowsTheLevelsOf14_2_4_1) {
  const Row row = GetParam();
  wire.protect({kSwitch, 0}, kKey, row.level, 0s);
  const std::uint64_t key = row.rightKey ? kKey : kWrongKey;
  const AttributeId id =
      row.method == Method::TrapRepress ? AttributeId::Notice : AttributeId::PortInfo;
  Smp request = smp(row.method, id, 0, path({1}), key);
  if (row.method == Method::Set) {
    PortInfo pi;
    pi.mKey = kKey;  // a Set writes the key it brings: keep the same
    pi.mKeyProtectBits = row.level;
    request.data = encode(pi);
  }

  const auto got = exchange(request);

  EXPECT_EQ(got.reply.has_value(), row.answered);
  EXPECT_EQ(wire.violations({kSwitch, 0}), row.violation ? 1 : 0);
  if (got.reply) {
    EXPECT_EQ(got.reply->header.status, 0);
    EXPECT_EQ(decodePortInfo(got.reply->data).mKey, row.keyShown);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryRow, ProtectionTable,
    ::testing::Values(
        // level 0
        Row{0, Method::Get, true, true, false, kKey}, Row{0, Method::Get, false, true, false, kKey},
        Row{0, Method::Set, true, true, false, kKey}, Row{0, Method::Set, false, false, true, 0},
        Row{0, Method::TrapRepress, true, false, false, 0},
        Row{0, Method::TrapRepress, false, false, true, 0},
        // level 1: the Get with a wrong key is answered with M_Key zeroed
        Row{1, Method::Get, true, true, false, kKey}, Row{1, Method::Get, false, true, false, 0},
        Row{1, Method::Set, true, true, false, kKey}, Row{1, Method::Set, false, false, true, 0},
        Row{1, Method::TrapRepress, true, false, false, 0},
        Row{1, Method::TrapRepress, false, false, true, 0},
        // level 2
        Row{2, Method::Get, true, true, false, kKey}, Row{2, Method::Get, false, false, true, 0},
        Row{2, Method::Set, true, true, false, kKey}, Row{2, Method::Set, false, false, true, 0},
        Row{2, Method::TrapRepress, true, false, false, 0},
        Row{2, Method::TrapRepress, false, false, true, 0},
        // level 3: as level 2
        Row{3, Method::Get, true, true, false, kKey}, Row{3, Method::Get, false, false, true, 0},
        Row{3, Method::Set, true, true, false, kKey}, Row{3, Method::Set, false, false, true, 0},
        Row{3, Method::TrapRepress, true, false, false, 0},
        Row{3, Method::TrapRepress, false, false, true, 0}));

// 14.2.4.3: on a failed check the SMA does not respond, increments
// M_KeyViolations and sends a Bad M_Key trap (256, 14.3.9) to the SM at
// PortInfo:MasterSMLID, naming the port's LID and the offending SMP's
// method, attribute, modifier and M_Key.
TEST_F(FakeMKeysTest, AFailedCheckIsSilentCountedAndReportedByTrap256) {
  pointSwitchAtTheSm();
  wire.protect({kSwitch, 0}, kKey, 2, 0s);

  const auto got = exchange(smp(Method::Set, AttributeId::LinearForwardingTable, 7, path({1}),
                                kWrongKey, encode(LftBlock{})));

  EXPECT_FALSE(got.reply);
  EXPECT_EQ(wire.violations({kSwitch, 0}), 1);
  ASSERT_EQ(got.traps.size(), 1U);
  const auto& [trap, from] = got.traps.front();
  EXPECT_EQ(from.lid, kSwitchLid);
  EXPECT_EQ(trap.header.mgmtClass, MgmtClass::SubnLid);
  EXPECT_EQ(trap.header.attributeId, AttributeId::Notice);
  const Notice notice = decodeNotice(trap.data);
  EXPECT_EQ(notice.trapNumber, 256);
  EXPECT_EQ(notice.type, 2) << "security";
  EXPECT_EQ(notice.issuerLid, kSwitchLid);
  const Trap256Details d = decodeTrap256(notice);
  EXPECT_EQ(d.lid, kSwitchLid);
  EXPECT_EQ(d.method, Method::Set);
  EXPECT_EQ(d.attributeId, AttributeId::LinearForwardingTable);
  EXPECT_EQ(d.attributeModifier, 7U);
  EXPECT_EQ(d.mKey, kWrongKey);
  EXPECT_TRUE(d.drNotice);
  EXPECT_EQ(d.drHopCount, 1);
  EXPECT_EQ(wire.mkeyState({kSwitch, 0}).badMKeyTraps, 1U);
}

// A port whose MasterSMLID is not set has nowhere to send the trap; the
// violation still counts.
TEST_F(FakeMKeysTest, APortWithoutAnSmLidCountsButSendsNoTrap) {
  wire.protect({kSwitch, 0}, kKey, 2, 0s);
  const auto got = exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey));
  EXPECT_FALSE(got.reply);
  EXPECT_TRUE(got.traps.empty());
  EXPECT_EQ(wire.violations({kSwitch, 0}), 1);
}

// Traps are paced (Linux's SMA: one per Subnet Timeout, "o14-2"): a burst of
// wrong keys at one instant sends one trap 256, and counts every violation.
TEST_F(FakeMKeysTest, TrapsArePacedButEveryViolationCounts) {
  pointSwitchAtTheSm();
  wire.protect({kSwitch, 0}, kKey, 2, 0s);
  const Smp wrong = smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(wire.send(encodeSmp(wrong), MadAddress::directed()));
  EXPECT_EQ(wire.violations({kSwitch, 0}), 5);
  EXPECT_EQ(wire.mkeyState({kSwitch, 0}).badMKeyTraps, 1U);
}

// 14.2.4.3: M_KeyViolations counts up to all ones and stays there.
TEST_F(FakeMKeysTest, ViolationsStopAtAllOnes) {
  wire.protect({kSwitch, 0}, kKey, 2, 0s);
  const Smp wrong = smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey);
  for (int i = 0; i < 0x10005; ++i) (void)wire.foreignSmp(wrong, {kOtherHost, 1});
  EXPECT_EQ(wire.violations({kSwitch, 0}), 0xFFFF);
}

// 14.2.4.2: a failed check starts the lease timer (if it is not running and
// M_KeyLeasePeriod is not zero); when it expires the SMA sets
// M_KeyProtectBits to zero -- the key stays, so a Get shows it again (level 0) and
// another SM can take the port over, while a Set still needs it.
TEST_F(FakeMKeysTest, TheLeaseCountsDownFromAViolationAndExpiryClearsTheProtectBits) {
  wire.protect({kSwitch, 0}, kKey, 2, 60s);
  EXPECT_FALSE(wire.mkeyState({kSwitch, 0}).leaseEnds) << "no timer before a violation";

  EXPECT_FALSE(exchange(smp(Method::Get, AttributeId::PortInfo, 0, path({1}), kWrongKey)).reply);
  ASSERT_TRUE(wire.mkeyState({kSwitch, 0}).leaseEnds);

  wire.advance(59s);
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 2);
  EXPECT_FALSE(exchange(smp(Method::Get, AttributeId::PortInfo, 0, path({1}), kWrongKey)).reply);

  wire.advance(1s);
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 0);
  EXPECT_EQ(wire.mkey({kSwitch, 0}), kKey);
  EXPECT_EQ(switchPortInfo(kWrongKey).mKey, kKey) << "level 0 now: any Get, key shown";
  EXPECT_FALSE(exchange(smp(Method::Set, AttributeId::LinearForwardingTable, 0, path({1}),
                            kWrongKey, encode(LftBlock{})))
                   .reply);
}

// C14-17: a running lease timer is not restarted by later violations.
TEST_F(FakeMKeysTest, LaterViolationsDoNotRestartTheTimer) {
  wire.protect({kSwitch, 0}, kKey, 2, 60s);
  const Smp wrong = smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey);
  (void)wire.foreignSmp(wrong, {kOtherHost, 1});
  wire.advance(30s);
  (void)wire.foreignSmp(wrong, {kOtherHost, 1});
  wire.advance(30s);
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 0);
}

// 14.2.4.2: M_KeyLeasePeriod 0 means the lease never expires.
TEST_F(FakeMKeysTest, ALeaseOfZeroNeverExpires) {
  wire.protect({kSwitch, 0}, kKey, 2, 0s);
  EXPECT_FALSE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey)).reply);
  EXPECT_FALSE(wire.mkeyState({kSwitch, 0}).leaseEnds);
  wire.advance(24h * 365);
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 2);
}

// C14-19: the lease timer stops when a valid M_Key is received -- a Get,
// Set or TrapRepress with the port's key.
TEST_F(FakeMKeysTest, AnSmpWithTheKeyStopsTheTimer) {
  for (Method m : {Method::Get, Method::Set, Method::TrapRepress}) {
    wire.protect({kSwitch, 0}, kKey, 2, 60s);
    (void)wire.foreignSmp(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), kWrongKey),
                          {kOtherHost, 1});
    ASSERT_TRUE(wire.mkeyState({kSwitch, 0}).leaseEnds);
    PortInfo keep;
    keep.mKey = kKey;
    keep.mKeyProtectBits = 2;
    keep.mKeyLeasePeriod = 60;
    (void)exchange(smp(m, m == Method::Set ? AttributeId::PortInfo : AttributeId::NodeInfo, 0,
                       path({1}), kKey, encode(keep)));
    EXPECT_FALSE(wire.mkeyState({kSwitch, 0}).leaseEnds) << static_cast<int>(m);
    wire.advance(120s);
    EXPECT_EQ(wire.protectBits({kSwitch, 0}), 2) << static_cast<int>(m);
  }
}

// C14-17: at level 1 a SubnGet with a wrong key succeeds (key zeroed) but
// does not stop the timer; it is not a valid M_Key.
TEST_F(FakeMKeysTest, ALevelOneGetWithAWrongKeyDoesNotStopTheTimer) {
  wire.protect({kSwitch, 0}, kKey, 1, 60s);
  (void)wire.foreignSmp(smp(Method::Set, AttributeId::NodeInfo, 0, path({1}), kWrongKey),
                        {kOtherHost, 1});
  ASSERT_TRUE(wire.mkeyState({kSwitch, 0}).leaseEnds);
  EXPECT_EQ(switchPortInfo(kWrongKey).mKey, 0U);
  EXPECT_TRUE(wire.mkeyState({kSwitch, 0}).leaseEnds);
  wire.advance(60s);
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 0);
}

// 14.2.5.6: M_Key, M_KeyProtectBits and M_KeyLeasePeriod are PortInfo
// fields a SubnSet writes -- the SM's way to protect a port. On a switch
// they are port 0's.
TEST_F(FakeMKeysTest, ASetOfPortInfoProtectsThePort) {
  PortInfo pi;
  pi.mKey = kKey;
  pi.mKeyProtectBits = 2;
  pi.mKeyLeasePeriod = 30;
  setPortInfo(path({1}), {kSwitch, 0}, pi);

  EXPECT_EQ(wire.mkey({kSwitch, 3}), kKey) << "any port of a switch names port 0's";
  EXPECT_EQ(wire.protectBits({kSwitch, 0}), 2);
  EXPECT_EQ(wire.mkeyState({kSwitch, 0}).leasePeriod, 30);
  EXPECT_FALSE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), 0)).reply);
  const PortInfo back = switchPortInfo(kKey);
  EXPECT_EQ(back.mKey, kKey);
  EXPECT_EQ(back.mKeyProtectBits, 2);
  EXPECT_EQ(back.mKeyLeasePeriod, 30);
  EXPECT_EQ(back.mKeyViolations, 1);
}

// A CA port holds its own key: protecting the other host leaves the switch
// and the SM's host open.
TEST_F(FakeMKeysTest, EachCaPortHoldsItsOwnKey) {
  wire.protect({kOtherHost, 1}, kKey, 2, 0s);
  EXPECT_TRUE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1}), 0)).reply);
  EXPECT_TRUE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({}), 0)).reply);
  EXPECT_FALSE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1, 2}), 0)).reply);
  EXPECT_TRUE(exchange(smp(Method::Get, AttributeId::NodeInfo, 0, path({1, 2}), kKey)).reply);
  EXPECT_EQ(wire.violations({kOtherHost, 1}), 1);
}

// The threat: root on any host sends Set(LinearForwardingTable) to
// a switch. Against a protected switch it fails and the table is unchanged.
TEST_F(FakeMKeysTest, AForeignSetOfTheLftToAProtectedSwitchFailsAndChangesNothing) {
  LftBlock ours;
  ours.ports.fill(1);
  ASSERT_TRUE(
      exchange(smp(Method::Set, AttributeId::LinearForwardingTable, 0, path({1}), 0, encode(ours)))
          .reply);
  wire.protect({kSwitch, 0}, kKey, 2, 60s);
  const std::vector<std::uint8_t> before = wire.lft(kSwitch);

  LftBlock theirs;
  theirs.ports.fill(2);
  const Smp attack =
      smp(Method::Set, AttributeId::LinearForwardingTable, 0, path({1}), kWrongKey, encode(theirs));
  EXPECT_FALSE(wire.foreignSmp(attack, {kOtherHost, 1}));
  Smp lidRouted = Smp::lidRouted(Method::Set, AttributeId::LinearForwardingTable, 0);
  lidRouted.header.mKey = kWrongKey;
  lidRouted.data = encode(theirs);
  EXPECT_FALSE(wire.foreignSmp(lidRouted, {kOtherHost, 1}, kSwitchLid));

  EXPECT_EQ(wire.lft(kSwitch), before);
  EXPECT_EQ(wire.violations({kSwitch, 0}), 2);
  // The same SMP with the key goes through: the refusal was the key's.
  Smp keyed = attack;
  keyed.header.mKey = kKey;
  EXPECT_TRUE(wire.foreignSmp(keyed, {kOtherHost, 1}));
  EXPECT_EQ(wire.lft(kSwitch)[0], 2);
}

// The MAD engine sends the key it is given for the port a request reaches
// (setPortKeys; it learns the port from the NodeInfo answered before the
// port was protected); a wrong key gets no answer from a protected port, so
// it times out after every attempt (each one a violation), and the right
// key is answered at once.
TEST_F(FakeMKeysTest, TheMadEngineTimesOutWithAWrongKey) {
  MadEngineOptions o;
  o.clock = wire.clock();
  o.logger = std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
  MadEngine engine(wire, o);
  const SmpRequest get = SmpRequest::get(AttributeId::NodeInfo, 0, path({1}));
  const auto first = engine.sendAll({get});
  ASSERT_TRUE(first && (*first)[0].ok());
  wire.protect({kSwitch, 0}, kKey, 2, 0s);

  engine.setPortKeys([](Guid) { return kWrongKey; });
  const auto wrong = engine.sendAll({get});
  engine.setPortKeys([](Guid) { return kKey; });
  const auto right = engine.sendAll({get});

  ASSERT_TRUE(wrong && right);
  EXPECT_EQ((*wrong)[0].outcome, SmpOutcome::Timeout);
  EXPECT_EQ(wire.violations({kSwitch, 0}), (*wrong)[0].attempts);
  EXPECT_TRUE((*right)[0].ok());
  EXPECT_EQ(decodeNodeInfo((*right)[0].smp->data).nodeGuid, Guid{0x200});
}

}  // namespace
}  // namespace ibsm::testing
