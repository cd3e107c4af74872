#!/usr/bin/env bash
# zyg's GPU benchmarks (bench/gpu/README.md): build them here, run them where the GPU is.
#
#   bash ci/bench-gpu.sh build [DIR]   # builds bench/gpu/*.cu into DIR (bench/gpu/build)
#   bash ci/bench-gpu.sh run OUT [DIR] # runs DIR's binaries, writes OUT/gpu-results.md
#
# `build` needs this repository's tools: cargo (zyg's pass plugin), clang++-22 and a CUDA
# root (a toolkit at $CUDA_HOME, or NVIDIA's wheels ci/setup.sh installs, arranged by
# test-suite/bin/cuda-root.sh). Each program is one clang++-22 command: single-source CUDA,
# the device side through zyg's pass plugin, a fat binary with sm_70, sm_80 and sm_90 cubins
# (and their PTX), the CUDA runtime, libstdc++ and libgcc linked statically, so the binaries
# need only a driver and glibc 2.34 or later (Debian 12's, on which they are built).
# ZYG_BENCH_OPT (default -O2) is the optimisation level; ZYG_PLUGIN skips the cargo build.
#
# `run` needs only bash and the binaries (and the GPU's driver): each program checks its
# gradients against finite differences and the hand-written ones, times the primal, zyg's
# gradient and the hand-written gradient (median of --reps launches, cudaEvent), and prints
# a `bench NAME key=value ...` line; `run` collects them into a markdown table with the
# GPU's name. ZYG_BENCH_ARGS passes options to every program (`--reps 21`, `--quick`);
# ZYG_BENCH_TIMEOUT (default 140) bounds each program in seconds (the four fit in 10
# minutes; each program also times a slow kernel fewer times, --budget, 20 s per kernel). Without a driver or a GPU
# the programs print `skipped: REASON` and exit 0, and so does the table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
programs="reduce stencil2d nbody xsbench"
cmd=${1:-}

case "$cmd" in
build)
  dir=${2:-$root/bench/gpu/build}
  opt=${ZYG_BENCH_OPT:--O2}
  source "$root/ci/env.sh"
  if [ -z "${ZYG_PLUGIN:-}" ]; then
    (cd "$root" && cargo build --release -p zyg-plugin >&2)
    ZYG_PLUGIN=$root/target/release/libzyg_plugin.so
  fi
  clangxx=$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)
  mkdir -p "$dir"
  cuda=$dir/cuda-root
  bash "$root/test-suite/bin/cuda-root.sh" "$cuda"
  if [ ! -x "$cuda/bin/fatbinary" ] || [ ! -e "$cuda/lib64/libcudart_static.a" ]; then
    echo "bench-gpu: $cuda lacks fatbinary or libcudart_static.a (bash ci/setup.sh installs NVIDIA's wheels)" >&2
    exit 1
  fi
  for p in $programs; do
    # clang runs ptxas for each architecture: a build that passes has PTX ptxas accepts.
    flags=(-x cuda --no-offload-new-driver "--cuda-path=$cuda" --cuda-gpu-arch=sm_70 --cuda-gpu-arch=sm_80
      --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version "-fpass-plugin=$ZYG_PLUGIN" "$opt")
    libs=(-L"$cuda/lib64" -lcudart_static -ldl -lpthread -lrt -static-libstdc++ -static-libgcc)
    echo "bench-gpu: $clangxx ${flags[*]} bench/gpu/$p.cu -o $dir/$p ${libs[*]}" >&2
    "$clangxx" "${flags[@]}" "$root/bench/gpu/$p.cu" -o "$dir/$p" "${libs[@]}"
    # The fat binary must hold a cubin for each architecture (kind 2 entries).
    python3 - "$dir/$p" <<'EOF'
import struct, subprocess, sys, tempfile
exe = sys.argv[1]
with tempfile.NamedTemporaryFile() as t:
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", exe, t.name], check=True)
    b = open(t.name, "rb").read()
cubins, off = set(), 0
while off + 16 <= len(b):
    magic, _, hsize, fsize = struct.unpack_from("<IHHQ", b, off)
    if magic != 0xBA55ED50:
        off += 8  # padding between fat binaries
        continue
    e, end = off + hsize, off + hsize + fsize
    while e < end:
        kind, _, eh, size = struct.unpack_from("<HHIQ", b, e)
        if kind == 2:
            cubins.add(struct.unpack_from("<I", b, e + 28)[0])
        e += eh + size
    off = end
