#include "SmInfoAgent.h"

#include <spdlog/spdlog.h>

namespace ibsm::sm {

SmInfoAgent::SmInfoAgent(MadEngine& engine, SmInfo self, std::shared_ptr<spdlog::logger> logger)
    : engine_(engine), self_(self), log_(logger ? std::move(logger) : spdlog::default_logger()) {
  engine_.onUnsolicited([this](const IncomingSmp& in) { handle(in); });
}

void SmInfoAgent::handle(const IncomingSmp& in) {
  const auto& h = in.smp.header;
  if (h.method == Method::Trap) {
    log_->info("SM-0501 trap from LID {} (attribute modifier {:#x}); sweep requested",
               in.from.lid.value, h.attributeModifier);
    sweepRequested_ = true;
    if (decodeNotice(in.smp.data).trapNumber == 128) linkChanged_ = true;
    if (auto ok = engine_.repress(in); !ok) log_->warn("SM-0502 {}", ok.error().message);
    return;
  }
  if (h.attributeId == AttributeId::SmInfo && h.method == Method::Get) {
    SmInfo answer = self_;
    // IBA: the SM_Key is only revealed to a requester that presents it.
    if (decodeSmInfo(in.smp.data).smKey != self_.smKey) answer.smKey = 0;
    if (auto ok = engine_.respond(in, encode(answer)); !ok)
      log_->warn("SM-0503 could not answer SMInfo: {}", ok.error().message);
    return;
  }
  // Anything else addressed to the SM (Set SMInfo handovers come with
  // failover support) is refused rather than ignored, so the sender knows.
  if (h.method == Method::Get || h.method == Method::Set) {
    log_->debug("SM-0504 unsupported {} of attribute {:#x} from LID {}",
                h.method == Method::Get ? "Get" : "Set", static_cast<unsigned>(h.attributeId),
                in.from.lid.value);
    if (auto ok = engine_.respond(in, in.smp.data, madstatus::kMethodAttrUnsupported); !ok)
      log_->warn("SM-0503 could not answer: {}", ok.error().message);
  }
}

}  // namespace ibsm::sm
