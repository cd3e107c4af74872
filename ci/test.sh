#!/usr/bin/env bash
# The full test run (README's test command, and what CI runs): installs what is missing,
# builds zyg, runs the Rust tests, then the lit suite of end-to-end programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
source ci/env.sh

# The code's format (rustfmt.toml), checked before anything is built.
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "test: rustfmt is not installed: format check SKIPPED" >&2
fi
cargo build --release --workspace --all-targets
# Lints, warnings as errors, tests included (the bench crate's build script links MLIR's
# shared library at run time and is left out).
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --release -p zyg-ir -p zyg-transform -p zyg-native -p zyg-driver -p zyg-plugin -p zyg-runtime --all-targets -- -D warnings
else
  echo "test: cargo clippy is not installed: lints SKIPPED" >&2
fi
cargo test --release --workspace
# The benchmarks must keep building; they are not run here (`bash ci/bench.sh` times them).
cargo bench -p zyg-bench --no-run
# The CUDA example: zyg differentiates a kernel written in C, a C++ program launches it through
# the driver API and checks it against finite differences. Built everywhere; without a driver
# or a GPU the program says it skipped and exits 0.
make -C examples/cuda ZYG="$PWD/target/release/zyg"
examples/cuda/build/gradcheck
# The same model as single-source CUDA (kernel.cu, clang's CUDA mode with the wheels' headers).
make -C examples/cuda SOURCE=cu ZYG="$PWD/target/release/zyg"
examples/cuda/build-cu/gradcheck
# Single-source CUDA launched with <<<grid, block>>> (examples/cuda-launch/fit.cu): one
# clang-22 command with zyg's pass plugin builds the program (device code for sm_70, 80 and
# 90 through ptxas and fatbinary, embedded in the host object), at -O0 and -O2; without a
# driver or a GPU it says it skipped. Its gradient is checked on the emulated grid by the lit
# test gpu/launch_example.c. Needs NVIDIA's fatbinary (ci/setup.sh installs it).
if ls "$HOME"/.local/lib/python3*/site-packages/nvidia/cu13/bin/fatbinary >/dev/null 2>&1 ||
  [ -x "${CUDA_HOME:-/nonexistent}/bin/fatbinary" ]; then
  for opt in -O0 -O2; do
    make -C examples/cuda-launch --no-print-directory clean run PLUGIN="$PWD/target/release/libzyg_plugin.so" OPT="$opt" |
      grep -E '^(skipped|ALL OK|FAIL)'
  done
  # The GPU benchmarks (bench/gpu/README.md): built as on their way to a GPU (the pass plugin,
  # cubins for sm_70, 80 and 90, ptxas run by clang), at -O2 and -O0; without a driver or a
  # GPU the run says it skipped and exits 0. Their gradients are checked on the emulated grid
  # by the lit tests gpu/bench_*.cu.
  for opt in -O0 -O2; do
    ZYG_BENCH_OPT=$opt ZYG_PLUGIN="$PWD/target/release/libzyg_plugin.so" bash ci/bench-gpu.sh build "$PWD/target/bench-gpu$opt"
  done
  bash ci/bench-gpu.sh run "$PWD/target/bench-gpu-results" "$PWD/target/bench-gpu-O2" | tail -3
else
  echo "test: NVIDIA's fatbinary is not installed: examples/cuda-launch and bench/gpu SKIPPED" >&2
fi
# The Hessian example: Newton-CG with Hessian-vector products (forward over reverse), at -O0
# and -O2; it checks the dense Hessian against finite differences and that Newton converges.
for opt in -O0 -O2; do
  make -C examples/hessian --no-print-directory clean run ZYG="$PWD/target/release/zyg" OPT="$opt" | tail -2
done
# The C++ header's example: a line fit by gradient descent with zyg::autodiff (a capturing
# lambda and a function with Duplicated parameters), at -O0 and -O2, checked against finite
# differences and the least-squares solution.
for opt in -O0 -O2; do
  make -C examples/cxx --no-print-directory clean run ZYG="$PWD/target/release/zyg" OPT="$opt" | tail -2
