#!/usr/bin/env bash
# mpi-run.sh NP OPT SRC TMP [CLANG FLAGS...]
#
# grad-run.sh for MPI programs: compiles SRC with OpenMPI's flags (`mpicc -showme:compile`)
# at OPT, fills in its gradient requests with `zyg grad`, links with `mpicc -showme:link`
# and runs the program under `mpirun -np NP --oversubscribe`; the program's standard output
# (rank 0 prints, the others print only failures) is ours, for FileCheck.
#
#   clang-22 OPT -g $(mpicc -showme:compile) -I test-suite/include -S -emit-llvm SRC -o TMP.npNP.OPT.ll
#   zyg grad TMP.npNP.OPT.ll -o TMP.npNP.OPT.grad.ll
#   clang-22 TMP.npNP.OPT.grad.ll -lm $(mpicc -showme:link) -o TMP.npNP.OPT.exe
#   mpirun -np NP --oversubscribe TMP.npNP.OPT.exe
#
# Run as root (a container), mpirun needs OMPI_ALLOW_RUN_AS_ROOT; this sets it.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: mpi-run.sh NP OPT SRC TMP [CLANG FLAGS...]" >&2
  exit 2
fi
np=$1 opt=$2 src=$3 tmp=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
clang=$(compiler_for "$src")
zyg=${ZYG:?ZYG must name the zyg binary}
base="$tmp.np$np.${opt#-}"
# shellcheck disable=SC2046 # mpicc's flags, split on purpose
"$clang" "$opt" -g $(mpicc -showme:compile) "$@" -I "$here/../include" -S -emit-llvm "$src" -o "$base.ll"
# shellcheck disable=SC2086 # several flags, split on purpose
"$zyg" grad ${ZYG_GRAD_FLAGS:-} "$base.ll" -o "$base.grad.ll"
# shellcheck disable=SC2046 # mpicc's flags, split on purpose
"$clang" "$base.grad.ll" -lm $(mpicc -showme:link) -o "$base.exe"
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# No network interfaces to probe in a container: shared memory and self are enough for
# one machine, and a run must not wait on a missing one.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
exec timeout 120 mpirun -np "$np" --oversubscribe "$base.exe"
