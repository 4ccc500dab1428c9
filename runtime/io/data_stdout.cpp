#include "runtime/io/data_stdout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace kb::data_stdout {
namespace {
int saved = -1;
} // namespace

void claim() {
  if (saved >= 0)
    return;
  std::cout.flush();
  std::fflush(stdout);
  saved = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved < 0)
    return; // no descriptor left: the data shares standard output with the text
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

int fd() { return saved >= 0 ? saved : STDOUT_FILENO; }

} // namespace kb::data_stdout
