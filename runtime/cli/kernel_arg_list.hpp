#pragma once
// The KEY=VALUE lists of `run --arg` and `run --input`/`--place` (the
// values are read by the kernel's declared arguments, kernels/registry.hpp).
// Its own file pair so that the fuzz target (tests/fuzz/fuzz_kernel_args)
// builds it without the CLI.

#include <map>
#include <string>
#include <vector>

namespace kb {

/// KEY=VALUE pairs (a missing '=', an empty key or a repeated key is
/// std::invalid_argument naming it).
std::map<std::string, std::string> parse_kernel_args(const std::vector<std::string>& args,
                                                     const std::string& option = "--arg");

} // namespace kb
