#!/bin/sh
# otf2.sh -- PAL reads OTF2 archives. An archive written by libotf2's writer
# API (tests/pal/otf2-writer: 2 ranks, regions, MPI_Send/Isend/Recv, a
# barrier, a metric, a string parameter) reads through pal-dump with exact
# per-type counts, region and communicator names, peers, times scaled from
# its timer resolution, and matched messages. Round trips: an ECL trace, a
# PICL sample and a trace with requests and communicators exported by
# pal-view --export otf2 and read back have the same counts by role
# (tests/views/rolecount: also the rma_ roles and collective operations)
# and the same matched messages as the original, and the same region
# profile (calls and seconds, examples/embed); a 4-rank one-sided MPI run
# too (skipped without MPI). An archive whose definitions and events do not
# agree (undefined strings, regions, communicators; times out of order; more
# events than declared) is read with each inconsistency said and counted as
# damage.
# Skips (77) without OTF2.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
if [ "${ECL_TEST_HAVE_OTF2:-no}" != yes ]; then
    echo "SKIP: ECL was configured without OTF2 (no libotf2: Debian libotf2-trace-dev)"
    exit 77
fi
pd="$top_builddir/pal/pal-dump"
pv="$top_builddir/views/pal-view"
rc="$top_builddir/tests/views/rolecount"
writer="$top_builddir/tests/pal/otf2-writer"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/otf2-import.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done

"$writer" "$tmp/w" || { echo "otf2-writer failed"; exit 99; }

# an archive whose content does not hold together (otf2-writer broken):
# OTF2 has no checksums, so what can be checked is -- each said once with
# its count and counted as damage (exit status 2)
"$writer" "$tmp/broken" broken || { echo "otf2-writer broken failed"; exit 99; }
"$pd" --info "$tmp/broken/traces.otf2" >"$tmp/info" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] || bad "an inconsistent archive: exit status $st, expected 2"
grep -q '^damaged: *6$' "$tmp/info" || bad "an inconsistent archive: $(grep damaged "$tmp/info"), expected 6"
for m in "1 region or location definitions name a string the archive does not define" \
         "2 enter or leave events name a region the definitions do not define" \
         "1 messages name a communicator the definitions do not define" \
         "1 events come before the event preceding them on their location" \
         "location 1 holds 17 events where its definition declares 15"; do
    grep -q "traces.otf2: $m" "$tmp/err" || bad "an inconsistent archive: no message '$m'"
done
a="$tmp/w/traces.otf2"
"$pd" --count "$a" >"$tmp/count" 2>"$tmp/err" || bad "pal-dump --count exit status $?"
[ -s "$tmp/err" ] && { cat "$tmp/err"; bad "pal-dump wrote to stderr"; }
cat >"$tmp/want" <<'END'
coll_enter                    2
coll_leave_barrier            2
collective_begin              2
collective_end                2
comm                          1
enter                         2
isend                         1
isend_complete                1
leave                         2
location                      2
marker                        1
metric                        1
metric_int                    2
mpi_enter                     5
mpi_leave                     5
parameter                     1
recv                          2
region                        6
send                          1
total                        41
END
diff -u "$tmp/want" "$tmp/count" || bad "per-type counts of the written archive"

"$pd" "$a" >"$tmp/dump" || bad "pal-dump exit status"
expect() {
    grep -q -- "$1" "$tmp/dump" || bad "pal-dump output lacks: $1"
}
expect '^0.000010000 p0 s0 mpi_enter rank=0 thread=0 region="MPI_Send"$'
expect '^0.000011000 p0 s0 send rank=0 thread=0 peer=1 comm="MPI_COMM_WORLD" tag=5 bytes=64$'
expect '^0.000016000 p1 s0 recv rank=1 thread=0 peer=0 comm="MPI_COMM_WORLD" tag=5 bytes=64$'
expect '^0.000021000 p0 s0 isend .*tag=6 bytes=128 request=7$'
expect '^0.000035000 p0 s0 isend_complete rank=0 thread=0 request=7$'
expect '^0.000040000 p1 s0 coll_enter rank=1 thread=0 region="MPI_Barrier"$'
expect '^0.000050000 p0 s0 coll_leave_barrier .*region="MPI_Barrier" comm="MPI_COMM_WORLD" root=-1'
expect '^0.000060000 p1 s0 metric_int rank=1 thread=0 metric="flops" value=43$'
expect '^0.000061000 p0 s0 marker rank=0 thread=0 parameter="phase" text="done"$'
expect '^0.000070000 p1 s0 leave rank=1 thread=0 region="main"$'
expect 'comm rank=0 thread=0 comm=0 name="MPI_COMM_WORLD" size=2 members="0,1"'
"$rc" -m "$a" >"$tmp/roles" || bad "rolecount on the archive"
grep -q '^matched 2$' "$tmp/roles" || bad "messages matched: $(grep matched "$tmp/roles"), expected 2"
grep -q '^coll_begin 2$' "$tmp/roles" || bad "collective regions by role"
"$pd" --dict "$a" | grep -q 'ROLE IS enter, collective, communication;' ||
    bad "pal-dump --dict: the OTF2 description lacks its roles"
"$pd" -d "$top_srcdir/edl/formats/picl.edl" "$a" >/dev/null 2>"$tmp/err" &&
    bad "a dictionary given with an OTF2 archive was accepted"
grep -q 'brings its own description' "$tmp/err" || bad "no message for -d with an OTF2 archive"

