// Forwarding tables as text, in the formats the InfiniBand tools already
// speak, so that ibsm's tables can be diffed against OpenSM's, loaded into
// OpenSM (`opensm -R file -U opensm-lfts.dump`), and compared with what the
// switches hold (`dump_fts`, `ibroute`).
//
//   std::string text = formatLftDump(fabric, result);   // write as opensm-lfts.dump
//   auto dumped = parseLftDump(dumpFtsOutput, "dump_fts");
//   auto lfts = lftsByNode(fabric, *dumped);              // index = NodeId, like RoutingResult
//   auto diff = diffLfts(result.lfts, *lfts, LidIndex(fabric).maxLid());
//
// opensm-lfts.dump, as OpenSM 3.3 writes it: switches in the order of
// OpenSM's GUID map (keyed by the GUID in network byte order, so on x86 the
// GUIDs sort by their byte-swapped value), each as
//
//   Unicast lids [0-MAXLID] of switch Lid SWLID guid 0xGUID16 ('DESC'):
//   0xLID4 PORT3 # Channel Adapter portguid 0xGUID16: 'DESC'
//   ...
//   MAXLID lids dumped
//
// where MAXLID is the highest LID held by any port, LID/PORT lines come for
// every LID 0..MAXLID with an entry naming an existing port (0 included), the
// comment names the port owning the LID ("Switch", "Channel Adapter",
// "Router") or says "unknown node and type", and the trailer repeats MAXLID,
// not the number of lines.
//
// dump_fts / ibroute print the same entries as "0xLID4 PORT3 : (...)" under a
// header "Unicast lids [0x0-0xTOP] of switch ... guid 0xGUID16 (DESC):" and
// two column-title lines, ending "N valid lids dumped " (N = lines). With -a
// they also list port 255 (no route). On ibsim (infiniband-diags 44) they list
// the entry at LinearFDBTop too.
//
// sl2vl.dump holds the SL2VL tables an engine needs (dragonfly), one line per
// switch and (in port, out port) pair, switches in NodeId order:
//
//   switch 0xGUID16 in_port N out_port M : v0 v1 ... v15
//
// where vK is the VL of service level K (0-15); lines starting with '#' and
// blank lines are comments. An engine that needs one VL writes no lines.
// Where the engine layers SLs, every linked CA or router port's own table
// follows (every SL on VL 0: a host sends on the VL its port maps); with QoS
// (qos.enabled) every port's table is there, the switches' pairs the engine
// has no table for included. A port's line reads
//
//   ca 0xNODEGUID16 port N : v0 v1 ... v15      (or `router ...`)
//
// which the reader checks and passes over, unless asked for them
// (`ibsm path --dir`: the source CA's VL).
//
// vlarb.dump (QoS only) holds every port's VLArbitration, three lines a
// port, as `smpquery vlarb` shows one port's (NODE is switch, ca or router):
//
//   NODE 0xNODEGUID16 port N high_limit H
//   NODE 0xNODEGUID16 port N low : VL:WEIGHT VL:WEIGHT ...
//   NODE 0xNODEGUID16 port N high : VL:WEIGHT ...
//
// the entries up to the last that is not 0:0 (the 64 less those).
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Routing.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm {

// One switch's table as a dump lists it.
struct DumpedLft {
  Guid switchGuid;
  Lid switchLid;  // 0 when the dump does not say (dump_fts walks by DR path)
  std::string description;
  Lft lft;  // kNoRoute for every LID the dump does not list
};

// opensm-lfts.dump for these tables, byte for byte as OpenSM writes it.
std::string formatLftDump(const Fabric& fabric, const RoutingResult& result);

// The same text handed to `sink` one switch at a time: on a radix-36 fat
// tree the dump is 1.4 GB, too much to build in memory before writing.
using DumpSink = std::function<void(std::string_view chunk)>;
void writeLftDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink);

// The same tables in ibsm's compact form (`ibsm route --dump-format
// compact`), for fabrics where the text is gigabytes. Little-endian:
//
//   header   "\x89IBSMLFT", u16 version (1), u16 codec (0 stored, 1 zstd),
//            u32 switches, u32 MAXLID, u32 0
//   tables   per switch, in the order of the OpenSM form: u64 GUID,
//            u16 switch LID, u16 description length, u32 entries
//            (MAXLID + 1), the description, then one out-port byte per LID
//            from 0 (255: no route, as for the entries the OpenSM form
//            leaves out); the whole of it one zstd frame for codec 1
//   trailer  u64 bytes of the tables (uncompressed), u64 checksum of them,
//            "IBSM-END"
//
// Read back it equals parseLftDump() of the OpenSM form of the same tables.
inline constexpr std::string_view kCompactLftMagic{"\x89IBSMLFT", 8};
inline constexpr std::uint16_t kCompactLftVersion = 1;
// zstdLevel 0: stored uncompressed.
void writeCompactLftDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink,
                         int zstdLevel);
