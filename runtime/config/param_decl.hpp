#pragma once
// One declaration per parameter (ADR-0037): an implementation declares each
// of its parameters once, in one typed expression that names the key, says
// where the value goes, documents it and gives its default and its range:
//
//   param(&config::mac_rows, "mac_rows", "MAC array rows (R)").init(32u).at_least(1u)
//
// The key's documented type (`uint`, `ns`, `GB/s`, ...) follows from the
// member's C++ type and the key's unit suffix, the default's YAML text from
// the typed default. From the declarations come the implementation's
// documented keys (the loader's validation, `kernbench list-components`,
// config/components.yaml, docs/components.md) and its reading
// (`impl_decl::read`): nothing about a key is written twice.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime/config/impl_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/stat_decl.hpp"

namespace kb {

namespace detail {

/// The documented type of a key of C++ type T (impl_doc.hpp's `param_doc::type`).
template <class T> std::string param_type(std::string_view key) {
  if constexpr (std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>)
    return "uint";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "int";
  else if constexpr (std::is_same_v<T, double>)
    return "float";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, std::string>)
    return "string";
  else if constexpr (std::is_same_v<T, Cycles>)
    return "cycles";
  else if constexpr (std::is_same_v<T, SimTime>)
    return key.ends_with("_ps") ? "ps" : "ns";
  else if constexpr (std::is_same_v<T, Bandwidth>)
    return "GB/s";
  else
    static_assert(sizeof(T) == 0, "no documented parameter type for this C++ type");
}

/// `whole.frac` with the fraction's trailing zeros (and a bare point) dropped.
inline std::string thousandths(uint64_t v) {
  std::string s = fmt::format("{}.{:03}", v / 1000, v % 1000);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.')
    s.pop_back();
  return s;
}

/// The YAML text of a value of key `key`, as a topology would write it.
template <class T> std::string param_text(const T& v, std::string_view key) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (std::is_same_v<T, std::string>)
    return v;
  else if constexpr (std::is_same_v<T, Cycles>)
    return fmt::format("{}", v.count());
  else if constexpr (std::is_same_v<T, SimTime>)
    return key.ends_with("_ps") ? fmt::format("{}", v.ps()) : thousandths(v.ps());
  else if constexpr (std::is_same_v<T, Bandwidth>)
    return thousandths(v.mbps);
  else
    return fmt::format("{}", v);
}

} // namespace detail

/// One declared parameter of configuration C: its documentation and how it
/// is read into a C.
template <class C> struct param_entry {
  param_doc doc;
  std::function<void(C&, const param_reader&)> read;
};

/// The builder `param(...)` returns; converts to a `param_entry<C>`.
template <class C, class T> class param_def {
public:
  param_def(T C::*member, std::string_view key, std::string_view doc)
    : member_(member), key_(key), doc_(doc) {}

  /// The default; without one the key is required.
  param_def init(T v) && {
    init_ = std::move(v);
    return std::move(*this);
  }
  /// The least value; `why` replaces the message "must be >= LO".
  param_def at_least(T lo, std::string why = {}) && {
    lo_ = std::move(lo);
    lo_why_ = std::move(why);
    return std::move(*this);
  }
  /// The greatest value; `why` replaces the message "must be <= HI".
  param_def at_most(T hi, std::string why = {}) && {
    hi_ = std::move(hi);
    hi_why_ = std::move(why);
    return std::move(*this);
  }

  operator param_entry<C>() const { // NOLINT: the declaration list converts
    param_doc d{key_, detail::param_type<T>(key_),
                init_ ? detail::param_text(*init_, key_) : std::string{}, doc_};
    return {std::move(d), [m = member_, key = key_, init = init_, lo = lo_, hi = hi_,
                           lo_why = lo_why_, hi_why = hi_why_](C& c, const param_reader& p) {
              T v = init ? p.get_or<T>(key, *init) : p.required<T>(key);
              if (lo && v < *lo)
                throw p.error(key, lo_why.empty() ? fmt::format("must be >= {}",
                                                                detail::param_text(*lo, key))
                                                  : lo_why);
              if (hi && *hi < v)
                throw p.error(key, hi_why.empty() ? fmt::format("must be <= {}",
                                                                detail::param_text(*hi, key))
                                                  : hi_why);
              c.*m = std::move(v);
            }};
  }

private:
  T C::*member_;
  std::string key_;
  std::string doc_;
  std::optional<T> init_, lo_, hi_;
  std::string lo_why_, hi_why_;
};

/// Declares the parameter `key`, read into `member`.
template <class C, class T>
param_def<C, T> param(T C::*member, std::string_view key, std::string_view doc) {
  return {member, key, doc};
}

/// Declares a `string` parameter of a few named values, read into `member`
/// as the value each name stands for; the first name is the default. Any
/// other text is an error listing the names.
template <class C, class T>
param_entry<C> choice(T C::*member, std::string_view key, std::string_view doc,
                      std::vector<std::pair<std::string, T>> names) {
  std::string known;
  for (const auto& [n, v] : names)
    known += (known.empty() ? "" : ", ") + n;
  param_doc d{std::string(key), "string", names.front().first,
              fmt::format("{} (one of: {})", doc, known)};
  return {std::move(d), [member, k = std::string(key), names, known](C& c,
                                                                     const param_reader& p) {
            const auto text = p.get_or<std::string>(k, names.front().first);
            for (const auto& [n, v] : names)
              if (n == text) {
                c.*member = v;
                return;
              }
            throw p.error(k, fmt::format("unknown {} '{}' (known: {})", k, text, known));
          }};
}

/// What an implementation declares about itself: its kind, one line of
/// description and its parameters (kind_registry.hpp says how it is
/// registered under an impl name).
template <class C> class impl_decl {
public:
  impl_decl(std::string_view kind, std::string_view description,
            std::vector<param_entry<C>> params = {})
    : kind_(kind), description_(description), params_(std::move(params)) {}

  /// Appends more declared parameters (e.g. a family such as `rate_params`).
  impl_decl&& with(std::vector<param_entry<C>> more) && {
    for (auto& e : more)
      params_.push_back(std::move(e));
    return std::move(*this);
  }

  /// Declares statistics the implementation reports (callable again for
  /// more): the report reads them by declaration, list-components lists them.
  impl_decl&& reports(std::span<const stat_decl> stats) && {
    for (const stat_decl& s : stats)
      stats_.push_back({std::string(s.pattern), std::string(to_string(s.unit)),
                        std::string(s.doc), s.id});
    return std::move(*this);
  }

  const std::string& kind() const { return kind_; }

  /// The documentation of implementation `impl`.
  impl_doc doc(std::string impl, std::vector<port_doc> ports = {}) const {
    impl_doc d{std::move(impl), kind_, description_, {}, std::move(ports), stats_};
    for (const auto& e : params_)
      d.params.push_back(e.doc);
    return d;
  }

  /// Every declared parameter read from `p` (a default where a key is
  /// absent); throws config_error naming file:line and key for a bad value.
  C read(const param_reader& p) const {
    C c{};
    for (const auto& e : params_)
      e.read(c, p);
    return c;
  }

private:
  std::string kind_;
  std::string description_;
  std::vector<param_entry<C>> params_;
  std::vector<stat_doc> stats_;
};

} // namespace kb
