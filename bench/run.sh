#!/bin/sh
# run.sh -- runs the ECL benchmarks in order and prints their tables; called by
# `make bench` (see bench/README.md). Exits non-zero only when a benchmark
# program cannot run or crashes, never because of a measured time.
#
#   sh bench/run.sh [--quick]     (from the build directory, after make bench)
#
# --quick: BENCH_SCALE=0.1 (a tenth of the events and records) and
# BENCH_MERGE_MAX_RANKS=512 (the merge tables stop at 512 ranks); the number
# of runs stays the same.
#
# Environment: BENCH_BIN (directory of the bench programs, default ./bench),
# BENCH_SCALE (event-count factor, default 1), BENCH_REPS (runs per
# configuration, default 7), BENCH_KEEP_TRACES, MPIRUN (bench_mpi),
# ECL_MERGE_PROG and BENCH_MERGE_* (bench_merge), PAL_DUMP, LTTNG,
# BABELTRACE2, BENCH_LTTNG, PYTHON and BENCH_PYTHONPATH (bench_python.py), and the
# ECL_* configuration.
set -u

case "${1:-}" in
--quick) BENCH_SCALE=${BENCH_SCALE:-0.1}; BENCH_MERGE_MAX_RANKS=${BENCH_MERGE_MAX_RANKS:-512}
         export BENCH_SCALE BENCH_MERGE_MAX_RANKS ;;
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
echo "scale: BENCH_SCALE=${BENCH_SCALE:-1}, BENCH_REPS=${BENCH_REPS:-7}${BENCH_MERGE_MAX_RANKS:+, BENCH_MERGE_MAX_RANKS=$BENCH_MERGE_MAX_RANKS}"
start=$(date +%s)
status=0
# in the order of the tables: (a)-(b), (c)-(d), (e), (f), (g), (h)-(i); then
# (j), (k) and (l) below
progs="bench_record bench_read bench_peers bench_mpi bench_ascii bench_merge"
for prog in $progs; do
    # bench_mpi is built only when configure found MPI; its tables say so otherwise
    if [ "$prog" = bench_mpi ] && [ ! -x "$bin/bench_mpi" ]; then
        echo
        echo "== (f1) the null MPI call, (f2) ping-pong =="
        echo "n/a: configure found no MPI, so bench_mpi is not built"
        echo "     (apt-get install libopenmpi-dev openmpi-bin, then re-run configure and make bench)"
        continue
    fi
    "$bin/$prog"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "run.sh: $prog exited with status $rc" >&2
        status=1
    fi
done
# (j): the Python module, when configure built it (PYTHON and BENCH_PYTHONPATH
# are set by make bench)
if [ -n "${PYTHON:-}" ] && [ -e "${BENCH_PYTHONPATH:-python}/pal.so" ]; then
    PYTHONPATH="${BENCH_PYTHONPATH:-python}${PYTHONPATH:+:$PYTHONPATH}" BENCH_BIN=$bin \
        "$PYTHON" "$(dirname "$0")/bench_python.py" || { echo "run.sh: bench_python.py failed" >&2; status=1; }
else
    echo
    echo "== (j) Python: a trace into numpy columns and pandas -- bench_python.py =="
    echo "n/a: the Python module is not built (configure found no python3 with numpy and"
    echo "     its headers: apt-get install python3-dev python3-numpy, or set PYTHON=)"
fi
# (k): pal-view on a large run (a script: it times whole pal-view processes)
sh "$(dirname "$0")/views.sh" || status=1
# (l): compiler instrumentation
"$bin/bench_auto" || { echo "run.sh: bench_auto failed" >&2; status=1; }
# (m): the HTML report of a LULESH-size run in the browser (a script)
BENCH_BIN=$bin sh "$(dirname "$0")/report.sh" || status=1
# (n): the OTF2 round trip of a LULESH-size run (a script)
BENCH_BIN=$bin sh "$(dirname "$0")/otf2-lulesh.sh" || status=1
# (o): the what-if replay and the prediction on CG- and LULESH-shaped runs (a script)
BENCH_BIN=$bin sh "$(dirname "$0")/replay.sh" || status=1
echo
echo "all benchmarks: $(( $(date +%s) - start )) s"
exit $status
