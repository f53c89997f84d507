// A value per member of an enum whose members count from 0 (TableKind,
// SweepKind...): counters by kind as one array indexed by the enum, so a
// kind added to the enum has its counter, its name and its line in every
// output without another field to add by hand.
//
//   PerKind<TableKind, TableCounts, kTableKinds> tables{};
//   tables[TableKind::Lft].written += 4;
#pragma once

#include <array>
#include <cstddef>

namespace ibsm {

template <typename Kind, typename T, std::size_t N>
struct PerKind {
  std::array<T, N> values{};
  T& operator[](Kind k) { return values[static_cast<std::size_t>(k)]; }
  const T& operator[](Kind k) const { return values[static_cast<std::size_t>(k)]; }
  friend bool operator==(const PerKind&, const PerKind&) = default;
};

}  // namespace ibsm
