#!/bin/sh
# jobs.sh -- pal-view -j N gives what -j 1 gives: the text profile, the call
# tree, the suggested filter and the CSV export are byte-identical for
# -j 1, 2 and 8, and (vwmerge) the facts of every analysis merged from the
# shares equal the unsplit ones field by field. The runs of per-rank files
# are split by file, so their messages, collectives and call paths cross
# shares: MPI runs of examples/mpi (ring, collectives, split communicators,
# intercommunicators, and halo, whose keys carry many messages across shares,
# on 4 ranks; ring on 16). A single ECL file of many threads
# (examples/threads on 16 threads, tests/views/vwprog) and a run file of
# fewer members than -j (examples/mpi/threads: 2 ranks of 5 threads that
# exchange messages thread to thread) are split by thread, each share
# reading the definitions that name its threads' regions: vwmerge says how
# many shares were read. The run files of 4 ranks split by member. The
# traces of one stream (toymp, PICL, an OTF2 archive) are read by one
# thread whatever -j says: there -j must change nothing.
# halo with ECL_COUNTERS gives the counters per region a split run too;
# a low descriptor limit (ulimit -n 40, 100) leaves -j 8 working.
# A damaged run (a flipped chunk, a file cut short, a rank missing) says
# each message once and counts the damage once, as -j 1 does.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
vm="$top_builddir/tests/views/vwmerge"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jobs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
split=0
bad() { echo "FAIL: $*"; fail=1; }
. "$top_srcdir/tests/views/inputs.sh"

# the outputs -j reads in threads, for -j J
outputs() {
    j=$1
    shift
    "$pv" -j "$j" "$@" >"$tmp/o.$j.profile" 2>"$tmp/o.$j.err"
    echo "exit $?" >>"$tmp/o.$j.err"
    "$pv" -j "$j" --view calltree "$@" >"$tmp/o.$j.calltree" 2>&1
    "$pv" -j "$j" --suggest-filter "$@" >"$tmp/o.$j.filter" 2>&1
    "$pv" -j "$j" --export csv "$@" >"$tmp/o.$j.csv" 2>&1
}

same() {
    name=$1
    shift
    outputs 1 "$@"
    [ -s "$tmp/o.1.profile" ] || { bad "$name: pal-view -j 1 said nothing"; cat "$tmp/o.1.err"; return; }
    for j in 2 8; do
        outputs $j "$@"
        for o in profile err calltree filter csv; do
            cmp -s "$tmp/o.1.$o" "$tmp/o.$j.$o" || {
                bad "$name: -j $j: the $o differs from -j 1"
                diff "$tmp/o.1.$o" "$tmp/o.$j.$o" | head -10
            }
        done
    done
    n=$((n + 1))
    echo "ok: $name: -j 1, 2, 8 the same ($(sed -n 2p "$tmp/o.1.profile" | sed 's/^ *//'))"
}

# what merged read, -j 2 and -j 8 (a run of several files, or the threads
# of one), in how many shares: name, shares for -j 2, for -j 8
shares() {
    for j in 2 8; do
        want=$2
        [ $j = 8 ] && want=$3
        grep -q ", $want shares\$" "$tmp/vm.$j" 2>/dev/null ||
            bad "$1: -j $j read in $want shares: $(cat "$tmp/vm.$j" 2>/dev/null)"
    done
}

# a run of per-rank files, or one of many threads: split, each analysis merged
merged() {
    name=$1
    shift
    same "$name" "$@"
    for j in 2 8; do
        if "$vm" $j "$@" >"$tmp/vm" 2>"$tmp/vm.err"; then
            echo "ok: $name: merged from $j shares: $(cat "$tmp/vm")"
            cp "$tmp/vm" "$tmp/vm.$j"
            split=$((split + 1))
        else
            bad "$name: the facts merged from $j shares differ"
            cat "$tmp/vm" "$tmp/vm.err"
        fi
    done
}

"$pv" -j 0 "$top_srcdir/tests/views/otf2-req.trace" >/dev/null 2>"$tmp/e0" && bad "-j 0 accepted"
grep -q "pal-view: -j: expected a number of threads" "$tmp/e0" || bad "-j 0: $(cat "$tmp/e0")"

