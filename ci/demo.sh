#!/usr/bin/env bash
# The demo: builds zyg, differentiates test-suite/examples/demo.c with it, runs the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh >/dev/null
source ci/env.sh
cargo build --release --quiet -p zyg-driver
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "+ clang-22 -O2 -S -emit-llvm demo.c -o demo.ll"
clang-22 -O2 -S -emit-llvm test-suite/examples/demo.c -o "$work/demo.ll"
echo "+ zyg grad demo.ll -o demo.grad.ll"
target/release/zyg grad "$work/demo.ll" -o "$work/demo.grad.ll"
echo "+ clang-22 demo.grad.ll -lm -o demo && ./demo"
clang-22 -O2 "$work/demo.grad.ll" -lm -o "$work/demo"
"$work/demo"
