// Partitions: OpenSM's partitions.conf and ibsm.toml's [[partition]] tables
// read into one model, and the pure planner that turns the model and a
// Fabric into the PKey table of every managed port.
//
//   auto file = partition::readPartitionsFile("/etc/ibsm/partitions.conf");
//   auto toml = partition::loadTomlPartitions("/etc/ibsm/ibsm.toml");
//   auto config = partition::mergeSources(*file, *toml);   // same PKey twice: error
//   auto plan = partition::planPartitions(fabric, *config, smPortGuid);
//   for (const auto& w : plan->warnings) log(w);           // GUIDs not in the fabric
//   program(plan->tables);                                 // sm/program writes what differs
//
// Every error names file:line and what was expected.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>
#include <ibsm/PKeyTables.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::partition {

inline constexpr std::uint16_t kDefaultPKey = 0x7fff;
inline constexpr std::uint16_t kFullMember = 0x8000;

// "both" puts the full and the limited PKey in the table (OpenSM's
// allow_both_pkeys); merging requests for one port: both > full > limited.
enum class Membership : std::uint8_t { Limited, Full, Both };

struct MemberSpec {
  enum class Kind : std::uint8_t { Guid, All, AllCas, AllSwitches, AllRouters, Self };
  Kind kind{Kind::Guid};
  Guid guid;  // Kind::Guid only: a port GUID
  Membership membership{Membership::Limited};
  std::string where;  // "file:line"
  bool operator==(const MemberSpec& o) const {
    return kind == o.kind && guid == o.guid && membership == o.membership;
  }
};

// A multicast group an `mgid=` line of a partition pre-creates. Unset
// flags inherit the partition's (TClass aside, as in OpenSM).
struct McGroupDef {
  Gid mgid{};
  std::optional<std::uint8_t> mtu;
  std::optional<std::uint8_t> rate;
  std::optional<std::uint8_t> sl;
  std::vector<std::uint8_t> scopes;  // one group per scope; none: the MGID's own
  std::optional<std::uint32_t> qkey;
  std::optional<std::uint8_t> tclass;
  std::optional<std::uint32_t> flowLabel;
  std::string where;  // "file:line"
  bool operator==(const McGroupDef& o) const {
    return mgid == o.mgid && mtu == o.mtu && rate == o.rate && sl == o.sl && scopes == o.scopes &&
           qkey == o.qkey && tclass == o.tclass && flowLabel == o.flowLabel;
  }
};

struct PartitionDef {
  std::string name;
  std::uint16_t pkey{0};  // low 15 bits; the membership bit is per port
  bool ipoib{false};
  bool indx0{false};                 // this PKey goes to block 0 index 0
  std::optional<std::uint8_t> mtu;   // IBTA code 1-5
  std::optional<std::uint8_t> rate;  // IBTA code 2-22
  std::optional<std::uint8_t> sl;
  std::vector<std::uint8_t> scopes;  // multicast scopes for the IPoIB groups
  std::optional<std::uint32_t> qkey;
  std::optional<std::uint8_t> tclass;
  std::optional<std::uint32_t> flowLabel;
  std::vector<MemberSpec> members;
  std::vector<McGroupDef> groups;  // mgid= lines, in file order
  std::string where;               // "file:line" of the (first) definition

  // Same partition, wherever written.
  bool sameAs(const PartitionDef& o) const;
};

// An item of a partitions.conf that OpenSM reads past (an unknown flag, a
// flag value it cannot take, an mgid= group it cannot create, a membership
// it does not know) and that ibsm skipped too, because partitions.strict
// is false.
struct IgnoredItem {
  std::string where;  // "file:line"
  std::string what;   // the problem, and what OpenSM (and so ibsm) did instead
  bool operator==(const IgnoredItem&) const = default;
};

// One definition per PKey, in the order first written.
struct PartitionConfig {
  std::vector<PartitionDef> partitions;
  std::vector<IgnoredItem> ignored{};  // empty when read strictly
  const PartitionDef* find(std::uint16_t pkey) const;
};

