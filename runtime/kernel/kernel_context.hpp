#pragma once
// The runtime behind tl::context (kernels/tl.hpp): turns a kernel's calls
// into PE commands sent by its PE_CPU (through `kernel_port`), suspends the
// kernel's fiber while it waits, and checks its accesses before anything is
// sent: a range no single memory owns, a misaligned address, a TCM
// allocation that does not fit are tl::kernel_errors naming the kernel.

#include "kernels/tl.hpp"
#include "runtime/kernel/kernel_fault.hpp"
#include "runtime/kernel/kernel_fiber.hpp"
#include "runtime/kernel/kernel_watch.hpp"
#include "runtime/kernel/mask_runs.hpp"
#include "runtime/kernel/memory_hazards.hpp"
#include "runtime/kernel/tcm_pool.hpp"
#include "runtime/pipeline/command.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kb {

class fabric_map;
class placed_ranges;

/// What a suspended kernel waits for: the split of its time in the report.
enum class wait_kind : uint8_t {
  load,   ///< tl.load: the data of command `command`
  handle, ///< tl.wait (one command) or tl.wait_all (command 0: all of them)
  tcm,    ///< TCM for a new tensor, held by dropped tensors' commands
};

/// What a kernel needs from its PE_CPU.
class kernel_port {
public:
  virtual ~kernel_port() = default;
  /// Sends `c` to PE_SCHEDULER now; returns its id. `payload`: the bytes of
  /// a store of a loaded tensor; `deps`: commands PE_SCHEDULER must see
  /// done before it starts `c`.
  virtual uint64_t issue(const pe_command& c, std::span<const uint8_t> payload,
                         std::span<const uint64_t> deps) = 0;
  virtual bool done(uint64_t id) const = 0;
  /// The bytes a load brought back (once).
  virtual std::vector<uint8_t> take_data(uint64_t id) = 0;
  /// Empty, or for a load of bytes a compute result wrote (no data in
  /// Phase 1), who wrote them: "command 3 of kernel k on sip0.cube0.pe0".
  virtual std::string pending_from(uint64_t id) const = 0;
  /// Commands issued and not yet done.
  virtual uint64_t outstanding() const = 0;
  /// Command `command` writes a compute result into the `bytes` at
  /// `address` of this PE's TCM: tells the TCM, which then refuses other
  /// PEs' loads of them (they have no data in Phase 1). Takes no simulated
  /// time of any unit.
  virtual void mark_pending(uint64_t address, uint64_t bytes, uint64_t command) = 0;
  /// The kernel suspends now, for `kind` (`command`: what it waits for, 0:
  /// several), and later resumes: its time split and its trace slices.
  virtual void blocked(wait_kind kind, uint64_t command) = 0;
  virtual void resumed() = 0;
  /// Program `linear` of the grid starts now (the one before, if any, has
  /// returned); no_program: the last one returned.
  static constexpr uint32_t no_program = UINT32_MAX;
  virtual void program_begun(uint32_t linear) = 0;
};

/// Where a kernel runs and what it may touch.
struct kernel_site {
  std::string kernel;         ///< its name
  std::string pe;             ///< "sip0.cube0.pe3"
  uint32_t sip = 0, cube = 0, index = 0;
  std::array<uint32_t, 3> program_id{0, 0, 0};
  std::array<uint32_t, 3> num_programs{1, 1, 1};
  uint64_t tcm_bytes = 0;     ///< the PE's TCM
  uint64_t tcm_reserved = 0;  ///< of which SchedulerReservedTCM
  std::shared_ptr<const fabric_map> fabric; ///< who owns which address
  /// The size in bytes of the TCM node named so (null: unchecked).
  std::function<uint64_t(const std::string&)> tcm_size;
  /// Spread tensors' blocks and replicated tensors' copies (null: none).
  std::shared_ptr<const placed_ranges> placed;
  /// Bytes at the start of this PE's AllocatableTCM that the host's
  /// tensors hold (`--place T=tcm:...`): the kernel allocates after them.
  uint64_t host_tcm_bytes = 0;
};

