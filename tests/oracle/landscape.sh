#!/usr/bin/env bash
# Build (once) and run the NeL landscape oracle (zone symmetrisation, ligo zone template):
# landscape.sh transform BANK SNAPCELL WELD OUTDIR FILE... | landscape.sh template CELLSIZE SNAP FILE
# Uses the NeL libraries of /work/shared/oracles/nel (its build.sh prints their directory;
# NEL_ORACLE_SRC overrides where that oracle lives). The binary is cached next to this
# script's build products in $ZONE_ORACLE_BIN_DIR (default: $CARGO_TARGET_DIR/nel-oracle,
# else ./target/nel-oracle).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${NEL_ORACLE_SRC:-/work/shared/oracles/nel}
. "$here/nel_libs.sh"
B=$(nel_oracle_build "$oracle")
bin_dir=${ZONE_ORACLE_BIN_DIR:-${CARGO_TARGET_DIR:-$here/../../target}/nel-oracle}
mkdir -p "$bin_dir"
bin="$bin_dir/landscape_oracle"
src="$here/landscape_oracle.cpp"
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  LIBS="$B/libnelligo.a $B/libnelpacs.a $B/libnel3d.a $B/libnelmisc.a"
  ${CXX:-g++} -std=c++17 -O1 -w -DNL_STATIC -DNL_RELEASE -D__STDC_LIMIT_MACROS \
    -I"$B/src/nel/include" -I"$B/src/nel/3rdparty" -I/usr/include/libxml2 -I/usr/include/freetype2 \
    "$src" -o "$bin.tmp" $LIBS $LIBS -lxml2 -lpng -ljpeg -lfreetype -lz -lpthread -ldl -lrt
  mv "$bin.tmp" "$bin"
fi
# NeL writes a report file into the working directory when one of its own
# assertions fails: run it in a scratch directory, never in the caller's.
args=()
for a in "$@"; do case $a in */*) args+=("$(realpath -m -- "$a")") ;; *) if [ -e "$a" ]; then args+=("$(realpath -- "$a")"); else args+=("$a"); fi ;; esac; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$bin" "${args[@]}"
