#include "tests/runtime/test_nodes.hpp"
#include "runtime/stat_decl.hpp"

#include <stdexcept>

namespace kb::test {

constexpr stat_decl st_attempt = declare_stat("test", "attempt", stat_unit::ps, "");
constexpr stat_decl st_left = declare_stat("test", "left", stat_unit::ps, "");
constexpr stat_decl st_take = declare_stat("test", "take", stat_unit::ps, "");
constexpr stat_decl st_arrivals = declare_stat("test", "arrivals", stat_unit::count, "");
constexpr stat_decl st_last_ps = declare_stat("test", "last_ps", stat_unit::ps, "");
constexpr stat_decl st_checksum = declare_stat("test", "checksum", stat_unit::number, "");

// -- producer ----------------------------------------------------------------

producer::producer(caf::actor_config& cfg, node_init init, uint32_t count,
                   SimTime interval)
  : node(cfg, std::move(init)), count_(count), interval_(interval) {}

void producer::on_start() {
  attempt();
}

void producer::attempt() {
  if (next_ >= count_)
    return;
  attempted_.push_back(now().ps());
  outgoing m;
  m.queue = 0;
  m.arg0 = next_;
  if (send_on(0, std::move(m))) {
    left_.push_back(now().ps());
    ++next_;
    schedule(now() + interval_, first_user_kind);
  }
}

void producer::on_message(sim_event&) {
  attempt();
}

void producer::on_unblocked(uint32_t, queue_id) {
  left_.push_back(now().ps());
  ++next_;
  schedule(now() + interval_, first_user_kind);
}

void producer::on_finish() {
  for (auto t : attempted_)
    add_figure(st_attempt, t);
  for (auto t : left_)
    add_figure(st_left, t);
}

// -- consumer ----------------------------------------------------------------

consumer::consumer(caf::actor_config& cfg, node_init init, SimTime service)
  : node(cfg, std::move(init)), service_(service) {}

void consumer::on_queue_arrival(queue_id) {
  try_take();
}

void consumer::try_take() {
  if (busy_ || queue_empty(0))
    return;
  sim_event ev = take(0);
  taken_.push_back(now().ps());
  busy_ = true;
  schedule(now() + service_, first_user_kind, ev.arg0);
}

void consumer::on_message(sim_event&) {
  busy_ = false;
  try_take();
}

void consumer::on_finish() {
  for (auto t : taken_)
    add_figure(st_take, t);
}

// -- ring --------------------------------------------------------------------

ring_member::ring_member(caf::actor_config& cfg, node_init init,
                         uint32_t tokens, uint64_t hops)
  : node(cfg, std::move(init)), tokens_(tokens), hops_(hops) {}

void ring_member::on_start() {
  if (node_name() != "r0")
    return;
  for (uint32_t i = 0; i < tokens_; ++i) {
    outgoing m;
    m.arg0 = i;
    m.arg1 = 1;
    send_on(0, std::move(m));
  }
}

void ring_member::on_message(sim_event& ev) {
  ++arrivals_;
  last_ = now().ps();
  checksum_ = checksum_ * 31 + ev.arg0 * 7 + now().ps();
  if (hops_ != 0 && ev.arg1 >= hops_)
    return;
  outgoing m;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1 + 1;
  send_on(0, std::move(m));
}

void ring_member::on_finish() {
  add_figure(st_arrivals, arrivals_);
  add_figure(st_last_ps, last_);
  add_figure(st_checksum, checksum_);
}

// -- helpers -----------------------------------------------------------------



} // namespace kb::test
