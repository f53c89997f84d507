// Fixture of tests/scripts/check-sizes-test.py: a struct whose inline methods
// are functions, with two data members.
#pragma once

#include <cstdint>
#include <vector>

namespace fixture {

struct WithMethods {
  std::uint32_t value{};
  std::vector<int> list;

  WithMethods() : value{1}, list{1, 2, 3} {
    list.push_back(4);
  }
  [[nodiscard]] bool empty() const noexcept { return list.empty(); }
  int& operator[](std::size_t k) {
    return list[k];
  }
  auto sum() const -> int {
    int total = 0;
    for (int v : list) total += v;
    return total;
  }
  struct Inner {
    int depth = 0;
    int deeper() const {
      return depth + 1;
    }
  };
};

}  // namespace fixture
