#!/bin/sh
# jobs.sh -- pal-view -j: the text profile of a run of per-rank files read
# with -j 1 and with -j N (default 2), whole pal-view processes, BENCH_REPS
# runs (default 7) interleaved -j 1, -j N, -j 1, ...: min and median of each
# (wall clock, and CPU time: user + system), the ratio -j 1 / -j N of the
# medians and of the mins, and records per second per core (records /
# (wall time x threads)). On a loaded machine the CPU time says what -j
# costs, the wall time what it gains. The outputs of the two must
# be identical (checked once). The run: examples/mpi/halo on
# BENCH_JOBS_RANKS ranks (16) for BENCH_JOBS_ITERS iterations (8000: about
# 3.7 M records), or the per-rank files of BENCH_JOBS_RUN (a directory),
# or the traces BENCH_JOBS_FILES names (a run file, or one trace of many
# threads: -j splits it by thread).
#   sh ../bench/jobs.sh     (from the build directory, with MPI)
#   BENCH_JOBS_FILES="/tmp/t16/th.123.ecl" sh ../bench/jobs.sh
set -u
pv=${PAL_VIEW:-views/pal-view}
reps=${BENCH_REPS:-7}
jobs=${BENCH_JOBS:-2}
ranks=${BENCH_JOBS_RANKS:-16}
iters=${BENCH_JOBS_ITERS:-8000}
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/bench-jobs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo
echo "== pal-view -j 1 vs -j $jobs, text profile, $reps runs interleaved, min / median =="
if [ -n "${BENCH_JOBS_FILES:-}" ]; then
    run=
else
if [ -n "${BENCH_JOBS_RUN:-}" ]; then
    run=$BENCH_JOBS_RUN
else
    [ -x examples/mpi/halo ] || { echo "n/a: examples/mpi/halo not built (MPI)"; exit 0; }
    run=$tmp/run
    mkdir "$run"
    (cd "$run" && ECL_DIR="$run" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout 600 mpirun --oversubscribe -np "$ranks" "$(cd "$OLDPWD" && pwd)/examples/mpi/halo" \
        "$iters" >/dev/null 2>&1) || { echo "n/a: the run could not be made"; exit 0; }
    rm -f "$run/trace.ecl"   # the per-rank files only
fi
fi
if [ -n "${BENCH_JOBS_FILES:-}" ]; then
    # shellcheck disable=SC2086 # a list of paths
    set -- $BENCH_JOBS_FILES
    [ -f "$1" ] || { echo "n/a: no trace $1"; exit 0; }
else
    set -- "$run"/*.[0-9]*.ecl
    [ -f "$1" ] || { echo "n/a: no per-rank files in $run"; exit 0; }
fi
"$pv" -j 1 "$@" >"$tmp/p1" || { echo "n/a: pal-view failed"; exit 0; }
"$pv" -j "$jobs" "$@" >"$tmp/pn" || { echo "n/a: pal-view -j $jobs failed"; exit 0; }
cmp -s "$tmp/p1" "$tmp/pn" && same=identical || same=DIFFERENT
records=$(sed -n 's/^  records \([0-9]*\),.*/\1/p' "$tmp/p1")
echo "run: $# files, $records records, $(cat "$@" | wc -c) bytes; outputs $same"
: >"$tmp/t1"
: >"$tmp/tn"
: >"$tmp/c1"
: >"$tmp/cn"
i=0
while [ $i -lt "$reps" ]; do
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$pv" -j 1 "$@" >/dev/null
    awk '{print $1 >> "'"$tmp/t1"'"; print $2 + $3 >> "'"$tmp/c1"'"}' "$tmp/time"
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$pv" -j "$jobs" "$@" >/dev/null
    awk '{print $1 >> "'"$tmp/tn"'"; print $2 + $3 >> "'"$tmp/cn"'"}' "$tmp/time"
    i=$((i + 1))
done
stats() { sort -n "$1" | awk '{v[NR] = $1} END {printf "%.3f %.3f", v[1], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
s1=$(stats "$tmp/t1")
sn=$(stats "$tmp/tn")
c1=$(stats "$tmp/c1")
cn=$(stats "$tmp/cn")
printf "%-8s %10s %10s %10s %10s %16s\n" "" "wall min" "median" "CPU min" "median" "Mrec/s per core"
echo "$s1 $c1" | awk -v r="$records" '{printf "%-8s %10.3f %10.3f %10.3f %10.3f %16.2f\n", "-j 1", $1, $2, $3, $4, r / $2 / 1e6}'
echo "$sn $cn" | awk -v r="$records" -v j="$jobs" '{printf "%-8s %10.3f %10.3f %10.3f %10.3f %16.2f\n", "-j " j, $1, $2, $3, $4, r / $2 / j / 1e6}'
echo "$s1 $sn" | awk -v j="$jobs" '{printf "speed-up -j %s: %.2fx (min), %.2fx (median)\n", j, $1 / $3, $2 / $4}'
