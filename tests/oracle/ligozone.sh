#!/usr/bin/env bash
# Build (once) and run the NeL .ligozone oracle: ligozone.sh OUT SIZEX SIZEY MASK [TYPE=VALUE]...
# Built against the NeL libraries of /work/shared/oracles/nel (nel_libs.sh: caching and overrides).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nel_libs.sh"
nel_oracle_run ligozone_oracle "$@"
