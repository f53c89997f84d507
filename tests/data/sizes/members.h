// Fixture of tests/scripts/check-sizes-test.py: a class of 26 data members
// spread over access sections, among what is not a data member; and a struct
// of exactly 25.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fixture {

class TooMany {
 public:
  using Id = std::uint32_t;
  typedef std::vector<int> List;
  enum class Kind { kOne, kTwo };
  struct Nested {
    int nestedA{};  // the nested struct's own, not TooMany's
    int nestedB{};
  };
  static constexpr int kStatic = 3;
  static int counter;
  friend class Friend;
  TooMany() = default;
  explicit TooMany(int a) : a_(a), b_{a} {}
  ~TooMany();
  bool operator==(const TooMany&) const = default;
  [[nodiscard]] int a() const { return a_; }
  virtual void hook(int how) = 0;
  template <typename T>
  void each(T fn);
  static_assert(sizeof(int) == 4, "{ braces in a string }");

  int a_;  // 1
  int b_;  // 2
  std::map<int, std::vector<int>> byKey;  // 3
  std::function<void(int, int)> callback;  // 4
  std::array<std::uint8_t, (2 + 2)> bytes{};  // 5

 protected:
  int c_ = 3, d_ = 4;  // 6, 7
  const char* name_ = "x;y";  // 8
  void (*handler_)(int) = nullptr;  // 9
  std::unique_ptr<Nested> nested_;  // 10
  Kind kind_{Kind::kOne};  // 11
  [[no_unique_address]] Id id_{};  // 12
  mutable bool cached_{false};  // 13
  std::uint8_t flag1_ : 1;  // 14
  std::uint8_t flag2_ : 1;  // 15
  struct {
    int x, y;
  } point_;  // 16

 private:
  std::function<int(int)> twice_ = [](int x) {
    return 2 * x;
  };  // 17
  std::vector<std::string> names_{"a", "b"};  // 18
  int e_;  // 19
  int f_;  // 20
  int g_;  // 21
  int h_;  // 22
  int i_;  // 23
  int j_;  // 24
  int k_;  // 25
  int l_;  // 26
};

struct JustEnough {
  int m01, m02, m03, m04, m05, m06, m07, m08, m09, m10;
  int m11, m12, m13, m14, m15, m16, m17, m18, m19, m20;
  int m21, m22, m23, m24, m25;
  static int notCounted;
  void method();
};

}  // namespace fixture
