// A planned fabric, the SA's snapshot of it and a responder, plus requests
// built the way a client builds them (header, component mask, query
// record) and answers read back through the codec.
//
//   SaFixture sa(FatTreeSpec{.levels = 2, .radix = 4});
//   auto reply = sa.ask(saMethod::kGet, NodeRecord{.lid = lid}, /*mask=*/1);
//   EXPECT_EQ(reply.header.status, saStatus::kOk);
//   auto records = sa.records<NodeRecord>(reply);
#pragma once

#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/SubnetPlan.h>

#include <stdexcept>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/SaResponder.h"
#include "sm/sa/SaSubnet.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::sa::testing {

inline SubnetPlan planOf(const TopologySpec& spec, std::uint8_t lmc = 0) {
  PlanInputs inputs;
  inputs.lmc = lmc;
  inputs.engines = {"updn"};
  auto plan = planSubnet(ibsm::testing::generatedFabric(spec, {}, lmc), inputs, defaultRegistry());
  if (!plan) throw std::runtime_error(plan.error().message);
  return std::move(*plan);
}

struct SaFixture {
  explicit SaFixture(const TopologySpec& spec, std::uint8_t lmc = 0) : plan(planOf(spec, lmc)) {
    hosts = plan.fabric.endNodes();
    smPort = {hosts.front(), 1};
    plan.fabric.port(smPort).capabilityMask |= capability::kIsSm | capability::kIsTrapSupported;
    smInfo = {.guid = plan.fabric.port(smPort).guid,
              .smKey = kDefaultSmKey,
              .actCount = 7,
              .priority = 3,
              .smState = SmState::Master};
    rebuild();
    from.lid = lidOfHost(1);
  }

  // A new snapshot of `plan` (after a test changed it) in the responder.
  void rebuild() {
    SaSource source{.plan = std::make_shared<const SubnetPlan>(plan),
                    .smPort = smPort,
                    .smInfo = smInfo,
                    .slByPKey = slByPKey,
                    .vlArb = vlArb};
    subnet = SaSubnet::build(source, settings);
    responder.setSubnet(subnet);
  }

  PortRef hostPort(std::size_t i) const { return {hosts.at(i), 1}; }
  Lid lidOfHost(std::size_t i) const { return plan.fabric.port(hostPort(i)).lid; }
  Guid guidOfHost(std::size_t i) const { return plan.fabric.port(hostPort(i)).guid; }
  Gid gidOfHost(std::size_t i) const { return makeGid(kDefaultSubnetPrefix, guidOfHost(i)); }

  static std::vector<std::uint8_t> request(std::uint8_t method, std::uint16_t attribute,
                                           std::uint64_t mask, std::vector<std::uint8_t> record,
                                           std::uint64_t smKey = 0) {
    SaMad mad;
    mad.header.method = method;
    mad.header.tid = 0xC0FFEE0000000001;
    mad.header.attributeId = attribute;
    mad.header.componentMask = mask;
    mad.header.smKey = smKey;
    mad.data = std::move(record);
    return encodeSaMad(mad);
  }

  // The decoded answer; fails the test when there is none.
  SaMad answer(const std::vector<std::uint8_t>& bytes) {
    auto reply = responder.answer(bytes, from);
    if (!reply) throw std::runtime_error("no answer");
    auto mad = decodeSaMad(*reply);
    if (!mad) throw std::runtime_error(mad.error().message);
    return *mad;
  }

  template <typename R>
  SaMad ask(std::uint8_t method, const R& query, std::uint64_t mask, std::uint64_t smKey = 0) {
    return answer(request(method, R::kAttributeId, mask, encodeRecord(query), smKey));
  }

  // The records of an answer, AttributeOffset apart.
  template <typename R>
  static std::vector<R> records(const SaMad& reply) {
    std::vector<R> out;
    const std::size_t step = std::size_t{reply.header.attributeOffset} * 8;
    if (step == 0) return out;
    const bool table = reply.header.method == saMethod::kGetTableResp ||
                       reply.header.method == saMethod::kGetMultiResp;
    const std::size_t payload =
        table ? reply.header.rmpp.payloadLength - 20 : (reply.header.status == 0 ? step : 0);
    for (std::size_t at = 0; at + step <= payload; at += step) {
      auto r = decodeRecord<R>(std::span(reply.data).subspan(at, step));
      if (!r) throw std::runtime_error(r.error().message);
      out.push_back(*r);
    }
    return out;
  }

  SubnetPlan plan;
  std::vector<NodeId> hosts;
  PortRef smPort;
  SmInfo smInfo;
  SaSettings settings;
  std::map<std::uint16_t, std::uint8_t> slByPKey;
  std::vector<HeldVlArbBlock> vlArb;  // what the ports' VLArbitration tables hold
  std::shared_ptr<const SaSubnet> subnet;
  SaResponder responder;
  GmpAddress from;
};

}  // namespace ibsm::sm::sa::testing
