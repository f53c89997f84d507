// The names `ibsm status` gives SA attributes, methods and statuses (as
// saquery and the IBA spell them), so an operator reads "PathRecord", not
// 0x0035. An id with no name is printed in hex.
#pragma once

#include <cstdint>
#include <string>

namespace ibsm::sm::sa {

std::string attributeName(std::uint16_t attributeId);
std::string methodName(std::uint8_t method);
std::string statusName(std::uint16_t status);

}  // namespace ibsm::sm::sa
