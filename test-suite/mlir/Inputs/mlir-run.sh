#!/usr/bin/env bash
# mlir-run.sh OPT PROG.mlir DRIVER.c TMP [ZYG FLAGS...]
#
# Differentiates the MLIR program PROG at OPT (-O0, -O2, ...), links zyg's output with the C
# driver DRIVER (which calls the primal and the gradients and compares them with finite
# differences, printing ALL OK) and runs it; the driver's standard output is ours, for
# FileCheck. Fails as soon as a step fails, the program included.
#
#   zyg grad PROG OPT [ZYG FLAGS...] -o TMP.OPT.ll
#   clang-22 TMP.OPT.ll DRIVER -I test-suite/include -I test-suite/mlir/Inputs -lm -o TMP.OPT.exe
#   TMP.OPT.exe
#
# $ZYG names the zyg binary and $CLANG the compiler (lit.cfg.py sets both).
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: mlir-run.sh OPT PROG.mlir DRIVER.c TMP [ZYG FLAGS...]" >&2
  exit 2
fi
opt=$1 prog=$2 driver=$3 tmp=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
clang=${CLANG:-clang-22}
zyg=${ZYG:?ZYG must name the zyg binary}
base="$tmp.${opt#-}"
"$zyg" grad "$prog" "$opt" "$@" -o "$base.ll"
"$clang" "$base.ll" "$driver" -I "$here/../../include" -I "$here" -lm -o "$base.exe"
# shellcheck source=../../bin/common.sh
source "$here/../../bin/common.sh"
run_built "$base.exe"
