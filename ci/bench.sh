#!/usr/bin/env bash
# The benchmarks (README's "Benchmarks"): builds zyg, runs every criterion bench of bench/
# (primal, zyg's gradient and a hand-written gradient per case), the compile-time benchmark of
# `zyg grad`, and writes bench/RESULTS.md from what they measured.
#
#   bash ci/bench.sh            # everything (about 20 minutes on 2 cores)
#   bash ci/bench.sh gmm        # only the cases whose name contains "gmm" (RESULTS.md then
#                               # lists those only; the compile-time benchmark still runs)
#   ZYG_BENCH_QUICK=1 bash ci/bench.sh   # tiny sizes, short measurements: checks that it runs
#   ZYG_BENCH_SKIP_COMPILE=1 ...         # leaves the compile-time benchmark out
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

cargo build --release -p zyg-driver
# a copy, so that a rebuild during the run does not change the binary being timed
mkdir -p target/zyg-bench
cp target/release/zyg target/zyg-bench/zyg
# the cases of this run only
rm -rf target/zyg-bench/cases

cargo bench -p zyg-bench -- "$@"

rm -f target/zyg-bench/compile_time.json
if [ -z "${ZYG_BENCH_SKIP_COMPILE:-}" ]; then
  cargo run --release -p zyg-bench --bin compile_time -- target/zyg-bench/zyg
fi
cargo run --release -p zyg-bench --bin report -- bench/RESULTS.md
