#!/usr/bin/env bash
# Installs zyg's system dependencies when they are missing: LLVM 22 from Debian's packages
# (Debian 12, security updates), BLAS/LAPACKE and Eigen for their tests, valgrind for the
# tests that check the generated code's memory, lld and cmake for the pass plugin's LTO builds
# and its CMake example, pkgconf for its pkg-config check, LLVM's OpenMP runtime and OpenMPI
# for parallel programs, and lit. Idempotent; needs only apt and a Rust toolchain.
set -euo pipefail

packages=(llvm-22-dev llvm-22-tools clang-22 libmlir-22-dev mlir-22-tools libpolly-22-dev
          libzstd-dev libz3-dev libxml2-dev zlib1g-dev binutils
          libopenblas-dev liblapacke-dev libeigen3-dev valgrind lld-22 cmake pkgconf
          libomp-22-dev libopenmpi-dev openmpi-bin)

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# pip_user_install PACKAGE [PIP OPTIONS]: installs a PyPI package for this user, python3-pip
# first if missing. Debian 12 marks its Python as externally managed (PEP 668): where a plain
# --user install is refused, --break-system-packages (it touches only ~/.local). Fails as pip
# does.
pip_user_install() {
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "setup: installing python3-pip"
    sudo_if_needed apt-get update
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-pip
  fi
  python3 -m pip install --quiet --user "$@" 2>/dev/null ||
    python3 -m pip install --quiet --user --break-system-packages "$@"
}

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_if_needed apt-get update
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: LLVM 22 packages present"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust with rustup first" >&2
  exit 1
fi
# clippy and rustfmt run in the test command; rustup's minimal profile leaves them out.
if ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add clippy || echo "setup: could not add clippy; the test command will say it skipped lints" >&2
fi
if ! cargo fmt --version >/dev/null 2>&1; then
  rustup component add rustfmt || echo "setup: could not add rustfmt; the test command will say it skipped the format check" >&2
fi

# lit comes with llvm-22-tools; fall back to PyPI's when Debian's does not run.
if /usr/lib/llvm-22/bin/lit --version >/dev/null 2>&1; then
  echo "setup: lit $(/usr/lib/llvm-22/bin/lit --version 2>&1 | head -n1) (/usr/lib/llvm-22/bin/lit)"
elif command -v lit >/dev/null 2>&1 && lit --version >/dev/null 2>&1; then
  echo "setup: lit $(lit --version 2>&1 | head -n1) ($(command -v lit))"
else
  echo "setup: /usr/lib/llvm-22/bin/lit does not run; installing lit from PyPI"
  pip_user_install lit
  export PATH="$HOME/.local/bin:$PATH"
  echo "setup: lit $(lit --version 2>&1 | head -n1) ($(command -v lit))"
fi

# ptxas and libdevice, to check zyg's PTX without a GPU (`zyg compile --target nvptx64`),
# from NVIDIA's PyPI wheel. Optional: without it the lit tests that need ptxas are skipped.
ptxas_wheel() {
  ls "$HOME"/.local/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas 2>/dev/null | head -n1
}
if [ -z "$(ptxas_wheel)" ] && ! command -v ptxas >/dev/null 2>&1; then
  echo "setup: installing nvidia-cuda-nvcc-cu12 (ptxas, libdevice) from PyPI"
  pip_user_install nvidia-cuda-nvcc-cu12 ||
    echo "setup: could not install nvidia-cuda-nvcc-cu12; PTX checks will be skipped" >&2
fi
echo "setup: ptxas $(ptxas_wheel || true)"

# cuda.h, for examples/cuda (a C++ program that launches zyg's gradient kernels through the
# CUDA driver API), from NVIDIA's PyPI wheel; building it needs no driver and no GPU. And make.
if ! command -v make >/dev/null 2>&1; then
  sudo_if_needed apt-get update
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends make
fi
cuda_h_wheel() {
  ls "$HOME"/.local/lib/python3*/site-packages/nvidia/cuda_runtime/include/cuda.h 2>/dev/null | head -n1
}
if [ -z "$(cuda_h_wheel)" ] && [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda.h" ]; then
  echo "setup: installing nvidia-cuda-runtime-cu12 (cuda.h) from PyPI"
  pip_user_install nvidia-cuda-runtime-cu12 ||
    echo "setup: could not install nvidia-cuda-runtime-cu12; examples/cuda will not build" >&2
fi
echo "setup: cuda.h $(cuda_h_wheel || true)"

# NVIDIA's `fatbinary`, which clang's CUDA mode runs to embed the device code in the host
# object (single-source `.cu` programs that launch gradient kernels with <<<grid, block>>>:
# examples/cuda-launch). The CUDA 12 wheels lack it; the CUDA 13 compiler wheel has it, and
# only it is taken (--no-deps: its ptxas and headers are not used; the fat binary holds the
# CUDA 12 ptxas's cubins, uncompressed, which CUDA 12's runtime reads). Pinned for
# reproducible builds. Optional: without it that example is not built and its lit test is
# skipped.
fatbinary_wheel() {
  ls "$HOME"/.local/lib/python3*/site-packages/nvidia/cu13/bin/fatbinary 2>/dev/null | head -n1
}
if [ -z "$(fatbinary_wheel)" ] && [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/fatbinary" ]; then
  echo "setup: installing nvidia-cuda-nvcc 13.0.88 (fatbinary) from PyPI"
  pip_user_install nvidia-cuda-nvcc==13.0.88 --no-deps ||
    echo "setup: could not install nvidia-cuda-nvcc 13.0.88; examples/cuda-launch will not build" >&2
fi
echo "setup: fatbinary $(fatbinary_wheel || true)"
