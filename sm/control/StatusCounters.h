// The status's counter groups, each declared once (CounterTable.h): the
// text status, the JSON and the metrics print them from these tables. A
// table lists its group's counters in the order every output shows them;
// what a group holds beyond counters (names, times, lists) its outputs
// print by hand beside the table.
#pragma once

#include <array>

#include "sm/control/CounterTable.h"
#include "sm/control/StatusFormat.h"

namespace ibsm::sm::control {

// Sweeps by kind: one family, labelled by kSweepCountNames.
inline constexpr std::string_view kSweepsByKindMetric = "ibsm_sweeps_total";
inline constexpr std::string_view kSweepsByKindHelp = "Sweeps run since start, by kind.";

inline constexpr std::array<CounterDecl<SweepHistory>, 2> kSweepCounters{{
    {"sweeps_failed", read<&SweepHistory::failed>, "ibsm_sweeps_failed_total", CounterKind::Counter,
     "Sweeps or discoveries that could not run."},
    {"fabric_walks", read<&SweepHistory::fabricWalks>},
}};

inline constexpr std::array<CounterDecl<RoutesSummary>, 4> kRoutesCounters{{
    {"switches", read<&RoutesSummary::switches>, "ibsm_switches", CounterKind::Gauge,
     "Switches the last sweep found."},
    {"ca_ports", read<&RoutesSummary::caPorts>, "ibsm_ca_ports", CounterKind::Gauge,
     "CA ports the last sweep found."},
    {"routed_pairs", read<&RoutesSummary::routedPairs>, "ibsm_routed_pairs", CounterKind::Gauge,
     "Port pairs the last sweep's routes connect."},
    {"unreachable_pairs", read<&RoutesSummary::unreachablePairs>, "ibsm_unreachable_pairs",
     CounterKind::Gauge, "Port pairs the last sweep's routes cannot connect."},
}};

inline constexpr std::array<CounterDecl<MadTotals>, 3> kMadCounters{{
    {"mads_sent", read<&MadTotals::sent>, "ibsm_mads_sent_total", CounterKind::Counter,
     "SMPs sent, retries included."},
    {"mad_retries", read<&MadTotals::retries>},
    {"mad_timeouts", read<&MadTotals::timeouts>, "ibsm_mad_timeouts_total", CounterKind::Counter,
     "SMPs unanswered after all retries."},
}};

// Each learnt timeout: JSON mad_learnt_timeouts[] beside its path and kind.
inline constexpr std::array<CounterDecl<LearntTimeout>, 5> kLearntTimeoutCounters{{
    {"hops", read<&LearntTimeout::hops>},
    {"samples", read<&LearntTimeout::samples>},
    {"srtt_us", read<&LearntTimeout::srtt>},
    {"rttvar_us", read<&LearntTimeout::rttvar>},
    {"timeout_us", read<&LearntTimeout::timeout>},
}};

inline constexpr std::array<CounterDecl<StateHistory>, 2> kStateCounters{{
    {"state_changes", read<&StateHistory::changes>},
    {"times_master", read<&StateHistory::timesMaster>},
}};

inline constexpr std::array<CounterDecl<PeerCounts>, 3> kPeerCounters{{
    {"missed_polls", read<&PeerCounts::missedPolls>},
    {"handovers_sent", read<&PeerCounts::handoversSent>},
    {"handovers_accepted", read<&PeerCounts::handoversAccepted>},
}};

inline constexpr std::array<CounterDecl<ReloadRecord>, 2> kReloadCounters{{
    {"reloads", read<&ReloadRecord::taken>},
    {"reloads_refused", read<&ReloadRecord::refused>},
}};

// The SA's GMPs: JSON sa.*; text sa_received, sa_answered, then the drops
// on one line, then the rest.
inline constexpr std::array<CounterDecl<SaTraffic>, 7> kSaTrafficCounters{{
    {"received", read<&SaTraffic::received>},
    {"answered", read<&SaTraffic::answered>},
    {"dropped_not_master", read<&SaTraffic::droppedNotMaster>, {}, {}, {}, "not_master"},
    {"dropped_undecodable", read<&SaTraffic::droppedUndecodable>, {}, {}, {}, "undecodable"},
    {"dropped_no_responder", read<&SaTraffic::droppedNoResponder>, {}, {}, {}, "no_responder"},
    {"not_answered", read<&SaTraffic::notAnswered>},
    {"send_failed", read<&SaTraffic::sendFailed>},
}};

// What the SA holds: JSON sa.*, text sa_<key>.
inline constexpr std::array<CounterDecl<SaStatus>, 2> kSaHeldCounters{{
    {"service_records", read<&SaStatus::serviceRecords>},
    {"subscribers", read<&SaStatus::subscribers>},
}};

// Report(Notice)s: JSON sa.reports, text "sa_reports: sent N retried N ...".
inline constexpr std::array<CounterDecl<SaStatus>, 6> kSaReportCounters{{
    {"sent", read<&SaStatus::reportsSent>},
    {"retried", read<&SaStatus::reportsRetried>},
    {"acknowledged", read<&SaStatus::reportsAcknowledged>},
    {"failed", read<&SaStatus::reportsFailed>},
    {"unmatched", read<&SaStatus::reportsUnmatched>},
    {"send_failed", read<&SaStatus::reportSendFailed>},
}};

inline constexpr std::array<CounterDecl<SaStatus>, 1> kSaSubscriberCounters{{
    {"subscribers_dropped", read<&SaStatus::subscribersDropped>},
}};

// The SA's limits: JSON sa.*, text "sa_limited: answers_trimmed N ...".
inline constexpr std::array<CounterDecl<SaStatus>, 3> kSaLimitCounters{{
    {"answers_trimmed", readIn<&SaStatus::answers, &sa::SaCounters::answersTrimmed>},
    {"leases_shortened", readIn<&SaStatus::answers, &sa::SaCounters::leasesShortened>},
    {"segmented_refused", readIn<&SaStatus::answers, &sa::SaCounters::segmentedRefused>},
}};

// Multicast as the SA holds it: JSON sa.multicast, text "sa_multicast: groups N ...".
inline constexpr std::array<CounterDecl<SaStatus>, 5> kSaMulticastCounters{{
    {"groups", read<&SaStatus::mcGroups>},
    {"joins", readIn<&SaStatus::answers, &sa::SaCounters::mcJoins>},
    {"leaves", readIn<&SaStatus::answers, &sa::SaCounters::mcLeaves>},
    {"groups_created",
     readIn<&SaStatus::answers, &sa::SaCounters::mcGroupsCreated>,
     {},
     {},
     {},
     "created"},
    {"groups_deleted",
     readIn<&SaStatus::answers, &sa::SaCounters::mcGroupsDeleted>,
     {},
     {},
     {},
     "deleted"},
}};

// The SA under load: JSON sa.fairness, text "sa_fairness: queued N ...".
inline constexpr std::array<CounterDecl<SaStatus>, 8> kSaFairnessCounters{{
    {"queued", readIn<&SaStatus::queue, &sa::FairQueueCounters::queued>},
    {"dropped_requester_full",
     readIn<&SaStatus::queue, &sa::FairQueueCounters::droppedRequesterFull>},
    {"dropped_total_full", readIn<&SaStatus::queue, &sa::FairQueueCounters::droppedTotalFull>},
    {"requesters_waiting", read<&SaStatus::requestersWaiting>},
    {"largest_queue", read<&SaStatus::largestQueue>},
    {"largest_queue_ever", readIn<&SaStatus::queue, &sa::FairQueueCounters::largestEver>},
    {"joins_over_cap", readIn<&SaStatus::answers, &sa::SaCounters::joinsOverCap>},
    {"services_over_cap", readIn<&SaStatus::answers, &sa::SaCounters::servicesOverCap>},
}};

// Multicast as the daemon manages it: JSON multicast.* after `managed`.
inline constexpr std::array<CounterDecl<MulticastCounts>, 9> kMulticastCounters{{
    {"groups", read<&MulticastCounts::groups>},
    {"members", read<&MulticastCounts::members>},
    {"passes", read<&MulticastCounts::passes>},
    {"passes_failed", read<&MulticastCounts::passesFailed>},
    {"pass_mft_blocks_written", read<&MulticastCounts::passBlocksWritten>},
    {"pass_mft_blocks_failed", read<&MulticastCounts::passBlocksFailed>},
    {"members_dropped", read<&MulticastCounts::membersDropped>},
    {"members_forgotten", read<&MulticastCounts::membersForgotten>},
    {"last_pass_us", read<&MulticastCounts::lastPass>},
}};

// Traps from the fabric (TrapService): JSON traps.*, text "traps: ...".
inline constexpr std::array<CounterDecl<TrapCounters>, 13> kTrapCounters{{
    {"received", read<&TrapCounters::received>, "ibsm_traps_received_total", CounterKind::Counter,
     "Traps received from the fabric (repressed, whatever came of them)."},
    {"stood", read<&TrapCounters::stood>},
    {"sweeps_requested", read<&TrapCounters::sweepsRequested>, "ibsm_trap_sweeps_total",
     CounterKind::Counter, "Sweep requests traps made (one answers every trap held before it)."},
    {"coalesced", read<&TrapCounters::coalesced>},
    {"noisy_ignored", read<&TrapCounters::noisyIgnored>, "ibsm_traps_noisy_total",
     CounterKind::Counter, "Traps of noisy ports: counted and repressed, no sweep."},
    {"noisy_requests_dropped", read<&TrapCounters::noisyRequestsDropped>},
    {"answered_by_sweep", read<&TrapCounters::answeredBySweep>},
    {"mismatched", read<&TrapCounters::mismatched>, "ibsm_traps_mismatched_total",
     CounterKind::Counter, "Traps dropped: the Notice named another port than the sender."},
    {"log_suppressed", read<&TrapCounters::logSuppressed>},
    {"noisy_episodes", read<&TrapCounters::noisyEpisodes>},
    {"noisy_ports", read<&TrapCounters::noisyPorts>, "ibsm_trap_noisy_ports", CounterKind::Gauge,
     "Ports noisy now (sm.trap_noisy_rate)."},
    {"ports_tracked", read<&TrapCounters::portsTracked>},
    {"ports_forgotten", read<&TrapCounters::portsForgotten>},
}};

inline constexpr std::array<CounterDecl<ResourceCounts>, 10> kResourceCounters{{
    {"mad_outstanding", read<&ResourceCounts::madOutstanding>},
    {"mad_queued", read<&ResourceCounts::madQueued>},
    {"gmp_outstanding", read<&ResourceCounts::gmpOutstanding>},
    {"gmp_queued", read<&ResourceCounts::gmpQueued>},
    {"counter_ports", read<&ResourceCounts::counterPorts>},
    {"rss_bytes", read<&ResourceCounts::rssBytes>},
    {"heap_in_use_bytes", read<&ResourceCounts::heapInUse>},
    {"heap_free_bytes", read<&ResourceCounts::heapFree>},
    {"memory_releases", read<&ResourceCounts::memoryReleases>},
    {"metrics_writes", read<&ResourceCounts::metricsWrites>},
}};

inline constexpr std::array<CounterDecl<LogCounts>, 3> kLogCounters{{
    {"level_changes", read<&LogCounts::levelChanges>},
    {"trace_lines", read<&LogCounts::traceLines>},
    {"trace_suppressed", read<&LogCounts::traceSuppressed>},
}};

// The control socket: JSON control.*, text "control: requests N ...",
// metrics ibsm_control_*.
inline constexpr std::array<CounterDecl<ControlCounts>, 6> kControlCounters{{
    {"requests", read<&ControlCounts::requests>, "ibsm_control_requests_total",
     CounterKind::Counter, "Control socket requests answered (refusals included)."},
    {"changing", read<&ControlCounts::changing>, "ibsm_control_changing_requests_total",
     CounterKind::Counter, "Control requests that changed something (sweep, readmit, log level)."},
    {"refused", read<&ControlCounts::refused>, "ibsm_control_refused_total", CounterKind::Counter,
     "Control requests refused to their peer (not root, not in sm.control_group)."},
    {"timed_out", read<&ControlCounts::timedOut>, "ibsm_control_timed_out_total",
     CounterKind::Counter, "Control clients closed for not asking within sm.control_timeout_ms."},
    {"oversized", read<&ControlCounts::oversized>, "ibsm_control_oversized_total",
     CounterKind::Counter, "Control requests refused for their size."},
    {"busy", read<&ControlCounts::busy>, "ibsm_control_busy_total", CounterKind::Counter,
     "Control clients turned away: the slots of users other than root were full."},
}};

}  // namespace ibsm::sm::control
