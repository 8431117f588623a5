#!/usr/bin/env bash
# The NeL oracle's checker (see /work/shared/oracles/nel/README.md) on FILE...,
# built once under the shared lock, run in a scratch directory (NeL writes a
# report file into its working directory when one of its asserts fails).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${NEL_ORACLE_SRC:-/work/shared/oracles/nel}
. "$here/nel_libs.sh"
B=$(nel_oracle_build "$oracle")
args=()
for a in "$@"; do case $a in --*) args+=("$a") ;; *) args+=("$(realpath -m -- "$a")") ;; esac; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$B/checker" "${args[@]}"
