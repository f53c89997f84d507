#include "sm/manager/SaFeed.h"

namespace ibsm::sm::manager {

std::shared_ptr<const sa::SaSubnet> saSnapshot(const SweepResult& result,
                                               const program::HeldSubnet& held, const SmInfo& self,
                                               const sa::SaSettings& settings) {
  if (!result.plan) return nullptr;
  sa::SaSource source{.plan = result.plan.get(), .smInfo = self};
  // The plan's fabric keeps the discovery's NodeIds (planSubnet), so what
  // the ports hold is keyed like it.
  if (held.hasObservation()) {
    source.portInfo = &held.observed().portInfo;
    source.switchInfo = &held.observed().switchInfo;
    source.smPort = held.observed().smPort;
  }
  return sa::SaSubnet::build(source, settings);
}

}  // namespace ibsm::sm::manager
