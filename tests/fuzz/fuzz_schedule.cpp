// Fuzz target: the schedule problem reader (JSON or YAML -> sched::problem).
// Any input must end in a problem, a kb::config_error or a
// sched::problem_error.

#include "runtime/config/config_error.hpp"
#include "runtime/schedule/problem.hpp"
#include "runtime/schedule/problem_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)kb::sched::read_problem_text(text, "fuzz.json");
  } catch (const kb::config_error&) {
  } catch (const kb::sched::problem_error&) {
  }
  return 0;
}
