#!/bin/sh
# mpi-engine.sh -- pal-view --mpi under mpirun with 1, 2 and 4 processes
# gives what pal-view -j 1 gives: the text profile, the call tree with the
# suggested filter, and the CSV export are byte-identical, and so are the
# messages on stderr (mpirun's own report of a non-zero exit left out) and
# the exit status. Inputs as tests/views/jobs.sh has them: toymp, PICL,
# a foreign trace (otf2-req), the ECL trace of tests/views/vwprog, MPI runs
# of examples/mpi on 4 ranks (merged and per-rank files, halo with
# counters), a 16-rank ring (merged and per-rank), the 16-rank run damaged
# (exit 2, each message once), and an OTF2 archive when OTF2 is built. The
# per-rank runs are also merged from their parts sent through bytes in the
# engine's tree order (vwmerge --packed --waits: the wait states with
# them, their outputs byte for byte; --settled: their lanes' states
# summed and bins dropped before packing, as --mpi does for the text
# outputs) and compared field by field, and
# read by 2 processes of 3 threads each (--mpi -j 3). The
# Chrome export, read by process 0 alone, is the serial one; so is the
# OTF2 export (when OTF2 is built: the archive of -j 1, byte for byte but
# the anchor's random trace identifier, otf2-print the same; an error
# said once, status 1), and a missing pal-view-mpi is named (--mpi
# --waits: tests/diag/waits-mpi.sh). Skips (77) without MPI.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
pv="$top_builddir/views/pal-view"
vm="$top_builddir/tests/views/vwmerge"
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ] || [ ! -x "$top_builddir/views/pal-view-mpi" ] ||
    [ ! -x "$top_builddir/examples/mpi/ring" ]; then
    echo "SKIP: ECL was configured without MPI (no views/pal-view-mpi)"
    exit 77
fi
PAL_VIEW_MPI="$top_builddir/views/pal-view-mpi"
export PAL_VIEW_MPI
# under the sanitizers, the MPI library's own allocations kept at exit are
# not pal-view's leaks: processes under mpirun do not check for leaks
mpi_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi-engine.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
packed=0
bad() { echo "FAIL: $*"; fail=1; }
. "$top_srcdir/tests/views/inputs.sh"
mpi_env

# the outputs of pal-view (-j 1), or under mpirun with P processes (--mpi)
outputs() {
    tag=$1
    shift
    if [ "$tag" = serial ]; then
        set -- "$pv" -j 1 "$@"
    else
        set -- env ASAN_OPTIONS="$mpi_asan" timeout 300 "$mpirun" --oversubscribe -np "$tag" \
            "$pv" --mpi "$@"
    fi
    "$@" >"$tmp/o.$tag.profile" 2>"$tmp/o.$tag.err"
    st1=$?
    "$@" --view calltree --view suggest-filter >"$tmp/o.$tag.calltree" 2>"$tmp/o.$tag.calltree-err"
    st2=$?
    "$@" --export csv >"$tmp/o.$tag.csv" 2>"$tmp/o.$tag.csv-err"
    st3=$?
    # mpirun's report of a non-zero exit status (its last line has no newline)
    for o in err calltree-err csv-err; do
        sed -i '/^-------------------------------------------------------*$/,/^-------------------------------------------------------*$/d' "$tmp/o.$tag.$o"
    done
    echo "exit $st1" >>"$tmp/o.$tag.err"
    echo "exit $st2" >>"$tmp/o.$tag.calltree-err"
    echo "exit $st3" >>"$tmp/o.$tag.csv-err"
}

same() {
    name=$1
    shift
    outputs serial "$@"
    [ -s "$tmp/o.serial.profile" ] || { bad "$name: pal-view said nothing"; cat "$tmp/o.serial.err"; return; }
    for p in 1 2 4; do
        outputs $p "$@"
        for o in profile err calltree calltree-err csv csv-err; do
            cmp -s "$tmp/o.serial.$o" "$tmp/o.$p.$o" || {
                bad "$name: --mpi with $p processes: the $o differs from -j 1"
                diff "$tmp/o.serial.$o" "$tmp/o.$p.$o" | head -10
            }
        done
    done
    n=$((n + 1))
    echo "ok: $name: -j 1 and --mpi with 1, 2, 4 processes the same ($(sed -n 2p "$tmp/o.serial.profile" | sed 's/^ *//'))"
}

