#!/usr/bin/env bash
# grad-run.sh OPT SRC TMP [CLANG FLAGS...]
#
# Compiles the C (or C++: .cpp, .cc, .cxx) program SRC to LLVM IR at OPT (-O0, -O2, ...), fills in its gradient
# requests with `zyg grad`, links the result and runs it; the program's standard output is
# ours, for FileCheck. Fails (non-zero) as soon as a step fails, the program included.
#
#   clang-22 OPT -g [CLANG FLAGS...] -I test-suite/include -S -emit-llvm SRC -o TMP.OPT.ll
#   zyg grad TMP.OPT.ll -o TMP.OPT.grad.ll
#   clang-22 TMP.OPT.grad.ll -lm -o TMP.OPT.exe && TMP.OPT.exe
#
# Extra arguments after TMP go to the first clang only (e.g. -ffast-math,
# -fno-math-errno, -march=x86-64-v3). A RUN line that passes flags should also give TMP
# a suffix of its own (`%t.fast`), so that its files do not overwrite the plain run's.
# The link compiles zyg's output as it is (no -O), so what runs is what zyg wrote.
# $ZYG names the zyg binary and $CLANG the compiler (lit.cfg.py sets both); $ZYG_LINK_FLAGS,
# when set, goes to the link (`%grad-run-blas` sets it to link BLAS and LAPACKE);
# $ZYG_GRAD_FLAGS, when set, to `zyg grad` (`env ZYG_GRAD_FLAGS=--tape-budget=4KiB %grad-run ...`).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: grad-run.sh OPT SRC TMP [CLANG FLAGS...]" >&2
  exit 2
fi
opt=$1 src=$2 tmp=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
clang=$(compiler_for "$src")
zyg=${ZYG:?ZYG must name the zyg binary}
base="$tmp.${opt#-}"
"$clang" "$opt" -g "$@" -I "$here/../include" -S -emit-llvm "$src" -o "$base.ll"
# shellcheck disable=SC2086 # several flags, split on purpose
"$zyg" grad ${ZYG_GRAD_FLAGS:-} "$base.ll" -o "$base.grad.ll"
# shellcheck disable=SC2086 # several flags, split on purpose
"$clang" "$base.grad.ll" -lm ${ZYG_LINK_FLAGS:-} -o "$base.exe"
run_built "$base.exe"
