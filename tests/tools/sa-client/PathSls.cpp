// sa-client pathsls --lids FILE [--window W] [--timeout-ms T] [--retries R]:
// the SL the SA answers for every ordered pair of the LIDs in FILE (one a
// line), one PathRecord Get per pair by SLID and DLID, W outstanding. Prints
// "path SLID DLID SL" for each answer and "nopath SLID DLID STATUS" for an
// error status (NO_RECORDS: the SA knows no path), so a routing judge can
// give each pair the SL its engine chose (OpenSM's dfsssp, lash and nue
// spread pairs over SLs; the SA's answer is what a host would use). A pair
// left unanswered after R retries is "timeout SLID DLID". Exit 0 when every
// pair was answered (with a path or an error), 1 otherwise.
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ClientCommon.h"
#include "SaPort.h"

namespace ibsm::test::sa {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint8_t kGet = 0x01;
constexpr std::uint16_t kPathRecord = 0x0035;
// PathRecord (IBA 15.2.5.16): DLID at byte 40 (mask bit 4), SLID at 42 (bit
// 5), NumbPath at 49 (bit 12); SL the low 4 bits of byte 53.
constexpr std::uint64_t kPrDlid = 1 << 4, kPrSlid = 1 << 5, kPrNumbPath = 1 << 12;

struct Pending {
  std::uint16_t slid, dlid;
  int attempts;
  Clock::time_point sentAt;
};

std::vector<std::uint16_t> readLids(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument("pathsls: cannot read --lids " + file);
  std::vector<std::uint16_t> lids;
  for (std::string word; in >> word;)
    lids.push_back(static_cast<std::uint16_t>(std::stoul(word, nullptr, 0)));
  if (lids.empty()) throw std::invalid_argument("pathsls: --lids " + file + " holds no LID");
  return lids;
}

}  // namespace

int pathSls(SaPort& port, const Args& args) {
  const auto lids = readLids(args.get("lids"));
  const std::size_t window = args.number("window", 16);
  const auto timeout = std::chrono::milliseconds(args.number("timeout-ms", 1000));
  const int retries = static_cast<int>(args.number("retries", 3));
  std::deque<std::pair<std::uint16_t, std::uint16_t>> todo;
  for (auto s : lids)
    for (auto d : lids)
      if (s != d) todo.emplace_back(s, d);
  std::unordered_map<std::uint32_t, Pending> inFlight;
  std::size_t unanswered = 0;
  auto send = [&](std::uint16_t slid, std::uint16_t dlid, int attempts) {
    SaMad mad = SaMad::request(kGet, kPathRecord, kPrDlid | kPrSlid | kPrNumbPath, nextTid());
    Bytes r = mad.data();
    r.put16(40, dlid);
    r.put16(42, slid);
    r.put8(49, 1);
    inFlight[static_cast<std::uint32_t>(mad.tid())] = Pending{slid, dlid, attempts, Clock::now()};
    port.send(mad, static_cast<int>(timeout.count()));
  };
  while (!todo.empty() || !inFlight.empty()) {
    while (!todo.empty() && inFlight.size() < window) {
      send(todo.front().first, todo.front().second, 1);
      todo.pop_front();
    }
    if (auto got = port.receive(10); got && (got->method() & 0x80)) {
      auto it = inFlight.find(static_cast<std::uint32_t>(got->tid()));
      if (it != inFlight.end()) {
        const Pending p = it->second;
        inFlight.erase(it);
        if (got->status() == 0)
          std::printf("path %u %u %u\n", p.slid, p.dlid, got->data().get8(53) & 0x0f);
        else
          std::printf("nopath %u %u %s\n", p.slid, p.dlid, statusName(got->status()).c_str());
      }
    }
    const auto now = Clock::now();
    std::vector<Pending> late;
    std::erase_if(inFlight, [&](const auto& kv) {
      if (now - kv.second.sentAt <= timeout) return false;
      late.push_back(kv.second);
      return true;
    });
    for (const Pending& p : late) {
      if (p.attempts <= retries) {
        send(p.slid, p.dlid, p.attempts + 1);
      } else {
        std::printf("timeout %u %u\n", p.slid, p.dlid);
        ++unanswered;
      }
    }
  }
  std::fflush(stdout);
  return unanswered == 0 ? 0 : 1;
}

}  // namespace ibsm::test::sa
