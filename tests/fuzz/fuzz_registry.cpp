// Fuzz target: the component registry loader (YAML text -> impl_registry).
// Any input must end in a registry or a kb::config_error.

#include "runtime/config/impl_registry.hpp"
#include "runtime/config/yaml_source.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)kb::parse_impl_registry(kb::load_yaml_text(text, "fuzz.yaml"), "fuzz.yaml");
  } catch (const kb::config_error&) {
  }
  return 0;
}
