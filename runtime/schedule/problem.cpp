#include "runtime/schedule/problem.hpp"

#include <type_traits>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <vector>

namespace kb::sched {

bool op_spec::bears_resources() const {
  for (const auto& h : holds)
    if (h.count > 0 && h.cycles > 0)
      return true;
  for (const auto& cycle : reservation)
    for (const auto& use : cycle)
      if (use.count > 0)
        return true;
  return false;
}

uint32_t op_spec::span() const {
  auto s = static_cast<uint32_t>(reservation.size());
  for (const auto& h : holds)
    s = std::max(s, h.cycles);
  return s;
}

uint64_t op_spec::total_use(uint32_t pool) const {
  uint64_t n = 0;
  for (const auto& h : holds)
    if (h.pool == pool)
      n += uint64_t{h.count} * h.cycles;
  for (const auto& cycle : reservation)
    for (const auto& use : cycle)
      if (use.pool == pool)
        n += use.count;
  return n;
}

std::optional<uint32_t> problem::find_op(std::string_view name) const {
  for (uint32_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name)
      return i;
  return std::nullopt;
}

std::optional<uint32_t> problem::find_pool(std::string_view name) const {
  for (uint32_t i = 0; i < pools.size(); ++i)
    if (pools[i].name == name)
      return i;
  return std::nullopt;
}

namespace {

template <class T>
void put(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_text(std::string& out, const std::string& s) {
  put(out, static_cast<uint64_t>(s.size()));
  out += s;
}

/// A list: its length, then `f(out, item)` for each item.
template <class List, class F>
void put_each(std::string& out, const List& list, F&& f) {
  put(out, static_cast<uint64_t>(list.size()));
  for (const auto& x : list)
    f(out, x);
}

template <class T>
void put_opt(std::string& out, const std::optional<T>& v) {
  put(out, static_cast<uint8_t>(v.has_value()));
  if (v)
    put(out, *v);
}

} // namespace

void append_key(std::string& out, const problem& p) {
  put_text(out, p.source);
  put_each(out, p.pools, [](std::string& o, const pool_spec& pool) {
    put_text(o, pool.name);
    put(o, pool.capacity);
  });
  put_each(out, p.ops, [](std::string& o, const op_spec& op) {
    put_text(o, op.name);
    put(o, op.latency);
    put_each(o, op.reservation, [](std::string& o2, const std::vector<pool_use>& cycle) {
      put_each(o2, cycle, [](std::string& o3, const pool_use& u) {
        put(o3, u.pool);
        put(o3, u.count);
      });
    });
    put_each(o, op.holds, [](std::string& o2, const pool_hold& h) {
      put(o2, h.pool);
      put(o2, h.count);
      put(o2, h.cycles);
    });
    put_opt(o, op.max_depth);
    put_opt(o, op.gid);
    put_opt(o, op.leader_gid);
    put(o, static_cast<uint64_t>(op.line));
  });
  put_each(out, p.edges, [](std::string& o, const edge_spec& e) {
    put(o, e.from);
    put(o, e.to);
    put(o, e.latency);
    put(o, e.distance);
    put(o, static_cast<uint64_t>(e.line));
  });
  put(out, static_cast<uint8_t>(p.force_serial_execution));
  put(out, p.serial_threshold);
}

std::string problem::describe(const edge_spec& e) const {
  auto name = [this](uint32_t i) {
    return i < ops.size() ? ops[i].name : fmt::format("#{}", i);
  };
  return fmt::format("{} -> {} (distance {})", name(e.from), name(e.to), e.distance);
}

namespace {

std::string where(const problem& p, std::size_t line) {
  if (p.source.empty())
    return line ? fmt::format("line {}: ", line) : std::string{};
  return line ? fmt::format("{}:{}: ", p.source, line) : fmt::format("{}: ", p.source);
}

/// The names seen so far: open addressing over one array, not a node per
/// name (a body has thousands of ops, checked once per schedule).
class name_set {
public:
  explicit name_set(std::size_t n) : slots_(std::bit_ceil(2 * n + 2)) {}
  /// False when `name` is in the set already.
  bool insert(std::string_view name) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = std::hash<std::string_view>{}(name) & mask;; i = (i + 1) & mask) {
      if (slots_[i].data() == nullptr) {
        slots_[i] = name;
        return true;
      }
      if (slots_[i] == name)
        return false;
    }
  }

private:
  std::vector<std::string_view> slots_; ///< empty (null data) or a name; never full
};

} // namespace

