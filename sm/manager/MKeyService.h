// M_Key protection as a service of the daemon (issue 29): gives the MAD
// engine the key of every port (so each SMP carries the key of the port it
// reaches: sm/mad/PortDirectory.h), and after every sweep reads what the
// CA ports and switch ports 0 hold -- their keys guard the rest of each
// node -- into `ibsm status` (m_keys). The keys themselves are written by
// bring-up's PortInfo Sets (sm/program/PortDiff.cpp); this service never
// programs.
//
// A port protected by a key that is not ours (another SM's, a replaced
// secret) answers Gets with its M_Key zeroed and drops our Sets (IBA
// 14.2.4, protect bits 1 and up). It is counted unknown and logged once
// (SM-2951) with what follows: with a lease, the port clears its protect
// bits once the lease ends after a failed check (IBA 14.2.4) and shows its
// key, and the next sweep's Set carries that key and writes ours
// (MKeyTakeover.h: counted taken over, SM-2961); with none, only whoever
// holds its key (or a reset) can free it. Until then its SMPs go once a
// sweep, never retried (sm/program/KeyRefusal.h).
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <set>

#include "sm/control/StatusFormat.h"
#include "sm/manager/MKeyTakeover.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

class MKeyService final : public Service {
 public:
  MKeyService(MadEngine& engine, const DaemonSettings& settings, const MasterSweep& sweep,
              std::shared_ptr<spdlog::logger> log);
  ~MKeyService() override;
  MKeyService(const MKeyService&) = delete;
  MKeyService& operator=(const MKeyService&) = delete;

  std::string_view name() const override { return "m_keys"; }
  void onSweep(const SweepOutcome& outcome) override;
  // status.mads.mKeys (JSON m_keys).
  void describe(control::DaemonStatus& s) const override;

 private:
  void reportUnknown(const discovery::DiscoveredSubnet& seen, PortRef port, const PortInfo& info);

  MadEngine& engine_;
  const DaemonSettings& settings_;  // the core's, as reloads leave them
  const MasterSweep& sweep_;
  std::shared_ptr<spdlog::logger> log_;
  control::MKeyCounts counts_;
  std::set<PortKey> reported_;  // SM-2951 once per port
  MKeyTakeover takeover_;
};

}  // namespace ibsm::sm::manager
