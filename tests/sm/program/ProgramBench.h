// One SM in front of one fake fabric for tests of the programming step:
// discovery stand-in (readOverWire), planSubnet() with a real engine, then
// SubnetProgrammer, with what is held kept across sweeps like the real SM.
//
//   ProgramBench bench(sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 1}, "updn");
//   bench.maxVls = 2;                                // data VLs the engine may use
//   ProgramSummary s = bench.sweep([](SubnetPlan& plan) { plan.pkeys = ...; });
//   bench.count([](const Smp& m) { return isSet(m, AttributeId::PKeyTable); });
#pragma once

#include <ibsm/Engines.h>
#include <spdlog/sinks/ostream_sink.h>

#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "sm/program/ReadAhead.h"
#include "sm/program/SubnetProgrammer.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm::sm::program {

inline bool isSet(const Smp& smp, AttributeId id) {
  return smp.header.method == Method::Set && smp.header.attributeId == id;
}
inline bool isGet(const Smp& smp, AttributeId id) {
  return smp.header.method == Method::Get && smp.header.attributeId == id;
}
inline bool setsState(const Smp& smp, PortState state) {
  return isSet(smp, AttributeId::PortInfo) && decodePortInfo(smp.data).portState == state;
}

class ProgramBench {
 public:
  ProgramBench(Fabric fabric, PortRef smPort, std::string engine)
      : wire_(ibsm::testing::unprogrammed(std::move(fabric)), smPort),
        engine_(wire_, engineOptions()),
        smPort_(smPort),
        routingEngine_(std::move(engine)) {
    // On real hardware (and ibsim) the transport's issm device sets this.
    wire_.fabric().port(smPort).capabilityMask |= capability::kIsSm;
  }

  // Discovery stand-in, planSubnet, then programming; `edit` changes the
  // plan before it is programmed. Returns the summary; what programming
  // sent is in programSmps().
  ProgramSummary sweep(const std::function<void(SubnetPlan&)>& edit = {}) {
    discovered_ = ibsm::testing::readOverWire(engine_, wire_.fabric(), smPort_);
    PlanInputs inputs;
    inputs.engines = {routingEngine_};
    inputs.routing.maxVls = maxVls;
    auto plan = planSubnet(discovered_.fabric, inputs, defaultRegistry());
    if (!plan) throw std::runtime_error(plan.error().message);
    plan_ = std::move(*plan);
    if (edit) edit(plan_);
    mark_ = wire_.sent().size();
    held_.observe(discovered_);
    // As MasterSweep with PKeys managed: reads ahead before the diff.
    auto ahead = readAhead ? ReadAhead::start(engine_, held_, options) : nullptr;
    SubnetProgrammer programmer(engine_, held_, options, logger_);
    auto summary = programmer.program(plan_, ahead.get());
    if (!summary) throw std::runtime_error(summary.error().message);
    return *summary;
  }

  // The requests programming sent in the last sweep, in order.
  std::vector<ibsm::testing::FakeFabricTransport::SentMad> programSmps() const {
    return {wire_.sent().begin() + static_cast<std::ptrdiff_t>(mark_), wire_.sent().end()};
  }
  std::size_t count(const std::function<bool(const Smp&)>& pred) const {
    std::size_t n = 0;
    for (const auto& s : programSmps()) n += pred(s.smp) ? 1 : 0;
    return n;
  }

  // Every cabled port holds its planned LID, the SM's LID and is Active;
  // every switch forwards as the plan says.
  void expectHoldsThePlan() const {
    const Fabric& now = wire_.fabric();
    const Lid smLid = plan_.fabric.port(smPort_).lid;
    for (NodeId n = 0; n < now.size(); ++n) {
      const Node& node = now.node(n);
      for (std::uint8_t p = node.isSwitch() ? 0 : 1; p <= node.numPorts(); ++p) {
        const PortRef ref{n, p};
        const bool carriesLid = !node.isSwitch() || p == 0;
        if (!node.ports[p].connected() && !(node.isSwitch() && p == 0)) continue;
        EXPECT_EQ(now.port(ref).state, PortState::Active) << now.describe(ref);
        if (!carriesLid) continue;
        EXPECT_EQ(now.port(ref).lid, plan_.fabric.port(ref).lid) << now.describe(ref);
        EXPECT_EQ(wire_.smLid(ref), smLid) << now.describe(ref);
      }
      if (!node.isSwitch()) continue;
      const Lft& lft = plan_.routing.lfts[n];
      EXPECT_EQ(node.switchData->linearFdbTop, lft.top().value) << node.description;
      const auto& held = wire_.lft(n);
      for (std::uint16_t lid = 1; lid <= lft.top().value; ++lid) {
        const std::uint8_t got = lid < held.size() ? held[lid] : kNoRoute;
        ASSERT_EQ(got, lft.at(Lid{lid})) << node.description << " LID " << lid;
      }
    }
  }

  ibsm::testing::FakeFabricTransport& wire() { return wire_; }
  const HeldSubnet& held() const { return held_; }
  const SubnetPlan& plan() const { return plan_; }
  const discovery::DiscoveredSubnet& discovered() const { return discovered_; }
  PortRef smPort() const { return smPort_; }
  std::string log() const { return logText_.str(); }
  void forgetEverything() { held_.forget(); }

  ProgramOptions options;
  std::uint8_t maxVls{1};  // RoutingOptions::maxVls of the plan
  bool readAhead{false};   // ReadAhead.h's Gets sent before the diff

 private:
  MadEngineOptions engineOptions() {
    MadEngineOptions o;
    o.window = 16;
    o.timeout = std::chrono::milliseconds(200);
    o.retries = 2;
    o.clock = wire_.clock();
    o.logger = logger_;
    return o;
  }

  std::ostringstream logText_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "program", std::make_shared<spdlog::sinks::ostream_sink_st>(logText_));
  ibsm::testing::FakeFabricTransport wire_;
  MadEngine engine_;
  HeldSubnet held_;
  PortRef smPort_;
  std::string routingEngine_;
  discovery::DiscoveredSubnet discovered_;
  SubnetPlan plan_;
  std::size_t mark_{0};
};

}  // namespace ibsm::sm::program
