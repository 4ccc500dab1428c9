#pragma once
// What the host node issues in a program run (kernels/program.hpp,
// docs/adr/0043-host-programs.md): the program's launches in launch order,
// each with the launches it waits for and the M_CPUs of the cubes its PEs
// are in. Built by the program runner (runtime/host/program_run); the PEs'
// own parts are their pe_program's `launches`.

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

struct host_launch {
  std::string kernel;          ///< for the report and errors
  std::string queue;           ///< the queue's name
  std::vector<uint32_t> after; ///< launches that complete before it is issued (ascending)
  std::vector<std::string> m_cpus; ///< its cubes' M_CPUs (node names), in node order
};

struct host_plan {
  std::string program;
  std::vector<host_launch> launches;
};

} // namespace kb
