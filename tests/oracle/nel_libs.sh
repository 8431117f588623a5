# Sourced by the oracle scripts: nel_oracle_build ORACLE_SRC prints the NeL
# oracle's build directory, building it first when needed. The oracle's own
# build.sh has no lock (it unpacks its sources afresh), and cargo runs tests in
# parallel: on a fresh machine two tests would build into the same directory
# at once and break each other's build, so every caller takes one lock.
nel_oracle_build() {
  local lock=${NEL_ORACLE_LOCK:-${TMPDIR:-/tmp}/maxfs-nel-oracle.lock}
  flock "$lock" "$1/build.sh"
}

# nel_oracle_run NAME ARG...: builds tests/oracle/NAME.cpp against the NeL
# libraries (once per version of the source: the binary's name carries its
# hash, so parallel tests never run a half-written or stale one) and runs it
# in a scratch directory (NeL writes a report file into the working directory
# when one of its own assertions fails), with path arguments made absolute.
# NEL_ORACLE_SRC (or NEL_ORACLE) overrides where the oracle lives; binaries go
# to $ZONE_ORACLE_BIN_DIR (default: $CARGO_TARGET_DIR/nel-oracle, else
# ./target/nel-oracle).
nel_oracle_run() {
  local name=$1; shift
  local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  local oracle=${NEL_ORACLE_SRC:-${NEL_ORACLE:-/work/shared/oracles/nel}}
  local B; B=$(nel_oracle_build "$oracle")
  local src="$here/$name.cpp"
  local bin_dir=${ZONE_ORACLE_BIN_DIR:-${CARGO_TARGET_DIR:-$here/../../target}/nel-oracle}
  mkdir -p "$bin_dir"
  local bin; bin="$bin_dir/$name-$(sha1sum "$src" | cut -c1-12)"
  if [ ! -x "$bin" ]; then
    local libs="$B/libnelligo.a $B/libnelpacs.a $B/libnel3d.a $B/libnelmisc.a"
    # shellcheck disable=SC2086
    ${CXX:-g++} -std=c++17 -O1 -g0 -w -DNL_STATIC -DNL_RELEASE -D__STDC_LIMIT_MACROS \
      -I"$B/src/nel/include" -I"$B/src/nel/3rdparty" -I/usr/include/libxml2 -I/usr/include/freetype2 \
      "$src" -o "$bin.tmp.$$" $libs $libs -lxml2 -lpng -ljpeg -lfreetype -lz -lpthread -ldl -lrt >&2
    mv "$bin.tmp.$$" "$bin"
  fi
  local args=() a
  for a in "$@"; do
    case $a in
      */*) args+=("$(realpath -m -- "$a")") ;;
      *) if [ -e "$a" ]; then args+=("$(realpath -- "$a")"); else args+=("$a"); fi ;;
    esac
  done
  local work; work=$(mktemp -d)
  local rc=0
  (cd "$work" && "$bin" "${args[@]}") || rc=$?
  rm -rf "$work"
  return $rc
}
