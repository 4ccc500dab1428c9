#pragma once
// The command line of a run of tests/cli/kernel_libs/misuse_kernels.cpp's
// kernel, shared by the tests of misbehaving kernels.

#include "tests/cli/cli_support.hpp"

#include <string>

namespace kb::test {

/// 2 SIPs x 2 cubes x 4 PEs: the last of 16 programs runs on
/// sip1.cube1.pe3 (which --procs 2 puts in the second process) and
/// misbehaves as `how` says; `more`: further options.
inline std::string misuse_run(const std::string& how, const std::string& more = "") {
  return "run --quiet --topology " + source_dir() +
         "/config/scale/2sip_2cube_4pe.yaml --kernel-lib " KB_TEST_KERNELS_misuse
         " --kernel misuse --arg programs=16 --arg how=" +
         how + " " + more;
}

} // namespace kb::test
