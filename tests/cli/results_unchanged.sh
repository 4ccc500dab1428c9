#!/usr/bin/env bash
# `kernbench run --json` of a fixed set of runs must equal the committed
# expected files byte for byte, for every engine setting that must not change
# results: --threads 1/2/4 x --delivery direct/mailbox x --partition
# cube/sip/pe (docs/adr/0009-shard-loop.md), and --procs 2/4 x --threads 1/2
# (also the trace file) on the multi-SIP machine.
#
# The expected files of the single-cube cases were written by kernbench
# before the shard loop existed (commit fbbb8ab, the mailbox engine); the
# multi-SIP cases by --delivery mailbox --threads 1 (two_sips_remote_sip when
# the fabric arrived: every PE reads B from the other SIP's HBM). Regenerate a file only
# for a change that is meant to change results, and say so in the commit.
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
        if ! cmp -s "$out" "$want"; then
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
      cmp -s "$out" "$dir/$name.json" || { echo "DIFFERS $name --procs $procs --threads $threads"; failed=1; }
      cmp -s "$tmp/split.trace" "$tmp/one.trace" || { echo "TRACE DIFFERS $name --procs $procs --threads $threads"; failed=1; }
    done
  done
done
echo "$runs runs compared with ${#cases[@]} expected files"
exit $failed
