#include "sm/manager/ForeignSms.h"

#include <fmt/format.h>

#include <algorithm>

#include "sm/fsm/Election.h"
#include "sm/fsm/SmStateMachine.h"

namespace ibsm::sm::manager {
namespace {

std::string where(const PeerSm& p) {
  if (const auto* path = std::get_if<DrPath>(&p.address)) return fmt::format("DR {}", *path);
  return fmt::format("LID {}", std::get<Lid>(p.address));
}

control::ForeignSm foreignOf(const PeerSmInfo& p) {
  return control::ForeignSm{.guid = p.info.guid,
                            .port = where(p.peer),
                            .lid = p.peer.lid,
                            .state = std::string(fsm::name(p.info.smState)),
                            .priority = p.info.priority,
                            .smKey = p.info.smKey};
}

bool sameShown(const control::ForeignSm& a, const control::ForeignSm& b) {
  return a.state == b.state && a.priority == b.priority && a.smKey == b.smKey;
}

}  // namespace

std::vector<control::ForeignSm> ForeignSms::update(std::span<const PeerSmInfo> read,
                                                   std::uint64_t ourKey, bool weAreMaster) {
  const bool becameMaster = weAreMaster && !weWereMaster_;
  std::vector<control::ForeignSm> now;
  std::vector<control::ForeignSm> news;
  for (const PeerSmInfo& p : read) {
    if (fsm::trusts(ourKey, p.info.smKey)) continue;
    const control::ForeignSm& f = now.emplace_back(foreignOf(p));
    const auto before = std::ranges::find(current_, f.guid, &control::ForeignSm::guid);
    if (before == current_.end() || !sameShown(*before, f) || (becameMaster && f.state == "MASTER"))
      news.push_back(f);
  }
  current_ = std::move(now);
  weWereMaster_ = weAreMaster;
  return news;
}

// No key goes into the log: ours is the secret that authenticates us, the
// other SM's authenticates its domain (control::shownSmKey).
std::string_view shownKey(std::uint64_t key) {
  const auto shown = control::shownSmKey(key);
  if (shown == "default") return "OpenSM's default";
  if (shown == "zero") return "a zero (hidden from us, or unset)";
  return "another";
}

std::string describeForeignSm(const control::ForeignSm& sm, bool weAreMaster) {
  return fmt::format(
      "SM {} at {} (LID {}) is {} with priority {} and shows {} SM_Key, not ours: "
      "ignored as another management domain -- if it belongs to this subnet, its sm_key "
      "differs from ours{}",
      sm.guid, sm.port, sm.lid.value, sm.state, sm.priority, shownKey(sm.smKey),
      weAreMaster && sm.state == "MASTER" ? "; it ignores us too, so this subnet has two masters"
                                          : "");
}

}  // namespace ibsm::sm::manager
