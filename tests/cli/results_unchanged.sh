#!/usr/bin/env bash
# `kernbench run --json` of a fixed set of runs must equal the committed
# expected files byte for byte, for every engine setting that must not change
# results: --threads 1/2/4 x --delivery direct/mailbox x --partition
# cube/sip/pe (docs/adr/0009-shard-loop.md), and --procs 2/4 x --threads 1/2
# (also the trace file) on the multi-SIP machine, the 1,024-PE machine on
# 1/2/4 threads, and --peers over two
# `kernbench peer` processes on 127.0.0.2 and 127.0.0.3 (3 processes).
#
# The expected files of the single-cube cases were written by kernbench
# before the shard loop existed (commit fbbb8ab, the mailbox engine); the
# multi-SIP cases by --delivery mailbox --threads 1 (two_sips_remote_sip when
# the fabric arrived: every PE reads B from the other SIP's HBM). All were
# regenerated (--delivery mailbox --threads 1) when the kernel launch
# through M_CPU and NOC arrived: every time moved by the launch (6 ns, plus
# 0.25 ns per earlier PE of the cube whose 64 B descriptor went first on the
# m_cpu -> noc link) and the run's end by the completion's way back.
# two_sips_remote_sip was regenerated when the II prediction learned to
# follow the routes to another SIP (its predicted_ii_ps were null before).
# All were regenerated for schema_version 2 (one report for every run,
# docs/adr/0024-one-report-for-every-run.md): every value of version 1 kept,
# checked field by field; added: each command's what/call/start/held...,
# kernel_time and critical_path; cmd<i>.* left `units[].figures` (they are in
# pes[].commands) and unused stage types left `stages`. Schema_version 3
# (out-of-order dispatch, docs/adr/0025-out-of-order-dispatch.md) changed
# only the version and gemm_ragged_epilogue_4pe's `held`/`joined_by` value
# `feeder` to `engine`: every time is the same to the picosecond.
# Schema_version 4 (stage tallies, docs/adr/0024's amendment) dropped
# `stages.*.records[]`; every other value was compared with the version 3
# files and is the same.
# Schema_version 5.0 (issue 33: results that reproduce themselves) added
# `complete`, `stopped_by` and `invocation` at the end; every other value was
# compared with the version 4 files and is the same.
# Schema_version 6.0 (issue 31: the JSON of a run of many PEs is its
# summary) added `per_pe` and `groups`; every other value of the five files
# was compared with the 5.1 files and is the same. remote_cube_1024pe (the
# 1,024-PE machine, grouped) was added then: it is small enough to commit now.
# Schema_version 6.1 (issue 31: `--memory`) added `memory` after `timings`,
# only in a run with `--memory`; the files changed in `schema_version` alone.
# Schema_version 6.4 (issue 62: docs/adr/0045-a-kernel-authors-report.md)
# added `summary.kernel_latency_ps` and the `kernel_time` split (on_compute_ps,
# on_loads_ps, on_stores_ps, in_transit_ps); every other value was compared
# with the 6.3 files and is the same.
# Regenerate a file only for a change that is meant to change results, and
# say so in the commit.
#
# Usage (from the repository root): tests/cli/results_unchanged.sh KERNBENCH
set -euo pipefail
kb=${1:?usage: results_unchanged.sh path/to/kernbench}
dir=tests/cli/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | arguments (paths relative to the repository root: the JSON names them)
cases=(
  "gemm_512|--topology config/topology.yaml --M 512 --K 512 --N 512"
  "math_exp_4pe|--topology config/topology.yaml --pes 4 --op math --op-kind exp --M 512 --N 512 --tile 128 128"
  "gemm_ragged_epilogue_4pe|--topology config/topology.yaml --pes 4 --M 200 --K 384 --N 300 --epilogue relu:output_tile --epilogue add:k_tile --repeat 2"
  "two_sips_all_pes|--topology config/scale/2sip_2cube_4pe.yaml --pes all --M 256 --K 256 --N 256"
  "two_sips_remote_sip|--topology config/scale/2sip_2cube_4pe.yaml --pes all --M 256 --K 256 --N 256 --placement remote-sip"
)

# The JSON names the build that ran it (`kernbench.git`) and ends with how
# it was started (`invocation`: the command line, threads, processes, host),
# which differ between runs whose results are the same: both are left out of
# the comparison (the expected files hold "<git>" and some invocation).
results_of() { # $1 = a run's JSON
  sed -E -e 's/^(    "git": )"[^"]*"/\1"<git>"/' -e '/^  "invocation": \{/,$d' "$1"
}
same_as_expected() { # $1 = the run's JSON, $2 = the expected file
  cmp -s <(results_of "$1") <(results_of "$2")
}

failed=0
runs=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  want="$dir/$name.json"
  [[ -f "$want" ]] || { echo "missing expected file $want"; exit 1; }
  for threads in 1 2 4; do
    for delivery in direct mailbox; do
      for partition in cube sip pe; do
        out="$tmp/$name.$threads.$delivery.$partition.json"
        if ! "$kb" run "${args[@]}" --threads "$threads" --delivery "$delivery" \
             --partition "$partition" --json "$out" >"$tmp/log" 2>&1; then
          echo "FAIL $name --threads $threads --delivery $delivery --partition $partition:"
          cat "$tmp/log"
          failed=1
          continue
        fi
        runs=$((runs + 1))
        if ! same_as_expected "$out" "$want"; then
          echo "DIFFERS $name --threads $threads --delivery $delivery --partition $partition"
          diff <(tr ',' '\n' <"$want") <(tr ',' '\n' <"$out") | head -20 || true
          failed=1
        fi
      done
    done
  done