if not {70, 80, 90} <= cubins:
    sys.exit(f"bench-gpu: {exe}: cubins for sm_{sorted(cubins)} only, not sm_70, sm_80 and sm_90")
EOF
  done
  {
    echo "zyg commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . 2>/dev/null || echo ' (with local changes)')"
    echo "compiler: $("$clangxx" --version | head -n1)"
    echo "flags: clang++-22 -x cuda --cuda-gpu-arch=sm_70,sm_80,sm_90 -fpass-plugin=libzyg_plugin.so $opt, -lcudart_static -static-libstdc++"
    echo "ptxas: $("$cuda/bin/ptxas" --version | tail -n1)"
    echo "CUDA runtime (static): $(sed -n 's/^#define CUDART_VERSION *//p' "$cuda/include/cuda_runtime_api.h" | head -n1)"
    echo "built: $(date -u '+%Y-%m-%d %H:%M UTC')"
  } > "$dir/build-info.txt"
  rm -rf "$cuda"
  echo "bench-gpu: built $programs in $dir" >&2
  ;;
run)
  out=${2:?usage: bench-gpu.sh run OUT [DIR]}
  dir=${3:-$root/bench/gpu/build}
  timeout_s=${ZYG_BENCH_TIMEOUT:-140}
  mkdir -p "$out"
  read -r -a args <<<"${ZYG_BENCH_ARGS:-}"
  status=0 skipped="" gpu="" rows=""
  for p in $programs; do
    if [ ! -x "$dir/$p" ]; then
      echo "bench-gpu: $dir/$p is missing (bash ci/bench-gpu.sh build first)" >&2
      exit 1
    fi
    echo "bench-gpu: $p ${args[*]:-}" >&2
    rc=0
    if command -v timeout >/dev/null 2>&1; then
      timeout "$timeout_s" "$dir/$p" "${args[@]}" >"$out/$p.log" 2>&1 || rc=$?
    else
      "$dir/$p" "${args[@]}" >"$out/$p.log" 2>&1 || rc=$?
    fi
    cat "$out/$p.log" >&2
    if grep -q '^skipped:' "$out/$p.log"; then
      skipped=$(grep -m1 '^skipped:' "$out/$p.log")
      continue
    fi
    [ -n "$gpu" ] || gpu=$(sed -n 's/^gpu: //p' "$out/$p.log" | head -n1)
    line=$(grep -m1 '^bench ' "$out/$p.log" || true)
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
      status=1
      rows+="| $p | (failed: exit $rc, see $p.log) | | | | | | | |"$'\n'
      continue
    fi
    # `bench NAME k=v ...`: the table's columns from the keys.
    rows+=$(awk '{
      for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, v["n"], v["primal_ms"], v["grad_ms"],
        v["ratio"] "x", v["hand_ms"], v["hand_ratio"] "x", v["zyg_over_hand"] "x", v["check"]
    }' <<<"$line")$'\n'
    grep -q 'check=PASS' <<<"$line" || status=1
  done
  {
    echo "# zyg GPU benchmarks"
    echo
    if [ -z "$gpu" ] && [ -n "$skipped" ]; then
      echo "$skipped"
    else
      echo "- GPU: $gpu"
      echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
      [ -f "$dir/build-info.txt" ] && sed 's/^/- /' "$dir/build-info.txt"
      echo "- Times: median of the launches (cudaEvent around each launch; warm-up first; what a gradient consumes or accumulates into is reset between launches, outside the timing). ${ZYG_BENCH_ARGS:+Options: \`$ZYG_BENCH_ARGS\`.}"
      echo
      echo "| case | size | primal ms | zyg gradient ms | zyg/primal | hand gradient ms | hand/primal | zyg/hand | checks |"
      echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
      printf '%s' "$rows"
      echo
      echo "Raw lines:"
      echo
      echo '```'
      for p in $programs; do grep -h '^bench \|^check \|FAIL' "$out/$p.log" 2>/dev/null || true; done
      echo '```'
    fi
  } >"$out/gpu-results.md"
  cat "$out/gpu-results.md"
  exit "$status"
  ;;
*)
  echo "usage: bash ci/bench-gpu.sh build [DIR] | run OUT [DIR]" >&2
  exit 2
  ;;
esac
