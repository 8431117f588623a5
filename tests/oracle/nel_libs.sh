# Sourced by the oracle scripts: nel_oracle_build ORACLE_SRC prints the NeL
# oracle's build directory, building it first when needed. The oracle's own
# build.sh has no lock (it unpacks its sources afresh), and cargo runs tests in
# parallel: on a fresh machine two tests would build into the same directory
# at once and break each other's build, so every caller takes one lock.
nel_oracle_build() {
  local lock=${NEL_ORACLE_LOCK:-${TMPDIR:-/tmp}/maxfs-nel-oracle.lock}
  flock "$lock" "$1/build.sh"
}
