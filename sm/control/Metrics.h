// The SM's metrics for Prometheus, from the two values the daemon already
// shows: DaemonStatus (`ibsm status`) and HealthView (`ibsm health`). The
// daemon writes this text to health.metrics_file for node_exporter's
// textfile collector after every sweep and counter pass; `ibsm metrics`
// prints it for a scrape script. No timestamps: the textfile collector
// refuses them, and the file's mtime says when it was written.
//
// Families (names are the contract with dashboards; HELP says each one):
//   ibsm_port_counter_total{node_guid,port,name,counter}
//   ibsm_port_counter_rate_per_second{node_guid,port,name,counter}
//   ibsm_port_resets_total{node_guid,port,name}
//   ibsm_unhealthy{condition}  ibsm_isolated_links
//   ibsm_counter_sweep_interval_seconds  ibsm_counter_passes_total
//   ibsm_counter_gmps_total  ibsm_counter_timeouts_total
//   ibsm_counter_pass_duration_seconds  ibsm_counter_pass_gmps
//   ibsm_sm_state{state}  ibsm_subnet_up  ibsm_sweeps_total{kind}
//   ibsm_sweeps_failed_total  ibsm_last_sweep_duration_seconds
//   ibsm_switches  ibsm_ca_ports  ibsm_routed_pairs  ibsm_unreachable_pairs
//   ibsm_mads_sent_total  ibsm_mad_timeouts_total  ibsm_uptime_seconds
#pragma once

#include <string>

#include "sm/control/StatusFormat.h"
#include "sm/health/HealthView.h"

namespace ibsm::sm::control {

// Text exposition format 0.0.4; ends with a newline. The same as
// formatSmMetrics followed by formatPortMetrics.
std::string formatMetrics(const DaemonStatus& status, const health::HealthView& health);
// The two halves, each whole families, so that the daemon formats the
// per-port half -- megabytes on a large fabric, and new only after a
// counter pass -- once per pass rather than after every sweep:
// everything but the ibsm_port_* families...
std::string formatSmMetrics(const DaemonStatus& status, const health::HealthView& health);
// ...and the ibsm_port_* families (17 counters per port, rates, resets).
std::string formatPortMetrics(const health::HealthView& health);

}  // namespace ibsm::sm::control
