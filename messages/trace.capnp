@0xa9c3e57d21f04b68;
# Trace records (seed ADR-0014 D6) and trace files. A file holds one TraceFile
# message: node names by id and the records in key order (time, node, seq).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");

enum TraceKind {
  commandSubmitted @0; subCommandDispatched @1; engineStart @2;
  engineComplete @3; tileReady @4; commandComplete @5; messageHop @6;
  callStart @7; callEnd @8;
  messageReceive @9;  # streams "1" only: a receipt is now drawn from its hop
  service @10;
}

struct TraceRecord {
  kind    @0 :TraceKind;
  time    @1 :UInt64;   # ps
  node    @2 :UInt32;
  seq     @3 :UInt32;   # order of same-time records of one node
  lane    @4 :UInt16;
  what    @5 :UInt16;   # stage type for engine events
  item    @6 :UInt64;   # tile id (tile count for command events)
  context @7 :UInt64;   # command id
  bytes   @8 :UInt64;
  peer    @9 :UInt32;   # message hop: destination node
  arrival @10 :UInt64;  # hop: head arrival (ps); service: begin
  until   @11 :UInt64;  # hop: tail arrival (ps); service: end
  msgSeq  @12 :UInt64;  # hop: the message's sequence number at its sender
  credits @13 :UInt32;  # hop into a bounded queue (lane: queue + 1): the
                        # sender's credits left for it after this message
}

struct TraceChunk { records @0 :List(TraceRecord); }

struct TraceFile {
  nodes   @0 :List(Text);
  records @1 :List(TraceRecord);
}

# A streamed trace (`kernbench run --trace-stream`): a sequence of messages,
# each a TraceStreamPart: first a header, then chunks of one node's records
# in that node's order (seq), written while the run goes, chunks of
# different nodes interleaved; last the node names. `kernbench trace
# convert` merges the chunks into key order.
struct TraceStreamPart {
  union {
    chunk  @0 :TraceChunk;
    nodes  @1 :List(Text);
    header @2 :Text;      # "kernbench trace stream 2"
  }
}
