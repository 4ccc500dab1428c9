@0xc3a1f2b47d9e6a10;
# Engine-level wire format: the envelope of every simulation message and the
# batches the synchronisation protocol exchanges. In one process these are
# C++ values moved between actors; across processes these bytes travel.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");

struct Event {
  time  @0 :UInt64;   # head arrival time at dst (ps)
  src   @1 :UInt32;   # sender node id
  seq   @2 :UInt64;   # sender sequence number
  tail  @3 :UInt64;   # tail arrival time (ps)
  dst   @4 :UInt32;
  queue @5 :UInt16;
  kind  @6 :UInt16;
  link  @7 :UInt32;
  arg0  @8 :UInt64;
  arg1  @9 :UInt64;
  bytes @11 :UInt64;
  body  @10 :AnyPointer; # optional payload (a struct, e.g. a TileToken); null if none
}

# hub <-> node: the window to run and the events to deliver (advance), or the
# events a node sent and its next local event time (report).
enum BatchKind { advance @0; report @1; peer @2; }

struct Batch {
  kind   @5 :BatchKind;
  node   @0 :UInt32;
  time   @1 :UInt64;   # advance: window end; report: next local event time;
                       # peer batch: the promise (lower bound on later events)
  events @2 :List(Event);
  from   @3 :UInt32;   # peer batch: sending process rank
  final  @4 :Bool;     # peer batch: sender has nothing left before the end
  error  @6 :Text;     # report: a node's failure, named and explained
  acked  @7 :UInt64;   # peer batch: events the sender has received from the
                       # addressee so far (ADR-0014)
}
