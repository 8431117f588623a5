#!/usr/bin/env bash
# Build (once) and run the NeL landscape oracle (zone symmetrisation, ligo zone template):
# landscape.sh transform BANK SNAPCELL WELD OUTDIR FILE... | landscape.sh template CELLSIZE SNAP FILE
# Built against the NeL libraries of /work/shared/oracles/nel (nel_libs.sh: caching and overrides).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nel_libs.sh"
nel_oracle_run landscape_oracle "$@"
