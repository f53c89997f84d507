// What a daemon test on the in-memory fake fabric needs around SmDaemon:
// a two-level radix-8 fat tree with the SM on the first CA port, SA GMPs
// injected at chosen times (GmpInjector), a state directory of its own,
// the loop and engine on the fabric's clock, and a quiet logger.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "sm/manager/StateStore.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/GmpInjector.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {

class DaemonOnFakeFabric : public ::testing::Test {
 protected:
  explicit DaemonOnFakeFabric(const std::string& name)
      : wire_(ibsm::testing::unprogrammed(fabric()), firstCaPort()),
        stateDir_(std::filesystem::temp_directory_path() /
                  (name + "-" + std::to_string(::getpid()))),
        store_(stateDir_) {
    engine_.emplace(gmps_,
                    MadEngineOptions{.clock = loop_.clock(), .waiter = &loop_, .logger = quiet()});
    settings_.sweep.plan.engines = {"ftree"};
  }
  ~DaemonOnFakeFabric() override { std::filesystem::remove_all(stateDir_); }

  static std::shared_ptr<spdlog::logger> quiet() {
    return std::make_shared<spdlog::logger>("daemon-test",
                                            std::make_shared<spdlog::sinks::null_sink_st>());
  }
  static Fabric fabric() {
    return ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  }
  // Where the SM runs, and where another SM or a host does when a test wants one.
  static PortRef firstCaPort() { return PortRef{fabric().endNodes().front(), 1}; }
  static PortRef lastCaPort() { return PortRef{fabric().endNodes().back(), 1}; }

  ibsm::testing::FakeFabricTransport wire_;
  ibsm::testing::GmpInjector gmps_{wire_, wire_.clock()};
  std::filesystem::path stateDir_;
  StateStore store_;
  loop::EventLoop loop_{wire_.clock()};
  std::optional<MadEngine> engine_;
  DaemonSettings settings_;
};

}  // namespace ibsm::sm::manager
