#!/bin/sh
# run.sh -- runs the ECL benchmarks in order and prints their tables; called by
# `make bench` (see bench/README.md). Exits non-zero only when a benchmark
# program cannot run or crashes, never because of a measured time.
#
#   sh bench/run.sh [--quick]     (from the build directory, after make bench)
#
# Environment: BENCH_BIN (directory of the bench programs, default ./bench),
# BENCH_SCALE (event-count factor, default 1), BENCH_REPS, BENCH_KEEP_TRACES,
# MPIRUN and ECL_MERGE_PROG (bench_mpi),
# PAL_DUMP, LTTNG, BABELTRACE2, BENCH_LTTNG, and the ECL_* configuration.
set -u

case "${1:-}" in
--quick) BENCH_SCALE=${BENCH_SCALE:-0.1}; BENCH_REPS=${BENCH_REPS:-3}
         export BENCH_SCALE BENCH_REPS ;;
"") ;;
*) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

bin=${BENCH_BIN:-bench}
if [ ! -x "$bin/bench_record" ]; then
    echo "run.sh: no bench programs in '$bin' (run 'make bench' in the build directory," >&2
    echo "        or set BENCH_BIN to the directory that holds them)" >&2
    exit 1
fi

echo "ECL benchmarks -- tables only, nothing here passes or fails on time"
echo "scale: BENCH_SCALE=${BENCH_SCALE:-1}${BENCH_REPS:+, BENCH_REPS=$BENCH_REPS}"
start=$(date +%s)
status=0
# bench_mpi is built only when configure found MPI
progs="bench_record bench_read bench_peers bench_ascii"
[ -x "$bin/bench_mpi" ] && progs="$progs bench_mpi"
for prog in $progs; do
    "$bin/$prog"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "run.sh: $prog exited with status $rc" >&2
        status=1
    fi
done
echo
echo "all benchmarks: $(( $(date +%s) - start )) s"
exit $status
