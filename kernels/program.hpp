#pragma once
// Host programs (DESIGN §5 "Programs: many kernels, one run";
// docs/adr/0043-host-programs.md): the counterpart of CUDA/Triton host code.
// A program declares tensors (inputs with data, outputs, scratch, each
// placed as a kernel places its own), launches kernels (shipped or from a
// --kernel-lib) with their arguments, tensor bindings and PEs on ordered
// queues, records events and waits on them, and gives the reference its
// outputs are verified against:
//
//   void build(kb::program_builder& p, const kb::kernel_args& a) {
//     p.tensor({"x", 512, 512, kb::dtype::f16});              // an input
//     p.tensor({"h", 512, 512, kb::dtype::f16, /*output=*/true});
//     ...
//     auto q = p.queue("main");
//     p.launch(q, "gemm", {{"M", "512"}, ...}, {{"a", "x"}, {"b", "w1"}, {"c", "h"}});
//     p.launch(q, "gemm", {...}, {{"a", "h"}, {"b", "w2"}, {"c", "y"}}); // after the first
//     p.reference([](const kb::tensor_values& in) { ... return out; });
//   }
//
// Every launch travels the modelled launch path (host -> M_CPU -> NOC ->
// PE_CPU, completion back to the host): a launch is issued when every
// launch it depends on has completed at the host. Data flows through
// memory: what one launch writes, the next reads (pending in Phase 1 when a
// compute result wrote it; the Phase 2 replay computes it).

#include "kernels/registry.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kb {

/// A queue of launches (a stream): its launches run one after the other.
struct program_queue {
  uint32_t id = UINT32_MAX;
};
/// A point of a queue: every launch queued on it before the event was recorded.
struct program_event {
  uint32_t id = UINT32_MAX;
};
/// A launch, numbered from 0 in the order the program made them.
struct program_launch {
  uint32_t id = UINT32_MAX;
};

/// The PEs a launch's grid is dealt to: `count` PEs from number `first` of
/// the machine (in `kernbench run`'s PE order: by SIP, cube and PE); count 0:
/// every PE from `first` on.
struct pe_range {
  uint32_t first = 0;
  uint32_t count = 0;
};

/// The machine a program's build function sizes its work for.
struct program_machine {
  uint32_t pes = 1;            ///< the PEs it may launch on (the machine's, or --pes)
  std::vector<pe_range> cubes; ///< the PEs of each cube among them, in order
};

/// A binding to rows [first, end) of the program's tensor `tensor`:
/// "tensor[first:end]" (a launch's kernel then sees just those rows, as a
/// tensor of end - first rows; its accesses are checked against them).
std::string rows_of(const std::string& tensor, uint32_t first, uint32_t end);

/// One launch as the program declared it.
struct launch_decl {
  uint32_t queue = 0;
  std::string kernel;
  std::map<std::string, std::string> args; ///< as `--arg K=V` would give them
  /// The kernel's tensor name -> the program's tensor it runs on, whole
  /// ("x") or some of its rows ("x[64:128]", rows_of).
  std::map<std::string, std::string> bind;
  pe_range pes;
  /// Launches that must complete (at the host) before this one is issued:
  /// the previous launch of its queue, the launches its queue waits on
  /// through events, every launch before a host wait. Ascending.
  std::vector<uint32_t> after;
};

/// What a program's build function declared.
struct program_plan {
  std::vector<kernel_tensor> tensors;
  std::vector<std::string> queues;
  std::vector<launch_decl> launches;
  /// The expected outputs from the deployed inputs (every output tensor of
  /// the program, by its name), as a kernel's reference gives them.
  std::function<tensor_values(const tensor_values& inputs)> reference;
};

/// What a program's build function declares its work with. Misuse (a
/// tensor declared twice, an unknown queue or event) is std::invalid_argument
/// naming the program.
class program_builder {
public:
  program_builder(std::string program, program_machine machine)
      : program_(std::move(program)), machine_(std::move(machine)) {}

  /// How many PEs the program may launch on (numbered 0 .. pes() - 1 in a
  /// pe_range), as CUDA host code asks the device for its SM count.
  uint32_t pes() const { return machine_.pes; }
  /// The PEs of each cube among them, in the machine's order (SIP, cube):
  /// for work split over the cubes (with tensors placed "cubes").
  const std::vector<pe_range>& cubes() const { return machine_.cubes; }

  /// A tensor of the program, as a kernel declares one (kernels/registry.hpp):
  /// inputs get random values from the seed (or --input), outputs start
  /// zeroed and are verified, scratch is neither.
  void tensor(kernel_tensor t);
  /// A new queue; `name` names it in the report.
  program_queue queue(std::string name);
  /// Launches `kernel` with `args` on `pes`, after everything queued on `q`
  /// so far (and what `q` waits on). `bind` gives, for each tensor the
  /// kernel declares, the program's tensor it runs on (same shape and
  /// dtype), or rows of one (rows_of: those rows' shape).
  program_launch launch(program_queue q, std::string kernel,
                        std::map<std::string, std::string> args,
                        std::map<std::string, std::string> bind, pe_range pes = {});
  /// An event: the point of `q` reached once everything queued on it so far completes.
  program_event record(program_queue q);
  /// Later launches on `q` wait for `e`.
  void wait(program_queue q, program_event e);
  /// The host waits for every launch made so far: later launches are issued
  /// only after all of them complete.
  void host_wait();
  /// The program is done with `tensor`: a launch made after this that
  /// binds it is refused, naming both ("used after the program freed it").
  /// Launches made before may still be running when later ones start, so
  /// its memory is not given to another tensor (every tensor has its own
  /// place for the whole run); an output freed is still verified.
  void free(const std::string& tensor);
  /// The program's reference (every output by name, from the inputs).
  void reference(std::function<tensor_values(const tensor_values&)> f);

  const std::string& name() const { return program_; }
  program_plan& plan() { return plan_; }

private:
  [[noreturn]] void fail(const std::string& why) const;
  const std::string& queue_name(program_queue q) const;

  std::string program_;
  program_machine machine_;
  program_plan plan_;
  /// Per queue: its last launch (UINT32_MAX: none) and what its next launch
  /// waits on besides.
  std::vector<uint32_t> last_;
  std::vector<std::vector<uint32_t>> waits_;
  /// Per event: the launches it waits for.
  std::vector<std::vector<uint32_t>> events_;
  uint32_t barrier_ = 0; ///< launches before the last host wait
  /// Freed tensors: how many launches had been made when each was freed.
  std::map<std::string, uint32_t> freed_;
};

/// The programs kernbench ships, by name.
const std::map<std::string, program_def>& shipped_programs();
/// The program called `name`, shipped or loaded; std::invalid_argument
/// listing the known ones.
const program_def& find_program(const std::string& name);
/// Runs `def`'s build function with `args` for `machine` (what the
/// builder's pes() and cubes() give it): the plan, checked
/// (std::invalid_argument naming the program). What the build throws is
/// named too.
program_plan build_program(const program_def& def, const kernel_args& args,
                           program_machine machine);

} // namespace kb
