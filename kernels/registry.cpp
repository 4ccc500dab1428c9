#include "kernels/registry.hpp"

#include "kernels/detail/find_by_name.hpp"
#include "kernels/kernel_library.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kb {

kernel_args::kernel_args(std::string kernel, const std::vector<kernel_arg_doc>& docs,
                         const std::map<std::string, std::string>& given)
  : kernel_args("kernel", std::move(kernel), docs, given) {}

kernel_args kernel_args::for_program(std::string program, const std::vector<kernel_arg_doc>& docs,
                                     const std::map<std::string, std::string>& given) {
  return kernel_args("program", std::move(program), docs, given);
}

kernel_args::kernel_args(std::string noun, std::string kernel,
                         const std::vector<kernel_arg_doc>& docs,
                         const std::map<std::string, std::string>& given)
  : noun_(std::move(noun)), kernel_(std::move(kernel)) {
  for (const auto& d : docs)
    values_[d.name] = d.fallback;
  for (const auto& [k, v] : given) {
    if (!values_.count(k)) {
      std::string known;
      for (const auto& d : docs)
        known += (known.empty() ? "" : ", ") + d.name;
      throw std::invalid_argument(fmt::format("--arg {}: {} {} takes no such argument ({})", k,
                                              noun_, kernel_,
                                              known.empty() ? "it takes none" : known));
    }
    values_[k] = v;
  }
  for (const auto& d : docs) {
    if (d.choices.empty() ||
        std::find(d.choices.begin(), d.choices.end(), values_[d.name]) != d.choices.end())
      continue;
    std::string allowed;
    for (size_t i = 0; i < d.choices.size(); ++i)
      allowed += (i == 0 ? "" : i + 1 == d.choices.size() ? " or " : ", ") + d.choices[i];
    throw std::invalid_argument(fmt::format("--arg {}={}: {} {} takes {} for {}", d.name,
                                            values_[d.name], noun_, kernel_, allowed, d.name));
  }
}

void kernel_args::fail(const std::string& name, const std::string& why) const {
  throw std::invalid_argument(
    fmt::format("--arg {}={}: {} ({} {})", name, text(name), why, noun_, kernel_));
}

const std::string& kernel_args::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw std::logic_error(fmt::format("{} {} reads an argument '{}' it does not declare",
                                       noun_, kernel_, name));
  return it->second;
}

uint32_t kernel_args::u32(const std::string& name) const {
  const std::string& s = text(name);
  uint32_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    fail(name, "expected a whole number from 0 to 4294967295");
  return v;
}

double kernel_args::real(const std::string& name) const {
  const std::string& s = text(name);
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v))
      return v;
  } catch (const std::exception&) {
  }
  fail(name, "expected a finite number");
}

dtype kernel_args::type(const std::string& name) const {
  if (auto t = parse_dtype(text(name)))
    return *t;
  fail(name, "expected f32, f16, bf16, i8 or i32");
}

void kernel_catalog::add(kernel_def d) {
  kernels_.push_back(std::move(d));
}

void kernel_catalog::add_program(program_def d) {
  programs_.push_back(std::move(d));
}

const std::map<std::string, kernel_def>& shipped_kernels() {
  static const std::map<std::string, kernel_def> all = [] {
    std::map<std::string, kernel_def> m;
    for (auto&& d : shipped_kernel_list())
      m.emplace(d.name, std::move(d));
    return m;
  }();
  return all;
}

const kernel_def& find_kernel(const std::string& name) {
  return detail::find_by_name(name, shipped_kernels(), loaded_kernels(), "kernel");
}

} // namespace kb

namespace kb {

std::optional<tensor_place> parse_tensor_place(std::string_view text) {
  tensor_place p;
  if (text == "hbm")
    return p;
  if (text == "replicated") {
    p.in = tensor_place::memory::replicated;
    return p;
  }
  if (text == "spread" || text == "cubes") {
    p.in = text == "spread" ? tensor_place::memory::spread : tensor_place::memory::spread_cubes;
    return p;
  }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return std::nullopt;
  const std::string_view memory = text.substr(0, colon);
  const std::string rest(text.substr(colon + 1));
  int used = 0;
  if (memory == "spread" || memory == "cubes") {
    unsigned rows = 0;
    if (std::sscanf(rest.c_str(), "%u%n", &rows, &used) != 1 ||
        static_cast<size_t>(used) != rest.size() || rows == 0 || rest[0] == '-' ||
        rest[0] == '+' || rest.size() > 10)
      return std::nullopt;
    p.in = memory == "spread" ? tensor_place::memory::spread : tensor_place::memory::spread_cubes;
    p.block_rows = rows;
    return p;
  }
  unsigned s = 0, c = 0, pe = 0;
  if (memory == "tcm") {
    if (std::sscanf(rest.c_str(), "sip%u.cube%u.pe%u%n", &s, &c, &pe, &used) != 3 ||
        static_cast<size_t>(used) != rest.size())
      return std::nullopt;
    p.in = tensor_place::memory::tcm;
    p.sip = s;
    p.cube = c;
    p.pe = pe;
    return p;
  }
  if (memory == "hbm")
    p.in = tensor_place::memory::hbm;
  else if (memory == "sram")
    p.in = tensor_place::memory::sram;
  else
    return std::nullopt;
  if (std::sscanf(rest.c_str(), "sip%u.cube%u%n", &s, &c, &used) != 2 ||
      static_cast<size_t>(used) != rest.size())
    return std::nullopt;
  p.sip = s;
  p.cube = c;
  return p;
}

std::string to_string(const tensor_place& p) {
  switch (p.in) {
  case tensor_place::memory::first_cube_hbm: return "hbm";
  case tensor_place::memory::hbm: return fmt::format("hbm:sip{}.cube{}", p.sip, p.cube);
  case tensor_place::memory::sram: return fmt::format("sram:sip{}.cube{}", p.sip, p.cube);
  case tensor_place::memory::spread:
    return p.block_rows ? fmt::format("spread:{}", p.block_rows) : std::string("spread");
  case tensor_place::memory::spread_cubes:
    return p.block_rows ? fmt::format("cubes:{}", p.block_rows) : std::string("cubes");
  case tensor_place::memory::replicated: return "replicated";
  case tensor_place::memory::tcm: return fmt::format("tcm:sip{}.cube{}.pe{}", p.sip, p.cube, p.pe);
  }
  return "?";
}

} // namespace kb
