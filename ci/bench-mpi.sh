#!/usr/bin/env bash
# The MPI example's timings (bench/ANALYSIS.md, "Parallel programs: MPI"): builds zyg and
# examples/mpi (-O2), runs `heat --bench` under mpirun with 1, 2 and 4 ranks for each size,
# and prints a markdown table of the medians (the slowest rank's time per call, MPI_Wtime).
#
#   bash ci/bench-mpi.sh                      # 2^16 and 2^19 cells, 200 steps, 9 repeats
#   ZYG_MPI_RANKS="1 2 4 8" ZYG_MPI_REPEATS=15 ZYG_MPI_SIZES="65536:200 1048576:100" bash ci/bench-mpi.sh
#
# More ranks than cores run oversubscribed (--oversubscribe): the table says how many cores
# there were. The gradient's tape is about 8 bytes per cell and step (840 MiB at 2^19
# cells and 200 steps, spread over the ranks).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
if ! command -v mpirun >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1; then
  echo "bench-mpi: mpirun or mpicc is not installed (bash ci/setup.sh installs OpenMPI)" >&2
  exit 1
fi
ranks=${ZYG_MPI_RANKS:-1 2 4}
repeats=${ZYG_MPI_REPEATS:-9}
sizes=${ZYG_MPI_SIZES:-65536:200 524288:200}

cargo build --release -p zyg-driver >&2
make -C examples/mpi --no-print-directory clean all ZYG="$PWD/target/release/zyg" >&2
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

cores=$(nproc)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for size in $sizes; do
  cells=${size%%:*} steps=${size##*:}
  primal_1=
  gradient_1=
  for np in $ranks; do
    line=$(timeout 600 mpirun -np "$np" --oversubscribe examples/mpi/build/heat --bench \
      --cells "$cells" --steps "$steps" --repeats "$repeats" | grep '^bench:')
    echo "$line" >&2
    primal=$(sed 's/.*primal_ms=\([^ ]*\).*/\1/' <<<"$line")
    gradient=$(sed 's/.*gradient_ms=\([^ ]*\).*/\1/' <<<"$line")
    ratio=$(sed 's/.*ratio=\([^ ]*\).*/\1/' <<<"$line")
    primal_1=${primal_1:-$primal}
    gradient_1=${gradient_1:-$gradient}
    over=""
    [ "$np" -gt "$cores" ] && over=" (oversubscribed)"
    rows+=("$(awk -v np="$np" -v over="$over" -v c="$cells" -v s="$steps" -v p="$primal" -v g="$gradient" \
      -v r="$ratio" -v p1="$primal_1" -v g1="$gradient_1" \
      'BEGIN { printf "| %d%s | %d | %d | %.2f | %.2f | %.2fx | %.2fx | %.2fx |", np, over, c, s, p, g, r, p1 / p, g1 / g }')")
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "MPI example (examples/mpi/heat.c, -O2, OpenMPI $(mpirun --version | sed -n 's/.*(Open MPI) //p' | head -1)),"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $cores cores ($cpu),"
echo "load average before ${load_before}, after ${load_after}. Times: medians of $repeats calls"
echo "(one untimed call first) of the slowest rank's time per call; speedup: the 1-rank time over this one."
echo
echo "| ranks | cells | steps | primal (ms) | gradient (ms) | gradient/primal | primal speedup | gradient speedup |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
