#include "runtime/trace/trace_counters.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace kb {

size_t trace_counters::find(int pid, const std::string& name, const std::string& arg,
                            bool floor, bool known) {
  auto [it, made] = index_.try_emplace({pid, name}, counters_.size());
  if (made)
    counters_.push_back({pid, name, arg, 0, floor, known});
  return it->second;
}

void trace_counters::write(size_t c, SimTime t, std::ostream& out, bool& first) {
  const counter& k = counters_[c];
  if (!first)
    out << ",\n";
  first = false;
  fmt::print(out, R"({{"ph":"C","pid":{},"ts":{}.{:06d},"name":"{}","args":{{"{}":{}}}}})", k.pid,
             t.ps() / 1000000, t.ps() % 1000000, k.name, k.arg, k.value);
}

void trace_counters::add(size_t c, int64_t delta) {
  counter& k = counters_[c];
  k.value += delta;
  if (k.floor && k.value < 0)
    k.value = 0;
}

void trace_counters::step(size_t c, SimTime t, int64_t delta, std::ostream& out, bool& first) {
  flush(t, out, first);
  if (!counters_[c].known)
    return;
  add(c, delta);
  write(c, t, out, first);
}

void trace_counters::set(size_t c, SimTime t, int64_t value, std::ostream& out, bool& first) {
  flush(t, out, first);
  counters_[c].value = value;
  counters_[c].known = true;
  write(c, t, out, first);
}

void trace_counters::later(size_t c, SimTime t, int64_t delta) {
  dues_.push({t, order_++, c, delta});
}

void trace_counters::flush(SimTime t, std::ostream& out, bool& first) {
  while (!dues_.empty() && dues_.top().t <= t) {
    const due d = dues_.top();
    dues_.pop();
    if (!counters_[d.counter].known)
      continue;
    add(d.counter, d.delta);
    write(d.counter, d.t, out, first);
  }
}

} // namespace kb
