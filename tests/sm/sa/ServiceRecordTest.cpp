// ServiceRecords through the SA: registered by a port, found by anyone,
// withdrawn only by their owner, gone when their lease runs out.
#include <gtest/gtest.h>

#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kIdAndGid = 0x3;

class ServiceRecordTest : public ::testing::Test {
 protected:
  ServiceRecordTest() { sa.responder.setSubnet(sa.subnet); }

  ServiceRecord service(std::uint64_t id, std::size_t host, std::uint32_t lease = 60) const {
    ServiceRecord r;
    r.serviceId = id;
    r.serviceGid = fx.gidOfHost(host);
    r.serviceLease = lease;
    r.serviceName = "storage";
    return r;
  }
  // The request of `method` from host `host`.
  SaMad ask(std::uint8_t method, const ServiceRecord& r, std::uint64_t mask, std::size_t host) {
    fx.from.lid = fx.lidOfHost(host);
    auto reply = responder.answer(
        SaFixture::request(method, saAttr::kServiceRecord, mask, encodeRecord(r)), fx.from);
    if (!reply) throw std::runtime_error("no answer");
    return *decodeSaMad(*reply);
  }
  std::size_t found(std::uint64_t id) {
    ServiceRecord q;
    q.serviceId = id;
    return SaFixture::records<ServiceRecord>(ask(saMethod::kGetTable, q, 0x1, 0)).size();
  }

  SaFixture fx{FatTreeSpec{.levels = 2, .radix = 4}};
  SaFixture& sa = fx;
  SaResponder::Clock::time_point now{};
  SaResponder responder{fx.subnet, [this] { return now; }};
};

TEST_F(ServiceRecordTest, ARegisteredServiceIsFoundByAnyPort) {
  const auto reply = ask(saMethod::kSet, service(0x42, 1), kIdAndGid, 1);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(responder.serviceRecords(), 1U);

  ServiceRecord byName;
  byName.serviceName = "storage";
  const std::uint64_t nameComponent = 1ULL << 6;
  const auto records =
      SaFixture::records<ServiceRecord>(ask(saMethod::kGet, byName, nameComponent, 3));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].serviceId, 0x42U);
  EXPECT_EQ(records[0].servicePKey, 0xFFFF) << "no PKey given: the default partition";
}

TEST_F(ServiceRecordTest, OnlyItsOwnerDeletesOrRenewsAService) {
  ASSERT_EQ(ask(saMethod::kSet, service(0x42, 1), kIdAndGid, 1).header.status, saStatus::kOk);
  EXPECT_EQ(ask(saMethod::kDelete, service(0x42, 1), kIdAndGid, 2).header.status,
            saStatus::kReqDenied);
  EXPECT_EQ(ask(saMethod::kSet, service(0x42, 1), kIdAndGid, 2).header.status,
            saStatus::kReqDenied);
  EXPECT_EQ(found(0x42), 1U);

  const auto reply = ask(saMethod::kDelete, service(0x42, 1), kIdAndGid, 1);
  EXPECT_EQ(reply.header.method, saMethod::kDeleteResp);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(found(0x42), 0U);
  EXPECT_EQ(ask(saMethod::kDelete, service(0x42, 1), kIdAndGid, 1).header.status,
            saStatus::kNoRecords);
}

TEST_F(ServiceRecordTest, AServiceLastsItsLeaseFromItsLastRegistration) {
  ASSERT_EQ(ask(saMethod::kSet, service(0x42, 1, 10), kIdAndGid, 1).header.status, saStatus::kOk);
  ASSERT_EQ(ask(saMethod::kSet, service(0x43, 1, ServiceRecord::kInfiniteLease), kIdAndGid, 1)
                .header.status,
            saStatus::kOk);
  now += std::chrono::seconds(8);
  ASSERT_EQ(ask(saMethod::kSet, service(0x42, 1, 10), kIdAndGid, 1).header.status, saStatus::kOk);
  now += std::chrono::seconds(8);
  EXPECT_EQ(found(0x42), 1U) << "renewed at 8 s";
  now += std::chrono::seconds(3);
  EXPECT_EQ(found(0x42), 0U);
  now += std::chrono::hours(24 * 365);
  EXPECT_EQ(found(0x43), 1U);
}

TEST_F(ServiceRecordTest, BadRegistrationsChangeNothing) {
  ServiceRecord foreign = service(0x42, 1);
  foreign.serviceGid = makeGid(0xFE80000000000001, fx.guidOfHost(1));
  EXPECT_EQ(ask(saMethod::kSet, foreign, kIdAndGid, 1).header.status, saStatus::kReqInvalidGid);
  EXPECT_EQ(ask(saMethod::kSet, service(0x42, 1), 0x1, 1).header.status,
            saStatus::kReqInsufficientComponents);

  fx.from.lid = Lid{0xBFF0};  // no port of the subnet
  auto reply = responder.answer(SaFixture::request(saMethod::kSet, saAttr::kServiceRecord,
                                                   kIdAndGid, encodeRecord(service(0x42, 1))),
                                fx.from);
  ASSERT_TRUE(reply);
  EXPECT_EQ(decodeSaMad(*reply)->header.status, saStatus::kReqInvalid);
  EXPECT_EQ(responder.serviceRecords(), 0U);
}

TEST_F(ServiceRecordTest, ALeaseLongerThanTheMaximumIsGrantedTheMaximumAndTheAnswerSaysSo) {
  fx.settings.serviceLeaseMaxS = 30;
  fx.rebuild();
  responder.setSubnet(fx.subnet);
  auto reply = ask(saMethod::kSet, service(0x42, 1, ServiceRecord::kInfiniteLease), kIdAndGid, 1);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(SaFixture::records<ServiceRecord>(reply).at(0).serviceLease, 30U) << "not indefinite";
  reply = ask(saMethod::kSet, service(0x43, 1, 60), kIdAndGid, 1);
  EXPECT_EQ(SaFixture::records<ServiceRecord>(reply).at(0).serviceLease, 30U);
  reply = ask(saMethod::kSet, service(0x44, 1, 20), kIdAndGid, 1);
  EXPECT_EQ(SaFixture::records<ServiceRecord>(reply).at(0).serviceLease, 20U) << "shorter: kept";
  EXPECT_EQ(responder.counters().leasesShortened, 2U);

  now += std::chrono::seconds(25);
  EXPECT_EQ(found(0x42), 1U);
  EXPECT_EQ(found(0x44), 0U);
  now += std::chrono::seconds(6);
  EXPECT_EQ(found(0x42), 0U) << "the indefinite lease asked ended at the maximum";
  EXPECT_EQ(found(0x43), 0U);
}

TEST_F(ServiceRecordTest, ServicesOutliveANewSnapshot) {
  ASSERT_EQ(ask(saMethod::kSet, service(0x42, 1), kIdAndGid, 1).header.status, saStatus::kOk);
  fx.rebuild();
  responder.setSubnet(fx.subnet);
  EXPECT_EQ(found(0x42), 1U);
}

}  // namespace
}  // namespace ibsm::sm::sa
