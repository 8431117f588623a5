#!/usr/bin/env bash
# Issue-13 whole-tree walks over the mounted corpus (numbers in docs/architecture.md):
# `find MNT -type f | wc -l`, `du -s MNT`, `grep -rl --include='*.json' KEY MNT/` and
# `grep -rl KEY MNT/`, each on a fresh
# mount (cold: every .max parsed, views and exports generated on the way) and
# again (warm), with the default tree and with --hide-chunks, next to the same
# walk of the source tree; peak RSS of the mount after each set.
# Usage: bash scripts/bench-walk.sh [CORPUS] [KEY]   (needs /dev/fuse)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(realpath "${1:-${MAXFS_CORPUS:-../shared/corpus}}")
KEY=${2:-NEL3D_APPDATA_DONTEXPORT}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# MAXFS_BIN: measure another build (e.g. an earlier commit) with the same script.
if [ -z "${MAXFS_BIN:-}" ]; then cargo build --release -q -p maxfs; fi
BIN=${MAXFS_BIN:-"$(realpath "$CARGO_TARGET_DIR")/release/maxfs"}
MNT=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && { kill -INT "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; rmdir "$MNT" 2>/dev/null || true; }
trap cleanup EXIT
mount_fresh() {
  if [ -n "$PID" ]; then kill -INT "$PID"; wait "$PID" || true; PID=""; fi
  "$BIN" mount "$@" "$CORPUS" "$MNT" 2>/dev/null &
  PID=$!
  for _ in $(seq 200); do [ -d "$MNT/max" ] && return; sleep 0.05; done
  echo "mount did not come up"; exit 1
}
now() { date +%s.%N; }
# time_of CMD...: seconds taken by CMD (output discarded)
time_of() { local t0 t1; t0=$(now); "$@" > /dev/null 2>&1 || true; t1=$(now); echo "$t1 - $t0" | bc; }
walks() { # $1 = root; prints one line per walk
  local root=$1
  echo "   find -type f: $(find "$root" -type f | wc -l) files, $(time_of sh -c "find '$root' -type f | wc -l")s"
  echo "   du -s: $(time_of du -s "$root")s"
  echo "   grep -rl $KEY: $(time_of grep -rl "$KEY" "$root/")s"
  echo "   grep -rl --include='*.json' $KEY: $(time_of grep -rl --include='*.json' "$KEY" "$root/")s"
}
echo "source tree ($CORPUS):"
walks "$CORPUS" > /dev/null
walks "$CORPUS"
for opts in "" "--hide-chunks"; do
  echo "mount ${opts:-(default)}, cold (fresh mount before each walk):"
  mount_fresh $opts; echo "   find -type f: $(time_of sh -c "find '$MNT' -type f | wc -l")s"
  mount_fresh $opts; echo "   du -s: $(time_of du -s "$MNT")s"
  mount_fresh $opts; echo "   grep -rl --include='*.json' $KEY: $(time_of grep -rl --include='*.json' "$KEY" "$MNT/")s"
  mount_fresh $opts; echo "   grep -rl $KEY: $(time_of grep -rl "$KEY" "$MNT/")s"
  echo "   peak RSS after grep: $(awk '/VmHWM/ {print $2, $3}' "/proc/$PID/status")"
  echo "mount ${opts:-(default)}, warm (same mount again):"
  walks "$MNT"
  echo "   peak RSS: $(awk '/VmHWM/ {print $2, $3}' "/proc/$PID/status") (budgets 1024 MiB documents + 512 MiB content)"
done
