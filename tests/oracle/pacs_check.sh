#!/usr/bin/env bash
# The NeL oracle for .pacs_prim / .cmb / .veget, tests/oracle/pacs_check.cpp built against the
# libraries of /work/shared/oracles/nel (nel_libs.sh: caching and overrides).
# pacs_check.sh FILE...  |  pacs_check.sh --xml BIN OUT   (see pacs_check.cpp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nel_libs.sh"
nel_oracle_run pacs_check "$@"
