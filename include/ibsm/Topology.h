// Reading a fabric from a file: ibnetdiscover output (infiniband-diags 44,
// including captures from real clusters) and ibsim net files. A net file has
// no GUIDs; nodes get the GUIDs ibsim gives them, so a dry run of a net file
// and a live run on ibsim of the same file name the same ports.
//
// A file that contradicts itself, a malformed line or an unknown node type
// is an error naming file, line and what was expected; nothing is repaired.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <filesystem>
#include <string_view>

namespace ibsm {

enum class TopologyFormat { Ibnetdiscover, IbsimNet };

[[nodiscard]] Result<Fabric> parseIbnetdiscover(std::string_view text, std::string_view fileName);
[[nodiscard]] Result<Fabric> parseNetFile(std::string_view text, std::string_view fileName);

// Tells the format from the content (ibnetdiscover has GUID headers such as
// "switchguid=" / "caguid="; net files do not).
TopologyFormat detectTopologyFormat(std::string_view text);

// Reads, detects and parses; an unreadable file is an error naming it.
[[nodiscard]] Result<Fabric> readTopologyFile(const std::filesystem::path& path);

}  // namespace ibsm
