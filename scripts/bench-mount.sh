#!/usr/bin/env bash
# Benchmarks of the FUSE mount (numbers reported in docs/user-guide.md):
#   1. cat of the largest stream through the mount vs the same bytes from a plain file
#   2. cold and warm `grep -r` over every json/ of the corpus vs `maxfs check` on the same files
#   3. resident memory of the mount process after reading the whole corpus (default cache)
#   4. first-read latency of one exported shape (parse + export of its .max), then warm
# Usage: bash scripts/bench-mount.sh [CORPUS]   (needs /dev/fuse; run as a user who may mount)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(realpath "${1:-${MAXFS_CORPUS:-../shared/corpus}}")
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p maxfs
BIN="$CARGO_TARGET_DIR/release/maxfs"
MNT=$(mktemp -d)
WORK=$(mktemp -d)
"$BIN" mount "$CORPUS" "$MNT" &
PID=$!
cleanup() { kill -INT "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$WORK"; rmdir "$MNT" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do [ -d "$MNT/max" ] && break; sleep 0.05; done

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
mbps() { echo "scale=1; $1 / 1048576 / $2" | bc; }

# 1. Largest stream of the corpus.
best=0; best_path=""
for f in "$CORPUS"/max/*/*.max; do
  rel=${f#"$CORPUS"/}
  while read -r size name; do
    if [ "$size" -gt "$best" ]; then best=$size; best_path="$rel/streams/$name"; fi
  done < <("$BIN" ls -l "$f/streams" | awk '{print $2, $3}')
done
echo "largest stream: $best_path ($best bytes)"
"$BIN" cat "$CORPUS/$best_path" > "$WORK/plain"
REPS=50
cat "$WORK/plain" > /dev/null
# One cat process opening the file REPS times, so process start-up does not dominate.
plain_args=(); mnt_args=()
for _ in $(seq $REPS); do plain_args+=("$WORK/plain"); mnt_args+=("$MNT/$best_path"); done
t0=$(now); cat "${plain_args[@]}" > /dev/null; t1=$(now)
plain=$(secs "$t0" "$t1")
t0=$(now); cat "$MNT/$best_path" > /dev/null; t1=$(now)
cold=$(secs "$t0" "$t1")
t0=$(now); cat "${mnt_args[@]}" > /dev/null; t1=$(now)
mnt=$(secs "$t0" "$t1")
cmp "$WORK/plain" "$MNT/$best_path"
echo "cat plain file (page cache): $(mbps $((best * REPS)) "$plain") MiB/s"
echo "cat through mount, first read (parse + serve): ${cold}s = $(mbps "$best" "$cold") MiB/s"
echo "cat through mount, warm: $(mbps $((best * REPS)) "$mnt") MiB/s ($(echo "scale=0; 100 * $plain / $mnt" | bc)% of plain)"

# 2. grep -r over every json/ (a fresh mount is cold: nothing parsed yet).
kill -INT "$PID"; wait "$PID" || true
"$BIN" mount "$CORPUS" "$MNT" &
PID=$!
for _ in $(seq 100); do [ -d "$MNT/max" ] && break; sleep 0.05; done
dirs=("$MNT"/max/*/*.max/json)
t0=$(now); grep -rl '"NEL3D_APPDATA_DONTEXPORT"' "${dirs[@]}" > /dev/null; t1=$(now)
echo "grep -r over all json/ ($(ls "${dirs[@]}" | grep -c json) files), cold: $(secs "$t0" "$t1")s"
t0=$(now); grep -rl '"NEL3D_APPDATA_DONTEXPORT"' "${dirs[@]}" > /dev/null; t1=$(now)
echo "grep -r over all json/, warm: $(secs "$t0" "$t1")s"
t0=$(now); "$BIN" check "$CORPUS/max" > /dev/null; t1=$(now)
echo "maxfs check on the same files: $(secs "$t0" "$t1")s"

# 3. Memory after reading every file of the corpus through the mount.
find "$MNT" -type f -print0 | xargs -0 cat > /dev/null
echo "mount process RSS after reading the whole corpus: $(awk '/VmRSS/ {print $2, $3}' "/proc/$PID/status") (peak $(awk '/VmHWM/ {print $2, $3}' "/proc/$PID/status"))"

# 4. One exported shape: first read on a fresh mount (parse + export of the
#    whole file), then warm reads (served from the export cache).
kill -INT "$PID"; wait "$PID" || true
"$BIN" mount "$CORPUS" "$MNT" &
PID=$!
for _ in $(seq 100); do [ -d "$MNT/max" ] && break; sleep 0.05; done
SHAPE="$MNT/max/ryzomcore/street.max/shape/sphere01.shape"
t0=$(now); cat "$SHAPE" > /dev/null; t1=$(now)
echo "first read of street.max/shape/sphere01.shape (cold mount): $(echo "scale=1; 1000 * ($t1 - $t0)" | bc) ms"
shape_args=(); for _ in $(seq $REPS); do shape_args+=("$SHAPE"); done
t0=$(now); cat "${shape_args[@]}" > /dev/null; t1=$(now)
echo "warm read of the same shape: $(echo "scale=3; 1000 * ($t1 - $t0) / $REPS" | bc) ms per open+read ($REPS in one process)"
