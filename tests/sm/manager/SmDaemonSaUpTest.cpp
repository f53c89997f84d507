// What "up" promises the SA's users: from the moment the daemon says the
// subnet is up, its SA answers from the sweep that brought it up -- also
// while the VLArbitration read for the SA that follows up is still on the
// wire (the loop serves SA queries between its SMPs). Seen on ibsim as
// Multicast.failover's flake: B said MASTER and up, and `saquery -g` sent
// at once was refused ERR_NO_RESOURCES (no snapshot yet). On the fake
// fabric and its clock, with the real SaResponder and SaFeed's snapshot.
#include <gtest/gtest.h>

#include <csignal>

#include "sm/manager/SaFeed.h"
#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using ibsm::testing::GmpInjector;

const GmpAddress kHost{.lid = Lid{42}, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};

class SmDaemonSaUpTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonSaUpTest() : DaemonOnFakeFabric("ibsm-daemon-sa-up-test") {
    // Ports with VLArbitration tables: the read for the SA has blocks to get.
    wire_.setVlArbCaps(8, 8);
    // At the first VLArbitration Get: is the daemon up, and a host asks
    // the SA for its multicast groups (saquery -g) as it does at once.
    wire_.setFaults([this](const Smp& request, std::size_t) {
      if (request.header.attributeId != AttributeId::VlArbitrationTable)
        return FakeFabricTransport::Fate{};
      if (++vlArbGets_ == 1) {
        upAtRead_ = daemon_ && daemon_->status().up;
        SaMad get;
        get.header.method = saMethod::kGetTable;
        get.header.tid = 0x6E7;
        get.header.attributeId = saAttr::kMcMemberRecord;
        get.data.assign(McMemberRecord::kSize, 0);
        gmps_.inject({encodeSaMad(get), kHost}, wire_.now());
      }
      return FakeFabricTransport::Fate{};
    });
  }

  void run(std::chrono::seconds stopAt) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    quiet());
    daemon_ = &daemon;
    auto sa = std::make_shared<sa::SaResponder>(nullptr, loop_.clock());
    daemon.serveSa(gmps_, sa);
    daemon.onSubnetProgrammed(
        [this, sa](const SweepResult& result, const program::HeldSubnet& held, const SmInfo& self) {
          ++snapshots_;
          sa->setSubnet(saSnapshot(result, held, self, sa::SaSettings{}));
        });
    daemon.manageMulticast(multicastGroupsOf(sa));
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    EXPECT_EQ(daemon.run(), 0);
    loop_.cancel(stop);
    daemon_ = nullptr;
  }

  // The SA's answer to the host: its MAD status.
  std::optional<std::uint16_t> answerStatus() const {
    for (const auto& g : gmps_.sentGmps())
      if (g.to == kHost) return static_cast<std::uint16_t>(g.mad[4] << 8 | g.mad[5]);
    return std::nullopt;
  }

  SmDaemon* daemon_{nullptr};
  std::size_t vlArbGets_{0};
  bool upAtRead_{false};
  std::size_t snapshots_{0};
};

TEST_F(SmDaemonSaUpTest, AQueryDuringTheVlArbReadAfterUpIsAnsweredFromTheNewSnapshot) {
  run(5s);
  ASSERT_GT(vlArbGets_, 0U) << "the ports have VLArbitration tables: the read for the SA ran";
  EXPECT_TRUE(upAtRead_) << "the read follows up";
  const auto status = answerStatus();
  ASSERT_TRUE(status.has_value()) << "the host's GetTable was answered";
  EXPECT_EQ(*status, 0) << "answered from the snapshot, not refused ERR_NO_RESOURCES (0x0100)";
}

TEST_F(SmDaemonSaUpTest, TheSnapshotIsMadeBeforeTheReadAndAgainWithTheTablesItRead) {
  // The heavy sweep that brings the subnet up: one snapshot at up, for the
  // queries during the read, and one after it with the VLArbitration
  // tables read (a sweep whose read sends nothing makes only the first).
  run(5s);
  ASSERT_GT(vlArbGets_, 0U);
  EXPECT_EQ(snapshots_, 2U) << "one heavy sweep in 5 s: before and after its read";
}

}  // namespace
}  // namespace ibsm::sm::manager
