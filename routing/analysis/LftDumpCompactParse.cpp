// parseCompactLftDump: the compact LFT dump read back, every field checked.
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <zstd.h>

#include <unordered_set>

#include "routing/analysis/CompactLft.h"

namespace ibsm {
namespace {

using namespace compact_lft;

class Reader {
 public:
  Reader(std::string_view file, std::string_view fileName) : file_(file), name_(fileName) {}

  Result<std::vector<DumpedLft>> read() {
    if (file_.size() < kHeaderBytes + kTrailerBytes || !isCompactLftDump(file_))
      return error(0, fmt::format("an ibsm compact LFT dump (magic '\\x89IBSMLFT', {} bytes of "
                                  "header and trailer at least), but the file has {} bytes",
                                  kHeaderBytes + kTrailerBytes, file_.size()));
    const char* h = file_.data();
    const auto version = get<std::uint16_t>(h + 8);
    if (version != kCompactLftVersion)
      return error(8, fmt::format("format version {} (this ibsm reads {}), but it is version {}",
                                  kCompactLftVersion, kCompactLftVersion, version));
    codec_ = get<std::uint16_t>(h + 10);
    if (codec_ != kCodecStored && codec_ != kCodecZstd)
      return error(10, fmt::format("codec 0 (stored) or 1 (zstd), but it is {}", codec_));
    switches_ = get<std::uint32_t>(h + 12);
    if (switches_ > 0xFFFF)  // a subnet has at most 48 Ki unicast LIDs
      return error(12, fmt::format("at most 65535 switches, but the header says {}", switches_));
    const char* t = file_.data() + file_.size() - kTrailerBytes;
    if (std::string_view(t + 16, 8) != kEndMagic)
      return error(file_.size(), fmt::format("'{}' at the end of the file: it is cut short (or "
                                             "not written to the end)",
                                             kEndMagic));
    bodyBytes_ = get<std::uint64_t>(t);
    check_ = get<std::uint64_t>(t + 8);
    // Each record holds at most a 64 KiB description and 64 Ki entries.
    if (bodyBytes_ > std::uint64_t{switches_} * (kRecordHead + 2 * 65536))
      return error(
          file_.size() - kTrailerBytes,
          fmt::format("at most {} bytes of tables for {} switches, but the trailer "
                      "says {}: the file is corrupt",
                      std::uint64_t{switches_} * (kRecordHead + 2 * 65536), switches_, bodyBytes_));
    auto body = this->body();
    if (!body) return std::unexpected(body.error());
    return records(*body);
  }

 private:
  std::unexpected<Error> error(std::uint64_t at, std::string_view expected) const {
    return std::unexpected(Error{fmt::format("{}: at byte {}: expected {}", name_, at, expected)});
  }

  Result<std::string_view> body() {
    const std::string_view stored =
        file_.substr(kHeaderBytes, file_.size() - kHeaderBytes - kTrailerBytes);
    if (codec_ == kCodecStored) {
      if (stored.size() != bodyBytes_)
        return error(kHeaderBytes, fmt::format("{} bytes of tables as the trailer says, but "
                                               "{} are there: the file is corrupt",
                                               bodyBytes_, stored.size()));
      return stored;
    }
    inflated_.resize(bodyBytes_);
    const std::size_t n =
        ZSTD_decompress(inflated_.data(), inflated_.size(), stored.data(), stored.size());
    if (ZSTD_isError(n))
      return error(kHeaderBytes, fmt::format("zstd-compressed tables, but they do not "
                                             "decompress ({}): the file is corrupt",
                                             ZSTD_getErrorName(n)));
    if (n != bodyBytes_)
      return error(kHeaderBytes, fmt::format("{} bytes of tables once decompressed, as the "
                                             "trailer says, but they are {}: the file is corrupt",
                                             bodyBytes_, n));
    return std::string_view(inflated_);
  }

  Result<std::vector<DumpedLft>> records(std::string_view body) {
    std::vector<DumpedLft> out;
    out.reserve(switches_);
    std::unordered_set<std::uint64_t> seen;
    std::uint64_t check = 0;
    std::size_t at = 0;
    // Offsets name the byte of the decompressed tables for zstd.
    for (std::uint32_t s = 0; s < switches_; ++s) {
      if (body.size() - at < kRecordHead)
        return error(kHeaderBytes + at,
                     fmt::format("switch {} of {}, but the tables end: the file is corrupt", s + 1,
                                 switches_));
      const char* r = body.data() + at;
      const auto descLen = get<std::uint16_t>(r + 10);
      const auto entries = get<std::uint32_t>(r + 12);
      if (entries > 65536 || body.size() - at - kRecordHead < std::size_t{descLen} + entries)
        return error(kHeaderBytes + at,
                     fmt::format("switch {} of {} with {} LIDs that the tables hold, but they "
                                 "end first or it is more than 65536: the file is corrupt",
                                 s + 1, switches_, entries));
      const std::size_t size = kRecordHead + descLen + entries;
      check = checksum(body.substr(at, size), check);
      DumpedLft t{.switchGuid = Guid{get<std::uint64_t>(r)},
                  .switchLid = Lid{get<std::uint16_t>(r + 8)},
                  .description = std::string(r + kRecordHead, descLen),
                  .lft = {}};
      const auto* ports = reinterpret_cast<const std::uint8_t*>(r + kRecordHead + descLen);
      t.lft.port.assign(ports, ports + entries);
      if (!seen.insert(t.switchGuid.value).second)
        return error(kHeaderBytes + at,
                     fmt::format("each switch once, but {} is listed again: the file is corrupt",
                                 t.switchGuid));
      out.push_back(std::move(t));
      at += size;
    }
    if (at != body.size())
      return error(kHeaderBytes + at, fmt::format("the end of the tables after {} switches, "
                                                  "but {} bytes follow: the file is corrupt",
                                                  switches_, body.size() - at));
    if (check != check_)
      return error(file_.size() - kTrailerBytes + 8,
                   fmt::format("the checksum 0x{:016x} of the tables, but they give 0x{:016x}: "
                               "the file is corrupt",
                               check_, check));
    return out;
  }

  std::string_view file_;
  std::string_view name_;
  std::uint16_t codec_{0};
  std::uint32_t switches_{0};
  std::uint64_t bodyBytes_{0};
  std::uint64_t check_{0};
  std::string inflated_;
};

}  // namespace

Result<std::vector<DumpedLft>> parseCompactLftDump(std::string_view file,
                                                   std::string_view fileName) {
  return Reader(file, fileName).read();
}

}  // namespace ibsm
