#!/usr/bin/env bash
# The GPU checks, split between a machine that builds and a machine that has the GPU.
#
#   bash ci/gpu-kit.sh build        # here (Rust, clang-22, the wheels): fills gpu-kit/
#   bash ci/gpu-kit.sh run OUTDIR   # on the GPU machine (bash, an NVIDIA driver; nothing else)
#
# `build` puts into gpu-kit/ (ignored by git) every program that checks zyg's GPU code on a
# real GPU, each of which prints `skipped: ...` and exits 0 where there is no GPU:
#   - zyg-runtime's test binaries (tests/gpu_gradients.rs: gradient kernels launched from
#     Rust against CPU gradients and finite differences); they read the checked-in PTX
#     (zyg-runtime/tests/data/kernels.ptx), rebuilt here first by the current zyg;
#   - examples/cuda's gradcheck, both variants (kernel.c and single-source kernel.cu, PTX
#     loaded through the driver API);
#   - examples/cuda-launch's fit (a gradient kernel launched with <<<>>>), at -O0 and -O2;
#   - the GPU benchmarks of bench/gpu (ci/bench-gpu.sh's `build` and `run`).
# `run` runs them all from the repository's root (the tree the device machine gets; carry
# gpu-kit there), with a time limit each, and writes each one's output and a summary (OUTDIR/summary.txt); its exit
# status is 1 when any of them failed.
set -euo pipefail
cd "$(dirname "$0")/.."
kit=gpu-kit

build() {
  source ci/env.sh
  cargo build --release -p zyg-driver -p zyg-plugin
  bash zyg-runtime/tests/kernels/build.sh zyg-runtime/tests/data
  if ! git diff --quiet -- zyg-runtime/tests/data/kernels.ptx; then
    echo "gpu-kit: zyg-runtime/tests/data/kernels.ptx changed with the current zyg (commit it)" >&2
  fi
  rm -rf "$kit"
  mkdir -p "$kit/bin"
  # The test binaries cargo builds for zyg-runtime, by their names.
  cargo test --release -p zyg-runtime --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["executable"])' |
    while read -r name exe; do cp "$exe" "$kit/bin/runtime-$name"; done
  make -C examples/cuda --no-print-directory ZYG="$PWD/target/release/zyg" >/dev/null
  cp examples/cuda/build/gradcheck "$kit/bin/cuda-gradcheck-c"
  make -C examples/cuda --no-print-directory SOURCE=cu ZYG="$PWD/target/release/zyg" >/dev/null
  cp examples/cuda/build-cu/gradcheck "$kit/bin/cuda-gradcheck-cu"
  for opt in O0 O2; do
    make -C examples/cuda-launch --no-print-directory clean all PLUGIN="$PWD/target/release/libzyg_plugin.so" OPT="-$opt" >/dev/null
    cp examples/cuda-launch/build/fit "$kit/bin/cuda-launch-fit-$opt"
  done
  ZYG_PLUGIN="$PWD/target/release/libzyg_plugin.so" bash ci/bench-gpu.sh build "$PWD/$kit/bench" >/dev/null
  rm -rf "$kit/bench/cuda-root"
  du -sh "$kit"
  ls "$kit"/*
}

run() {
  local out=${1:?usage: gpu-kit.sh run OUTDIR}
  mkdir -p "$out"
  { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi"; } >"$out/gpu.txt" 2>&1
  local failed=0 status
  : >"$out/summary.txt"
  for exe in "$kit"/bin/*; do
    name=$(basename "$exe")
    status=0
    # zyg-runtime's tests read the PTX beside their sources.
    args=()
    case "$name" in runtime-*) args=(--nocapture --test-threads=1) ;; esac
    CARGO_MANIFEST_DIR="$PWD/zyg-runtime" timeout 300 "$exe" "${args[@]}" >"$out/$name.txt" 2>&1 </dev/null || status=$?
    [ "$status" -eq 0 ] || failed=1
    echo "$name: exit $status; $(grep -E 'skipped|ALL OK|FAIL|test result' "$out/$name.txt" | head -4 | tr '\n' ' ')" >>"$out/summary.txt"
  done
  status=0
  bash ci/bench-gpu.sh run "$out/bench" "$kit/bench" >"$out/bench.txt" 2>&1 || status=$?
  [ "$status" -eq 0 ] || failed=1
  echo "bench/gpu: exit $status; table in bench/gpu-results.md" >>"$out/summary.txt"
  cat "$out/gpu.txt" "$out/summary.txt"
  return "$failed"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: gpu-kit.sh build | run OUTDIR" >&2; exit 2 ;;
esac