done
# Split over processes (whole SIPs, then whole cubes, per process): the same
# JSON, and the same Cap'n Proto trace as one process; with remote-sip every
# B operand crosses the processes.
for name in two_sips_all_pes two_sips_remote_sip; do
  for c in "${cases[@]}"; do [[ ${c%%|*} == "$name" ]] && read -r -a args <<<"${c#*|}"; done
  "$kb" run "${args[@]}" --trace "$tmp/one.trace" >/dev/null
  for procs in 2 4; do
    for threads in 1 2; do
      out="$tmp/$name.procs$procs.$threads.json"
      if ! timeout 120 "$kb" run "${args[@]}" --procs "$procs" --threads "$threads" --json "$out" \
           --trace "$tmp/split.trace" >"$tmp/log" 2>&1; then
        echo "FAIL $name --procs $procs --threads $threads:"
        cat "$tmp/log"
        failed=1
        continue
      fi
      runs=$((runs + 1))
      same_as_expected "$out" "$dir/$name.json" || { echo "DIFFERS $name --procs $procs --threads $threads"; failed=1; }
      cmp -s "$tmp/split.trace" "$tmp/one.trace" || { echo "TRACE DIFFERS $name --procs $procs --threads $threads"; failed=1; }
    done
  done
done
# A multi-host run emulated on loopback addresses: two `kernbench peer`
# processes on 127.0.0.2 and 127.0.0.3 (ports chosen by the system, read
# from their first line) and `run --peers`: the same JSON and trace again.
start_peer() { # $1 = address, $2 = name
  "$kb" peer --listen "$1:0" --once >"$tmp/$2.out" 2>"$tmp/$2.err" &
  pids+=($!)
}
peer_address() { # $1 = name; prints the peer's HOST:PORT once it listens
  for _ in $(seq 100); do
    if grep -q '^kernbench peer: listening on ' "$tmp/$1.out" 2>/dev/null; then
      sed -n 's/^kernbench peer: listening on //p' "$tmp/$1.out"
      return 0
    fi
    sleep 0.1
  done
  echo "peer $1 did not start: $(cat "$tmp/$1.err")" >&2
  return 1
}
for threads in 1 2; do
  pids=()
  start_peer 127.0.0.2 peer2
  start_peer 127.0.0.3 peer3
  if p2=$(peer_address peer2) && p3=$(peer_address peer3) &&
     timeout 120 "$kb" run "${args[@]}" --peers "$p2,$p3" --threads "$threads" \
       --json "$tmp/peers.json" --trace "$tmp/peers.trace" >"$tmp/log" 2>&1 &&
     wait "${pids[@]}"; then
    runs=$((runs + 1))
    same_as_expected "$tmp/peers.json" "$dir/$name.json" || { echo "DIFFERS $name --peers $p2,$p3 --threads $threads"; failed=1; }
    cmp -s "$tmp/peers.trace" "$tmp/one.trace" || { echo "TRACE DIFFERS $name --peers $p2,$p3 --threads $threads"; failed=1; }
  else
    echo "FAIL $name --peers ${p2:-?},${p3:-?} --threads $threads:"
    cat "$tmp/log" "$tmp/peer2.err" "$tmp/peer3.err" 2>/dev/null
    kill "${pids[@]}" 2>/dev/null || true
    failed=1
  fi
done
# The 1,024-PE machine, every PE reading B from the neighbouring cube over
# UCIe: the same JSON (its groups: schema 6.0) on 1, 2 and 4 threads as the
# expected file, with and without --records (2 and 4 threads write them),
# and the same records table (`records convert --csv`) on 2 and 4 threads.
big=(--topology config/scale/4sip_4cube_64pe.yaml --pes all --M 128 --K 128 --N 128 --placement remote-cube)
for threads in 1 2 4; do
  records=()
  [[ $threads == 1 ]] || records=(--records "$tmp/big.$threads.rec")
  if ! "$kb" run "${big[@]}" --threads "$threads" --json "$tmp/big.$threads.json" "${records[@]}" \
       >"$tmp/log" 2>&1; then
    echo "FAIL 1024 PEs --threads $threads:"; cat "$tmp/log"; failed=1; continue
  fi
  runs=$((runs + 1))
  same_as_expected "$tmp/big.$threads.json" "$dir/remote_cube_1024pe.json" ||
    { echo "DIFFERS 1024 PEs --threads $threads"; failed=1; }
  if [[ $threads != 1 ]] &&
     ! "$kb" records convert "$tmp/big.$threads.rec" --csv "$tmp/big.$threads.csv" >"$tmp/log" 2>&1; then
    echo "FAIL records convert, 1024 PEs --threads $threads:"; cat "$tmp/log"; failed=1
  fi
done
cmp -s "$tmp/big.2.csv" "$tmp/big.4.csv" || { echo "RECORDS DIFFER 1024 PEs --threads 2 vs 4"; failed=1; }
echo "$runs runs compared with ${#cases[@]} expected files"
exit $failed
