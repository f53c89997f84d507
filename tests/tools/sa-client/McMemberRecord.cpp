#include "McMemberRecord.h"

#include <arpa/inet.h>

#include <cstring>

namespace ibsm::test::sa {

std::optional<Gid> parseGid(const std::string& text) {
  Gid gid{};
  if (text == "0") return gid;
  if (inet_pton(AF_INET6, text.c_str(), gid.data()) != 1) return std::nullopt;
  return gid;
}

std::string formatGid(const Gid& gid) {
  char text[INET6_ADDRSTRLEN];
  if (inet_ntop(AF_INET6, gid.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

Gid makeGid(std::uint64_t prefix, std::uint64_t guid) {
  Gid gid{};
  Bytes b{gid.data()};
  b.put64(0, prefix);
  b.put64(8, guid);
  return gid;
}

std::uint64_t gidGuid(const Gid& gid) {
  return Bytes{const_cast<std::uint8_t*>(gid.data())}.get64(8);
}

void McMemberRecord::encode(Bytes r) const {
  std::memcpy(r.p + 0, mgid.data(), 16);
  std::memcpy(r.p + 16, portGid.data(), 16);
  r.put32(32, qkey);
  r.put16(36, mlid);
  r.put8(38, static_cast<std::uint8_t>(mtuSelector << 6 | (mtu & 0x3f)));
  r.put8(39, tclass);
  r.put16(40, pkey);
  r.put8(42, static_cast<std::uint8_t>(rateSelector << 6 | (rate & 0x3f)));
  r.put8(43, static_cast<std::uint8_t>(packetLifeTimeSelector << 6 | (packetLifeTime & 0x3f)));
  r.put32(44, std::uint32_t{sl} << 28 | (flowLabel & 0xfffff) << 8 | hopLimit);
  r.put8(48, static_cast<std::uint8_t>(scope << 4 | (joinState & 0xf)));
  r.put8(49, proxyJoin ? 0x80 : 0);
}

McMemberRecord McMemberRecord::decode(Bytes r) {
  McMemberRecord m;
  std::memcpy(m.mgid.data(), r.p + 0, 16);
  std::memcpy(m.portGid.data(), r.p + 16, 16);
  m.qkey = r.get32(32);
  m.mlid = r.get16(36);
  m.mtuSelector = r.get8(38) >> 6;
  m.mtu = r.get8(38) & 0x3f;
  m.tclass = r.get8(39);
  m.pkey = r.get16(40);
  m.rateSelector = r.get8(42) >> 6;
  m.rate = r.get8(42) & 0x3f;
  m.packetLifeTimeSelector = r.get8(43) >> 6;
  m.packetLifeTime = r.get8(43) & 0x3f;
  const std::uint32_t slFlowHop = r.get32(44);
  m.sl = static_cast<std::uint8_t>(slFlowHop >> 28);
  m.flowLabel = (slFlowHop >> 8) & 0xfffff;
  m.hopLimit = static_cast<std::uint8_t>(slFlowHop);
  m.scope = r.get8(48) >> 4;
  m.joinState = r.get8(48) & 0xf;
  m.proxyJoin = (r.get8(49) & 0x80) != 0;
  return m;
}

}  // namespace ibsm::test::sa
