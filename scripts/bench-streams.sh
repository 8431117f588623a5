#!/usr/bin/env bash
# Issue-11 benchmarks of the mount against plain files, each as a ratio measured
# in the same run (numbers in docs/architecture.md):
#   1. every raw stream of the corpus read through a fresh mount (first pass:
#      parse + serve) and again (second pass: served from the document cache),
#      vs the same bytes from plain files in the page cache
#   2. the largest stream, warm, vs a plain file
#   3. maxfs check on the whole corpus and on street.max alone, in MB/s
#   4. first read of every shape/*.shape through a fresh mount vs
#      `maxfs export --kind shape` of the same files, and warm reads
#   5. peak RSS of the mount after reading every stream and shape twice
# Usage: bash scripts/bench-streams.sh [CORPUS]   (needs /dev/fuse)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(realpath "${1:-${MAXFS_CORPUS:-../shared/corpus}}")
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# MAXFS_BIN: measure another build (e.g. an earlier commit) with the same script.
if [ -z "${MAXFS_BIN:-}" ]; then cargo build --release -q -p maxfs; fi
BIN=${MAXFS_BIN:-"$(realpath "$CARGO_TARGET_DIR")/release/maxfs"}
cargo build --release -q -p maxfs --example walk_floor
FLOOR_FS="$(realpath "$CARGO_TARGET_DIR")/release/examples/walk_floor"
MNT=$(mktemp -d)
WORK=$(mktemp -d)
PID=""
# umount first: walk_floor has no signal handler, a killed one would leave a stale mount.
cleanup() { [ -n "$PID" ] && { umount "$MNT" 2>/dev/null || kill -INT "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; rm -rf "$WORK"; rmdir "$MNT" 2>/dev/null || true; }
trap cleanup EXIT
mount_fresh() { # [SRC [PROBE [FS]]]: mount SRC (the corpus) and wait for PROBE (max) to show
  local src=${1:-$CORPUS} probe=${2:-max} fs=${3:-}
  if [ -n "$PID" ]; then umount "$MNT" 2>/dev/null || kill -INT "$PID"; wait "$PID" || true; fi
  if [ -n "$fs" ]; then "$fs" "$src" "$MNT" 2>>"$WORK/mount.log" &
  else "$BIN" mount "$src" "$MNT" 2>>"$WORK/mount.log" &
  fi
  PID=$!
  for _ in $(seq 200); do [ -e "$MNT/$probe" ] && return; sleep 0.05; done
  echo "mount did not come up"; exit 1
}
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
ratio() { echo "scale=2; $1 / $2" | bc; }

mapfile -t MAXES < <(find "$CORPUS/max" -name '*.max' | sort)
# Stream paths (relative to the corpus) and plain copies of their bytes.
: > "$WORK/streams.txt"
for f in "${MAXES[@]}"; do
  rel=${f#"$CORPUS"/}
  "$BIN" ls "$f/streams" | while read -r name; do echo "$rel/streams/$name"; done >> "$WORK/streams.txt"
done
mkdir -p "$WORK/plain"
n=0; total=0
while read -r p; do
  n=$((n + 1)); "$BIN" cat "$CORPUS/$p" > "$WORK/plain/$n"
  total=$((total + $(stat -c %s "$WORK/plain/$n")))
done < "$WORK/streams.txt"
echo "corpus: ${#MAXES[@]} files, $n streams, $total bytes"
# The protocol floor: walk_floor (mount/examples/walk_floor.rs) serves the same
# paths with the same sizes (zeros) from a table in memory, no other work.
n=0
depth() { local x=${1//[!\/]/}; echo ${#x}; }
while read -r p; do
  n=$((n + 1)); d=$(dirname "$p")
  while [ "$d" != . ]; do printf '%s\td 0 %s\n' "$(depth "$d")" "$d"; d=$(dirname "$d"); done
  printf '%s\tf %s %s\n' "$(depth "$p")" "$(stat -c %s "$WORK/plain/$n")" "$p"
done < "$WORK/streams.txt" | awk '!seen[$0]++' | sort -n -s -k1,1 | cut -f2- > "$WORK/floor.txt"
# (parents before children: by depth, each line once)
# On a shared machine single timings swing several-fold: every figure below is
# the best of ROUNDS, the rounds of plain and mount interleaved.
ROUNDS=${ROUNDS:-5}
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
mapfile -t MNT_STREAMS < <(sed "s|^|$MNT/|" "$WORK/streams.txt")
cat "$WORK"/plain/* > /dev/null
# The FUSE floor: the same bytes as plain files served through a fresh mount
# (real files pass through: one LOOKUP and the READs per file, no parsing).
# No file system in user space can serve a first read for less than the
# protocol's round trips and copies; this measures them on this machine.
mapfile -t MNT_PLAIN < <(cd "$WORK/plain" && ls | sed "s|^|$MNT/|")
P=(); F=(); S=(); L=(); Z=()
for _ in $(seq "$ROUNDS"); do
  t0=$(now); cat "$WORK"/plain/* > /dev/null; t1=$(now); P+=("$(secs "$t0" "$t1")")
  mount_fresh "$WORK/plain" 1
  t0=$(now); cat "${MNT_PLAIN[@]}" > /dev/null; t1=$(now); L+=("$(secs "$t0" "$t1")")
  mount_fresh "$WORK/floor.txt" max "$FLOOR_FS"
  t0=$(now); cat "${MNT_STREAMS[@]}" > /dev/null; t1=$(now); Z+=("$(secs "$t0" "$t1")")
  mount_fresh
  t0=$(now); cat "${MNT_STREAMS[@]}" > /dev/null; t1=$(now); F+=("$(secs "$t0" "$t1")")
  t0=$(now); cat "${MNT_STREAMS[@]}" > /dev/null; t1=$(now); S+=("$(secs "$t0" "$t1")")
done
plain=$(minimum "${P[@]}"); first=$(minimum "${F[@]}"); second=$(minimum "${S[@]}"); floor=$(minimum "${L[@]}"); zero=$(minimum "${Z[@]}")
echo "1. all streams (best of $ROUNDS): plain ${plain}s; mount first pass ${first}s ($(ratio "$first" "$plain")x plain, $(ratio "$first" "$floor")x the FUSE floor), second pass ${second}s ($(ratio "$second" "$plain")x plain)"
echo "   FUSE floor (the same bytes as plain files through a fresh mount): ${floor}s ($(ratio "$floor" "$plain")x plain)"
echo "   protocol floor (walk_floor: the same paths and sizes from memory): ${zero}s ($(ratio "$zero" "$plain")x plain; mount first pass $(ratio "$first" "$zero")x it)"

# 2. Largest stream, warm.
big=$(ls -S "$WORK"/plain | head -1); big_rel=$(sed -n "${big}p" "$WORK/streams.txt")
size=$(stat -c %s "$WORK/plain/$big")
REPS=50; pa=(); ma=()
for _ in $(seq $REPS); do pa+=("$WORK/plain/$big"); ma+=("$MNT/$big_rel"); done
cat "$MNT/$big_rel" > /dev/null
P=(); M=()
for _ in $(seq "$ROUNDS"); do
  t0=$(now); cat "${pa[@]}" > /dev/null; t1=$(now); P+=("$(secs "$t0" "$t1")")
  t0=$(now); cat "${ma[@]}" > /dev/null; t1=$(now); M+=("$(secs "$t0" "$t1")")
done
p=$(minimum "${P[@]}"); m=$(minimum "${M[@]}")
echo "2. largest stream $big_rel ($size bytes), warm: mount at $(echo "scale=0; 100 * $p / $m" | bc)% of plain throughput"

# 3. maxfs check (the T1/T2 gates; no evaluation).
t0=$(now); "$BIN" check "$CORPUS/max" > /dev/null; t1=$(now); c=$(secs "$t0" "$t1")
bytes=$(cat "${MAXES[@]}" | wc -c)
echo "3. maxfs check, whole corpus: $(echo "scale=1; $bytes / 1000000 / $c" | bc) MB/s ($bytes bytes in ${c}s)"
# street.max is small (121 KB): 200 copies in one run, so start-up does not dominate.
STREET="$CORPUS/max/ryzomcore/street.max"
mkdir -p "$WORK/street"
for i in $(seq 200); do cp "$STREET" "$WORK/street/s$i.max"; done
t0=$(now); "$BIN" check "$WORK/street" > /dev/null; t1=$(now); c=$(secs "$t0" "$t1")
echo "   maxfs check, street.max alone (200 copies): $(echo "scale=1; 200 * $(stat -c %s "$STREET") / 1000000 / $c" | bc) MB/s"

# 4. Every shape: fresh mount first read vs maxfs export --kind shape.
mount_fresh
mapfile -t SHAPES < <(for f in "${MAXES[@]}"; do rel=${f#"$CORPUS"/}; ls "$MNT/$rel/shape" 2>/dev/null | grep '\.shape$' | sed "s|^|$MNT/$rel/shape/|"; done)
mount_fresh
t0=$(now); cat "${SHAPES[@]}" > /dev/null; t1=$(now); sf=$(secs "$t0" "$t1")
t0=$(now); cat "${SHAPES[@]}" > /dev/null; t1=$(now); sw=$(secs "$t0" "$t1")
t0=$(now); "$BIN" export "$CORPUS/max" --out "$WORK/out" --kind shape --force > /dev/null 2>&1 || true; t1=$(now); ex=$(secs "$t0" "$t1")
echo "4. ${#SHAPES[@]} shapes: fresh mount first read ${sf}s vs maxfs export --kind shape ${ex}s ($(ratio "$sf" "$ex")x); warm ${sw}s"

# 5. Peak memory after reading every stream and shape twice (default budgets:
#    1 GiB documents, 512 MiB generated content).
cat "${MNT_STREAMS[@]}" "${SHAPES[@]}" > /dev/null
cat "${MNT_STREAMS[@]}" "${SHAPES[@]}" > /dev/null
echo "5. mount RSS after two passes: $(awk '/VmRSS/ {print $2, $3}' "/proc/$PID/status"), peak $(awk '/VmHWM/ {print $2, $3}' "/proc/$PID/status") (budgets 1024 MiB documents + 512 MiB content)"
