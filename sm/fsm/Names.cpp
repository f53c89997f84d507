// Words for the state machine's phases, events and actions, for the log
// lines of the loop that drives it and for test failures.
#include "sm/fsm/SmStateMachine.h"

namespace ibsm::sm::fsm {

// Switches, not arrays, so -Wswitch names a kind added without a name.
std::string_view name(SmState state) {
  switch (state) {
    case SmState::NotActive:
      return "NOTACTIVE";
    case SmState::Discovering:
      return "DISCOVERING";
    case SmState::Standby:
      return "STANDBY";
    case SmState::Master:
      return "MASTER";
  }
  return "?";
}

std::string_view name(Phase phase) {
  switch (phase) {
    case Phase::Discovering:
      return "DISCOVERING";
    case Phase::DiscoveryFailed:
      return "DISCOVERING (retry)";
    case Phase::Standby:
      return "STANDBY";
    case Phase::NotActive:
      return "NOTACTIVE";
    case Phase::MasterIdle:
      return "MASTER (idle)";
    case Phase::MasterTakeOver:
      return "MASTER (take over)";
    case Phase::MasterHeavySweep:
      return "MASTER (heavy sweep)";
    case Phase::MasterLightSweep:
      return "MASTER (light sweep)";
    case Phase::MasterRebalance:
      return "MASTER (rebalance)";
    case Phase::MasterReplan:
      return "MASTER (replan)";
    case Phase::MasterHandover:
      return "MASTER (handover)";
    case Phase::MasterWaiting:
      return "MASTER (waiting for handover)";
    case Phase::Stopped:
      return "stopped";
  }
  return "?";
}

std::string_view name(EventKind kind) {
  switch (kind) {
    case EventKind::SweepTimer:
      return "sweep timer";
    case EventKind::PollTimer:
      return "polling timer";
    case EventKind::Trap:
      return "trap";
    case EventKind::OperatorSweep:
      return "sweep request";
    case EventKind::Reload:
      return "SIGHUP";
    case EventKind::Stop:
      return "stop";
    case EventKind::DiscoveryDone:
      return "discovery done";
    case EventKind::HeavySweepDone:
      return "heavy sweep done";
    case EventKind::LightSweepDone:
      return "light sweep done";
    case EventKind::MasterAnswered:
      return "master answered";
    case EventKind::MasterSilent:
      return "master silent";
    case EventKind::HandoverAnswered:
      return "handover answered";
    case EventKind::SmInfoSet:
      return "Set(SMInfo)";
    case EventKind::ReplanWanted:
      return "replan wanted";
    case EventKind::RebalanceDue:
      return "rebalance due";
    case EventKind::PassDone:
      return "pass done";
  }
  return "?";
}

std::string_view name(ActionKind kind) {
  switch (kind) {
    case ActionKind::AnswerSet:
      return "answer Set(SMInfo)";
    case ActionKind::SendAcknowledge:
      return "send ACKNOWLEDGE";
    case ActionKind::SetSmState:
      return "set SMInfo state";
    case ActionKind::Discover:
      return "discover";
    case ActionKind::TakeOver:
      return "take over";
    case ActionKind::HeavySweep:
      return "heavy sweep";
    case ActionKind::LightSweep:
      return "light sweep";
    case ActionKind::Rebalance:
      return "rebalance";
    case ActionKind::Replan:
      return "replan";
    case ActionKind::PollMaster:
      return "poll master";
    case ActionKind::NotifyMaster:
      return "notify master (trap 144)";
    case ActionKind::SendHandover:
      return "send HANDOVER";
    case ActionKind::ReloadConfig:
      return "reload config";
    case ActionKind::Stop:
      return "stop";
  }
  return "?";
}

std::string_view name(ReplanReason reason) {
  switch (reason) {
    case ReplanReason::Isolation:
      return "isolation";
    case ReplanReason::Reload:
      return "reload";
    case ReplanReason::Multicast:
      return "multicast";
  }
  return "?";
}

}  // namespace ibsm::sm::fsm