using kernel_fn = std::function<void(tl::context&)>;

class kernel_context final : public tl::context {
public:
  kernel_context(kernel_site site, kernel_port& port);
  ~kernel_context() override;

  /// Starts the kernel on its fiber (it runs until its first wait).
  void start(kernel_fn fn);
  /// Runs the built-in driver: issues every command at once, then waits
  /// for all of them. It never waits midway, so it runs on the actor's own
  /// stack: no fiber, whose stack would cost each PE two memory maps and
  /// the pages its calls touch (about 16 KiB: 250 MiB at 16,384 PEs).
  void run_commands(std::span<const pe_command> commands);
  /// A command finished: resumes the kernel if that is what it waits for.
  void on_done();
  bool finished() const { return fiber_ ? fiber_->finished() : commands_done_; }
  /// "waits for command 7 (a load of 4096 B from hbm sip0.cube0 +0x0)", or empty.
  std::string waiting_for() const;
  const tcm_allocator& tcm() const { return pool_->allocator(); }

  /// The program the kernel runs as from now on (a PE dealt several
  /// programs of the grid runs them one after the other).
  /// `linear` numbers the grid axis 0 fastest (kernels/registry.hpp).
  void set_program(uint32_t linear);
  /// The last program dealt to the PE returned (its span ends now).
  void end_programs();
  /// "program 5", or "program (1, 2, 0)" in a grid of more than one axis:
  /// the program it runs now (errors name it).
  std::string program_text() const;
  /// Any command as it is (the built-in driver's).
  tl::handle issue_command(const pe_command& c);

  // -- tl::context --------------------------------------------------------------
  uint32_t program_id(unsigned axis) const override;
  uint32_t num_programs(unsigned axis) const override;
  const std::string& kernel_name() const override { return site_.kernel; }
  const std::string& pe() const override { return site_.pe; }
  tl::tensor load(tl::ptr src, tl::block b) override;
  tl::future load_async(tl::ptr src, tl::block b) override;
  tl::tensor get(const tl::future& f) override;
  tl::handle store(tl::ptr dst, const tl::tensor& t, uint64_t row_stride) override;
  tl::handle gemm(gemm_plan_args a) override;
  tl::handle math(math_plan_args a) override;
  void wait(tl::handle h) override;
  void wait_all() override;
  tl::tensor dot(const tl::tensor& a, const tl::tensor& b, dtype out) override;
  tl::tensor dot(const tl::tensor& a, const tl::tensor& b, tl::dot_opts o, dtype out) override;
  tl::tensor dot(const tl::tensor& a, const tl::tensor& b, const tl::tensor& acc,
                 tl::dot_opts o) override;
  tl::tensor unary(math_fn f, const tl::tensor& x, double scalar) override;
  tl::tensor binary(math_fn f, const tl::tensor& a, const tl::tensor& b) override;
  tl::tensor where(const tl::tensor& cond, const tl::tensor& a, const tl::tensor& b) override;
  tl::tensor reduce(math_fn f, const tl::tensor& x, int axis) override;
  tl::tensor cast(const tl::tensor& x, dtype to) override;
  // index and mask tensors (kernel_index.cpp)
  tl::tensor arange(uint32_t n, int32_t start, int axis) override;
  tl::tensor full(uint32_t rows, uint32_t cols, double value, dtype type) override;
  tl::tensor compare(math_fn f, const tl::tensor& a, const tl::tensor& b) override;
  tl::tensor logical_not(const tl::tensor& x) override;
  // masked memory (kernel_masked.cpp)
  tl::tensor load(tl::ptr src, tl::block b, const tl::tensor& mask, double other) override;
  tl::handle store(tl::ptr dst, const tl::tensor& t, const tl::tensor& mask,
                   uint64_t row_stride) override;
  // views, index reductions, scans (kernel_views.cpp)
  tl::tensor slice(const tl::tensor& x, uint32_t row, uint32_t col, uint32_t rows,
                   uint32_t cols) override;
  tl::tensor reshape(const tl::tensor& x, uint32_t rows, uint32_t cols) override;
  tl::tensor arg_reduce(math_fn f, const tl::tensor& x, int axis) override;
  tl::tensor cumsum(const tl::tensor& x, int axis) override;
  // atomics (kernel_atomic.cpp)
  tl::handle atomic(math_fn f, tl::ptr dst, const tl::tensor& t, const tl::tensor* mask,
                    uint64_t row_stride) override;

private:
  /// Opens every tl:: call: a call from any thread but the one running this
  /// kernel's fiber ends the run naming the kernel (kernel_fault::
  /// foreign_thread); the call is noted as the last one for fault messages,
  /// and while it runs a fault is kernbench's, not the kernel's.
  class tl_call {
  public:
    /// `noted`: false for the grid's accessors, which a fault message
    /// would name to no use.
    tl_call(const kernel_context& k, const char* name, bool noted = true);
    ~tl_call() { frame_.in_runtime = outer_; }
    tl_call(const tl_call&) = delete;
    tl_call& operator=(const tl_call&) = delete;

