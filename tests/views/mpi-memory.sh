#!/bin/sh
# mpi-memory.sh -- pal-view's memory does not grow with 24 KiB of time bins
# per thread: a run of 4,096 ranks that each work 50 us at their own time
# (an ascii trace of tests/views/many-ranks.edl) is read by pal-view -j 1
# and by pal-view --mpi with 2 processes within 64 MiB each (peak resident
# set, /usr/bin/time -f %M), with the same profile. Each thread holds only
# the bins it touched (views/an-utilization.c); all 1,024 of them per
# thread, as before, were 96 MiB here (117 MiB in all). The bound is not
# checked under the sanitizers (their shadow memory), nor without
# /usr/bin/time (skip, 77). And a trace of 2,048 threads busy from start to
# end (tests/views/vwthreads) read by 4 processes: process 0 holds the
# others' threads' states, not their time bins (vw_lanes_settle): at most
# 12 MiB more than process 1, which only reads (27 MiB more before), and
# the profile of -j 1.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
pv="$top_builddir/views/pal-view"
edl="$top_srcdir/tests/views/many-ranks.edl"
if [ ! -x /usr/bin/time ]; then
    echo "SKIP: no /usr/bin/time to measure the peak resident set"
    exit 77
fi
sanitized=no
grep -q -- '-fsanitize' "$top_builddir/Makefile" && sanitized=yes
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi-memory.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
limit=65536   # KiB

awk -v N=4096 'BEGIN { for (r = 0; r < N; r++) printf "%d %d 0 work %d\n", 150 + r * 60, r, 50 }' \
    >"$tmp/run.trace" || exit 99

# peak RSS (KiB) of each process in $tmp/rss.*, its output in $tmp/out.*
/usr/bin/time -o "$tmp/rss.serial" -f %M "$pv" -j 1 -d "$edl" "$tmp/run.trace" \
    >"$tmp/out.serial" 2>"$tmp/err.serial" || { cat "$tmp/err.serial"; bad "pal-view -j 1 failed"; }
grep -q '^  records 4096, ranks 4096, threads 4096, ' "$tmp/out.serial" ||
    bad "pal-view -j 1: $(sed -n 2p "$tmp/out.serial")"
grep -q '^  work  *4096  *0\.204800  ' "$tmp/out.serial" || bad "pal-view -j 1: the work region"
check() {   # name, file with the peak RSS in KiB
    kib=$(tail -1 "$2")
    if [ "$sanitized" = yes ]; then
        echo "ok: $1: $kib KiB (not checked: sanitizers)"
    elif [ "$kib" -le "$limit" ] 2>/dev/null; then
        echo "ok: $1: $kib KiB"
    else
        bad "$1: peak resident set $kib KiB, more than $limit"
    fi
}
check "pal-view -j 1" "$tmp/rss.serial"

if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$top_builddir/views/pal-view-mpi" ]; then
    PAL_VIEW_MPI="$top_builddir/views/pal-view-mpi"
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PAL_VIEW_MPI OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    mpi_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
    export tmp pv edl
    env ASAN_OPTIONS="$mpi_asan" timeout 300 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 2 \
        sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
               exec /usr/bin/time -o "$tmp/rss.$r" -f %M "$pv" --mpi -d "$edl" "$tmp/run.trace" \
                   >"$tmp/out.mpi.$r"' 2>"$tmp/err.mpi" ||
        { cat "$tmp/err.mpi"; bad "pal-view --mpi failed"; }
    cmp -s "$tmp/out.serial" "$tmp/out.mpi.0" || {
        bad "pal-view --mpi: the profile differs from -j 1"
        diff "$tmp/out.serial" "$tmp/out.mpi.0" | head -10
    }
    for r in 0 1; do
        if [ -s "$tmp/rss.$r" ]; then
            check "pal-view --mpi, process $r of 2" "$tmp/rss.$r"
        else
            bad "pal-view --mpi: process $r: no peak resident set"
        fi
    done

    # 2,048 threads of one process busy from their start to the end (one
    # ECL file, shared by thread): with 4 processes, process 0 holds the
    # states of the others' threads, not their bins (about 12 KiB each
    # here: 27 MiB more than process 1, which only reads, before)
    nt=2048
    [ "$sanitized" = yes ] && nt=256
    mkdir "$tmp/thr"
    for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
        case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
    done
    ECL_DIR="$tmp/thr" ECL_PREFIX=thr ECL_BUFFER_SIZE=4K ECL_BUFFER_COUNT=1 \
        "$top_builddir/tests/views/vwthreads" $nt >"$tmp/thr.out" 2>&1 ||
        { cat "$tmp/thr.out"; echo "vwthreads failed"; exit 99; }
    trace=$(ls "$tmp"/thr/thr.*.ecl 2>/dev/null | head -1)
    [ -n "$trace" ] || { echo "vwthreads wrote no trace"; exit 99; }
    export trace
    "$pv" -j 1 "$trace" >"$tmp/out.thr" 2>"$tmp/err.thr" || { cat "$tmp/err.thr"; bad "pal-view -j 1 on $nt threads failed"; }
    grep -q "^  records [0-9]*, ranks 1, threads $((nt + 1)), " "$tmp/out.thr" ||
        bad "pal-view -j 1 on $nt threads: $(sed -n 2p "$tmp/out.thr")"
    env ASAN_OPTIONS="$mpi_asan" timeout 300 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 \
        sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
               exec /usr/bin/time -o "$tmp/thr.rss.$r" -f %M "$pv" --mpi "$trace" >"$tmp/out.thr.$r"' \
        2>"$tmp/err.mpi" || { cat "$tmp/err.mpi"; bad "pal-view --mpi on $nt threads failed"; }
    cmp -s "$tmp/out.thr" "$tmp/out.thr.0" || {
        bad "pal-view --mpi on $nt threads: the profile differs from -j 1"
        diff "$tmp/out.thr" "$tmp/out.thr.0" | head -10
    }
    k0=$(tail -1 "$tmp/thr.rss.0" 2>/dev/null)
    k1=$(tail -1 "$tmp/thr.rss.1" 2>/dev/null)
    if [ -z "$k0" ] || [ -z "$k1" ]; then
        bad "pal-view --mpi on $nt threads: no peak resident set"
    elif [ "$sanitized" = yes ]; then
        echo "ok: $nt threads, --mpi with 4 processes: process 0 $k0 KiB, process 1 $k1 KiB (not checked: sanitizers)"
    elif [ $((k0 - k1)) -le 12288 ] && [ "$k0" -le "$limit" ]; then
        echo "ok: $nt threads, --mpi with 4 processes: process 0 $k0 KiB, process 1 (which only reads) $k1 KiB"
    else
        bad "$nt threads, --mpi with 4 processes: process 0 $k0 KiB, process 1 $k1 KiB: more than 12 MiB more, or above $limit"
    fi
else
    echo "note: ECL was configured without MPI: pal-view --mpi not measured"
fi
exit $fail
