#!/usr/bin/env bash
# The MPI example's timings (bench/ANALYSIS.md, "Parallel programs: MPI"): builds zyg and
# examples/mpi (-O2), runs `heat --bench` under mpirun with 1, 2 and 4 ranks for each size,
# and prints a markdown table of the medians (the slowest rank's time per call, MPI_Wtime).
# On a shared machine another job's burst can double a median, so every configuration runs
# in several rounds (one after another, interleaved) and the table keeps each one's least
# disturbed round: the smallest median, for the primal and the gradient apart. It also says
# how much CPU time other processes took while it ran.
#
#   bash ci/bench-mpi.sh       # 2^16 and 2^19 cells, 200 steps, 21 calls, 3 rounds: ~100 s
#   ZYG_MPI_RANKS="1 2 4 8" ZYG_MPI_REPEATS=15 ZYG_MPI_ROUNDS=1 ZYG_MPI_SIZES="65536:200 1048576:100" bash ci/bench-mpi.sh
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
repeats=${ZYG_MPI_REPEATS:-21}
sizes=${ZYG_MPI_SIZES:-65536:200 524288:200}

cargo build --release -p zyg-driver >&2
make -C examples/mpi --no-print-directory clean all ZYG="$PWD/target/release/zyg" >&2
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

rounds=${ZYG_MPI_ROUNDS:-3}
cores=$(nproc)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# CPU time of the whole machine (user, nice, system, irq, softirq, steal; in clock ticks)
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
ours_ticks() { awk '{ print $16 + $17 }' /proc/$$/stat; } # waited-for children's user + system
ticks_per_s=$(getconf CLK_TCK)
busy_before=$(busy_ticks) ours_before=$(ours_ticks) start=$(date +%s.%N)
declare -A best_primal best_gradient
for round in $(seq "$rounds"); do
  for size in $sizes; do
    cells=${size%%:*} steps=${size##*:}
    for np in $ranks; do
      line=$(timeout 600 mpirun -np "$np" --oversubscribe examples/mpi/build/heat --bench \
        --cells "$cells" --steps "$steps" --repeats "$repeats" | grep '^bench:')
      echo "round $round: $line" >&2
      primal=$(sed 's/.*primal_ms=\([^ ]*\).*/\1/' <<<"$line")
      gradient=$(sed 's/.*gradient_ms=\([^ ]*\).*/\1/' <<<"$line")
      key="$cells:$steps:$np"
      best_primal[$key]=$(awk -v a="${best_primal[$key]:-inf}" -v b="$primal" 'BEGIN { print (a == "inf" || b < a) ? b : a }')
      best_gradient[$key]=$(awk -v a="${best_gradient[$key]:-inf}" -v b="$gradient" 'BEGIN { print (a == "inf" || b < a) ? b : a }')
    done
  done
done
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
others=$(awk -v b0="$busy_before" -v b1="$(busy_ticks)" -v o0="$ours_before" -v o1="$(ours_ticks)" -v hz="$ticks_per_s" \
  'BEGIN { x = ((b1 - b0) - (o1 - o0)) / hz; print (x < 0 ? 0 : x) }')

rows=()
for size in $sizes; do
  cells=${size%%:*} steps=${size##*:}
  first=
  for np in $ranks; do
    key="$cells:$steps:$np"
    first=${first:-$key}
    over=""
    [ "$np" -gt "$cores" ] && over=" (oversubscribed)"
    rows+=("$(awk -v np="$np" -v over="$over" -v c="$cells" -v s="$steps" -v p="${best_primal[$key]}" \
      -v g="${best_gradient[$key]}" -v p1="${best_primal[$first]}" -v g1="${best_gradient[$first]}" \
      'BEGIN { printf "| %d%s | %d | %d | %.2f | %.2f | %.2fx | %.2fx | %.2fx |", np, over, c, s, p, g, g / p, p1 / p, g1 / g }')")
  done
done

echo "MPI example (examples/mpi/heat.c, -O2, OpenMPI $(mpirun --version | sed -n 's/.*(Open MPI) //p' | head -1)),"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $cores cores ($cpu)."
echo "Times: the smallest of $rounds rounds' medians of $repeats calls (one untimed call first) of the"
echo "slowest rank's time per call; speedup: the first rank count's time over this one. Other"
printf 'processes took %.1f CPU-seconds of the %.1f s x %d cores the runs lasted.\n' "$others" "$elapsed" "$cores"
echo
echo "| ranks | cells | steps | primal (ms) | gradient (ms) | gradient/primal | primal speedup | gradient speedup |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
