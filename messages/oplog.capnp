@0xaadf289991275174;
# The Phase 1 op log (seed ADR-0020 D5), read back by the Phase 2 replay. A file is
# a sequence of packed messages, each an OpLogPart: first a header, then
# batches of records in log order, last an end marker with the record count
# (a file without it was not closed: truncated, or its writer died).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");

enum DType { f32 @0; f16 @1; bf16 @2; i8 @3; i32 @4; }
enum OpKind { memory @0; gemm @1; math @2; }
enum MathFn {
  exp @0; log @1; relu @2; rsqrt @3; sqrt @4; neg @5; abs @6; recip @7; tanh @8;
  add @9; sub @10; mul @11; div @12; max @13; min @14;
  where @15;
  scale @16; addScalar @17;
  sum @18; rowMax @19; rowMin @20;
  cast @21;
  arange @22; full @23;
  lt @24; le @25; gt @26; ge @27; eq @28; ne @29;
  logicalAnd @30; logicalOr @31; logicalNot @32;
  argmax @33; argmin @34; cumsum @35;
  atomicAdd @36; atomicMax @37;
}

struct TensorView {
  address   @0 :UInt64;
  rows      @1 :UInt32;
  cols      @2 :UInt32;
  rowStride @3 :UInt64;   # bytes
  dtype     @4 :DType;
}

struct OpRecord {
  id         @0 :UInt64;
  tStart     @1 :UInt64;  # ps
  tEnd       @2 :UInt64;  # ps
  component  @3 :UInt32;  # index into the batch's names
  kind       @4 :OpKind;
  opName     @5 :UInt32;  # index into the batch's names
  inputs     @6 :List(TensorView);
  out        @7 :TensorView;
  accumulate @8 :Bool;
  fn         @9 :MathFn;
  scalar     @10 :Float64;
  axis       @11 :Int32;
  deps       @12 :List(UInt64);
  transposeA @13 :Bool;
  transposeB @14 :Bool;
}

# Component and op names repeat a lot: each batch lists them once.
struct OpBatch {
  names   @0 :List(Text);
  records @1 :List(OpRecord);
}

struct OpLogPart {
  union {
    header @0 :Text;      # "kernbench op log 1"
    batch  @1 :OpBatch;
    end    @2 :UInt64;    # records in the file
  }
}
