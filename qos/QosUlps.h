// Internal to qos/: the qos-ulps section of qos-policy.conf, one line at a
// time ("sdp, port-num 10000-20000 : 2"), turned into what the full policy
// says with the same meaning: a match rule per line, a port group per GUID
// list, a level per SL. OpenSM tries these rules after every
// qos-match-rules rule; the `default : SL` line is no rule but the level of
// a query nothing matched, used when the file names no DEFAULT level.
#pragma once

#include <ibsm/QosPolicy.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace ibsm::qos {

struct UlpRules {
  std::vector<QosMatchRule> rules{};
  std::vector<QosPortGroup> groups{};  // from target-/source-port-guid lists
  std::set<std::uint8_t> sls{};        // the SLs the rules give: one level each
  std::optional<std::uint8_t> defaultSl{};
};

// The level a qos-ulps line with this SL names.
std::string ulpLevelName(std::uint8_t sl);

// One non-empty line of the section (comment already cut).
[[nodiscard]] Result<void> parseUlpLine(std::string_view text, std::size_t line,
                                        const std::filesystem::path& file, UlpRules& out);

}  // namespace ibsm::qos