done
# The MPI example: a heat equation with halo exchange whose gradient goes through MPI,
# run under mpirun with 1, 2 and 4 ranks (more ranks than cores: --oversubscribe), checked
# against the serial gradient and finite differences; -O2 only (the lit tests mpi_*.c run
# both levels). A few seconds. Skipped where OpenMPI is not installed (ci/setup.sh installs it).
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1; then
  # shared memory and self are enough on one machine; no network interfaces to probe
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
    make -C examples/mpi --no-print-directory clean run ZYG="$PWD/target/release/zyg" NP="1 2 4" |
    grep -E '^(mpirun|ALL OK|FAIL)'
else
  echo "test: mpirun or mpicc is not installed: the MPI example SKIPPED" >&2
fi

# The installed package (README, "CMake and pkg-config"): install.sh puts this build into a
# temporary prefix; examples/cmake finds it with find_package(Zyg) and builds, at Release
# and Debug, a C++ library whose requests the pass plugin fills (and one exported gradient)
# and a two-file C program through full LTO; both check against central differences. Then
# a C file compiled with pkg-config's flags alone. A few seconds.
pkg_tmp=$(mktemp -d)
trap 'rm -rf "$pkg_tmp"' EXIT
quiet() { # runs a command, showing its output only when it fails
  local log status=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || cat "$log" >&2
  rm -f "$log"
  return "$status"
}
quiet bash install.sh --no-build --prefix "$pkg_tmp/zyg"
for build_type in Release Debug; do
  quiet cmake -S examples/cmake -B "$pkg_tmp/build-$build_type" -DCMAKE_PREFIX_PATH="$pkg_tmp/zyg" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE="$build_type"
  quiet cmake --build "$pkg_tmp/build-$build_type" -j2
  echo "examples/cmake ($build_type):"
  "$pkg_tmp/build-$build_type/gradcheck"
  "$pkg_tmp/build-$build_type/springs"
  grep -q 'void model_weight_decay_grad(' "$pkg_tmp/build-$build_type/model_grads.h"
done
cat >"$pkg_tmp/cube.c" <<'C'
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
static double cube(double x) { return x * x * x; }
int main(void) {
    double d = __enzyme_autodiff((void *)cube, 2.0);
    printf("pkg-config: d/dx x^3 at 2 = %g\n", d);
    return !(d > 12 - 1e-12 && d < 12 + 1e-12);
}
C
zyg_cflags=$(PKG_CONFIG_PATH="$pkg_tmp/zyg/lib/pkgconfig" pkg-config --cflags zyg)
# $zyg_cflags unquoted: two flags.
clang-22 -O2 $zyg_cflags "$pkg_tmp/cube.c" -o "$pkg_tmp/cube"
"$pkg_tmp/cube"
rm -rf "$pkg_tmp"
trap - EXIT

# The command-line fuzzer on a fixed range of cases (README, "Robustness"): about two
# minutes on two cores. Its result joins the lit suite's in the last line.
set +e
python3 ci/fuzz-cli.py --seeds 0:1500 --jobs 2
fuzz_status=$?
set -e

lit_bin=/usr/lib/llvm-22/bin/lit
[ -x "$lit_bin" ] && "$lit_bin" --version >/dev/null 2>&1 || lit_bin=lit
export ZYG="$PWD/target/release/zyg"
log=$(mktemp)
set +e
"$lit_bin" -sv test-suite 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# lit's summary: "  Passed: 45 (95.74%)", "  Failed: 2 (4.26%)", ...
passed=$(awk -F: '/^ *(Passed|Expectedly Failed) *:/ {n += $2 + 0} END {print n + 0}' "$log")
failed=$(awk -F: '/^ *(Failed|Unexpectedly Passed|Unresolved|Timed Out) *:/ {n += $2 + 0} END {print n + 0}' "$log")
rm -f "$log"
# The command-line fuzzer counts as one test.
if [ "$fuzz_status" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi
# The last line, read by CI: exactly "N passed, N failed".
echo "${passed} passed, ${failed} failed"
exit "$status"
