// SmpRequest's constructors and the words for how a request ended
// (sm/mad/MadEngine.h), apart from the engine that sends them.
#include <fmt/format.h>

#include "sm/mad/MadEngine.h"

namespace ibsm {

SmpRequest SmpRequest::get(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to) {
  return SmpRequest{
      .method = Method::Get, .attributeId = id, .attributeModifier = modifier, .to = std::move(to)};
}

SmpRequest SmpRequest::set(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to,
                           const SmpData& data) {
  return SmpRequest{.method = Method::Set,
                    .attributeId = id,
                    .attributeModifier = modifier,
                    .to = std::move(to),
                    .data = data};
}

std::string SmpRequest::destination() const {
  if (const auto* path = std::get_if<DrPath>(&to)) return fmt::format("DR {}", *path);
  return fmt::format("LID {}", std::get<Lid>(to));
}

std::string describeFailure(const SmpReply& reply) {
  switch (reply.outcome) {
    case SmpOutcome::Ok:
      return "answered";
    case SmpOutcome::BadStatus:
      return fmt::format("was answered with status 0x{:04x} ({})", reply.status,
                         describeMadStatus(reply.status));
    case SmpOutcome::Timeout:
      return fmt::format("got no response after {} attempts", reply.attempts);
    case SmpOutcome::SendFailed:
      return "could not be sent (transport error)";
    case SmpOutcome::TransportFailed:
      return "was pending when the transport failed";
    case SmpOutcome::Cancelled:
      return "was cancelled";
  }
  return "unknown outcome";
}

}  // namespace ibsm
