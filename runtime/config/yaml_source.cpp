#include "runtime/config/yaml_source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/config/config_error.hpp"

namespace kb {

std::size_t line_of(const YAML::Mark& mark) {
  return mark.is_null() || mark.line < 0
             ? 0
             : static_cast<std::size_t>(mark.line) + 1;
}

YAML::Node load_yaml_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw config_error({path, 0}, "", "is a directory, not a file");
  // A device is never a document (/dev/zero was read until memory ran
  // out, issue 35); a pipe (`--topology <(make_machine)`) is, up to the
  // same bound as a file.
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::character ||
      type == std::filesystem::file_type::block)
    throw config_error({path, 0}, "", "is a device, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw config_error({path, 0}, "", "cannot open file");
  std::string text;
  constexpr size_t chunk = size_t{1} << 16;
  while (in) {
    const size_t had = text.size();
    text.resize(had + chunk);
    in.read(text.data() + had, static_cast<std::streamsize>(chunk));
    text.resize(had + static_cast<size_t>(in.gcount()));
    if (text.size() > max_yaml_bytes)
      throw config_error({path, 0}, "",
                         fmt::format("is larger than {} MiB (kernbench reads configuration "
                                     "documents up to that size)",
                                     max_yaml_bytes >> 20));
  }
  if (in.bad())
    throw config_error({path, 0}, "",
                       fmt::format("cannot read file: {}", std::strerror(errno)));
  return load_yaml_text(text, path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& name) {
  // JSON is read by the YAML parser (JSON is YAML); say which one the user wrote.
  const bool json = name.size() >= 5 && name.compare(name.size() - 5, 5, ".json") == 0;
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw config_error({name, line_of(e.mark)}, "",
                       (json ? "malformed JSON: " : "malformed YAML: ") + e.msg);
  } catch (const YAML::Exception& e) {
    throw config_error({name, line_of(e.mark)}, "", e.msg);
  }
}

} // namespace kb