# a run of per-rank files: also read by 2 processes of 3 threads each
# (6 shares, a block of 3 per process), and its parts through bytes,
# merged as the tree does
split() {
    name=$1
    shift
    same "$name" "$@"
    env ASAN_OPTIONS="$mpi_asan" timeout 300 "$mpirun" --oversubscribe -np 2 "$pv" --mpi -j 3 "$@" \
        >"$tmp/o.j.profile" 2>"$tmp/o.j.err"
    st=$?
    sed -i '/^-------------------------------------------------------*$/,/^-------------------------------------------------------*$/d' "$tmp/o.j.err"
    echo "exit $st" >>"$tmp/o.j.err"
    for o in profile err; do
        cmp -s "$tmp/o.serial.$o" "$tmp/o.j.$o" || {
            bad "$name: --mpi -j 3 with 2 processes: the $o differs from -j 1"
            diff "$tmp/o.serial.$o" "$tmp/o.j.$o" | head -10
        }
    done
    for p in 2 3 8; do
        if "$vm" --packed --waits $p "$@" >"$tmp/vm" 2>"$tmp/vm.err"; then
            packed=$((packed + 1))
        else
            bad "$name: the facts merged from $p packed parts differ"
            cat "$tmp/vm" "$tmp/vm.err"
        fi
    done
    # as --mpi reads for the text outputs: each part's lanes summed at the
    # run's bin width, their bins dropped, the states the same
    if "$vm" --packed --settled 3 "$@" >"$tmp/vm.s" 2>"$tmp/vm.err"; then
        packed=$((packed + 1))
    else
        bad "$name: the facts merged from 3 packed parts with settled lanes differ"
        cat "$tmp/vm.s" "$tmp/vm.err"
    fi
    echo "ok: $name: merged from 2, 3, 8 packed parts: $(cat "$tmp/vm")"
}

one_stream_inputs same
vwprog_trace
same vwprog "$trace"

bin=$top_builddir/examples/mpi
for ex in ring collectives split intercomm halo; do
    [ -x "$bin/$ex" ] || continue
    run_mpi "$ex" 4 "$bin/$ex"
    same "$ex (merged)" "$tmp/$ex/trace.ecl"
    split "$ex (per-rank files)" "$tmp/$ex"/trace.[0-9]*.ecl
done
if [ -x "$bin/halo" ]; then
    ECL_COUNTERS=task-clock,page-faults,context-switches
    export ECL_COUNTERS
    run_mpi cnt 4 "$bin/halo" 20
    unset ECL_COUNTERS
    split "halo with counters (per-rank files)" "$tmp/cnt"/trace.[0-9]*.ecl
    grep -q ', [1-9][0-9]* counters$' "$tmp/vm" ||
        echo "note: no counter recorded (no perf_event here): their parts are not compared"
fi
run_mpi ring16 16 "$bin/ring" 5
same "ring, 16 ranks (merged)" "$tmp/ring16/trace.ecl"
split "ring, 16 ranks (per-rank files)" "$tmp/ring16"/trace.[0-9]*.ecl
# damage: a flipped chunk, a file cut short, a rank missing: each message
# once (the parts carry them to process 0), exit status 2
damaged_run "$tmp/ring16" "$tmp/dmg"
split "ring, 16 ranks, damaged (per-rank files)" "$tmp/dmg"
grep -q '^exit 2$' "$tmp/o.4.err" || bad "the damaged run: --mpi exit status $(tail -1 "$tmp/o.4.err")"
[ "$(grep -c 'no trace among the inputs' "$tmp/o.4.err")" = 1 ] ||
    bad "the damaged run: the missing rank said $(grep -c 'no trace among' "$tmp/o.4.err") times with 4 processes"
otf2_archive same

# the Chrome export follows the records in time order: process 0 reads alone
"$pv" --export chrome "$tmp/halo"/trace.[0-9]*.ecl >"$tmp/c.serial" 2>&1 || bad "chrome export"
ASAN_OPTIONS="$mpi_asan" "$mpirun" --oversubscribe -np 2 "$pv" --mpi --export chrome "$tmp/halo"/trace.[0-9]*.ecl \
    >"$tmp/c.mpi" 2>&1 || bad "--mpi --export chrome: exit status $?"
