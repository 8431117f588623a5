#!/usr/bin/env bash
# Zone export through the mount (numbers reported in docs/zones.md): the synthetic
# RklPatch source of every corpus zone (tests/src/zone_source.rs, written by the
# `zone-sources` helper) in a temporary folder, mounted; per source the cold first read
# of `export/<stem>.zone` (parse + evaluation + export of its .max) on a fresh mount,
# then a warm second read, next to `maxfs export --kind zone` of the same sources.
# Usage: bash scripts/bench-zone-mount.sh   (needs /dev/fuse and the corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p maxfs -p maxfs-tests --bin maxfs --bin zone-sources
BIN="$CARGO_TARGET_DIR/release/maxfs"
SRC=$(mktemp -d)
MNT=$(mktemp -d)
OUT=$(mktemp -d)
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill -INT "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$SRC" "$OUT"; rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT
"$CARGO_TARGET_DIR/release/zone-sources" "$SRC"
n=$(ls "$SRC"/*.max | wc -l)

now() { date +%s.%N; }
ms() { echo "scale=1; (1000 * ($2 - $1)) / 1" | bc; }

# `maxfs export` of the same sources (one process, all cores it uses by default, then -j 1).
t0=$(now); "$BIN" export "$SRC"/*.max --out "$OUT/all" --kind zone > /dev/null; t1=$(now)
echo "maxfs export --kind zone, $n sources: $(ms "$t0" "$t1") ms ($(echo "scale=1; $n / ($t1 - $t0)" | bc) zones/s)"
t0=$(now); "$BIN" export "$SRC"/*.max --out "$OUT/one" --kind zone -j 1 > /dev/null; t1=$(now)
echo "maxfs export --kind zone -j 1, $n sources: $(ms "$t0" "$t1") ms ($(echo "scale=1; $n / ($t1 - $t0)" | bc) zones/s)"

"$BIN" mount "$SRC" "$MNT" &
PID=$!
for _ in $(seq 200); do [ -d "$MNT/$(basename "$(ls "$SRC"/*.max | head -1)")" ] && break; sleep 0.05; done

# Cold: each file's first read on this fresh mount; warm: the same file read again.
cold_total=0; warm_total=0; worst=0; worst_name=""
for f in "$SRC"/*.max; do
  s=$(basename "$f" .max)
  z="$MNT/$s.max/export/$s.zone"
  t0=$(now); cat "$z" > /dev/null; t1=$(now)
  t2=$(now); cat "$z" > /dev/null; t3=$(now)
  cmp -s "$z" "$OUT/all/$s.zone" || { echo "$s.zone differs from maxfs export's" >&2; exit 1; }
  c=$(echo "$t1 - $t0" | bc); w=$(echo "$t3 - $t2" | bc)
  cold_total=$(echo "$cold_total + $c" | bc); warm_total=$(echo "$warm_total + $w" | bc)
  if [ "$(echo "$c > $worst" | bc)" = 1 ]; then worst=$c; worst_name=$s; fi
done
echo "mount, cold first read of export/*.zone: $n files in $(echo "scale=1; (1000 * $cold_total) / 1" | bc) ms, mean $(echo "scale=1; 1000 * $cold_total / $n" | bc) ms, worst $(echo "scale=1; (1000 * $worst) / 1" | bc) ms ($worst_name), $(echo "scale=1; $n / $cold_total" | bc) zones/s"
echo "mount, warm second read: mean $(echo "scale=2; 1000 * $warm_total / $n" | bc) ms per cat process"