# round trips: trace -> pal-view --export otf2 -> PAL: counts by role and
# matched messages equal
roundtrip() {
    name=$1
    shift
    "$pv" --export otf2 -o "$tmp/$name" "$@" || { bad "$name: export failed"; return; }
    "$rc" -m "$@" >"$tmp/orig" || { bad "$name: rolecount (original)"; return; }
    "$rc" -m "$tmp/$name/traces.otf2" >"$tmp/back" || { bad "$name: rolecount (OTF2)"; return; }
    diff -u "$tmp/orig" "$tmp/back" || bad "$name: counts by role differ after the round trip"
    echo "$name: $(tr '\n' ' ' <"$tmp/back")"
}
(cd "$tmp" && ECL_DIR=$tmp ECL_PREFIX=thr "$top_builddir/examples/threads/threads" >/dev/null) ||
    { echo "examples/threads failed"; exit 99; }
roundtrip threads "$tmp"/thr.*.ecl
grep -q '^metric [1-9]' "$tmp/back" || bad "threads: no counters came back"
roundtrip picl -d "$top_srcdir/edl/formats/picl.edl" "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf"
grep -q '^matched [1-9]' "$tmp/back" || bad "picl: no matched messages came back"
roundtrip requests -d "$top_srcdir/tests/views/otf2-req.edl" "$top_srcdir/tests/views/otf2-req.trace"
grep -q '^op bcast 2$' "$tmp/back" || bad "requests: the broadcasts' operation did not come back"
"$pd" --dict "$tmp/requests/traces.otf2" | grep -q 'OPERATION IS "allreduce";' ||
    bad "pal-dump --dict: the OTF2 description lacks the collective operations"

# one-sided communication (examples/mpi/onesided, 4 ranks): Rma* events come
# back as the rma_ roles of the Leave of their region, with window, target
# and bytes (rolecount: the same counts by role, and by operation)
os="$(cd "$top_builddir" && pwd)/examples/mpi/onesided"
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$os" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    mkdir -p "$tmp/osd"
    if (cd "$tmp/osd" && ECL_DIR=$tmp/osd ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
            timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$os") \
            >"$tmp/out" 2>&1 && [ -f "$tmp/osd/trace.ecl" ]; then
        roundtrip onesided "$tmp/osd/trace.ecl"
        grep -q '^rma_put 8$' "$tmp/back" && grep -q '^rma_atomic 16$' "$tmp/back" ||
            bad "onesided: one-sided operations did not come back"
        "$pd" "$tmp/onesided/traces.otf2" >"$tmp/dump"
        expect ' rma_put_leave .*region="MPI_Put" .*peer=[0-3] bytes=64$'
        expect ' rma_win_create_leave .*region="MPI_Win_create" '
    else
        cat "$tmp/out"
        bad "mpirun -np 4 onesided failed"
    fi
else
    echo "(no MPI: the one-sided round trip is skipped)"
fi

# the same profile: examples/embed (regions by role: calls, seconds inside)
# on the original and on the archive
embed="$top_builddir/examples/embed/embed"
profile() {
    "$embed" "$@" | sed -n '/^region  *count  *seconds$/,$p'
}
sh "$top_srcdir/examples/toymp/toymp-ring" 4 6 >"$tmp/ring.trace" || exit 99
"$pv" --export otf2 -o "$tmp/toymp" -d "$top_srcdir/edl/formats/toymp.edl" "$tmp/ring.trace" ||
    bad "toymp: export failed"
for t in threads toymp requests; do
    case $t in
    threads) profile "$tmp"/thr.*.ecl >"$tmp/p.orig" ;;
    toymp) profile "$tmp/ring.trace" "$top_srcdir/edl/formats/toymp.edl" >"$tmp/p.orig" ;;
    requests) profile "$top_srcdir/tests/views/otf2-req.trace" \
        "$top_srcdir/tests/views/otf2-req.edl" >"$tmp/p.orig" ;;
    esac
    profile "$tmp/$t/traces.otf2" >"$tmp/p.back"
    [ "$(wc -l <"$tmp/p.orig")" -gt 1 ] || bad "$t: empty profile"
    diff -u "$tmp/p.orig" "$tmp/p.back" || bad "$t: the region profile differs after the round trip"
done
# what Score-P writes for POSIX I/O and CUDA (otf2-writer scorep): the GPU
# stream of an ACCELERATOR location group is its creating process's second
# thread, not a rank of its own; the write's IoOperationComplete gives its
# Leave (io_leave) the handle's file and the bytes; nothing is skipped
"$writer" "$tmp/s" scorep || { echo "otf2-writer scorep failed"; exit 99; }
"$pd" "$tmp/s/traces.otf2" >"$tmp/s.out" 2>"$tmp/s.err" || bad "scorep archive: pal-dump exit status $?"
# the kernel's enter: device_enter where the role vocabulary has device
e=enter
"$pd" --dict "$tmp/s/traces.otf2" | grep -q '^RECORD device_enter ' && e=device_enter
[ -s "$tmp/s.err" ] && { cat "$tmp/s.err"; bad "scorep archive: pal-dump wrote to stderr"; }
for l in 'p0 s1 location rank=0 thread=1 location=5 name="CUDA[0:13]"' \
         'p0 s0 io_handle rank=0 thread=0 handle=0 name="out.txt" file="out.txt" paradigm="POSIX"' \
         'p0 s0 io_leave rank=0 thread=0 region="write" handle="out.txt" operation="write" bytes=100' \
         "p0 s1 $e rank=0 thread=1 region=\"saxpy\""; do
    grep -qF "$l" "$tmp/s.out" || bad "scorep archive: no record '$l'"
done
grep -q '^  records 15, ranks 1, threads 2,' <<END || bad "scorep archive: not 1 rank with 2 threads"
$("$pv" "$tmp/s/traces.otf2" 2>&1)
END
exit $fail
