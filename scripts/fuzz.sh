#!/usr/bin/env bash
# Runs a cargo-fuzz target for a while: scripts/fuzz.sh max_parse 60
# Installs cargo-fuzz when missing; uses RUSTC_BOOTSTRAP so the stable toolchain
# accepts the sanitizer flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-max_parse}
secs=${2:-60}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
seeds=fuzz/corpus/$target
mkdir -p "$seeds"
corpus=${MAXFS_CORPUS:-../shared/corpus}
if [ "$target" = physique ]; then
  : # starts from nothing: its input is a bare chunk stream (a ModApp)
elif [ "$target" = max_parse ] || [ "$target" = max_export ] || [ "$target" = max_gltf ]; then
  find "$corpus/max" -name '*.max' -size -400k -exec cp -n {} "$seeds/" \;
  if [ "$target" = max_export ]; then
    # RklPatch sources (no public .max holds one): the synthetic one of every corpus zone.
    cargo run --release -q -p maxfs-tests --bin zone-sources "$seeds" > /dev/null
  fi
else
  find "$corpus/nel" -type f -size -200k -exec cp -n {} "$seeds/" \;
fi
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "$seeds" -- -max_total_time="$secs" -rss_limit_mb=2048 -max_len=1048576