cmp -s "$tmp/c.serial" "$tmp/c.mpi" || bad "--mpi --export chrome differs from the serial export"
# the OTF2 export, read and written by process 0 alone: the archive of
# -j 1, every file byte for byte but the anchor's trace identifier (OTF2
# draws one per archive), the anchor the same to otf2-print -A without it
otf2_same() {
    name=$1
    shift
    rm -rf "$tmp/x.serial"
    "$pv" --export otf2 -o "$tmp/x.serial" "$@" >"$tmp/x.out" 2>"$tmp/x.err" ||
        { bad "$name: pal-view --export otf2: $(cat "$tmp/x.err")"; return; }
    for p in 1 2 4; do
        rm -rf "$tmp/x.$p"
        env ASAN_OPTIONS="$mpi_asan" timeout 300 "$mpirun" --oversubscribe -np $p "$pv" --mpi \
            --export otf2 -o "$tmp/x.$p" "$@" >"$tmp/x.out" 2>"$tmp/x.err"
        st=$?
        [ "$st" = 0 ] || { bad "$name: --mpi --export otf2 with $p processes: exit $st"; cat "$tmp/x.err"; continue; }
        [ -s "$tmp/x.out" ] || [ -s "$tmp/x.err" ] && bad "$name: --mpi --export otf2 said $(cat "$tmp/x.out" "$tmp/x.err")"
        (cd "$tmp/x.serial" && find . -type f | sort) >"$tmp/x.files.serial"
        (cd "$tmp/x.$p" && find . -type f | sort) >"$tmp/x.files.$p"
        cmp -s "$tmp/x.files.serial" "$tmp/x.files.$p" ||
            bad "$name: --mpi --export otf2 with $p processes: other files ($(tr '\n' ' ' <"$tmp/x.files.$p"))"
        while read -r f; do
            [ "$f" = ./traces.otf2 ] && continue
            cmp -s "$tmp/x.serial/$f" "$tmp/x.$p/$f" ||
                bad "$name: --mpi --export otf2 with $p processes: $f differs from -j 1's"
        done <"$tmp/x.files.serial"
        if [ -n "$otf2_print" ]; then
            for o in -A -G ""; do
                # shellcheck disable=SC2086
                "$otf2_print" $o "$tmp/x.serial/traces.otf2" 2>&1 | grep -v '^Trace identifier' >"$tmp/x.p.serial"
                # shellcheck disable=SC2086
                "$otf2_print" $o "$tmp/x.$p/traces.otf2" 2>&1 | grep -v '^Trace identifier' >"$tmp/x.p.$p"
                cmp -s "$tmp/x.p.serial" "$tmp/x.p.$p" || {
                    bad "$name: --mpi --export otf2 with $p processes: otf2-print ${o:-(events)} differs"
                    diff "$tmp/x.p.serial" "$tmp/x.p.$p" | head -5
                }
            done
        elif [ "$(wc -c <"$tmp/x.serial/traces.otf2")" != "$(wc -c <"$tmp/x.$p/traces.otf2")" ]; then
            bad "$name: --mpi --export otf2 with $p processes: the anchor's size differs"
        fi
    done
    otf2_n=$((otf2_n + 1))
    echo "ok: $name: --export otf2 with --mpi with 1, 2, 4 processes the archive of -j 1 ($(wc -l <"$tmp/x.files.serial") files${otf2_print:+, otf2-print the same})"
}
otf2_n=0
if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
    otf2_print=${ECL_TEST_OTF2_PRINT:-}
    [ -x "$otf2_print" ] || otf2_print=$(command -v otf2-print || true)
    otf2_same "halo (per-rank files)" "$tmp/halo"/trace.[0-9]*.ecl
    otf2_same "ring, 16 ranks (merged)" "$tmp/ring16/trace.ecl"
    # an error of the export is process 0's, said once, every process's status
    env ASAN_OPTIONS="$mpi_asan" timeout 300 "$mpirun" --oversubscribe -np 2 "$pv" --mpi \
        --export otf2 -o "$tmp/x.serial" "$tmp/halo"/trace.[0-9]*.ecl >"$tmp/r.out" 2>"$tmp/r.err"
    st=$?
    [ "$st" = 1 ] || bad "--mpi --export otf2 into an archive: exit status $st, not 1"
    [ "$(grep -c "^pal-view: otf2: '$tmp/x.serial/traces.otf2' exists: an archive is already in" "$tmp/r.err")" = 1 ] ||
        bad "--mpi --export otf2 into an archive: said '$(cat "$tmp/r.err")'"
    [ "$otf2_n" = 2 ] || bad "only $otf2_n OTF2 archives compared under --mpi"
else
    echo "SKIP (part): --mpi --export otf2: ECL was configured without OTF2 (libotf2)"
fi
PAL_VIEW_MPI="$tmp/none" "$pv" --mpi "$tmp/halo/trace.ecl" >/dev/null 2>"$tmp/r.err"
st=$?
[ "$st" = 1 ] || bad "a missing pal-view-mpi: exit status $st"
grep -q "^pal-view: --mpi: cannot run $tmp/none: No such file or directory$" "$tmp/r.err" ||
    bad "a missing pal-view-mpi: said '$(cat "$tmp/r.err")'"

[ "$n" -ge 16 ] || bad "only $n traces compared"
[ "$packed" -ge 32 ] || bad "only $packed packed merges compared"
exit $fail