one_stream_inputs same
vwprog_trace
merged vwprog "$trace"
shares vwprog 2 3   # its main thread and 2 workers
# one file of 16 threads (and the main one), its definitions in stream 0
mkdir "$tmp/th16"
ECL_DIR="$tmp/th16" ECL_PREFIX=th "$top_builddir/examples/threads/threads" 16 50 >/dev/null 2>&1 ||
    exit 99
merged "threads, 16 threads in one file" "$tmp"/th16/th.*.ecl
shares "threads, 16 threads in one file" 2 8

if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$top_builddir/examples/mpi/ring" ]; then
    mpi_env
    bin=$(cd "$top_builddir" && pwd)/examples/mpi
    for ex in ring collectives split intercomm halo; do
        [ -x "$bin/$ex" ] || continue
        run_mpi "$ex" 4 "$bin/$ex"
        merged "$ex (run file)" "$tmp/$ex/trace.ecl"
        shares "$ex (run file)" 2 4   # by member
        merged "$ex (per-rank files)" "$tmp/$ex"/trace.[0-9]*.ecl
    done
    # a run file of 2 members, 5 threads each, messages from thread to
    # thread: -j 2 by member, -j 8 by thread (its sends and receives in
    # different shares)
    if [ -x "$bin/threads" ]; then
        run_mpi mt 2 "$bin/threads"
        merged "threads (run file of 2 ranks)" "$tmp/mt/trace.ecl"
        shares "threads (run file of 2 ranks)" 2 8
        grep -q ', 200 matched, ' "$tmp/vm.8" || bad "threads (run file): $(cat "$tmp/vm.8")"
    fi
    # counters per region: perf_event counts of every thread
    if [ -x "$bin/halo" ]; then
        ECL_COUNTERS=task-clock,page-faults,context-switches
        export ECL_COUNTERS
        run_mpi cnt 4 "$bin/halo" 20
        unset ECL_COUNTERS
        merged "halo with counters (per-rank files)" "$tmp/cnt"/trace.[0-9]*.ecl
        grep -q ', [1-9][0-9]* counters,' "$tmp/vm" ||
            echo "note: no counter recorded (no perf_event here): their merge is not compared"
    fi
    run_mpi ring16 16 "$bin/ring" 5
    # halo on 16 ranks in 8 shares: every share leaves ends waiting for
    # several others, merged one after the other
    if [ -x "$bin/halo" ]; then
        run_mpi halo16 16 "$bin/halo" 50
        merged "halo, 16 ranks (per-rank files)" "$tmp/halo16"/trace.[0-9]*.ecl
    fi
    merged "ring, 16 ranks (per-rank files)" "$tmp/ring16"/trace.[0-9]*.ecl
    # every share's reader opens every file: under a low descriptor limit
    # -j uses as many threads as the limit holds, not "Too many open files"
    for lim in 40 100; do
        (ulimit -n $lim && "$pv" -j 8 "$tmp/ring16"/trace.[0-9]*.ecl) >"$tmp/lim" 2>"$tmp/lim.err" ||
            bad "ulimit -n $lim: pal-view -j 8 failed: $(head -2 "$tmp/lim.err")"
        "$pv" "$tmp/ring16"/trace.[0-9]*.ecl | cmp -s - "$tmp/lim" ||
            bad "ulimit -n $lim: pal-view -j 8 differs from -j 1"
    done
    # damage: every share's reader sees the run's files at open (a file cut
    # inside a chunk, a rank without a file): said once, counted once; a
    # damaged chunk in one share's file is that share's
    damaged_run "$tmp/ring16" "$tmp/dmg"
    merged "ring, 16 ranks, damaged (per-rank files)" "$tmp/dmg"
    grep -q '^exit 2$' "$tmp/o.1.err" || bad "the damaged run: exit status $(tail -1 "$tmp/o.1.err")"
    [ "$(grep -c 'no trace among the inputs' "$tmp/o.8.err")" = 1 ] ||
        bad "the damaged run: the missing rank said $(grep -c 'no trace among' "$tmp/o.8.err") times with -j 8"
    otf2_archive same
    [ "$split" -ge 18 ] || bad "only $split merges of split runs compared"
else
    echo "note: ECL was configured without MPI: no run of several files is split"
fi
[ "$n" -ge 4 ] || bad "only $n traces compared"
exit $fail
