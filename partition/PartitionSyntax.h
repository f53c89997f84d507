// What the partitions.conf parser and the [[partition]] TOML reader share,
// so one flag or member means the same in both sources. Private to
// partition/.
#pragma once

#include <ibsm/Partitions.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::partition::detail {

std::string_view trim(std::string_view s);
// Flag names and keywords are matched without regard to case, as OpenSM does.
std::string lower(std::string_view s);
// "0x..." hex or decimal, the whole text; OpenSM takes both.
std::optional<std::uint64_t> parseNumber(std::string_view text);

// "full" / "limited" / "both".
std::optional<Membership> parseMembership(std::string_view text);

// A PKey value: 1..0xffff with nonzero low 15 bits; returns the low 15 bits.
[[nodiscard]] Result<std::uint16_t> parsePKey(std::string_view text, const std::string& where);

// One partition flag, `key` with `value` (empty for ipoib, indx0). Sets
// `defmember` for defmember=; the rest land in `def`.
[[nodiscard]] Result<void> applyFlag(PartitionDef& def, Membership& defmember, std::string_view key,
                                     std::string_view value, const std::string& where);

// `ALL_CAS=limited`, `0x0002c903000a1b2c=full`, `SELF`: the membership
// defaults to `defmember`.
[[nodiscard]] Result<MemberSpec> parseMember(std::string_view text, Membership defmember,
                                             const std::string& where);

// Items of a partitions.conf that OpenSM reads past: refused with what
// OpenSM would do instead (partitions.strict, the default), or skipped as
// OpenSM skips them and listed for the caller to warn about.
class Tolerance {
 public:
  Tolerance(bool strict, std::vector<IgnoredItem>& ignored) : strict_(strict), ignored_(&ignored) {}
  // `problem` at `where` ("file:line"); `openSm` what OpenSM does instead,
  // as in "OpenSM would <openSm>". Strict: the error; else {} once listed.
  [[nodiscard]] Result<void> pass(const std::string& where, std::string_view problem,
                                  std::string_view openSm) const;
  // The same for an error whose message starts with "where: ".
  [[nodiscard]] Result<void> pass(const std::string& where, const Error& error,
                                  std::string_view openSm) const;

 private:
  bool strict_;
  std::vector<IgnoredItem>* ignored_;
};

// What OpenSM does with a line it cannot parse at all, for errors on such lines.
Error openSmDropsTheFile(Error error);

// Whether a member entry is an `mgid=` group (which takes the rest of its line).
bool isMcGroupEntry(std::string_view text);

// `mgid=GID[,flag=value]*`: a multicast GID (first byte 0xff) and the flags
// mtu, rate, sl, scope, Q_Key, TClass, FlowLabel. nullopt: a group OpenSM
// would not create, passed by `tolerance`.
[[nodiscard]] Result<std::optional<McGroupDef>> parseMcGroup(std::string_view text,
                                                             const std::string& where,
                                                             const Tolerance& tolerance);

// Collects definitions in order, merging a PKey split over several
// definitions of the same name and refusing a PKey or name reused.
class ConfigBuilder {
 public:
  [[nodiscard]] Result<void> add(PartitionDef def);
  PartitionConfig take() { return std::move(config_); }

 private:
  PartitionConfig config_;
  std::map<std::uint16_t, std::size_t> byPKey_;
  std::map<std::string, std::pair<std::uint16_t, std::string>> byName_;  // pkey, where
};

}  // namespace ibsm::partition::detail
