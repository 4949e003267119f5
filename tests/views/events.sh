#!/bin/sh
# events.sh -- the event layer (pal_events) counts what pal-view's profile
# counts, on traces of every kind: a toymp log (a format described only by
# its EDL), the PICL excerpt (unbalanced regions, wildcard receives), the
# ECL trace of tests/views/vwprog (threads, unbalanced regions, markers)
# and, with MPI, runs of examples/mpi (ring, split communicators,
# intercommunicators; merged, per-rank files and, with OTF2, exported as
# an archive whose communicator ids are global): markers, counter
# samples, lost records, unmatched leaves, regions open at the end, sends,
# receives, matched messages and collective instances must be equal.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
ev="$top_builddir/tests/pal/test_pal_events"
edlc="$top_builddir/edl/edlc"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/events.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
bad() { echo "FAIL: $*"; fail=1; }

# what the profile says: its counts line, its messages line (none: 0), the
# collective instances summed
view_counts() {
    "$pv" "$@" >"$tmp/p" 2>/dev/null
    sed -n 's/^  \(markers .*\)$/\1/p' "$tmp/p"
    m=$(grep '^Messages:' "$tmp/p")
    echo "${m:-Messages: 0 sends, 0 receives, 0 matched}"
    awk '/^Collectives/ { on = 1; getline; next } on && NF == 0 { on = 0 }
         on { s += $(NF - 2) } END { print "instances " s + 0 }' "$tmp/p"
}

event_counts() {
    "$ev" --count "$@" >"$tmp/e" || return 1
    sed -n '1,2p' "$tmp/e"
    sed -n 's/^\(instances [0-9]*\) .*/\1/p' "$tmp/e"
}

same() {
    name=$1
    shift
    view_counts "$@" >"$tmp/want"
    event_counts "$@" >"$tmp/got" || { bad "$name: the events cannot be read"; return; }
    [ -s "$tmp/want" ] || { bad "$name: pal-view said nothing"; return; }
    if diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
        n=$((n + 1))
        echo "ok: $name: $(tr '\n' ' ' <"$tmp/got")"
    else
        bad "$name: the events count otherwise than pal-view"
        cat "$tmp/diff"
    fi
}

sh "$top_srcdir/examples/toymp/toymp-ring" 4 3 >"$tmp/ring.log" || exit 99
same toymp -d "$top_srcdir/edl/formats/toymp.edl" "$tmp/ring.log"
"$edlc" -o "$tmp/picl.dict" "$top_srcdir/edl/formats/picl.edl" || exit 99
same picl -d "$tmp/picl.dict" "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf"
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" >/dev/null 2>&1 || exit 99
trace=$(ls "$tmp"/vw.*.ecl 2>/dev/null | head -1)
[ -n "$trace" ] || { echo "vwprog wrote no trace"; exit 99; }
same vwprog "$trace"

if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$top_builddir/examples/mpi/ring" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
        case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
    done
    bin=$(cd "$top_builddir" && pwd)/examples/mpi
    for ex in ring split intercomm; do
        [ -x "$bin/$ex" ] || continue
        mkdir "$tmp/$ex"
        (cd "$tmp/$ex" && ECL_DIR="$tmp/$ex" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
            timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$bin/$ex") \
            >"$tmp/$ex.out" 2>&1 || { cat "$tmp/$ex.out"; echo "mpirun $ex failed"; exit 99; }
        same "$ex (merged)" "$tmp/$ex/trace.ecl"
        same "$ex (per-rank files)" "$tmp/$ex"/trace.[0-9]*.ecl
        # an OTF2 archive: a foreign format whose communicator ids are
        # global and say nothing of the members
        if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
            "$pv" --export otf2 -o "$tmp/$ex.otf2" "$tmp/$ex/trace.ecl" >/dev/null 2>&1 ||
                { bad "$ex: pal-view --export otf2"; continue; }
            same "$ex (OTF2 archive)" "$tmp/$ex.otf2/traces.otf2"
        fi
    done
else
    echo "note: ECL was configured without MPI: no MPI runs compared"
fi
[ "$n" -ge 3 ] || bad "only $n traces compared"
exit $fail
