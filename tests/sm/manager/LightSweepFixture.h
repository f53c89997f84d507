// MasterLightSweep*Test's fixture: MasterSweep on the in-memory fake fabric
// (a 3-level k=8 fat tree) with SwitchInfo:PortStateChange, and counts of
// what went on the wire.
#pragma once

#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Mad.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "sm/manager/MasterSweep.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager::light_test {

using ibsm::testing::FakeFabricTransport;

// The fake fabric plus what it lacks: SwitchInfo:PortStateChange. A test
// flags the switches whose ports it changed; SwitchInfo Gets to them read
// the bit set until a Set writes 1 to clear it, as IBA 14.2.5.4 says.
class PscWire final : public MadTransport {
 public:
  PscWire(Fabric fabric, PortRef smPort) : inner_(std::move(fabric), smPort), smPort_(smPort) {}

  Result<void> send(const MadBuffer& mad, MadAddress to) override {
    if (auto smp = decodeSmp(mad);
        smp && smp->isDirected() && smp->header.attributeId == AttributeId::SwitchInfo) {
      if (auto at = reached(*smp)) {
        if (smp->header.method == Method::Get) asked_[smp->header.tid] = *at;
        if (smp->header.method == Method::Set && decodeSwitchInfo(smp->data).portStateChange)
          flagged_.erase(*at);
      }
    }
    return inner_.send(mad, to);
  }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    auto got = inner_.receive(deadline);
    if (!got || !*got) return got;
    auto smp = decodeSmp((*got)->mad);
    if (!smp || smp->header.attributeId != AttributeId::SwitchInfo) return got;
    auto it = asked_.find(smp->header.tid);
    if (it == asked_.end() || !flagged_.contains(it->second)) return got;
    SwitchInfo si = decodeSwitchInfo(smp->data);
    si.portStateChange = true;
    smp->data = encode(si);
    (*got)->mad = encodeSmp(*smp);
    return got;
  }
  int pollFd() const override { return -1; }

  void flag(NodeId sw) { flagged_.insert(sw); }
  bool flagged(NodeId sw) const { return flagged_.contains(sw); }
  FakeFabricTransport& fake() { return inner_; }

 private:
  std::optional<NodeId> reached(const Smp& smp) const {
    NodeId at = smPort_.node;
    const Fabric& f = inner_.fabric();
    for (std::uint8_t hop = 1; hop <= smp.header.hopCount; ++hop) {
      const auto& remote = f.node(at).ports.at(smp.initialPath[hop]).remote;
      if (!remote) return std::nullopt;
      at = remote->node;
    }
    return at;
  }

  FakeFabricTransport inner_;
  PortRef smPort_;
  std::unordered_map<std::uint64_t, NodeId> asked_;
  std::set<NodeId> flagged_;
};

std::size_t countSent(const std::vector<FakeFabricTransport::SentMad>& sent, std::size_t from,
                      Method method, AttributeId id) {
  std::size_t n = 0;
  for (std::size_t i = from; i < sent.size(); ++i)
    n += sent[i].smp.header.method == method && sent[i].smp.header.attributeId == id;
  return n;
}

// 64-entry blocks that differ between two tables as the fake holds them
// (entries past a table's end are unrouted, 0xFF).
std::size_t blocksThatDiffer(const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b) {
  const std::size_t size = std::max(a.size(), b.size());
  auto at = [](const std::vector<std::uint8_t>& t, std::size_t i) -> std::uint8_t {
    return i < t.size() ? t[i] : 0xFF;
  };
  std::size_t n = 0;
  for (std::size_t block = 0; block * 64 < size; ++block) {
    for (std::size_t i = block * 64; i < (block + 1) * 64; ++i) {
      if (at(a, i) != at(b, i)) {
        ++n;
        break;
      }
    }
  }
  return n;
}

bool sameTables(const std::vector<Lft>& a, const std::vector<Lft>& b) {
  return std::ranges::equal(a, b, {}, &Lft::port, &Lft::port);
}

class MasterLightSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    Fabric f = ibsm::testing::sampleFabric("fat-tree-3level-k8.net");
    smPort_ = PortRef{f.endNodes().front(), 1};
    wire_.emplace(ibsm::testing::unprogrammed(std::move(f)), smPort_);
    wire_->fake().fabric().port(smPort_).capabilityMask |= capability::kIsSm;
    engine_.emplace(*wire_, engineOptions());
    dir_ = std::filesystem::temp_directory_path() /
           ("ibsm-light-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
    sweep_.emplace(*engine_, *store_, SweepSettings{}, nullptr);
  }
  MadEngineOptions engineOptions() {
    MadEngineOptions options;
    options.clock = wire_->fake().clock();
    return options;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Fabric& fabric() { return wire_->fake().fabric(); }
  const std::vector<FakeFabricTransport::SentMad>& sent() { return wire_->fake().sent(); }

  // A cable between two switches one level below the top: the kind whose
  // loss moves routes on several switches but strands nobody.
  std::pair<PortRef, PortRef> spineCable() {
    const Fabric& f = fabric();
    for (const NodeId sw : f.switches()) {
      const Node& node = f.node(sw);
      for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
        const auto& r = node.ports[p].remote;
        if (r && f.node(r->node).isSwitch() && node.description.find("core") != std::string::npos)
          return {PortRef{sw, p}, *r};
      }
    }
    ADD_FAILURE() << "no core cable in the sample";
    return {};
  }

  // The first spine cable pulled, both ends flagged, and a light sweep.
  Result<LightResult> loseSpineCable() {
    const auto [a, b] = spineCable();
    fabric().disconnect(a);
    wire_->flag(a.node);
    wire_->flag(b.node);
    return sweep_->lightSweep();
  }
  // What a fresh computation plans for the fabric the SM holds.
  Result<SubnetPlan> freshPlan() {
    PlanInputs inputs;
    inputs.guid2lid = *store_->loadGuid2Lid();
    return planSubnet(sweep_->held().observed().fabric, inputs, defaultRegistry());
  }

  PortRef smPort_;
  std::optional<PscWire> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
};

}  // namespace ibsm::sm::manager::light_test
