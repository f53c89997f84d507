#include "sm/manager/SmInfoAgent.h"

#include <spdlog/spdlog.h>

#include "sm/fsm/Election.h"

namespace ibsm::sm::manager {

SmInfoAgent::SmInfoAgent(MadEngine& engine, SmInfo self, std::shared_ptr<spdlog::logger> logger)
    : engine_(engine), self_(self), log_(logger ? std::move(logger) : spdlog::default_logger()) {
  engine_.onUnsolicited([this](const IncomingSmp& in) { handle(in); });
}

SmInfoAgent::~SmInfoAgent() {
  engine_.onUnsolicited({});
}

void SmInfoAgent::handleTrap(const IncomingSmp& in) {
  const Notice notice = decodeNotice(in.smp.data);
  // Every trap is repressed, noisy or not, so a well-behaved SMA stops
  // resending it (the IBA has the SM answer a Trap() with TrapRepress()).
  if (auto ok = engine_.repress(in); !ok)
    log_->warn("SM-0502 could not repress the trap: {}", ok.error().message);
  // The issuer may be a switch reporting for one of its ports; the source
  // LID of the MAD is only a fallback for producers that leave it empty.
  const TrapOrigin origin{.issuer = notice.issuerLid.isUnicast() ? notice.issuerLid : in.from.lid,
                          .source = in.from.lid,
                          .modifier = in.smp.header.attributeModifier};
  if (trap_ && !trap_(notice, origin)) return;
  sweepRequested_ = true;
  if (notice.trapNumber == 128) linkChanged_ = true;
}

void SmInfoAgent::handleSet(const IncomingSmp& in) {
  const SmInfo sender = decodeSmInfo(in.smp.data);
  const std::uint32_t modifier = in.smp.header.attributeModifier;
  if (!fsm::trustsControl(self_.smKey, modifier, sender.smKey)) {
    // Silence, not an error status: an answer would tell a stranger that a
    // key guards this SM.
    log_->warn("SM-0506 ignored Set(SMInfo) control {} from {} (LID {}): wrong SM_Key", modifier,
               sender.guid, in.from.lid.value);
    return;
  }
  const std::optional<bool> verdict = smInfoSet_(modifier, sender);
  log_->info("SM-0505 Set(SMInfo) control {} from {} (LID {}): {}", modifier, sender.guid,
             in.from.lid.value, !verdict ? "not answered" : (*verdict ? "accepted" : "refused"));
  if (!verdict) return;
  auto ok = *verdict ? engine_.respond(in, encode(self_))
                     : engine_.respond(in, encode(self_), madstatus::kInvalidField);
  if (!ok) log_->warn("SM-0507 could not answer Set(SMInfo): {}", ok.error().message);
}

void SmInfoAgent::handle(const IncomingSmp& in) {
  const auto& h = in.smp.header;
  if (h.method == Method::Trap) return handleTrap(in);
  if (h.attributeId == AttributeId::SmInfo && h.method == Method::Get) {
    SmInfo answer = self_;
    // IBA 14.4.5, as OpenSM applies it: the SM_Key is shown unless the
    // request fails M_Key authentication. An SM that hid it from an SM
    // that does not present it would look to OpenSM like an SM of another
    // domain (ERR 2F18), and both would become master.
    if (portMKey_ != 0 && in.smp.header.mKey != portMKey_) answer.smKey = 0;
    if (auto ok = engine_.respond(in, encode(answer)); !ok)
      log_->warn("SM-0503 could not answer SMInfo: {}", ok.error().message);
    return;
  }
  if (h.attributeId == AttributeId::SmInfo && h.method == Method::Set && smInfoSet_)
    return handleSet(in);
  // Anything else addressed to the SM is refused rather than ignored, so
  // the sender knows.
  if (h.method == Method::Get || h.method == Method::Set) {
    log_->debug("SM-0504 unsupported {} of attribute {:#x} from LID {}",
                h.method == Method::Get ? "Get" : "Set", static_cast<unsigned>(h.attributeId),
                in.from.lid.value);
    if (auto ok = engine_.respond(in, in.smp.data, madstatus::kMethodAttrUnsupported); !ok)
      log_->warn("SM-0508 could not refuse an unsupported request: {}", ok.error().message);
  }
}

}  // namespace ibsm::sm::manager
