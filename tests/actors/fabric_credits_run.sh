#!/usr/bin/env bash
# Credits on the fabric links between forwarders (docs/adr/0033-fabric-
# credits.md), on a whole run: every PE of the 2-SIP machine reads B from
# the other SIP's HBM (contended inter-SIP and UCIe links).
# - the shipped file with fabric_credits: false added: the same result as
#   the shipped file, byte for byte (tests/cli/results_unchanged.sh holds
#   the shipped file to the committed expected result);
# - fabric_credits: true with --set link_queue_depth=1: completes (no deadlock),
#   and takes longer; the same on 2 threads, partitioned by cube
#   (credits cross shards: ADR-0001 lookahead), and on 2 and 4 processes;
#   a link's own queue_depth counts;
# - a bad value is refused naming the key.
#
# Usage (from the repository root): tests/actors/fabric_credits_run.sh KERNBENCH
set -euo pipefail
kb=${1:?usage: fabric_credits_run.sh path/to/kernbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
topo=config/scale/2sip_2cube_4pe.yaml
args=(--pes all --M 256 --K 256 --N 256 --placement remote-sip)
# The shipped file with `fabric_credits: VALUE` added ($1) as $tmp/VALUE.yaml.
# (`--set` changes only keys the file has, and the shipped files leave the
# key out so that their results stay byte-identical.)
with_switch() {
  { cat "$topo"; echo "fabric_credits: $1"; } >"$tmp/$1.yaml"
  echo "$tmp/$1.yaml"
}

results_of() { # as tests/cli/results_unchanged.sh: without git and invocation
  sed -E -e 's/^(    "git": )"[^"]*"/\1"<git>"/' -e '/^  "invocation": \{/,$d' "$1"
}
end_ps() { # when the run ended
  grep -m1 -oE '^  "end_ps": [0-9]+' "$1" | grep -oE '[0-9]+$'
}
without_switch() { # the result less the topology's name, the key and commas
  results_of "$1" | grep -v -e '"fabric_credits"' -e '^  "topology": ' | sed 's/,$//'
}

"$kb" run --topology "$topo" "${args[@]}" --json "$tmp/base.json" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
"$kb" run --topology "$(with_switch false)" "${args[@]}" --json "$tmp/off.json" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
if ! cmp -s <(without_switch "$tmp/base.json") <(without_switch "$tmp/off.json"); then
  echo "FAIL: fabric_credits: false changed the result"
  diff <(without_switch "$tmp/base.json") <(without_switch "$tmp/off.json") | head -20
  exit 1
fi

on=(--topology "$(with_switch true)" --set link_queue_depth=1)
"$kb" run "${on[@]}" "${args[@]}" --json "$tmp/on.json" >"$tmp/log" 2>&1 ||
  { echo "FAIL: the run with credits failed:"; cat "$tmp/log"; exit 1; }
"$kb" run "${on[@]}" "${args[@]}" --threads 2 --partition cube --json "$tmp/on2.json" \
  >"$tmp/log" 2>&1 || { echo "FAIL: the run with credits on 2 threads failed:"; cat "$tmp/log"; exit 1; }
base=$(end_ps "$tmp/base.json")
with=$(end_ps "$tmp/on.json")
echo "end_ps: unbounded $base, fabric_credits with depth 1 $with"
if [[ -z "$with" || "$with" -le "$base" ]]; then
  echo "FAIL: credits with depth 1 should slow the contended run ($with <= $base)"
  exit 1
fi
if ! cmp -s <(results_of "$tmp/on.json") <(results_of "$tmp/on2.json"); then
  echo "FAIL: with credits, 2 threads (partition cube) differ from 1"
  exit 1
fi
grep -q '"held_for_credit"' "$tmp/on.json" || { echo "FAIL: no held_for_credit figure"; exit 1; }
# Split over processes, credits cross them: a part describes the other
# processes' links only where they touch its own nodes (issue 31), and a
# credit names its link by its number at the source, so a source's links
# must all be there. The results are those of one process.
for procs in 2 4; do
  "$kb" run "${on[@]}" "${args[@]}" --procs "$procs" --json "$tmp/onp.json" >"$tmp/log" 2>&1 ||
    { echo "FAIL: the run with credits on $procs processes failed:"; cat "$tmp/log"; exit 1; }
  if ! cmp -s <(results_of "$tmp/on.json") <(results_of "$tmp/onp.json"); then
    echo "FAIL: with credits, $procs processes differ from 1"
    diff <(results_of "$tmp/on.json") <(results_of "$tmp/onp.json") | head -20
    exit 1
  fi
done

# A link's own queue_depth: depth 1 on the inter-SIP link alone (the
# bottleneck) gives the run of depth 1 everywhere; the default depth 4
# everywhere lies between that and unbounded.
sed -E '/to: sip1.cube0.noc/s/bidirectional: true\}/queue_depth: 1, bidirectional: true}/' \
  "$tmp/true.yaml" >"$tmp/one_link.yaml"
grep -q 'queue_depth: 1' "$tmp/one_link.yaml" || { echo "FAIL: no inter-SIP link to edit"; exit 1; }
"$kb" run --topology "$tmp/one_link.yaml" "${args[@]}" --json "$tmp/link.json" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
"$kb" run --topology "$tmp/true.yaml" "${args[@]}" --json "$tmp/four.json" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
link=$(end_ps "$tmp/link.json")
four=$(end_ps "$tmp/four.json")
echo "end_ps: inter-SIP queue_depth 1 alone $link, depth 4 everywhere $four"
if [[ "$link" != "$with" || "$four" -le "$base" || "$four" -ge "$with" ]]; then
  echo "FAIL: expected inter-SIP depth 1 = $with and $base < depth 4 < $with"
  exit 1
fi

if "$kb" run --topology "$(with_switch maybe)" "${args[@]}" --json "$tmp/bad.json" \
     >"$tmp/log" 2>&1; then
  echo "FAIL: fabric_credits: maybe was accepted"
  exit 1
fi
grep -q "fabric_credits" "$tmp/log" || { echo "FAIL: the error does not name the key:"; cat "$tmp/log"; exit 1; }
echo "ok"
