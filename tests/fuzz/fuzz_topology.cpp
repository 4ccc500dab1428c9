// Fuzz target: the topology loader (YAML text -> topology_spec) with the
// default implementations (the config tests' catalog).
// Any input must end in a topology or a kb::config_error.

#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kb::impl_catalog kinds = kb::test::test_catalog();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)kb::parse_topology(kb::load_yaml_text(text, "fuzz.yaml"), "fuzz.yaml", kinds);
  } catch (const kb::config_error&) {
  }
  return 0;
}
