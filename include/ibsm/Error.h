// One error type for results that can fail. Operator-facing errors about
// input files carry file and line, so the message alone says where to look.
#pragma once

#include <fmt/format.h>

#include <expected>
#include <string>

namespace ibsm {

struct Error {
  std::string message;

  // "file:line: what was expected" -- the form compilers use, so editors jump to it.
  static Error at(std::string_view file, std::size_t line, std::string_view what) {
    return Error{fmt::format("{}:{}: {}", file, line, what)};
  }
};

template <typename T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected(Error{std::move(message)});
}

}  // namespace ibsm
