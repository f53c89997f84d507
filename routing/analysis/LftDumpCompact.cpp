// The compact LFT dump (`ibsm route --dump-format compact`; layout in Dumps.h).
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "routing/analysis/CompactLft.h"

namespace ibsm {
namespace {

using namespace compact_lft;

// The records go through `emit` uncompressed, or zstd's stream.
class BodySink {
 public:
  BodySink(const DumpSink& sink, int level) : sink_(sink) {
    if (level <= 0) return;
    cctx_.reset(ZSTD_createCCtx());
    ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);
    out_.resize(std::max<std::size_t>(ZSTD_CStreamOutSize(), std::size_t{1} << 20));
  }
  void write(std::string_view bytes) { stream(bytes, ZSTD_e_continue); }
  void finish() { stream({}, ZSTD_e_end); }

 private:
  struct FreeCctx {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  void stream(std::string_view bytes, ZSTD_EndDirective mode) {
    if (!cctx_) {
      if (!bytes.empty()) sink_(bytes);
      return;
    }
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    for (;;) {
      ZSTD_outBuffer o{out_.data(), out_.size(), 0};
      const std::size_t left = ZSTD_compressStream2(cctx_.get(), &o, &in, mode);
      if (ZSTD_isError(left))  // only on misuse or allocation failure
        throw std::runtime_error(fmt::format("zstd: {}", ZSTD_getErrorName(left)));
      if (o.pos > 0) sink_(std::string_view(out_.data(), o.pos));
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) return;
    }
  }
  const DumpSink& sink_;
  std::unique_ptr<ZSTD_CCtx, FreeCctx> cctx_;
  std::string out_;
};

}  // namespace

bool isCompactLftDump(std::string_view head) {
  return head.starts_with(kCompactLftMagic);
}

void writeCompactLftDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink,
                         int zstdLevel) {
  const LidIndex lids(fabric);
  const unsigned maxLid = lids.maxLid().value;
  std::vector<NodeId> switches = fabric.switches();
  std::ranges::sort(switches, {},
                    [&](NodeId id) { return std::byteswap(fabric.node(id).guid.value); });

  std::string head(kCompactLftMagic);
  put<std::uint16_t>(head, kCompactLftVersion);
  put<std::uint16_t>(head, zstdLevel > 0 ? kCodecZstd : kCodecStored);
  put<std::uint32_t>(head, static_cast<std::uint32_t>(switches.size()));
  put<std::uint32_t>(head, maxLid);
  put<std::uint32_t>(head, 0);
  sink(head);

  BodySink body(sink, zstdLevel);
  std::uint64_t bytes = 0, check = 0;
  std::string record;
  for (const NodeId id : switches) {
    const Node& sw = fabric.node(id);
    const std::string_view desc =
        std::string_view(sw.description).substr(0, std::numeric_limits<std::uint16_t>::max());
    record.clear();
    put<std::uint64_t>(record, sw.guid.value);
    put<std::uint16_t>(record, sw.ports[0].lid.value);
    put<std::uint16_t>(record, static_cast<std::uint16_t>(desc.size()));
    put<std::uint32_t>(record, maxLid + 1);
    record.append(desc);
    // As the OpenSM form lists them: kNoRoute past the table or for a port
    // the switch does not have.
    const std::size_t at = record.size();
    record.resize(at + maxLid + 1, static_cast<char>(kNoRoute));
    if (id < result.lfts.size()) {
      const auto& port = result.lfts[id].port;
      const std::size_t n = std::min<std::size_t>(port.size(), maxLid + 1);
      const unsigned top = sw.numPorts();
      for (std::size_t l = 0; l < n; ++l)
        record[at + l] = static_cast<char>(port[l] <= top ? port[l] : kNoRoute);
    }
    check = checksum(record, check);
    bytes += record.size();
    body.write(record);
  }
  body.finish();
  std::string tail;
  put<std::uint64_t>(tail, bytes);
  put<std::uint64_t>(tail, check);
  tail.append(kEndMagic);
  sink(tail);
}

std::string formatCompactLftDump(const Fabric& fabric, const RoutingResult& result, int zstdLevel) {
  std::string out;
  writeCompactLftDump(
      fabric, result, [&](std::string_view chunk) { out += chunk; }, zstdLevel);
  return out;
}

}  // namespace ibsm
