#!/usr/bin/env bash
# grad-run.sh OPT SRC TMP [CLANG FLAGS...]
# Compiles the C program SRC to LLVM IR at OPT (-O0, -O2, ...), fills in its gradient
# requests with `zyg grad`, links the result and runs it; the program's output is ours.
set -euo pipefail
opt=$1 src=$2 tmp=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
clang=${CLANG:-clang-22}
zyg=${ZYG:?ZYG must name the zyg binary}
base="$tmp$opt"
"$clang" "$opt" -g "$@" -I "$here/../include" -S -emit-llvm "$src" -o "$base.ll"
"$zyg" grad "$base.ll" -o "$base.grad.ll"
"$clang" "$opt" "$base.grad.ll" -lm -o "$base.exe"
# Exit status 126 is ETXTBSY: another test's fork can briefly hold the just-linked binary
# open for writing. It is a race of parallel runners, not a test result, so try again.
for attempt in 1 2 3; do
  status=0
  "$base.exe" || status=$?
  [ "$status" -ne 126 ] && exit "$status"
  sleep 0.2
done
exit 126
