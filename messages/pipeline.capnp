@0xd5e2a8c41b7f3e92;
# The PE pipeline's messages (seed ADR-0014, seed ADR-0021 D9): commands from PE_CPU to
# PE_SCHEDULER and the self-routing tile tokens that carry their plan.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");
using Op = import "oplog.capnp"; # TensorView: a view of memory, as the op log has it

enum StageType { dmaRead @0; fetch @1; gemm @2; math @3; store @4; dmaWrite @5; }

# The unit of a PE that runs a stage (kb::unit_role). Every stage of a plan
# runs on a unit of the PE whose PE_SCHEDULER feeds it, so a stage names its
# unit by role, never by node id (docs/adr/0035-typed-unit-roles.md).
enum UnitRole { dma @0; fetchStore @1; gemm @2; math @3; }

struct Stage {
  type      @0 :StageType;
  unit      @1 :UnitRole;  # the unit of the feeding scheduler's PE that runs it
  operand   @2 :UInt8;     # 'A', 'B', 'C' or 0
  address   @3 :UInt64;    # global address (DMA stages)
  rowStride @4 :UInt64;
  rows      @5 :UInt32;
  rowBytes  @6 :UInt64;
  bytes     @7 :UInt64;    # bytes this stage moves (DMA, FETCH, STORE)
  tm        @8 :UInt32;
  tk        @9 :UInt32;
  tn        @10 :UInt32;
  elements  @11 :UInt64;   # MATH
  op        @12 :UInt8;    # MATH op (kb::math_op), 255 if none
  inDtype   @13 :UInt8;
  outDtype  @14 :UInt8;
  scope     @15 :UInt8;    # 0 none, 1 k_tile, 2 output_tile
  lastK     @16 :Bool;
  # Data (seed ADR-0020), DMA stages of kernel loads and stores:
  localAddress @17 :UInt64; # the TCM end of the transfer (0: a scheduler slot)
  wantData  @18 :Bool;      # dma_read: bring the bytes back to the kernel
  dataOp    @19 :DataOp;    # a kernel's compute on TCM tensors: what Phase 2 does
  operands  @20 :StageOperands; # blocks a composite stage reads in place (unset: none)
}

# Data a composite tile's stage reads without a DMA_READ of its own
# (runtime/plan/pipeline_plan.hpp stage_params): a GEMM stage's pinned A and
# B blocks; a GEMM epilogue MATH stage's operand block (in `a`) and scalar.
struct StageOperands {
  a     @0 :Op.TensorView;
  b     @1 :Op.TensorView;
  value @2 :Float64 = 1.0;
}

# The data op of a stage that says it itself (runtime/data/op_record.hpp):
# a kernel's dot or math on TCM tensors. Composite tiles leave it unset.
struct DataOp {
  kind       @0 :UInt8;    # kb::op_kind
  fn         @1 :UInt8;    # kb::math_fn
  name       @2 :Text;
  inputs     @3 :List(Op.TensorView);
  out        @4 :Op.TensorView;
  accumulate @5 :Bool;
  scalar     @6 :Float64;
  axis       @7 :Int8;
  transposeA @8 :Bool;
  transposeB @9 :Bool;
}

# A tile of a command, owned by exactly one unit at a time; the owner
# advances stageIdx in place and forwards it to the next stage's unit.
struct TileToken {
  command   @0 :UInt64;
  tile      @1 :UInt32;
  stageIdx  @2 :UInt16;
  scheduler @3 :UInt32;    # node id of the node the tile-done notice goes to
  m         @4 :UInt32;
  n         @5 :UInt32;
  k         @6 :UInt32;
  stages    @7 :List(Stage);
  data      @8 :Data;      # bytes a kernel load read, or a kernel store writes
  who       @9 :Text;      # the kernel whose load or store this is
  slot      @10 :UInt32;   # the scheduler's running tile count mod 2^14: names
                           # the tile's operand slots in the op log (stage_ops)
  pendingFrom @11 :Text;   # a kernel load of bytes a compute result wrote: who
                           # wrote them ("command 3 of kernel k on sip0.cube0.pe0");
                           # no data in Phase 1 (the replay computes it)
}

struct GemmCommand {
  m @0 :UInt32; k @1 :UInt32; n @2 :UInt32;
  tileM @3 :UInt32; tileK @4 :UInt32; tileN @5 :UInt32;
  inDtype @6 :UInt8; outDtype @7 :UInt8;
  aAddr @8 :UInt64; bAddr @9 :UInt64; cAddr @10 :UInt64;
  aPinned @11 :Bool; bPinned @12 :Bool;
  epilogue @13 :List(EpilogueOp);
}

struct EpilogueOp {
  op      @0 :UInt8;
  scope   @1 :UInt8;          # 0 = none (an error)
  operand @2 :Op.TensorView;  # kb::epilogue_op::operand (unset: none)
  value   @3 :Float64 = 1.0;
}

struct MathCommand {
  m @0 :UInt32; n @1 :UInt32; tileM @2 :UInt32; tileN @3 :UInt32;
  op @4 :UInt8; inDtype @5 :UInt8; outDtype @6 :UInt8;
  srcAddr @7 :UInt64; dstAddr @8 :UInt64;
}

# A simple command: exactly one unit does one thing (seed ADR-0014 D3.1).
struct SimpleCommand {
  stage @0 :Stage;
}

struct PeCommand {
  id @0 :UInt64;
  payload @4 :Data;        # a simple dma_write: the bytes it writes (empty: a
                           # compute result, known only in Phase 2)
  who     @5 :Text;        # the kernel that issued it (named in errors)
  deps    @6 :List(UInt64); # commands (of the same PE_CPU) that must be done
                            # before its first tile is fed: a kernel's data
                            # dependencies, kept by PE_SCHEDULER
  union {
    gemm   @1 :GemmCommand;
    math   @2 :MathCommand;
    simple @3 :SimpleCommand;
  }
}
