#include "runtime/config/yaml_source.hpp"

#include <fstream>
#include <sstream>

#include "runtime/config/config_error.hpp"

namespace kb {

std::size_t line_of(const YAML::Mark& mark) {
  return mark.is_null() || mark.line < 0
             ? 0
             : static_cast<std::size_t>(mark.line) + 1;
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw config_error({path, 0}, "", "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_yaml_text(text.str(), path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& name) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw config_error({name, line_of(e.mark)}, "", "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw config_error({name, line_of(e.mark)}, "", e.msg);
  }
}

} // namespace kb