void check_problem(const problem& p) {
  for (const auto& pool : p.pools)
    if (pool.capacity == 0)
      throw problem_error(fmt::format("{}resource pool '{}' has capacity 0", where(p, 0),
                                      pool.name));
  name_set names(p.ops.size());
  for (const auto& op : p.ops) {
    if (op.name.empty())
      throw problem_error(fmt::format("{}an op has an empty name", where(p, op.line)));
    if (!names.insert(op.name))
      throw problem_error(
        fmt::format("{}op '{}' is defined twice", where(p, op.line), op.name));
    if (op.latency < 0)
      throw problem_error(fmt::format("{}op '{}': latency {} is negative", where(p, op.line),
                                      op.name, op.latency));
    for (std::size_t i = 0; i < op.reservation.size(); ++i) {
      for (const auto& use : op.reservation[i]) {
        if (use.pool >= p.pools.size())
          throw problem_error(fmt::format("{}op '{}': reservation[{}] names pool #{} of {}",
                                          where(p, op.line), op.name, i, use.pool,
                                          p.pools.size()));
        const auto& pool = p.pools[use.pool];
        if (use.count > pool.capacity)
          throw problem_error(fmt::format(
            "{}op '{}' uses {} of '{}' at cycle offset {} but the pool has {}: no II can "
            "seat it",
            where(p, op.line), op.name, use.count, pool.name, i, pool.capacity));
      }
    }
  }
  for (const auto& op : p.ops)
    for (const auto& h : op.holds) {
      if (h.pool >= p.pools.size())
        throw problem_error(fmt::format("{}op '{}': a hold names pool #{} of {}",
                                        where(p, op.line), op.name, h.pool, p.pools.size()));
      if (h.count > p.pools[h.pool].capacity)
        throw problem_error(fmt::format(
          "{}op '{}' holds {} of '{}' but the pool has {}: no II can seat it",
          where(p, op.line), op.name, h.count, p.pools[h.pool].name,
          p.pools[h.pool].capacity));
    }
  for (const auto& e : p.edges) {
    if (e.from >= p.ops.size() || e.to >= p.ops.size())
      throw problem_error(
        fmt::format("{}edge {} names an op that does not exist", where(p, e.line), p.describe(e)));
    if (e.latency < 0)
      throw problem_error(fmt::format("{}edge {}: latency {} is negative", where(p, e.line),
                                      p.describe(e), e.latency));
  }
  if (const uint64_t n = serial_length(p); n > max_schedule_cycles)
    throw problem_error(fmt::format(
      "{}the loop body takes {} cycles run op after op (each op for the longest of 1, its "
      "reservation and its outgoing latencies), over the limit of {} cycles (2^31 - 1) for "
      "an II or a schedule length",
      where(p, 0), n, max_schedule_cycles));
}

uint64_t serial_length(const problem& p) {
  std::vector<uint64_t> width(p.ops.size(), 1);
  for (std::size_t v = 0; v < p.ops.size(); ++v)
    width[v] = std::max<uint64_t>(1, p.ops[v].span());
  for (const auto& e : p.edges)
    if (e.from < width.size())
      width[e.from] =
        std::max(width[e.from], static_cast<uint64_t>(std::max<int64_t>(e.latency, 0)));
  uint64_t sum = 0;
  for (uint64_t w : width)
    if (__builtin_add_overflow(sum, w, &sum))
      return UINT64_MAX;
  return sum;
}

} // namespace kb::sched
