#pragma once
// PE_CPU: runs the PE's kernel (DESIGN §5): a plain C++ function on its own
// fiber, whose calls become commands to PE_SCHEDULER (never to an engine
// queue directly, seed ADR-0014 D1). The kernel runs in zero simulated time
// between its waits; a load or a wait suspends it until the command-done
// notice it needs arrives. A command's latency runs from its issue here to
// the receipt of its command-done notice.

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/kernel/kernel_context.hpp"
#include "runtime/machine/command_table.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <vector>
#include <span>

namespace kb {

struct pe_program;

class pe_cpu final : public node, private kernel_port {
public:
  struct config {
    std::shared_ptr<const pe_program> program; ///< may be null: idle
    uint64_t tcm_bytes = 0;    ///< the PE's TCM (its pe_tcm's size_kib)
    uint64_t tcm_reserved = 0; ///< SchedulerReservedTCM (scheduler_reserved_kib)
    std::shared_ptr<const fabric_map> fabric;
    const topology_spec* topology = nullptr; ///< for the sizes of other PEs' TCMs
    /// Its cube has an M_CPU: the kernel starts when the launch arrives
    /// over the NOC, and its completion goes back that way (else at t = 0).
    bool launched = false;
  };
  static const impl_decl<config>& decl();
  /// Commands to its PE's scheduler.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"scheduler", "pe_scheduler"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);

  pe_cpu(caf::actor_config& cfg, node_init init, config c);
  ~pe_cpu() override;

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  // -- kernel_port ---------------------------------------------------------------
  uint64_t issue(const pe_command& c, std::span<const uint8_t> payload,
                 std::span<const uint64_t> deps) override;
  bool done(uint64_t id) const override;
  std::vector<uint8_t> take_data(uint64_t id) override;
  std::string pending_from(uint64_t id) const override;
  uint64_t outstanding() const override { return commands_.size() - done_count_; }
  void mark_pending(uint64_t address, uint64_t bytes, uint64_t command) override;
  void blocked(wait_kind kind, uint64_t command) override;
  void resumed() override;
  void program_begun(uint32_t linear) override;

  /// Runs `f` (a step of the kernel); a kernel error ends the run naming it.
  template <class F>
  void step(F&& f);
  /// Starts the kernel of `p` (at t = 0, or when the M_CPU's launch arrives).
  void start_kernel(const pe_program& p);
  /// A program's launch `l` arrived: runs its part now, or once the
  /// kernel running has returned.
  void launch_arrived(uint64_t l);
  /// After a kernel returned: the next launch that arrived meanwhile.
  void start_next_launch();

  struct issued {
    command_stat stat;         ///< its row of the per-command table
    std::vector<uint8_t> data; ///< a load's bytes, until the kernel takes them
    std::string pending_from;  ///< a load of a compute result's bytes: their writer
  };
  config cfg_;
  /// What runs now (or ran last): the PE's program, or in a host program
  /// the part of the launch that arrived last (kernels/program.hpp).
  const pe_program* current_ = nullptr;
  uint32_t launch_ = 0; ///< the launch current_ belongs to (program runs)
  /// Each launch's kernel here: when it returned, what last resumed it.
  struct launch_end {
    uint32_t launch = 0;
    uint64_t end_ps = 0, last_command = 0;
  };
  std::vector<launch_end> ended_;
  std::vector<uint32_t> arrived_; ///< launches (indices into launches) that wait for the PE
  size_t launches_done_ = 0;
  uint64_t tcm_peak_ = 0; ///< the most TCM any of its kernels allocated
  uint32_t scheduler_ = 0; ///< link to PE_SCHEDULER
  std::optional<uint32_t> noc_; ///< link to its cube's NOC (TCM marks go that way)
  std::unique_ptr<kernel_context> kernel_;
  /// By command id - 1 (a deque: a kernel issues thousands, and a vector
  /// moved them all each time it grew).
  std::deque<issued> commands_;
  uint64_t done_count_ = 0;
  uint64_t started_ps_ = 0;
  uint64_t finished_ps_ = 0;
  bool finished_ = false;
  /// The command whose done notice the kernel's current step handles (0:
  /// its first step): what each command it issues now came after.
  uint64_t resumed_by_ = 0;
  uint64_t last_step_by_ = 0; ///< resumed_by_ of the step in which the kernel returned
  /// Where the kernel's time went while suspended, by wait_kind.
  std::array<uint64_t, 3> waited_ps_{};
  wait_kind waiting_ = wait_kind::load;
  uint64_t blocked_since_ = 0;
  uint32_t pe_index_ = 0; ///< the PE's index in its cube (launch and completion messages)
  /// A one-kernel run's programs here: from its start to its body's return.
  struct program_span {
    uint32_t linear = 0;
    uint64_t start_ps = 0, end_ps = 0;
  };
  std::vector<program_span> programs_;
};

} // namespace kb
