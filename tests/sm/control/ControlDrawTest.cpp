// The "draw" request of the control socket: answered from the source the
// daemon provides, an error without one; `ibsm draw` (no --topology) writes
// the answer to its -o file, and nothing when the daemon answers an error.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include "sm/control/ControlServer.h"

namespace ibsm::sm::control {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ControlDraw : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-draw-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ / "ibsm.sock";
  }
  void TearDown() override { fs::remove_all(dir_); }

  template <typename F>
  auto serveWhile(ControlServer& server, F ask) {
    auto answer = std::async(std::launch::async, ask);
    while (answer.wait_for(5ms) != std::future_status::ready)
      server.serve([] { return DaemonStatus{}; }, [](SweepAsk) {});
    return answer.get();
  }
  int ibsmDraw(const fs::path& out) const {
    const std::string cmd = fmt::format("{} draw --socket {} -o {} >/dev/null 2>&1", IBSM_BINARY,
                                        path_.string(), out.string());
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  fs::path dir_, path_;
};

TEST_F(ControlDraw, AnswersTheProvidedDrawingAndIbsmDrawWritesIt) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n";
  (*server)->provideDrawing([&] { return svg; });
  const auto answer = serveWhile(**server, [&] { return request(path_, "draw"); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(*answer, svg);
  const fs::path out = dir_ / "fabric.svg";
  EXPECT_EQ(serveWhile(**server, [&] { return ibsmDraw(out); }), 0);
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), svg);
}

TEST_F(ControlDraw, WithoutASourceOrASweepItIsAnErrorAndNothingIsWritten) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  const auto answer = serveWhile(**server, [&] { return request(path_, "draw"); });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->rfind("error: ", 0), 0u) << *answer;
  (*server)->provideDrawing([] { return std::string("error: no sweep yet\n"); });
  const fs::path out = dir_ / "fabric.svg";
  EXPECT_EQ(serveWhile(**server, [&] { return ibsmDraw(out); }), 1);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ControlDraw, ALargeDrawingArrivesWholeOrNotAtAll) {
  auto server = ControlServer::listen(path_);
  ASSERT_TRUE(server);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\">\n";
  while (svg.size() < 3'000'000) svg += "<line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10\"/>\n";
  svg += "</svg>\n";
  (*server)->provideDrawing([&] { return svg; });
  const fs::path out = dir_ / "fabric.svg";
  const int status = serveWhile(**server, [&] { return ibsmDraw(out); });
  if (status == 0) {
    std::ifstream in(out);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), svg);
  } else {
    EXPECT_EQ(status, 2);
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace ibsm::sm::control
