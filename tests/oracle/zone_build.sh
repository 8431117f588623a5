#!/usr/bin/env bash
# Build (once) and run the NeL zone-build oracle: zone_build.sh OUTDIR FILE...
# Uses the NeL libraries of /work/shared/oracles/nel (its build.sh prints their directory;
# NEL_ORACLE_SRC overrides where that oracle lives). The binary is cached next to this
# script's build products in $ZONE_ORACLE_BIN_DIR (default: $CARGO_TARGET_DIR/nel-oracle,
# else ./target/nel-oracle).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${NEL_ORACLE_SRC:-/work/shared/oracles/nel}
B=$("$oracle/build.sh")
bin_dir=${ZONE_ORACLE_BIN_DIR:-${CARGO_TARGET_DIR:-$here/../../target}/nel-oracle}
mkdir -p "$bin_dir"
bin="$bin_dir/zone_build_oracle"
src="$here/zone_build_oracle.cpp"
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  LIBS="$B/libnelligo.a $B/libnelpacs.a $B/libnel3d.a $B/libnelmisc.a"
  ${CXX:-g++} -std=c++17 -O1 -w -DNL_STATIC -DNL_RELEASE -D__STDC_LIMIT_MACROS \
    -I"$B/src/nel/include" -I"$B/src/nel/3rdparty" -I/usr/include/libxml2 -I/usr/include/freetype2 \
    "$src" -o "$bin.tmp" $LIBS $LIBS -lxml2 -lpng -ljpeg -lfreetype -lz -lpthread -ldl -lrt
  mv "$bin.tmp" "$bin"
fi
exec "$bin" "$@"
