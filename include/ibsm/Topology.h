// Reading a fabric from a file: ibnetdiscover output (infiniband-diags 44,
// including captures from real clusters) and ibsim net files. A net file has
// no GUIDs; nodes get the GUIDs ibsim gives them, so a dry run of a net file
// and a live run on ibsim of the same file name the same ports.
//
//   auto fabric = readTopologyFile("cluster.ibnetdiscover");
//   if (!fabric) die(fabric.error().message);  // "cluster.ibnetdiscover:812: ..."
//
// A file that contradicts itself, a malformed line or an unknown node type
// is an error naming file, line and what was expected; nothing is repaired.
// In particular every cable must appear at both of its ends, and the ends
// must agree: ibnetdiscover prints both ends of every link it found, so a
// one-sided or dangling link means a capture was cut or edited; ibsim
// refuses a one-sided link too.
//
// What each reader fills:
//  - ibnetdiscover: node type, GUIDs, system image GUID, vendor and device
//    id, description, port count, CA/router port GUIDs, LIDs and LMCs (port
//    0 of switches, every cabled CA port), enhanced port 0, link width and
//    speed as printed (an extended speed such as EDR reads as QDR plus the
//    extended code; FDR10 reads as QDR), VLCap when printed (--full). Cabled
//    ports are Active/LinkUp; the others Down, with physical state unknown.
//  - ibsim net files: what ibsim reports before an SM runs, except that
//    cabled ports are Active: GUIDs from ibsim's per-type counters and
//    "switchguid="/"caguid="/"rtguid=" settings, descriptions from the
//    header comment, LIDs from "lid N", enabled widths and speeds from
//    w=/s=/e= and width=/speed=/extspeed=, active rates as the link trains.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <filesystem>
#include <string_view>

namespace ibsm {

enum class TopologyFormat { Ibnetdiscover, IbsimNet };

[[nodiscard]] Result<Fabric> parseIbnetdiscover(std::string_view text, std::string_view fileName);
[[nodiscard]] Result<Fabric> parseNetFile(std::string_view text, std::string_view fileName);

// Tells the format from the content: ibnetdiscover names nodes by type and
// GUID ("S-0002c903004a1b20") and describes them after '#'; net files use
// free names. The first node header decides (ibsim accepts captures as net
// files too, but a capture's own GUIDs are the truth, so it reads as one).
TopologyFormat detectTopologyFormat(std::string_view text);

// Reads, detects and parses; an unreadable file is an error naming it.
[[nodiscard]] Result<Fabric> readTopologyFile(const std::filesystem::path& path);

}  // namespace ibsm
