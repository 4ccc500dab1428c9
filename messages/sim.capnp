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
  need   @4 :Bool;     # peer batch: the sender is blocked on the addressee's
                       # bound: answer its next rise at once (issue 36)
  error  @6 :Text;     # report: a node's failure, named and explained
  acked  @7 :UInt64;   # peer batch: events the sender has received from the
                       # addressee so far (ADR-0014)
}

# -- engine control between processes (ADR-0010) --------------------------------
# The hubs' control messages that carry more than an atom and a number cross
# a process as these structs too: the LBTS snapshot a shard reports to shard
# 0 when every shard may be stuck, and the part of the results each process
# hands to rank 0 at the end. (Set-up messages carry CAF actor handles, which
# only CAF can serialise; the other control messages are an atom and a
# number or two.)

struct HubSnapshot {
  shard    @0 :UInt32;
  round    @1 :UInt64;
  stuck    @2 :Bool;
  localMin @3 :UInt64;   # earliest pending event of the shard (ps)
  sent     @4 :UInt64;   # event-carrying batches sent to other shards
  recv     @5 :UInt64;   # event-carrying batches received
  windows  @6 :UInt64;
}

# A figure names its statistic and its qualifier by index into its run
# result's tables (RunResult.stats, .qualifiers): 140,160 figures of a
# 2,048-PE part repeat a few dozen patterns and a few hundred qualifiers,
# and with their texts inline they were three quarters of a 12 MB part.
struct Figure {
  value     @0 :UInt64;
  stat      @1 :UInt32;  # index into RunResult.stats
  qualifier @2 :UInt32;  # index into RunResult.qualifiers: its lane, command, channel or link
}

# A declared statistic (runtime/stat_decl.hpp) as figures refer to it.
struct StatRef {
  id      @0 :UInt32;    # the declared statistic's id
  pattern @1 :Text;      # its pattern ("{}.busy_ps"); a figure's name has its qualifier for {}
}

struct NodeSummary {
  node         @0 :UInt32;
  name         @1 :Text;
  events       @2 :UInt64;
  messagesSent @3 :UInt64;
  activations  @4 :UInt64;
  lastEventPs  @5 :UInt64;
  figures      @6 :List(Figure);
  records      @7 :Data;   # serialised trace records (trace.capnp), if any
  ops          @8 :Data;   # split runs: its op records for rank 0 (oplog.capnp)
  pending      @9 :Text;   # work still held at the end (deadlock report)
  tables       @10 :List(SummaryTable); # a kind's own rows (summary_table.hpp)
  buildBytes   @11 :UInt64; # heap it held once built (--memory; 0: not measured)
}

# A table of a node's summary the engine carries but never reads: its bytes
# are a message of the table's own type (runtime/engine/summary_table.hpp).
struct SummaryTable {
  tag  @0 :UInt16;  # which table: one of the tags below
  data @1 :Data;    # a flat message: CommandTable, StageTable
}

const commandTableTag :UInt16 = 1; # runtime/machine/command_table.hpp
const stageTableTag :UInt16 = 2;   # runtime/trace/stage_table.hpp

struct CommandTable {
  rows @0 :List(CommandStat);
}

struct StageTable {
  rows @0 :List(StageTally);
}

# One command's use of one stage type on one unit (runtime/trace/stage_table.hpp).
struct StageTally {
  command @0 :UInt64;
  type    @1 :UInt8;
  count   @2 :UInt64;
  busyPs  @3 :UInt64;
}

# One command of a PE (runtime/machine/command_table.hpp).
struct CommandStat {
  id               @0 :UInt64;
  issuePs          @1 :UInt64;
  donePs           @2 :UInt64;
  tiles            @3 :UInt64;
  done             @4 :Bool;
  call             @5 :UInt8;
  unit             @6 :UInt8;
  flops            @7 :UInt64;
  bytes            @8 :UInt64;
  after            @9 :UInt64;
  what             @10 :Text;
  arrivePs         @11 :UInt64;
  startPs          @12 :UInt64;
  held             @13 :UInt8;
  heldBy           @14 :UInt64;
  bodyTiles        @15 :UInt64;
  predictedIiPs    @16 :UInt64;
  predictedMiiPs   @17 :UInt64;
  steadyIntervalPs @18 :UInt64;
  hasMii           @19 :Bool;
  hasSteady        @20 :Bool;
  resumedKernel    @21 :Bool;
  blockedFromPs    @22 :UInt64;
}

struct HubStats {
  windows      @0 :UInt64;
  advanceMsgs  @1 :UInt64;
  reportMsgs   @2 :UInt64;
  peerMsgs     @3 :UInt64;
  peerNullMsgs @4 :UInt64;
  lbtsMsgs     @5 :UInt64;
  lbtsJumps    @6 :UInt64;
  yieldMsgs    @7 :UInt64;
  runWallNs    @8 :UInt64;
}

struct RunResult {
  hub   @0 :HubStats;
  nodes @1 :List(NodeSummary);
  error @2 :Text;          # empty on success
  stopped @3 :Bool;        # a stop request ended it at a safe point (ADR-0030)
  stats @4 :List(StatRef); # the statistics its figures are of
  qualifiers @5 :List(Text); # the qualifiers its figures have ("" among them if any has none)
}
