#include "kernels/program.hpp"

#include "kernels/detail/find_by_name.hpp"
#include "kernels/kernel_library.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <set>
#include <stdexcept>

namespace kb {

std::string rows_of(const std::string& tensor, uint32_t first, uint32_t end) {
  return fmt::format("{}[{}:{}]", tensor, first, end);
}

void program_builder::fail(const std::string& why) const {
  throw std::invalid_argument(fmt::format("program {}: {}", program_, why));
}

const std::string& program_builder::queue_name(program_queue q) const {
  if (q.id >= plan_.queues.size())
    fail(q.id == UINT32_MAX ? "a launch or event on a queue the program never made (a "
                              "default-constructed program_queue)"
                            : fmt::format("queue #{} does not exist (it made {})", q.id,
                                          plan_.queues.size()));
  return plan_.queues[q.id];
}

void program_builder::tensor(kernel_tensor t) {
  if (t.name.empty())
    fail("a tensor without a name");
  for (const auto& u : plan_.tensors)
    if (u.name == t.name)
      fail(fmt::format("tensor {} is declared twice", t.name));
  if (t.rows == 0 || t.cols == 0)
    fail(fmt::format("tensor {} is {}x{} (rows and cols must be at least 1)", t.name, t.rows,
                     t.cols));
  plan_.tensors.push_back(std::move(t));
}

program_queue program_builder::queue(std::string name) {
  if (name.empty())
    name = fmt::format("queue{}", plan_.queues.size());
  for (const auto& q : plan_.queues)
    if (q == name)
      fail(fmt::format("queue {} is made twice", name));
  plan_.queues.push_back(std::move(name));
  last_.push_back(UINT32_MAX);
  waits_.emplace_back();
  return {static_cast<uint32_t>(plan_.queues.size() - 1)};
}

program_launch program_builder::launch(program_queue q, std::string kernel,
                                       std::map<std::string, std::string> args,
                                       std::map<std::string, std::string> bind, pe_range pes) {
  (void)queue_name(q);
  if (kernel.empty())
    fail(fmt::format("launch {} names no kernel", plan_.launches.size()));
  for (const auto& [name, to] : bind) {
    const std::string tensor = to.substr(0, to.find('['));
    if (const auto f = freed_.find(tensor); f != freed_.end())
      fail(fmt::format("launch {} ({}) binds kernel tensor '{}' to '{}', which the program "
                       "freed {} (a tensor used after it was freed)",
                       plan_.launches.size(), kernel, name, tensor,
                       f->second == 0 ? "before its first launch"
                                      : fmt::format("after launch {}", f->second - 1)));
  }
  launch_decl l;
  l.queue = q.id;
  l.kernel = std::move(kernel);
  l.args = std::move(args);
  l.bind = std::move(bind);
  l.pes = pes;
  std::set<uint32_t> after(waits_[q.id].begin(), waits_[q.id].end());
  if (last_[q.id] != UINT32_MAX)
    after.insert(last_[q.id]);
  for (uint32_t i = 0; i < barrier_; ++i)
    after.insert(i);
  l.after.assign(after.begin(), after.end());
  const auto id = static_cast<uint32_t>(plan_.launches.size());
  plan_.launches.push_back(std::move(l));
  last_[q.id] = id;
  waits_[q.id].clear();
  return {id};
}

program_event program_builder::record(program_queue q) {
  (void)queue_name(q);
  // The queue's point: its last launch and what its next launch would
  // wait on besides.
  std::vector<uint32_t> at = waits_[q.id];
  if (last_[q.id] != UINT32_MAX)
    at.push_back(last_[q.id]);
  events_.push_back(std::move(at));
  return {static_cast<uint32_t>(events_.size() - 1)};
}

void program_builder::wait(program_queue q, program_event e) {
  const std::string& name = queue_name(q);
  if (e.id >= events_.size())
    fail(fmt::format("queue {} waits on an event that was never recorded{}", name,
                     e.id == UINT32_MAX ? " (a default-constructed program_event)"
                                        : fmt::format(" (#{}; {} recorded)", e.id,
                                                      events_.size())));
  for (const uint32_t l : events_[e.id])
    waits_[q.id].push_back(l);
}

void program_builder::free(const std::string& tensor) {
  if (std::none_of(plan_.tensors.begin(), plan_.tensors.end(),
                   [&](const kernel_tensor& t) { return t.name == tensor; }))
    fail(fmt::format("frees '{}', a tensor it never declared", tensor));
  if (!freed_.emplace(tensor, static_cast<uint32_t>(plan_.launches.size())).second)
    fail(fmt::format("frees tensor {} twice", tensor));
}

void program_builder::host_wait() { barrier_ = static_cast<uint32_t>(plan_.launches.size()); }

void program_builder::reference(std::function<tensor_values(const tensor_values&)> f) {
  plan_.reference = std::move(f);
}

std::vector<program_def> shipped_program_list(); // kernels/programs.cpp

const std::map<std::string, program_def>& shipped_programs() {
  static const std::map<std::string, program_def> all = [] {
    std::map<std::string, program_def> m;
    for (auto&& d : shipped_program_list())
      m.emplace(d.name, std::move(d));
    return m;
  }();
  return all;
}

const program_def& find_program(const std::string& name) {
  return detail::find_by_name(name, shipped_programs(), loaded_programs(), "program");
}

program_plan build_program(const program_def& def, const kernel_args& args,
                           program_machine machine) {
  program_builder b(def.name, std::move(machine));
  try {
    def.build(b, args);
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("program {}: its build function failed: {}",
                                            def.name, e.what()));
  } catch (...) {
    throw std::invalid_argument(
      fmt::format("program {}: its build function threw a non-standard exception", def.name));
  }
  program_plan p = std::move(b.plan());
  if (p.launches.empty())
    throw std::invalid_argument(fmt::format("program {}: it launches nothing", def.name));
  return p;
}

} // namespace kb
