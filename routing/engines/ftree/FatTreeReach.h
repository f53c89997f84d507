// Which switch can reach which by the fat tree's rules, as bit rows, so the
// engine answers "is d under a?" and "has s a legal path to d?" with one bit
// test in its inner loops (a 1620-switch tree needs 2 x 330 KB).
//
//   const auto reach = FatTreeReach(layout);
//   if (reach.under(parent, leaf)) ...      // a down path from parent reaches leaf
//   if (reach.legal(s, d)) ...              // some up*-then-down* path leads from s to d
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"

namespace ibsm::routing::ftree {

class BitRows {
 public:
  BitRows(std::size_t rows, std::size_t columns)
      : columns_(columns), words_((columns + 63) / 64), bits_(rows * words_, 0) {}
  std::size_t columns() const { return columns_; }
  bool test(std::size_t row, std::size_t column) const {
    return (bits_[row * words_ + column / 64] >> (column % 64)) & 1u;
  }
  const std::uint64_t* row(std::size_t r) const { return bits_.data() + r * words_; }
  static bool test(const std::uint64_t* row, std::size_t column) {
    return (row[column / 64] >> (column % 64)) & 1u;
  }
  void set(std::size_t row, std::size_t column) {
    bits_[row * words_ + column / 64] |= std::uint64_t{1} << (column % 64);
  }
  // Row `into` |= row `from` of `source` (a matrix of the same width).
  void orRow(std::size_t into, const BitRows& source, std::size_t from) {
    for (std::size_t w = 0; w < words_; ++w)
      bits_[into * words_ + w] |= source.bits_[from * words_ + w];
  }

 private:
  std::size_t columns_;
  std::size_t words_;
  std::vector<std::uint64_t> bits_;
};

class FatTreeReach {
 public:
  explicit FatTreeReach(const FatTreeLayout& layout);

  // d is a or lies below a (a chain of down cables leads from a to d).
  bool under(SwitchIndex a, SwitchIndex d) const { return below_.test(a, d); }
  // s has an ancestor (or is one) above d: an up*-then-down* path exists.
  bool legal(SwitchIndex s, SwitchIndex d) const { return reach_.test(s, d); }
  // The switches a with under(a, d), as one row: test with BitRows::test.
  const std::uint64_t* above(SwitchIndex d) const { return above_.row(d); }
  // The switches d with under(a, d), as one row.
  const std::uint64_t* below(SwitchIndex a) const { return below_.row(a); }
  std::size_t words() const { return (below_.columns() + 63) / 64; }
  // The switches s with legal(s, d), as one row. legal() is symmetric (s and
  // d have a common ancestor), so this is d's own row: a pass over every s
  // toward one d reads it in order rather than one cache line per s.
  const std::uint64_t* legalWith(SwitchIndex d) const { return reach_.row(d); }

 private:
  BitRows below_;
  BitRows above_;  // the transpose of below_
  BitRows reach_;
};

inline constexpr std::uint16_t kFar = 0xFFFF;

// Switch hops of the shortest up*-then-down* path from every switch to
// `target`; kFar where no such path exists.
void legalDistances(const FatTreeLayout& layout, const FatTreeReach& reach, SwitchIndex target,
                    std::vector<std::uint16_t>& dist);

// Every top lies above every leaf, and the switches of a level all have as
// many up cables and as many down cables as each other: the shape on which
// D-mod-K routing is contention-free.
bool completeAndRegular(const FatTreeLayout& layout, const FatTreeReach& reach);

// Every switch of level h lies above every CA-bearing leaf of its connected
// part of the levels up to h (k-ary n-trees, 3-level pods, any 2-level
// tree). Then a shortest climb meets the destination at the lowest level it
// can, which is what makes D-mod-K routes legal in the hub order without a
// check per destination.
bool nestedLevels(const FatTreeLayout& layout, const FatTreeReach& reach);

}  // namespace ibsm::routing::ftree
