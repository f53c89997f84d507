// The registry alone: names, owners, and its bound.
#include <gtest/gtest.h>

#include "sm/sa/ServiceRegistry.h"

namespace ibsm::sm::sa {
namespace {

ServiceRecord named(std::uint64_t id) {
  ServiceRecord r;
  r.serviceId = id;
  r.serviceGid = makeGid(kDefaultSubnetPrefix, Guid{0x42});
  r.serviceLease = ServiceRecord::kInfiniteLease;
  return r;
}

TEST(ServiceRegistry, PastItsBoundANewNameIsNoResourcesButARenewalIsTaken) {
  ServiceRegistry registry(2);
  const auto now = ServiceRegistry::Clock::time_point{};
  ASSERT_TRUE(registry.set(named(1), Guid{7}, now));
  ASSERT_TRUE(registry.set(named(2), Guid{7}, now));
  const auto third = registry.set(named(3), Guid{7}, now);
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error(), saStatus::kNoResources);
  EXPECT_TRUE(registry.set(named(2), Guid{7}, now)) << "a renewal takes no new room";
  EXPECT_EQ(registry.size(), 2U);
}

TEST(ServiceRegistry, ANameIsServiceIdGidAndPKey) {
  ServiceRegistry registry;
  const auto now = ServiceRegistry::Clock::time_point{};
  ServiceRecord other = named(1);
  other.servicePKey = 0x8001;
  ASSERT_TRUE(registry.set(named(1), Guid{7}, now));
  ASSERT_TRUE(registry.set(other, Guid{8}, now)) << "another PKey: another service";
  EXPECT_EQ(registry.size(), 2U);
  EXPECT_EQ(registry.set(named(1), Guid{8}, now).error(), saStatus::kReqDenied);
}

}  // namespace
}  // namespace ibsm::sm::sa
