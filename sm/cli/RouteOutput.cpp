#include "sm/cli/RouteOutput.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMarkText =
    "This directory holds the output of `ibsm route`: a later `ibsm route --out` into it\n"
    "replaces its files.\n";

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
  return text;
}

// mkdir, not create_directories: a directory that exists is never taken.
Result<fs::path> makeNew() {
  const std::string base = "ibsm-route-" + timestamp();
  for (int n = 1; n < 100; ++n) {
    fs::path path = n == 1 ? fs::path(base) : fs::path(fmt::format("{}-{}", base, n));
    if (::mkdir(path.c_str(), 0777) == 0) return path;
    if (errno != EEXIST)
      return fail(fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno)));
  }
  return fail(fmt::format("{}: 99 directories of that name exist already; give --out", base));
}

}  // namespace

Result<OutputDir> checkOutputDir(const std::optional<fs::path>& asked, bool force) {
  if (!asked) return OutputDir{};
  OutputDir dir{.path = *asked, .mark = true};
  std::error_code ec;
  if (!fs::is_directory(*asked, ec) || fs::exists(*asked / kRouteMark, ec)) return dir;
  for (const char* name : kRouteOutputs) {
    if (!fs::exists(*asked / name, ec)) continue;
    if (force) return OutputDir{.path = *asked, .mark = false};
    return fail(fmt::format(
        "{}: exists and was not written by ibsm route (the directory has no {}): refusing to "
        "replace it; give another --out, or --force to replace it",
        (*asked / name).string(), kRouteMark));
  }
  return dir;
}

Result<fs::path> makeOutputDir(const OutputDir& dir) {
  fs::path path = dir.path;
  if (path.empty()) {
    auto made = makeNew();
    if (!made) return made;
    path = std::move(*made);
  } else {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return fail(fmt::format("{}: cannot create: {}", path.string(), ec.message()));
  }
  if (!dir.mark) return path;
  if (auto ok = files::writeFileAtomically(path / kRouteMark, kMarkText); !ok)
    return std::unexpected(ok.error());
  return path;
}

}  // namespace ibsm::sm::cli
