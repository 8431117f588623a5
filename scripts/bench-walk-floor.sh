#!/usr/bin/env bash
# The FUSE floor of issue 13's whole-tree walks (`find MNT -type f`, `grep -rl
# KEY MNT/`): the same walks over a maxfs mount of the corpus (default tree,
# fresh mount before each walk) and over `walk_floor`
# (mount/examples/walk_floor.rs), a filesystem that serves a tree of the same
# shape and file sizes (zeros) from a table in memory with maxfs's kernel
# settings and no other work. The listing is taken once through maxfs (`find
# -printf %s` looks up and so generates every file). Rounds alternate; each prints wall seconds and the CPU seconds
# of the walker (user + system: the kernel's READDIRPLUS work is charged to
# it) and of the filesystem process. A walk is a sequence of round trips, so
# its wall time cannot go below the two CPU sums added.
# Usage: bash scripts/bench-walk-floor.sh [CORPUS] [ROUNDS] [KEY]   (needs /dev/fuse)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(realpath "${1:-${MAXFS_CORPUS:-../shared/corpus}}")
ROUNDS=${2:-3}
KEY=${3:-NEL3D_APPDATA_DONTEXPORT}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p maxfs --example walk_floor
BIN="$(realpath "$CARGO_TARGET_DIR")/release/maxfs"
FLOOR="$(realpath "$CARGO_TARGET_DIR")/release/examples/walk_floor"
MNT=$(mktemp -d)
LISTING=$(mktemp)
PID=""
stop() { if [ -n "$PID" ]; then umount "$MNT" 2>/dev/null || kill -INT "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=""; fi; }
cleanup() { stop; rmdir "$MNT" 2>/dev/null || true; rm -f "$LISTING"; }
trap cleanup EXIT
up() { for _ in $(seq 600); do [ -n "$(ls -A "$MNT" 2>/dev/null)" ] && return; sleep 0.05; done; echo "mount did not come up"; exit 1; }
cpu_of() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat"; }
walk() { # $1 = label, then the walk; the mount is up as $PID
  local label=$1 t0 t1 u s
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -o /tmp/walk_floor_time.$$ -f "%U %S" "$@" > /dev/null 2>&1 || true
  t1=$(date +%s.%N)
  read -r u s < <(tail -n 1 /tmp/walk_floor_time.$$); rm -f /tmp/walk_floor_time.$$
  printf '%-6s %-10s wall %6.2f s  walker cpu %5.2f s  fs cpu %5.2f s\n' \
    "$label" "$1" "$(echo "$t1 - $t0" | bc)" "$(echo "$u + $s" | bc)" "$(cpu_of "$PID")"
}
"$BIN" mount "$CORPUS" "$MNT" 2>/dev/null & PID=$!; up
find "$MNT" -printf '%y %s %P\n' > "$LISTING"; stop
echo "tree: $(wc -l < "$LISTING") entries, $(grep -c '^d' "$LISTING") directories; load $(cut -d' ' -f1-3 /proc/loadavg)"
maxfs_up() { "$BIN" mount "$CORPUS" "$MNT" 2>/dev/null & PID=$!; up; }
floor_up() { "$FLOOR" "$LISTING" "$MNT" 2>/dev/null & PID=$!; up; }
for r in $(seq "$ROUNDS"); do
  for fs in maxfs floor; do
    "${fs}_up"; walk "$fs" find "$MNT" -type f; stop
    "${fs}_up"; walk "$fs" grep -rl "$KEY" "$MNT/"; stop
  done
done
