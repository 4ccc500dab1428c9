#include "runtime/cli/sweep_points.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>

#include <set>
#include <stdexcept>

namespace kb {

namespace {

std::vector<std::string> split(const std::string& s, const std::string& seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string::npos) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

/// The parts of a value of a multi-value option ("64x64x64", "64 64 64").
std::vector<std::string> parts_of(const std::string& v) {
  std::vector<std::string> out;
  for (auto& p : split(v, "x "))
    if (!p.empty())
      out.push_back(p);
  return out;
}

/// Whether `args` gives kernel argument `name` ("--arg NAME=v", "--arg=NAME=v").
bool gives_arg(const std::vector<std::string>& args, const std::string& name) {
  for (size_t i = 0; i < args.size(); ++i)
    if ((args[i] == "--arg" && i + 1 < args.size() && args[i + 1].rfind(name + "=", 0) == 0) ||
        args[i].rfind("--arg=" + name + "=", 0) == 0)
      return true;
  return false;
}

/// Whether `args` gives option `opt` ("--M 1", "--M=1").
bool gives(const std::vector<std::string>& args, const std::string& opt) {
  for (const auto& a : args)
    if (a == opt || a.rfind(opt + "=", 0) == 0)
      return true;
  return false;
}

} // namespace

sweep_axis parse_axis(const std::string& text, const CLI::App& run) {
  const size_t eq = text.find('=');
  sweep_axis a;
  a.key = text.substr(0, eq);
  a.key.erase(0, a.key.find_first_not_of('-'));
  if (eq == std::string::npos || a.key.empty())
    throw std::invalid_argument(fmt::format(
      "--param '{}': expected KEY=v1,v2,... (a run option such as M=256,512 or a topology "
      "key such as cube.pe_template.pe_gemm.mac_rows=32,64)",
      text));
  if (a.key.rfind("arg.", 0) == 0) { // a kernel's argument
    a.kernel_arg = a.key.substr(4);
    if (a.kernel_arg.empty())
      throw std::invalid_argument(fmt::format(
        "--param '{}': expected arg.NAME=v1,v2,... (NAME a kernel argument, `kernbench "
        "list-kernels`)", text));
    a.run_option = "--arg";
  } else if (const CLI::Option* o = run.get_option_no_throw("--" + a.key)) {
    a.run_option = "--" + a.key;
    a.option_arity = static_cast<size_t>(std::max(1, o->get_items_expected_max()));
  }
  a.values = split(text.substr(eq + 1), ",");
  for (const auto& v : a.values) {
    if (v.empty())
      throw std::invalid_argument(
        fmt::format("--param {}: an empty value (values are separated by commas)", text));
    if (a.run_option.empty() || a.option_arity == 1)
      continue;
    const size_t n = parts_of(v).size();
    if (n == 0 || n > a.option_arity)
      throw std::invalid_argument(fmt::format(
        "--param {}: value '{}' has {} parts; {} takes up to {} (separate them with 'x', "
        "e.g. 64x64x64)",
        text, v, n, a.run_option, a.option_arity));
  }
  return a;
}

void check_axes(const std::vector<sweep_axis>& axes, const std::vector<std::string>& base) {
  std::set<std::string> seen;
  for (const auto& a : axes) {
    if (!seen.insert(a.key).second)
      throw std::invalid_argument(fmt::format("--param {}: given twice", a.key));
    for (const char* own : {"--csv", "--json", "--trace", "--quiet"})
      if (a.run_option == own)
        throw std::invalid_argument(
          fmt::format("--param {}: the sweep sets {} of each point itself", a.key, own));
    if (!a.kernel_arg.empty()) {
      if (gives_arg(base, a.kernel_arg))
        throw std::invalid_argument(fmt::format(
          "--param {}: --arg {}=... is also given after --; give it in one place", a.key,
          a.kernel_arg));
      continue;
    }
    if (!a.run_option.empty() && gives(base, a.run_option))
      throw std::invalid_argument(fmt::format(
        "--param {}: {} is also given after --; give it in one place", a.key, a.run_option));
  }
  for (const char* own : {"--csv", "--json", "--trace"})
    if (gives(base, own))
      throw std::invalid_argument(fmt::format(
        "{} after --: every point would write the same file; the sweep writes its own CSV "
        "(--csv of sweep)",
        own));
  // Points run at once: two writing one stream, op log or folder left one
  // point's file, or a mix of both (issue 35).
  for (const auto& a : axes)
    for (const char* out : {"--trace-stream", "--oplog", "--op-digests", "--dump-tensors"}) {
      if (a.run_option != out)
        continue;
      const std::set<std::string> paths(a.values.begin(), a.values.end());
      const size_t per_path = point_count(axes) / a.values.size();
      if (paths.size() != a.values.size() || per_path > 1)
        throw std::invalid_argument(fmt::format(
          "--param {}: {} points would write each path; every point needs its own (sweep "
          "{} alone, one path per point)",
          a.key, paths.size() != a.values.size() ? per_path * 2 : per_path, out));
    }
  if (point_count(axes) > 1)
    for (const char* out : {"--trace-stream", "--oplog", "--op-digests", "--dump-tensors"})
      if (gives(base, out))
        throw std::invalid_argument(fmt::format(
          "{} after --: every one of the {} points would write the same {}; sweep it instead "
          "(--param {}=PATH1,PATH2,...) or run the point alone",
          out, point_count(axes), std::string(out) == "--dump-tensors" ? "folder" : "file",
          out + 2));
}

size_t point_count(const std::vector<sweep_axis>& axes) {
  size_t n = axes.empty() ? 0 : 1;
  for (const auto& a : axes)
    if (__builtin_mul_overflow(n, a.values.size(), &n))
      return SIZE_MAX;
  return n;
}

void check_point_count(const std::vector<sweep_axis>& axes) {
  const size_t n = point_count(axes);
  if (n <= max_sweep_points)
    return;
  std::vector<size_t> sizes;
  for (const auto& a : axes)
    sizes.push_back(a.values.size());
  throw std::invalid_argument(fmt::format(
    "--param: {} points ({}), more than the limit of {} (each point is a `kernbench run` "
    "process and a CSV row held until the end)",
    n == SIZE_MAX ? std::string("more than 2^64") : std::to_string(n), fmt::join(sizes, " x "),
    max_sweep_points));
}

std::vector<std::string> point_values(const std::vector<sweep_axis>& axes, size_t i) {
  std::vector<std::string> out(axes.size());
  for (size_t k = axes.size(); k-- > 0;) {
    out[k] = axes[k].values[i % axes[k].values.size()];
    i /= axes[k].values.size();
  }
  return out;
}

std::vector<std::string> point_args(const std::vector<sweep_axis>& axes,
                                    const std::vector<std::string>& values,
                                    const std::vector<std::string>& base) {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), base.begin(), base.end());
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].run_option.empty()) {
      args.emplace_back("--set");
      args.push_back(axes[k].key + "=" + values[k]);
      continue;
    }
    args.push_back(axes[k].run_option);
    if (!axes[k].kernel_arg.empty()) {
      args.push_back(axes[k].kernel_arg + "=" + values[k]);
    } else if (axes[k].option_arity == 1) {
      args.push_back(values[k]);
    } else {
      for (auto& p : parts_of(values[k]))
        args.push_back(p);
    }
  }
  return args;
}

} // namespace kb
