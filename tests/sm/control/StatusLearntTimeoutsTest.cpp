// The MAD engine's learnt timeouts in `ibsm status --json` (issue 32): one
// object per path length and kind measured, with its samples, smoothed
// round trip, deviation and current timeout, beside the counters
// mad_timeouts and mad_retries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sm/control/StatusFormat.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;

TEST(StatusJson, ListsTheLearntTimeoutsByPathAndKind) {
  DaemonStatus s;
  s.mads.retries = 4;
  s.mads.learnt = {{.path = "dr",
                    .hops = 3,
                    .kind = "get",
                    .samples = 120,
                    .srtt = 310us,
                    .rttvar = 45us,
                    .timeout = 2000us},
                   {.path = "lid",
                    .hops = 0,
                    .kind = "table_set",
                    .samples = 7,
                    .srtt = 9000us,
                    .rttvar = 1500us,
                    .timeout = 15000us}};
  const auto j = nlohmann::json::parse(formatStatusJson(s));
  EXPECT_EQ(j.at("mad_retries"), 4);
  EXPECT_EQ(j.at("mad_timeouts"), 0);
  EXPECT_EQ(j.at("mad_learnt_timeouts"), nlohmann::json::parse(R"([
      {"path":"dr","hops":3,"kind":"get","samples":120,"srtt_us":310,"rttvar_us":45,
       "timeout_us":2000},
      {"path":"lid","hops":0,"kind":"table_set","samples":7,"srtt_us":9000,"rttvar_us":1500,
       "timeout_us":15000}])"));
}

TEST(StatusJson, NothingMeasuredIsAnEmptyList) {
  const auto j = nlohmann::json::parse(formatStatusJson(DaemonStatus{}));
  EXPECT_EQ(j.at("mad_learnt_timeouts"), nlohmann::json::array());
}

}  // namespace
}  // namespace ibsm::sm::control