  private:
    kernel_frame& frame_;
    bool outer_;
  };
  /// frame_.who from the site ("kernel k on sip0.cube0.pe3 (program 5)").
  void name_frame();

  [[noreturn]] void fail(const std::string& what) const;
  /// Checks that [address, address + span) is aligned for `type`, within
  /// the elements of the tensor `from` points into (and a writable one when
  /// `write`; ADR-0042), owned by one memory and (placed_ranges) inside one
  /// block of a spread tensor, and not a replicated tensor when `write`;
  /// `what` names the access.
  void check_range(uint64_t address, uint64_t span, dtype type, bool write,
                   const std::string& what, const tl::ptr& from) const;
  /// The tensor part of check_range: that the access stays within the
  /// tensor's elements, or (`writability`) that the tensor may be written.
  void check_tensor(uint64_t address, uint64_t span, bool writability, const std::string& what,
                    const tl::ptr& from) const;
  /// The same for a composite command's reads and its write of m x n `out`
  /// elements at `dst` (only the placed ranges: PE_SCHEDULER's plans check
  /// the rest).
  void check_composite(const pe_command& c, uint64_t dst, uint64_t bytes) const;
  /// A new TCM tensor (no data yet).
  std::shared_ptr<tl::tensor::state> allocate(uint32_t rows, uint32_t cols, dtype type);
  void suspend_until(std::function<bool()> ready, std::string why, wait_kind kind,
                     uint64_t command);
  /// What wait_all waits for, as the stall watchdog names it.
  std::string all_waiting() const;
  /// Runs the kernel's fiber until it suspends or ends, telling watch_.
  void resume();
  /// The tensor's state, or a kernel_error naming `what` for an empty one.
  const tl::tensor::state& operand(const tl::tensor& t, const std::string& what) const;
  /// Issues `op` (inputs set) on the PE's MATH unit, into a new TCM tensor
  /// of `rows` x `cols` `type`; `cost` is the timing class of its elements.
  /// Issues a composite command writing m x n `out` elements at `dst`.
  tl::handle composite(const pe_command& c, uint64_t dst, uint32_t m, uint32_t n, dtype out);
  tl::tensor where_like(math_fn f, std::vector<const tl::tensor*> in);
  tl::tensor compute(op_record op, uint32_t rows, uint32_t cols, dtype type, math_op cost,
                     uint64_t elements, std::vector<uint64_t> deps);
  /// A masked access's live runs stay within the row stride (elements).
  void check_live_stride(const std::vector<mask_run>& runs, uint32_t rows, uint64_t row_stride,
                         const std::string& what) const;
  /// Issues `op` (inputs and out set) writing the tensor `out`.
  void issue_compute(op_record op, tl::tensor::state& out, math_op cost, uint64_t elements,
                     std::vector<uint64_t> deps);
  /// The op of op(a) x op(b) (inputs, transposes), its shapes checked.
  op_record dot_op(const tl::tensor::state& a, const tl::tensor::state& b, tl::dot_opts o) const;