std::string formatCompactLftDump(const Fabric& fabric, const RoutingResult& result, int zstdLevel);
// True when `head` (the first bytes of a file) starts as the compact form.
bool isCompactLftDump(std::string_view head);
// Reads the whole file; a wrong magic, version or codec, a file cut short,
// or tables that do not decompress, do not add up or fail the checksum are
// an error naming the file, the byte and what was expected.
[[nodiscard]] Result<std::vector<DumpedLft>> parseCompactLftDump(std::string_view file,
                                                                 std::string_view fileName);

// Reads opensm-lfts.dump, or dump_fts / ibroute output (either is told by its
// lines). A line that is none of header, column titles, entry or trailer, an
// entry outside a switch, a LID listed twice for one switch with different
// ports, or a switch listed twice is an error naming file and line.
[[nodiscard]] Result<std::vector<DumpedLft>> parseLftDump(std::string_view text,
                                                          std::string_view fileName);
// The same a line at a time: `next` sets its argument to the next line
// (without its newline) and returns false at the end, so that a dump too
// large to hold in memory (1.4 GB on a radix-36 tree) is parsed as it is read.
using NextLine = std::function<bool(std::string_view& line)>;
[[nodiscard]] Result<std::vector<DumpedLft>> parseLftDump(const NextLine& next,
                                                          std::string_view fileName);

// Where ibroute or dump_fts stopped: the "iberror:" line they print when a
// switch stops answering in the middle of its table (stderr kept with the
// output, `2>&1`).
struct LftDumpCut {
  std::size_t line{0};      // of the iberror line
  std::string message;      // the line as printed
  Guid switchGuid;          // the switch whose table it cut; 0 when between tables
  std::string description;  // of that switch
};

struct HeldLftDump {
  std::vector<DumpedLft> tables;  // whole tables only
  std::vector<LftDumpCut> cuts;
};

// parseLftDump() for what switches held, as an operator captures it: read up
// to each iberror line, whose cut table (one with no "N lids dumped" line yet)
// is left out and named in `cuts`; libibmad's "ibwarn:" lines before it are
// passed over. Everything else as parseLftDump().
[[nodiscard]] Result<HeldLftDump> parseHeldLftDump(const NextLine& next, std::string_view fileName);

// The dumped tables by NodeId of `fabric` (the layout of RoutingResult::lfts),
// so they can be analysed or compared. Fails on a GUID that is not a switch
// of the fabric, or an entry naming a port the switch does not have.
[[nodiscard]] Result<std::vector<Lft>> lftsByNode(const Fabric& fabric,
                                                  const std::vector<DumpedLft>& dumped);

struct LftDifference {
  NodeId node{0};
  Lid lid;
  std::uint8_t expected{kNoRoute};
  std::uint8_t actual{kNoRoute};
  auto operator<=>(const LftDifference&) const = default;
};

// Entries for LIDs 1..maxLid that differ between two sets of tables indexed
// by NodeId; a missing table counts as all kNoRoute.
std::vector<LftDifference> diffLfts(const std::vector<Lft>& expected,
                                    const std::vector<Lft>& actual, Lid maxLid);

// sl2vl.dump for these tables, handed to `sink` one switch at a time.
void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink);
std::string formatSl2VlDump(const Fabric& fabric, const RoutingResult& result);
// The same with the QoS tables of every port (null: as above), switches'
// lines merged by (switch, in port, out port).
void writeSl2VlDump(const Fabric& fabric, const RoutingResult& result, const qos::QosTables* qos,
                    const DumpSink& sink);
// vlarb.dump of the QoS tables.
std::string formatVlArbDump(const Fabric& fabric, const qos::QosTables& qos);

struct DumpedSl2Vl {
  Guid switchGuid;  // a port table's: the CA's or router's node GUID
  std::uint8_t inPort{0};
  std::uint8_t outPort{0};
  std::array<std::uint8_t, 16> vl{};
  bool portTable{false};  // a `ca`/`router` line: inPort 0, outPort its port
};

// Reads sl2vl.dump. A line of another form, a VL above 15, or a (switch, in,
// out) pair listed twice is an error naming file and line.
[[nodiscard]] Result<std::vector<DumpedSl2Vl>> parseSl2VlDump(std::string_view text,
                                                              std::string_view fileName,
                                                              bool withPortTables = false);

