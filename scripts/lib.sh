# shellcheck shell=bash
# Shared helpers for the scripts in this folder. Source it, don't run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Repository root (the parent of scripts/), as an absolute path.
KB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Build directory: $KB_BUILD_DIR (relative paths are taken from the repo root).
KB_BUILD="${KB_BUILD_DIR:-build}"
[[ "$KB_BUILD" = /* ]] || KB_BUILD="$KB_ROOT/$KB_BUILD"

kb_log() { printf '[%s] %s\n' "${KB_SCRIPT:-kernbench}" "$*" >&2; }
kb_die() { printf '[%s] error: %s\n' "${KB_SCRIPT:-kernbench}" "$*" >&2; exit 1; }

# Seconds since the epoch with a fraction, for phase timings.
kb_now() { date +%s.%N; }
# Elapsed seconds since $1 (from kb_now), one decimal.
kb_since() { awk -v a="$1" -v b="$(kb_now)" 'BEGIN { printf "%.1f", b - a }'; }