  /// Issues the MATH op `op` (fn, scalar, axis, inputs `in` set) into a new
  /// TCM tensor of rows x cols `type`. With `eager` and every input's data
  /// there, computes the result in Phase 1 with the Phase 2 kernel
  /// (runtime/data/op_compute), so both passes agree (kernel_index.cpp).
  tl::tensor math_command(op_record op, uint32_t rows, uint32_t cols, dtype type,
                          std::vector<const tl::tensor::state*> in, bool eager);
  /// Issues the MATH op `op`, whose out is set (a view in TCM), on PE_MATH.
  uint64_t issue_math(op_record op, uint64_t elements, std::vector<uint64_t> deps);
  /// Issues one DMA command between the global rows at `global` (`stride` B
  /// apart) and the TCM view `local`, with exactly these views in its op
  /// record; `payload`: a store's Phase 1 bytes (kernel_masked.cpp).
  /// `atomic`: a write that is that atomic (docs/adr/0027), recorded as it.
  uint64_t issue_dma(bool read, uint64_t global, uint64_t stride, const tensor_view& local,
                     std::span<const uint8_t> payload, std::vector<uint64_t> deps,
                     std::optional<math_fn> atomic = std::nullopt);
  /// A store of a strided view (its rows are not back to back in TCM).
  tl::handle store_view(tl::ptr dst, const tl::tensor& t, uint64_t row_stride);
  /// Whether each element of a rows x cols block is live under `mask`
  /// (row-major, 1 or 0); kernel_error if the mask is pending or does not
  /// broadcast.
  std::vector<uint8_t> live_elements(const tl::tensor& mask, uint32_t rows, uint32_t cols,
                                     const std::string& what) const;
  /// Stores the `live` elements (null: all) of `s` at dst, after `mask`'s
  /// command (null: none); one DMA command per group of rows with the same
  /// live runs. With `atomic`, each is that atomic instead of a plain write.
  tl::handle store_live(tl::ptr dst, const tl::tensor::state& s, uint64_t row_stride,
                        const std::vector<uint8_t>* live, const tl::tensor::state* mask,
                        const std::string& what, std::optional<math_fn> atomic = std::nullopt);

  /// memory_hazards::write_hazards, after the writers of `inputs` not yet
  /// done; without repeats.
  std::vector<uint64_t> write_deps(std::initializer_list<const tl::tensor::state*> inputs,
                                   const tensor_view& range) const;
  /// The writers of `inputs` that are not done yet.
  std::vector<uint64_t> producers(std::initializer_list<const tl::tensor::state*> inputs) const;
  /// The byte ranges a composite command reads.
  static std::vector<byte_range> reads_of(const pe_command& c);

  kernel_site site_;
  /// "kernel K on PE (program N)": the owner of its tensors (name_frame).
  std::shared_ptr<const std::string> owner_;
  kernel_port& port_;
  memory_hazards hazards_; ///< its global-memory accesses in flight
  std::shared_ptr<tcm_pool> pool_; ///< its TCM, shared with its tensors
  std::unique_ptr<kernel_fiber> fiber_;
  std::unique_ptr<kernel_watch> watch_; ///< what it does, for the stall watchdog
  /// A store of several DMA commands: its handle's (the last) -> the others.
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> joined_;
  std::function<bool()> ready_; ///< set while suspended
  std::string why_;
  bool commands_done_ = false; ///< run_commands: every command is done
  mutable kernel_frame frame_; ///< what the fault handlers say of it
};

} // namespace kb