// How a partitions.conf is read. Strict (the default): an item OpenSM would
// read past is an error that names what OpenSM would have done instead.
// Not strict: it is skipped as OpenSM skips it, and listed in `ignored`
// for the caller to warn about. A line OpenSM cannot parse at all (it then
// drops the whole file for its default partition, saying only PARSE ERROR
// in its log) is an error either way: ibsm never falls back silently.
struct PartitionsFileOptions {
  bool strict{true};
};

// What an SM manages when no partition is configured anywhere, as OpenSM
// does then: `Default=0x7fff, ipoib : ALL=full;` (every port a full member,
// the IPoIB broadcast group pre-created), so IPoIB works out of the box.
PartitionConfig defaultPartitionConfig();

// OpenSM's syntax, `Name=PKey [, flag ...] : member [, member ...] ;`, where
// a member may also be `mgid=GID [, mtu=, rate=, sl=, scope=, Q_Key=,
// TClass=, FlowLabel=]`, which takes the rest of its line. A PKey
// written twice under the same name is one partition split over several
// definitions (OpenSM merges them); under another name it is an error, as
// is a name reused for another PKey.
[[nodiscard]] Result<PartitionConfig> parsePartitionsFile(std::string_view text,
                                                          std::string_view fileName,
                                                          PartitionsFileOptions options = {});
[[nodiscard]] Result<PartitionConfig> readPartitionsFile(const std::filesystem::path& path,
                                                         PartitionsFileOptions options = {});

// The [[partition]] tables of an ibsm.toml; the file's other keys are the
// config parser's business and ignored here.
[[nodiscard]] Result<PartitionConfig> parseTomlPartitions(std::string_view text,
                                                          std::string_view fileName);
[[nodiscard]] Result<PartitionConfig> loadTomlPartitions(const std::filesystem::path& path);

// Both sources together; a PKey (or name) both define differently is an
// error naming both places.
[[nodiscard]] Result<PartitionConfig> mergeSources(const PartitionConfig& a,
                                                   const PartitionConfig& b);

// The multicast groups the configuration pre-creates, in partition order:
// each `ipoib` partition's IPoIB broadcast group, one per `scope=` (default
// link-local), with the partition's mtu/rate/sl/Q_Key/TClass/FlowLabel or
// OpenSM's defaults (MTU code 4 = 2048, rate code 3 = 10 Gb/s, SL 0, Q_Key
// 0x0b1b), then its `mgid=` groups. An IP group (signature 0x401b/0x601b)
// gets the partition's PKey in the MGID and Q_Key 0x0b1b by default, and
// must carry the partition's MTU and rate (OpenSM's checks); an MGID the
// list already has is skipped, as OpenSM does. PKeys carry 0x8000.
[[nodiscard]] Result<std::vector<McGroupSpec>> multicastGroups(const PartitionConfig& config);

// Flag values: IBTA codes as OpenSM takes them, or what people mean
// (mtu=4096; rate=100 or rate=10G in Gb/s). nullopt when neither.
std::optional<std::uint8_t> parseMtu(std::string_view text);
std::optional<std::uint8_t> parseRate(std::string_view text);
std::string_view membershipName(Membership m);

struct ResolvedMember {
  PortRef port;
  Guid guid;
  Membership membership{Membership::Limited};
};

struct PlannedPartition {
  std::string name;
  std::uint16_t pkey{0};
  std::optional<std::uint8_t> sl;  // the `sl` flag: the SL of paths in it (the SA's PathRecords)
  std::vector<ResolvedMember> members;  // by port
};

struct PartitionPlan {
  std::vector<PlannedPartition> partitions;  // by PKey, default first
  // CA and router ports, switch port 0, and switch external ports facing a
  // member (their peer's table, enforce = true); sorted by port.
  PKeyTables tables;
  std::vector<std::string> warnings;  // GUIDs not in the fabric, SELF with no SM port
};

// Pure. The default partition 0x7fff always exists (ALL=limited, SELF=full
// when the config does not define it) and the SM port is always a full
// member. Fails when a port needs more PKeys than its PartitionCap.
[[nodiscard]] Result<PartitionPlan> planPartitions(const Fabric& fabric,
                                                   const PartitionConfig& config,
                                                   std::optional<Guid> smPortGuid);

}  // namespace ibsm::partition
