#!/usr/bin/env bash
# The NeL oracle for .pacs_prim / .cmb / .veget: builds tests/oracle/pacs_check.cpp against the
# libraries of /work/shared/oracles/nel (their build.sh builds them once) and runs it.
# pacs_check.sh FILE...  |  pacs_check.sh --xml BIN OUT   (see pacs_check.cpp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${NEL_ORACLE:-/work/shared/oracles/nel}
. "$here/nel_libs.sh"
B=$(nel_oracle_build "$oracle")
exe="$B/pacs_check-$(sha1sum "$here/pacs_check.cpp" | cut -c1-12)"
if [ ! -x "$exe" ]; then
  L="$B/libnelligo.a $B/libnelpacs.a $B/libnel3d.a $B/libnelmisc.a"
  g++ -std=c++17 -O1 -g0 -w -DNL_STATIC -DNL_RELEASE -D__STDC_LIMIT_MACROS \
    -I"$B/src/nel/include" -I"$B/src/nel/3rdparty" -I/usr/include/libxml2 -I/usr/include/freetype2 \
    "$here/pacs_check.cpp" -o "$exe.tmp.$$" $L $L -lxml2 -lpng -ljpeg -lfreetype -lz -lpthread -ldl -lrt >&2
  mv "$exe.tmp.$$" "$exe"
fi
# NeL writes a report file into the working directory when one of its own
# assertions fails: run it in a scratch directory, never in the caller's.
args=()
for a in "$@"; do case $a in */*) args+=("$(realpath -m -- "$a")") ;; *) if [ -e "$a" ]; then args+=("$(realpath -- "$a")"); else args+=("$a"); fi ;; esac; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$exe" "${args[@]}"
