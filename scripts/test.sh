#!/usr/bin/env bash
# The project's test command (README.md): formatting, lints, docs, then every
# test on the real corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup)"; exit 1; }
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --release
