#!/usr/bin/env bash
# Installs the Khronos glTF validator (npm package `gltf-validator`) into a
# project-local folder, once, and prints that folder. Used by the corpus test
# tests/tests/corpus/gltf_validator.rs; needs node and npm.
#   GLTF_VALIDATOR_DIR  where to install (default: <repo>/target/tools/gltf-validator)
#   GLTF_VALIDATOR_VERSION  npm version spec (default: 2.0.0-dev.3.10)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${GLTF_VALIDATOR_DIR:-$PWD/target/tools/gltf-validator}"
version="${GLTF_VALIDATOR_VERSION:-2.0.0-dev.3.10}"
command -v node >/dev/null || { echo "node not found: install Node.js to run the glTF validator" >&2; exit 2; }
if [ ! -f "$dir/node_modules/gltf-validator/package.json" ]; then
    command -v npm >/dev/null || { echo "npm not found: install npm to fetch gltf-validator" >&2; exit 2; }
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --silent "gltf-validator@$version" >&2
fi
echo "$dir"
