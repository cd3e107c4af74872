#!/usr/bin/env bash
# cuda-root.sh DIR
#
# Makes DIR a CUDA installation clang's CUDA mode accepts (`clang-22 -x cuda --cuda-path=DIR`)
# out of NVIDIA's PyPI wheels ci/setup.sh installs (nvidia-cuda-runtime-cu12: the headers
# and libcudart; nvidia-cuda-nvcc-cu12: crt/ headers, ptxas, libdevice; nvidia-cuda-nvcc
# 13.0: fatbinary, when installed), by symbolic links, for compiling `.cu` files: the
# device side alone (`--cuda-device-only`), or whole programs (with fatbinary): no GPU,
# driver or toolkit needed. With $CUDA_HOME holding a toolkit, DIR is a link to it instead.
# clang's CUDA wrapper header includes cuRAND's device header, which those wheels lack; an
# empty one stands in (device code that uses cuRAND needs the toolkit or the curand wheel).
# Fails when neither is there.
set -euo pipefail
dir=${1:?usage: cuda-root.sh DIR}
if [ -n "${CUDA_HOME:-}" ] && [ -f "$CUDA_HOME/include/cuda_runtime.h" ]; then
  rm -rf "$dir"
  ln -s "$CUDA_HOME" "$dir"
  exit 0
fi
wheels=$(ls -d "$HOME"/.local/lib/python3*/site-packages/nvidia 2>/dev/null | head -n1 || true)
runtime=$wheels/cuda_runtime/include nvcc=$wheels/cuda_nvcc
if [ -z "$wheels" ] || [ ! -f "$runtime/cuda_runtime.h" ] || [ ! -d "$nvcc/include/crt" ]; then
  echo "cuda-root.sh: no CUDA toolkit (\$CUDA_HOME) and no nvidia-cuda-runtime-cu12/nvidia-cuda-nvcc-cu12 wheels" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/include" "$dir/bin" "$dir/nvvm/libdevice" "$dir/lib64"
for f in "$runtime"/* "$nvcc"/include/*; do ln -s "$f" "$dir/include/"; done
[ -e "$dir/include/curand_mtgp32_kernel.h" ] || printf '/* cuda-root.sh: no cuRAND device API */\n' > "$dir/include/curand_mtgp32_kernel.h"
ln -s "$nvcc/bin/ptxas" "$dir/bin/ptxas"
ln -s "$nvcc/nvvm/libdevice/libdevice.10.bc" "$dir/nvvm/libdevice/libdevice.10.bc"
# fatbinary (the CUDA 13 compiler wheel: CUDA 12's lack it), for clang's host-and-device
# builds; the CUDA runtime library, for linking programs that launch kernels.
[ -x "$wheels/cu13/bin/fatbinary" ] && ln -s "$wheels/cu13/bin/fatbinary" "$dir/bin/fatbinary"
for f in "$wheels"/cuda_runtime/lib/*; do [ -e "$f" ] && ln -s "$f" "$dir/lib64/"; done
[ -e "$wheels/cuda_runtime/lib/libcudart.so.12" ] && ln -s libcudart.so.12 "$dir/lib64/libcudart.so"
exit 0
