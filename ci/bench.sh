#!/usr/bin/env bash
# The benchmarks (README's "Benchmarks"): builds zyg, runs every criterion bench of bench/
# (primal, zyg's gradient and a hand-written gradient per case), the compile-time benchmark of
# `zyg grad`, the compile-time benchmark of the pass plugin (one-step clang against `zyg grad`
# and plain clang), and writes bench/RESULTS.md from what they measured.
#
#   bash ci/bench.sh            # everything (14 to 24 minutes on 2 cores)
#   bash ci/bench.sh gmm        # only the cases whose name contains "gmm" (RESULTS.md then
#                               # lists those only; the compile-time benchmark still runs)
#   ZYG_BENCH_QUICK=1 bash ci/bench.sh   # tiny sizes, short measurements: checks that it runs
#   ZYG_BENCH_SKIP_COMPILE=1 ...         # leaves the compile-time benchmark out
#   ZYG_BENCH_SKIP_PLUGIN=1 ...          # leaves the plugin's compile-time benchmark out
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

# What is measured, and how busy the machine was: the report prints both.
mkdir -p target/zyg-bench
zyg_paths=(zyg-ir zyg-transform zyg-native zyg-driver zyg-plugin zyg-runtime)
{
  echo "commit=$(git rev-parse --short HEAD)"
  echo "zyg_changed_files=$(git status --porcelain -- "${zyg_paths[@]}" | wc -l)"
  echo "zyg_diff_sha=$(git diff HEAD -- "${zyg_paths[@]}" | sha256sum | cut -c1-12)"
  echo "started=$(date -u '+%Y-%m-%d %H:%M UTC')"
} > target/zyg-bench/run.env
# the 1-minute load average every 15 s (the benchmark itself accounts for about 1)
( while true; do cut -d' ' -f1 /proc/loadavg; sleep 15; done ) > target/zyg-bench/load.txt &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT

# Everything is built first, and the binaries run from copies, so that a rebuild of zyg
# during the run changes nothing that is being measured.
cargo build --release -p zyg-driver -p zyg-plugin
cargo build --release -p zyg-bench --bins
cargo bench -p zyg-bench --no-run
mkdir -p target/zyg-bench/bin
# the plugin beside zyg, where `zyg plugin-path` finds it
cp target/release/zyg target/release/libzyg_plugin.so target/release/compile_time target/release/plugin_time \
  target/release/report target/zyg-bench/bin/

# the cases of this run only
rm -rf target/zyg-bench/cases target/zyg-bench/compile_time.json target/zyg-bench/plugin_time.json
cargo bench -p zyg-bench -- "$@"

if [ -z "${ZYG_BENCH_SKIP_COMPILE:-}" ]; then
  target/zyg-bench/bin/compile_time target/zyg-bench/bin/zyg
fi
if [ -z "${ZYG_BENCH_SKIP_PLUGIN:-}" ]; then
  target/zyg-bench/bin/plugin_time target/zyg-bench/bin/zyg
fi
echo "finished=$(date -u '+%Y-%m-%d %H:%M UTC')" >> target/zyg-bench/run.env
target/zyg-bench/bin/report bench/RESULTS.md
