// atomic_file: a file is complete or absent, and a failure names the file.

#include "runtime/report/atomic_file.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kb {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::string& path, const std::string& data) {
  try {
    write_file_atomically(path, "--json file", data);
  } catch (const output_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(atomic_file, a_committed_file_replaces_the_target_and_leaves_no_temporary) {
  const std::string dir = test::temp_dir("atomic_ok");
  const std::string path = dir + "/r.json";
  {
    std::ofstream old(path);
    old << "old contents that are longer than the new ones";
  }
  write_file_atomically(path, "--json file", "{}\n");
  EXPECT_EQ(read(path), "{}\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST(atomic_file, an_abandoned_file_leaves_neither_target_nor_temporary) {
  const std::string dir = test::temp_dir("atomic_abandon");
  {
    atomic_file f(dir + "/r.json", "--json file");
    f.stream() << "half";
    EXPECT_TRUE(fs::exists(f.temp_path()));
  } // no commit: e.g. an exception while rendering
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(atomic_file, a_full_device_is_an_error_naming_the_file) {
  EXPECT_EQ(error_of("/dev/full", std::string(1 << 16, 'x')),
            "cannot write --json file '/dev/full': No space left on device");
}

TEST(atomic_file, a_missing_directory_is_an_error_naming_the_file) {
  const std::string dir = test::temp_dir("atomic_missing");
  EXPECT_EQ(error_of(dir + "/no/such/r.json", "{}"),
            "cannot write --json file '" + dir + "/no/such/r.json': No such file or directory");
}

TEST(atomic_file, a_directory_as_the_target_is_an_error_naming_it) {
  const std::string dir = test::temp_dir("atomic_dir");
  EXPECT_EQ(error_of(dir, "{}"), "cannot write --json file '" + dir + "': it is a directory");
}

TEST(atomic_file, a_device_that_is_not_a_regular_file_is_written_in_place) {
  write_file_atomically("/dev/null", "--json file", "{}");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

} // namespace
} // namespace kb
