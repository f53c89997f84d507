// The seed corpus of SmpFuzz (tests/fuzz/corpus/SmpFuzz/), made by the
// codecs' encoders (encodeSmp, encode(SmInfo), encode(Notice), the trap
// details' encoders) so that the seeds follow the codecs when they change:
// SmpSeedsTest fails when the committed files differ from these, and
// `SmpCorpus tests/fuzz/corpus/SmpFuzz` writes them again. Each seed is a
// rig input (SmpRig.h): the setup byte puts the SM where the MAD means
// something -- a HANDOVER reaches a STANDBY, a STANDBY a NOTACTIVE SM,
// traps a MASTER that forwards them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::fuzz {

struct SmpSeed {
  std::string name;  // the file name in the corpus
  std::vector<std::uint8_t> bytes;
};

std::vector<SmpSeed> smpSeeds();

}  // namespace ibsm::fuzz
