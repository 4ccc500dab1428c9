@0xb6f0c2d9a4e81357;
# The data a memory request or reply carries (seed ADR-0020 D7; issue 12): only
# kernel loads and stores carry one; the traffic of composite commands
# (whose bytes are compute results, known only in Phase 2) carries none and
# leaves the memory's contents alone. A request's address is in arg0. A
# kernel's write of a compute result (a composite command's tile, a store of
# a pending tensor) says so (`pending`, no data): the memory marks the bytes
# so that a load of them gets no stale bytes but a pending reply (issue 28;
# docs/adr/0043: data flows through memory).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");

struct MemAccess {
  rows     @0 :UInt32;  # rows of rowBytes each, stride bytes apart from arg0
  rowBytes @1 :UInt64;
  stride   @2 :UInt64;
  wantData @3 :Bool;    # mem_read: reply with the bytes
  data     @4 :Data;    # mem_data / mem_write: the rows, packed
  who      @5 :Text;    # the kernel that asked (named in errors)
  pending  @6 :Bool;    # mem_write of a kernel's compute result: no data in
                        # Phase 1; a mem_data reply to a load of such bytes
                        # says so (no data; `who` then names their writer)
  command  @7 :UInt64;  # the asking kernel's command (named in errors)
  mark     @8 :Bool;    # with pending: a notice from a PE_CPU that a compute
                        # result will fill these bytes of its TCM (a tl.dot,
                        # tl.exp, ... on TCM tensors); the memory marks them
                        # and does not serve it (no time, no reply)
  # Atomics (docs/adr/0027): a mem_write with `atomic` is a read-modify-write
  # the memory applies: its bytes become f(bytes, data) element by element
  # (atomicFn: kb::math_fn atomic_add or atomic_max; atomicType: kb::dtype
  # f32 or i32); with `pending` the operand is a compute result and the
  # memory marks the bytes. Its mem_ack carries `applied`: the time (ps) the
  # memory applied it, strictly increasing over one memory's atomics.
  atomic     @9 :Bool;
  atomicFn   @10 :UInt8;
  atomicType @11 :UInt8;
  applied    @12 :UInt64;
}
