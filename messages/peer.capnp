@0xb9e9f5cfe4ac027b;
# The control protocol between `kernbench run --peers` (the launcher, rank 0)
# and `kernbench peer` (docs/adr/0010-multi-host-runs.md). Each frame on the
# TCP connection is a 4-byte little-endian length followed by one flat Cap'n
# Proto message of this struct. Simulation traffic does not use this
# connection: it goes over CAF's network layer (sim.capnp batches).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kb::wire");

struct PeerFrame {
  union {
    # launcher -> peer, first frame: who is calling.
    hello @0 :Identity;
    # peer -> launcher, answer to hello: who answers (the launcher checks too).
    welcome @1 :Identity;
    # either way: no (a version or configuration mismatch, a bad job); the
    # connection closes after it.
    refuse @2 :Text;
    # launcher -> peer: the part of a run this peer takes.
    job @3 :Job;
    # peer -> launcher: the job is accepted (its configuration hash matched).
    accepted @4 :Void;
    # launcher -> peer: rank 0 listens on this port; start the part now.
    go @5 :UInt16;
    # either way, every second while a run is on: still here.
    heartbeat @6 :Void;
    # peer -> launcher: the part ended (exit status of the run on the peer).
    done @7 :Done;
  }
}

struct Identity {
  protocol @0 :UInt32;   # the version of this protocol
  version  @1 :Text;     # kernbench version (CMake project version)
  gitHash  @2 :Text;     # git hash of the build
}

struct Job {
  rank       @0 :UInt32;
  ranks      @1 :UInt32;
  topology   @2 :Text;          # the topology YAML, verbatim
  unused3    @3 :Text;          # never set: was the component registry YAML, which the
                                # build now holds (docs/adr/0037)
  args       @4 :List(Text);    # `kernbench run` options of the part
  configHash @5 :UInt64;        # FNV-1a of topology and args
}

struct Done {
  status     @0 :Int32;   # exit status of the part (0: it handed in its results)
  message    @1 :Text;    # its standard error (the tail), empty when fine
  wireMsgs   @2 :UInt64;  # event batches this part sent to other processes
  wireEvents @3 :UInt64;  # events in them
  wireBytes  @4 :UInt64;  # their Cap'n Proto bytes
}
