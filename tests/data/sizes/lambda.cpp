// Fixture of tests/scripts/check-sizes-test.py: lambdas are functions of their
// own and lines of the function that holds them.
#include <algorithm>
#include <functional>
#include <vector>

namespace fixture {

const auto kTwice = [](int x) { return 2 * x; };

int holder(std::vector<int>& values) {
  auto step = [&values](int k) mutable -> int {
    values.push_back(k);
    return k;
  };
  std::sort(values.begin(), values.end(), [](int a, int b) {
    return a < b;
  });
  std::function<void()> nothing = [] {
  };
  int sum = 0;
  for (int v : values) {
    sum += step(v) + values[v % 2];
  }
  return sum;
}

}  // namespace fixture