// The dumped entries as RoutingResult::sl2vl of `fabric` (a port table as a
// CA port's Sl2VlEntry: in port 0, the port as out port). Fails on a GUID
// that is not a switch (a CA or router, for a port table) of the fabric or a
// port it does not have.
[[nodiscard]] Result<std::vector<Sl2VlEntry>> sl2vlByNode(const Fabric& fabric,
                                                          const std::vector<DumpedSl2Vl>& dumped);

// pair-sls holds RoutingResult::pairSls (written only when the engine names
// some), one line per pair, in the result's order (by DLID, then source):
//
//   node 0xNODEGUID16 port N dlid 0xLID4 sl K
//
// the source as its node's GUID and port (0: a switch itself), K 0-15;
// lines starting with '#' and blank lines are comments.
std::string formatPairSls(const Fabric& fabric, const RoutingResult& result);

struct DumpedPairSl {
  Guid node;
  std::uint8_t port{0};
  Lid dlid;
  std::uint8_t sl{0};
  std::size_t line{0};  // where it was read, for the errors of pairSlsByNode
};
// Reads pair-sls. A line of another form, an SL above 15 or a DLID that is
// no unicast LID, or a pair listed twice is an error naming file and line.
[[nodiscard]] Result<std::vector<DumpedPairSl>> parsePairSls(std::string_view text,
                                                             std::string_view fileName);
// The pairs as RoutingResult::pairSls of `fabric`, sorted. Fails, naming
// file and line, on a node the fabric lacks or a port it does not have or
// that cannot send (a CA port with no LID, a switch port other than 0).
[[nodiscard]] Result<std::vector<PairSl>> pairSlsByNode(const Fabric& fabric,
                                                        const std::vector<DumpedPairSl>& dumped,
                                                        std::string_view fileName);

// Multicast forwarding tables as `ibroute -M` prints them (infiniband-diags
// ibroute.c), one switch after the other, switches in the order of the LFT
// dump:
//
//   Multicast mlids [0xc000-0xTOP] of switch Lid SWLID guid 0xGUID16 (DESC):
//               0                   1                   2        (when > 9 ports)
//        Ports: 0 1 2 3 4 5 6 7 8 9 0 1 2 ...
//    MLid
//   0xc000      x   x x
//   N valid mlids dumped
//
// where port i's column is 12 + 2*i ('x' when in the mask), TOP is the
// highest MLID of any table (what MulticastFDBTop would be), or the end of
// the switch's MulticastFDBCap when there is none, and only MLIDs with a
// port are listed. The parser also takes `ibroute -M -b` (" MLid  Port
// Mask", then the mask as 4-hex-digit words, ports 0-15 first), the -v
// capability line, and "N mlids dumped" (-a).
struct DumpedMft {
  Guid switchGuid;
  Lid switchLid;  // 0 when the header gives a DR path
  std::string description;
  SwitchMft mft;
};

std::string formatMftDump(const Fabric& fabric, const std::vector<SwitchMft>& mfts);
[[nodiscard]] Result<std::vector<DumpedMft>> parseMftDump(std::string_view text,
                                                          std::string_view fileName);
// The dumped tables by NodeId (MulticastPlan::mfts' layout). Fails on a GUID
// that is not a switch of the fabric or a port the switch does not have.
[[nodiscard]] Result<std::vector<SwitchMft>> mftsByNode(const Fabric& fabric,
                                                        const std::vector<DumpedMft>& dumped);

// The groups file of the dry run: each group on one line (MGID, MLID, PKey,
// Q_Key, MTU and rate codes, SL, scope, TClass, FlowLabel, member count and,
// after '#', what asked for it), then one line per member port, receivers
// as "full", senders as "send-only":
//
//   mgid ff12:401b:ffff::ffff:ffff mlid 0xc000 pkey 0xffff qkey 0x00000b1b mtu 4 rate 3 sl 0 ...
//     0x0002c90300000001 full "host0"[1] (0x0002c90300000001)
struct McGroupListing {
  Gid mgid{};
  Lid mlid;
  McGroupParams params;
  std::vector<McRouteMember> members;
  std::string where;  // what asked for it ("file:line"), may be empty
};
std::string formatMcGroups(const Fabric& fabric, const std::vector<McGroupListing>& groups);
// ff12:401b:ffff::ffff:ffff (RFC 5952, as saquery prints MGIDs).
std::string gidText(const Gid& gid);

}  // namespace ibsm
