// atomic_file: a file is complete or absent, and a failure names the file.

#include "runtime/io/atomic_file.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

/// What `body` throws as output_error, run in a child process whose files
/// may not grow past `max_bytes` (RLIMIT_FSIZE, SIGXFSZ ignored): a full
/// disk without a device. "(no error)" when it throws none.
template <class F>
std::string error_in_child(rlim_t max_bytes, F body) {
  int fds[2];
  if (::pipe(fds) != 0)
    return "(pipe failed)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
    const rlimit lim{max_bytes, max_bytes};
    std::string msg = "(no error)";
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0)
      msg = "(setrlimit failed)";
    else
      try {
        body();
      } catch (const output_error& e) {
        msg = e.what();
      }
    [[maybe_unused]] const auto n = ::write(fds[1], msg.data(), msg.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    msg.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return msg;
}

TEST(atomic_file, a_full_disk_is_an_error_naming_the_file_and_leaves_nothing) {
  const std::string dir = test::temp_dir("atomic_full");
  const std::string path = dir + "/r.json";
  const auto write = [&] { write_file_atomically(path, "--json file", std::string(1 << 16, 'x')); };
  EXPECT_EQ(error_in_child(4096, write), "cannot write --json file '" + path + "': File too large");
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(atomic_file, a_full_disk_keeps_the_old_file) {
  const std::string dir = test::temp_dir("atomic_full_old");
  const std::string path = dir + "/r.json";
  std::ofstream(path) << "old";
  const auto write = [&] { write_file_atomically(path, "--json file", std::string(1 << 16, 'x')); };
  EXPECT_EQ(error_in_child(4096, write), "cannot write --json file '" + path + "': File too large");
  EXPECT_EQ(read(path), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
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

TEST(atomic_file, a_link_stays_and_its_target_gets_the_content) {
  const std::string dir = test::temp_dir("atomic_link");
  fs::create_directory(dir + "/real");
  std::ofstream(dir + "/real/r.json") << "old contents, longer than the new ones";
  fs::permissions(dir + "/real/r.json", fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink("real/r.json", dir + "/hop");    // relative
  fs::create_symlink(dir + "/hop", dir + "/r.json"); // absolute, to a link
  write_file_atomically(dir + "/r.json", "--json file", "{}\n");
  ASSERT_TRUE(fs::is_symlink(dir + "/r.json"));
  EXPECT_EQ(fs::read_symlink(dir + "/r.json"), dir + "/hop");
  ASSERT_TRUE(fs::is_symlink(dir + "/hop"));
  EXPECT_EQ(read(dir + "/real/r.json"), "{}\n");
  EXPECT_EQ(fs::status(dir + "/real/r.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 3);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/real"), fs::directory_iterator{}), 1);
}

TEST(atomic_file, a_dangling_link_gets_its_target_created) {
  const std::string dir = test::temp_dir("atomic_dangling");
  fs::create_directory(dir + "/out");
  fs::create_symlink("out/r.json", dir + "/r.json");
  write_file_atomically(dir + "/r.json", "--json file", "{}\n");
  EXPECT_TRUE(fs::is_symlink(dir + "/r.json"));
  EXPECT_EQ(read(dir + "/out/r.json"), "{}\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/out"), fs::directory_iterator{}), 1);
}

TEST(atomic_file, a_dangling_link_into_a_missing_directory_is_an_error_naming_both) {
  const std::string dir = test::temp_dir("atomic_dangling_dir");
  fs::create_symlink("gone/r.json", dir + "/r.json");
  EXPECT_EQ(error_of(dir + "/r.json", "{}"),
            "cannot write --json file '" + dir + "/r.json': it is a link to '" + dir +
              "/gone/r.json', whose directory does not exist");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST(atomic_file, a_link_loop_is_an_error_naming_the_file) {
  const std::string dir = test::temp_dir("atomic_loop");
  fs::create_symlink("b", dir + "/a");
  fs::create_symlink("a", dir + "/b");
  EXPECT_EQ(error_of(dir + "/a", "{}"), "cannot write --json file '" + dir +
                                          "/a': Too many levels of symbolic links");
}

TEST(atomic_file, a_fifo_is_streamed_in_place) {
  const std::string dir = test::temp_dir("atomic_fifo");
  const std::string fifo = dir + "/f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  // More than the buffer: the reader sees bytes before commit().
  const std::string data(1 << 20, 'x');
  write_file_atomically(fifo, "--csv file", data);
  reader.join();
  EXPECT_EQ(got, data);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST(atomic_file, a_failed_write_in_place_drops_the_rest_and_names_the_file) {
  const std::string dir = test::temp_dir("atomic_fifo_broken");
  const std::string fifo = dir + "/f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader goes away at once: every write after the first fails with
  // EPIPE, and 1 GiB more costs neither memory nor time.
  EXPECT_EQ(error_in_child(RLIM_INFINITY,
                           [&] {
                             const int r = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
                             atomic_file f(fifo, "--csv file");
                             ::close(r);
                             const std::string chunk(1 << 20, 'x');
                             for (int i = 0; i < 1024; ++i)
                               f.stream() << chunk;
                             f.commit();
                           }),
            "cannot write --csv file '" + fifo + "': Broken pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

} // namespace
} // namespace kb
