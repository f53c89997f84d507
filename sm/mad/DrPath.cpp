#include <fmt/format.h>
#include <ibsm/MadPath.h>

#include <charconv>

namespace ibsm {

Result<DrPath> DrPath::fromPorts(std::span<const std::uint8_t> ports) {
  if (ports.size() > kMaxHops) {
    return fail(
        fmt::format("directed route of {} hops: at most {} are possible", ports.size(), kMaxHops));
  }
  DrPath p;
  for (std::size_t i = 0; i < ports.size(); ++i) p.path_[i + 1] = ports[i];
  p.hops_ = static_cast<std::uint8_t>(ports.size());
  return p;
}

Result<DrPath> DrPath::parse(std::string_view text) {
  std::vector<std::uint8_t> ports;
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || value > 255) {
      return fail(fmt::format(
          "directed route \"{}\": expected port numbers 0..255 separated by ','", text));
    }
    // The leading 0 names the SM's own port, as smpquery -D writes it.
    if (!(first && value == 0)) ports.push_back(static_cast<std::uint8_t>(value));
    first = false;
    start = comma + 1;
  }
  return fromPorts(ports);
}

Result<DrPath> DrPath::extended(std::uint8_t port) const {
  if (hops_ >= kMaxHops) {
    return fail(fmt::format("directed route {} cannot be extended: it has {} hops already",
                            toString(), kMaxHops));
  }
  DrPath p = *this;
  p.path_[++p.hops_] = port;
  return p;
}

std::string DrPath::toString() const {
  std::string s = "0";
  for (auto port : ports()) fmt::format_to(std::back_inserter(s), ",{}", port);
  return s;
}

}  // namespace ibsm
