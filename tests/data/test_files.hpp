#pragma once
// A fresh path in the test temp directory, removed when the holder goes.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace kb::test {

class temp_file {
public:
  explicit temp_file(const std::string& name)
    : path_(std::filesystem::path(::testing::TempDir()) /
            ("kb_data_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove(path_);
  }
  ~temp_file() { std::filesystem::remove(path_); }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  std::string str() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

} // namespace kb::test
