// A private directory per test (mkdtemp: 0700, as a state directory should
// be) for the tests that read and write secret files. Removed with the fixture.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ibsm::security::testing {

class SecretDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (std::filesystem::temp_directory_path() / "ibsm-secret-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `bytes` to `name` with `mode`, as an operator's file would be.
  std::filesystem::path write(const std::string& name, const std::string& bytes,
                              mode_t mode = 0600) const {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    ::chmod(p.c_str(), mode);
    return p;
  }
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }
  const std::filesystem::path& dir() const { return dir_; }

  static mode_t modeOf(const std::filesystem::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
  }
  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace ibsm::security::testing
