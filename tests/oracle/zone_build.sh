#!/usr/bin/env bash
# Build (once) and run the NeL zone-build oracle: zone_build.sh OUTDIR FILE...
# Built against the NeL libraries of /work/shared/oracles/nel (nel_libs.sh: caching and overrides).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nel_libs.sh"
nel_oracle_run zone_build_oracle "$@"
