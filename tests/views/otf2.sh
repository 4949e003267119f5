#!/bin/sh
# otf2.sh -- pal-view --export otf2: the archive that libotf2's own reader
# (otf2-print) reads back holds, per event kind, exactly what PAL's roles
# count in the trace (tests/views/rolecount): enter, leave, send, receive,
# collective begin and end (by operation), metric, marker, one-sided
# operations, windows, syncs and locks -- on an ECL trace of the threads
# example (3 threads, counters, markers), on PICL samples (messages and
# broadcasts through picl.edl's roles), a toymp log (calls with durations),
# a small trace with requests and communicators (otf2-req.edl: the roles of
# ECL's MPI records), and real 4-rank mpiruns of examples/mpi/halo, onesided
# and collectives (skipped without MPI). Also: region names, the clock properties, communicators and
# their members, local ranks, an existing archive refused, and a write that
# fails (a full disk) said and exit status 1.
# Skips (77) when pal-view was built without OTF2 or otf2-print is missing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
if [ "${ECL_TEST_HAVE_OTF2:-no}" != yes ]; then
    echo "SKIP: ECL was configured without OTF2 (no libotf2: Debian libotf2-trace-dev)"
    exit 77
fi
otf2print=${ECL_TEST_OTF2_PRINT:-otf2-print}
if ! command -v "$otf2print" >/dev/null 2>&1; then
    echo "SKIP: otf2-print not found (Debian: otf2-tools)"
    exit 77
fi
pv="$top_builddir/views/pal-view"
rc="$top_builddir/tests/views/rolecount"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/otf2-export.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done

# kinds ARCHIVE: otf2-print's events counted as rolecount names them
kinds() {
    "$otf2print" "$1" | awk '
        $1 == "ENTER" {n["enter"]++} $1 == "LEAVE" {n["leave"]++}
        $1 == "MPI_SEND" || $1 == "MPI_ISEND" {n["send"]++}
        $1 == "MPI_RECV" || $1 == "MPI_IRECV" {n["recv"]++}
        $1 == "MPI_COLLECTIVE_BEGIN" {n["coll_begin"]++}
        $1 == "MPI_COLLECTIVE_END" {n["coll_end"]++}
        $1 == "METRIC" {n["metric"]++} $1 == "PARAMETER_STRING" {n["marker"]++}
        $1 == "RMA_PUT" {n["rma_put"]++} $1 == "RMA_GET" {n["rma_get"]++}
        $1 == "RMA_ATOMIC" {n["rma_atomic"]++} $1 == "RMA_WIN_CREATE" {n["rma_win_create"]++}
        $1 == "RMA_WIN_DESTROY" {n["rma_win_free"]++}
        $1 == "RMA_SYNC" || $1 == "RMA_GROUP_SYNC" {n["rma_sync"]++}
        $1 == "RMA_ACQUIRE_LOCK" {n["rma_lock"]++} $1 == "RMA_RELEASE_LOCK" {n["rma_unlock"]++}
        $1 == "MPI_COLLECTIVE_END" && match($0, /Operation: [A-Z_]+/) {
            op[tolower(substr($0, RSTART + 11, RLENGTH - 11))]++ }
        END {split("enter leave send recv coll_begin coll_end metric marker rma_put rma_get " \
                   "rma_atomic rma_win_create rma_win_free rma_sync rma_lock rma_unlock", k, " ")
             for (i = 1; i <= 16; i++) print k[i], n[k[i]] + 0
             fflush()
             for (o in op) print "op", o, op[o] | "LC_ALL=C sort"
             close("LC_ALL=C sort")}'
}

# check NAME DIR [-d DICT] TRACE...: export to DIR, compare the kinds
check() {
    name=$1 dir=$2
    shift 2
    if ! "$pv" --export otf2 -o "$dir" "$@" 2>"$tmp/err"; then
        cat "$tmp/err"
        bad "$name: pal-view --export otf2 failed"
        return
    fi
    [ -f "$dir/traces.otf2" ] && [ -f "$dir/traces.def" ] || { bad "$name: no archive"; return; }
    "$rc" "$@" >"$tmp/want" || { bad "$name: rolecount failed"; return; }
    kinds "$dir/traces.otf2" >"$tmp/got" || { bad "$name: otf2-print failed"; return; }
    if ! diff -u "$tmp/want" "$tmp/got"; then
        bad "$name: OTF2 event counts differ from the trace's roles"
    fi
    echo "$name: $(tr '\n' ' ' <"$tmp/got")"
}

# an ECL trace: threads, regions, counters, markers
(cd "$tmp" && ECL_DIR=$tmp ECL_PREFIX=thr "$top_builddir/examples/threads/threads" >/dev/null) ||
    { echo "examples/threads failed"; exit 99; }
thr=$(ls "$tmp"/thr.*.ecl)
check threads "$tmp/thr" "$thr"
grep -q '^metric [1-9]' "$tmp/got" || bad "threads: no metric events"
grep -q '^marker [1-9]' "$tmp/got" || bad "threads: no marker events"
"$otf2print" -G "$tmp/thr/traces.otf2" >"$tmp/defs" 2>&1 || bad "otf2-print -G failed"
grep -q '^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000' "$tmp/defs" ||
    bad "threads: clock properties (1e9 ticks per second) missing"
nloc=$(grep -c '^LOCATION ' "$tmp/defs")
[ "$nloc" -ge 3 ] || bad "threads: $nloc locations, expected one per thread (>= 3)"
grep -q '^REGION .*Name: "compute"' "$tmp/defs" || bad "threads: region 'compute' not defined"
grep -q '^METRIC_MEMBER ' "$tmp/defs" || bad "threads: no metric member"

# an existing archive is refused, with a message naming it
if "$pv" --export otf2 -o "$tmp/thr" "$thr" 2>"$tmp/err"; then
    bad "an existing archive was overwritten"
fi
grep -q "traces.otf2' exists" "$tmp/err" || bad "no message for an existing archive"
"$pv" --export otf2 "$thr" 2>"$tmp/err" && bad "--export otf2 without -o accepted"
grep -q 'needs -o DIR' "$tmp/err" || bad "no message for a missing -o"

# a full disk: every write past 8 KiB fails (a file-size limit, with SIGXFSZ
# ignored, fails writes with EFBIG as a full disk fails them with ENOSPC);
# libotf2 reports that to its error callback only: the export says it
# failed and that the archive is partial, and exits 1
(trap '' XFSZ; ulimit -f 8; exec "$pv" --export otf2 -o "$tmp/full" "$thr") >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || bad "an archive on a full disk: exit status $st, expected 1"
grep -q "^pal-view: otf2: writing the archive in '$tmp/full' failed: .*partial" "$tmp/err" ||
    bad "an archive on a full disk: no message saying so: $(cat "$tmp/err")"

# PICL: messages and regions through picl.edl's roles
check picl "$tmp/picl" -d "$top_srcdir/edl/formats/picl.edl" \
    "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf"
grep -q '^send [1-9]' "$tmp/got" || bad "picl: no send events"
grep -q '^recv [1-9]' "$tmp/got" || bad "picl: no receive events"
"$otf2print" -G "$tmp/picl/traces.otf2" >"$tmp/defs" 2>&1
grep -q '^COMM .*"world"' "$tmp/defs" || bad "picl: no world communicator"
grep -q '^REGION .*Name: "recv".*Role: POINT2POINT, Paradigm: MPI' "$tmp/defs" ||
    bad "picl: region 'recv' not defined as MPI point-to-point"

# PICL collectives: broadcasts with root and bytes
check picl-bcast "$tmp/lab5" -d "$top_srcdir/edl/formats/picl.edl" \
    "$top_srcdir/tests/edl/samples/mpicl_lab5.excerpt.ttf"
grep -q '^coll_begin [1-9]' "$tmp/got" || bad "picl-bcast: no collective events"
"$otf2print" "$tmp/lab5/traces.otf2" >"$tmp/ev" 2>&1
grep -q '^MPI_COLLECTIVE_END .*Operation: BCAST, Communicator: "world" <0>, Root: [0-9]' "$tmp/ev" ||
    bad "picl-bcast: no BCAST collective end with its root"

# toymp (calls written when they return, with a duration): sends,
# receives, barriers, counter samples and notes
sh "$top_srcdir/examples/toymp/toymp-ring" 4 6 >"$tmp/ring.log" || exit 99
check toymp "$tmp/toymp" -d "$top_srcdir/edl/formats/toymp.edl" "$tmp/ring.log"
grep -q '^coll_end [1-9]' "$tmp/got" || bad "toymp: no collective events"
grep -q '^metric [1-9]' "$tmp/got" || bad "toymp: no metric events"

# requests and communicators (the roles of ECL's MPI records): 2 MPI_Isend
# completed, 2 MPI_Irecv requested at their call and completed; peers and
# roots as ranks of communicator 5 (world ranks 1-2)
check requests "$tmp/req" -d "$top_srcdir/tests/views/otf2-req.edl" \
    "$top_srcdir/tests/views/otf2-req.trace"
"$otf2print" "$tmp/req/traces.otf2" >"$tmp/ev" 2>&1
for k in MPI_ISEND MPI_ISEND_COMPLETE MPI_IRECV_REQUEST MPI_IRECV; do
    n=$(grep -c "^$k " "$tmp/ev")
    [ "$n" = 2 ] || bad "requests: $n $k events, expected 2"
done
grep -q '^MPI_ISEND  *4294967296 .*Receiver: 1 .*Communicator: "comm 5".*Tag: 7, Length: 800, Request: 12' \
    "$tmp/ev" || bad "requests: rank 1's MPI_Isend (to local rank 1 of comm 5, request 12)"
# the request is announced inside MPI_Irecv, before it is left
awk '$2 == 4294967296 && ($1 == "MPI_IRECV_REQUEST" || $1 == "LEAVE") {print $1; exit}' "$tmp/ev" |
    grep -q MPI_IRECV_REQUEST || bad "requests: MPI_IrecvRequest not inside MPI_Irecv"
grep -q '^MPI_COLLECTIVE_END .*Operation: BCAST, Communicator: "comm 5" <[0-9]*>, Root: 1 ' "$tmp/ev" ||
    bad "requests: broadcast root not local rank 1 of comm 5"
grep -q '^MPI_COLLECTIVE_END .*Operation: ALLREDUCE, .*Sent: 8, Received: 8' "$tmp/ev" ||
    bad "requests: allreduce bytes"
"$otf2print" -G "$tmp/req/traces.otf2" >"$tmp/defs" 2>&1
grep -q '^GROUP .*Type: COMM_GROUP.* 2 Members: 1 .*, 2 ' "$tmp/defs" ||
    bad "requests: communicator 5's group (world ranks 1, 2) missing"

# run4 DIR PROGRAM ARGS...: a 4-rank mpirun traced into DIR/trace.ecl
# (output in $tmp/out)
run4() {
    d=$1
    shift
    mkdir -p "$d"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    (cd "$d" && ECL_DIR=$d ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
        timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$@") \
        >"$tmp/out" 2>&1 && [ -f "$d/trace.ecl" ]
}

# a real 4-rank MPI run (halo: nonblocking and persistent requests, regions, a marker)
halo="$(cd "$top_builddir" && pwd)/examples/mpi/halo"
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$halo" ]; then
    if run4 "$tmp" "$halo" 5; then
        check halo-merged "$tmp/halo" "$tmp/trace.ecl"
        check halo-ranks "$tmp/halo4" "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl \
            "$tmp"/trace.2.ecl "$tmp"/trace.3.ecl
        if grep -q '^send [1-9]' "$tmp/got"; then
            # the MPI records carry roles: every request completed, in pairs
            "$otf2print" "$tmp/halo/traces.otf2" >"$tmp/ev" 2>&1
            for k in MPI_ISEND MPI_ISEND_COMPLETE MPI_IRECV_REQUEST MPI_IRECV; do
                eval "n_$k=\$(grep -c '^$k ' \"\$tmp/ev\")"
            done
            [ "$n_MPI_ISEND" -gt 0 ] && [ "$n_MPI_ISEND" = "$n_MPI_ISEND_COMPLETE" ] ||
                bad "halo: $n_MPI_ISEND MPI_Isend, $n_MPI_ISEND_COMPLETE completed"
            [ "$n_MPI_IRECV" -gt 0 ] && [ "$n_MPI_IRECV" = "$n_MPI_IRECV_REQUEST" ] ||
                bad "halo: $n_MPI_IRECV_REQUEST MPI_Irecv requests, $n_MPI_IRECV received"
        else
            echo "(halo: the MPI records carry no roles in this build: regions and markers only)"
        fi
        "$otf2print" -G "$tmp/halo/traces.otf2" >"$tmp/defs" 2>&1
        ng=$(grep -c '^LOCATION_GROUP ' "$tmp/defs")
        [ "$ng" = 4 ] || bad "halo: $ng location groups, expected 4 (one per rank)"
        # pal-view reads the archive back (its communicators have members and
        # no remote group): the same calls per region as on the trace itself
        "$pv" "$tmp/halo/traces.otf2" >"$tmp/pv.back" 2>&1 || bad "halo: pal-view on the archive failed"
        "$pv" "$tmp/trace.ecl" >"$tmp/pv.orig" 2>&1 || bad "halo: pal-view on trace.ecl failed"
        for f in orig back; do
            awk '/^Regions/ {on=1; next} /^$/ {on=0} on && $1 != "name" {print $1, $2}' \
                "$tmp/pv.$f" | sort >"$tmp/reg.$f"
        done
        [ -s "$tmp/reg.orig" ] && cmp -s "$tmp/reg.orig" "$tmp/reg.back" ||
            bad "halo: pal-view's regions differ on the archive: $(tr '\n' ' ' <"$tmp/reg.back")"
        # ... and every message matched, each collective one instance across
        # the ranks (OTF2's communicator ids are global, ECL's per process)
        for f in orig back; do
            { grep '^Messages:' "$tmp/pv.$f"
              awk '/^Collectives/ {on=1; next} /^$/ {on=0} on && $1 != "name" {print $1, $2}' "$tmp/pv.$f"
            } >"$tmp/msg.$f"
        done
        grep -Eq '^Messages: ([1-9][0-9]*) sends, \1 receives, \1 matched' "$tmp/msg.orig" ||
            bad "halo: $(head -1 "$tmp/msg.orig")"
        cmp -s "$tmp/msg.orig" "$tmp/msg.back" ||
            bad "halo: messages or collectives differ on the archive: $(tr '\n' ' ' <"$tmp/msg.back")"
    else
        cat "$tmp/out"
        bad "mpirun -np 4 halo failed"
    fi
else
    echo "(no MPI: the 4-rank halo part is skipped)"
fi

# one-sided communication and collectives (examples/mpi/onesided, 4 ranks):
# Rma* events, window definitions and collective operations from the roles
os="$(cd "$top_builddir" && pwd)/examples/mpi/onesided"
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$os" ]; then
    if run4 "$tmp/osd" "$os"; then
        check onesided "$tmp/os" "$tmp/osd/trace.ecl"
        # onesided.c per rank: 2 puts, 1 get, 4 atomics (accumulate, fetch-and-op,
        # compare-and-swap, get-accumulate), 2 windows created and freed
        for kv in rma_put:8 rma_get:4 rma_atomic:16 rma_win_create:8 rma_win_free:8 \
                  rma_lock:12 rma_unlock:12 "op barrier:12"; do
            grep -q "^${kv%:*} ${kv##*:}\$" "$tmp/got" ||
                bad "onesided: expected ${kv%:*} ${kv##*:}, got: $(grep "^${kv%:*} " "$tmp/got")"
        done
        "$otf2print" "$tmp/os/traces.otf2" >"$tmp/ev" 2>&1
        ndone=$(grep -c '^RMA_OP_COMPLETE_BLOCKING ' "$tmp/ev")
        [ "$ndone" = 28 ] || bad "onesided: $ndone RMA operations completed, expected 28"
        grep -q '^RMA_PUT .*Bytes: 64, ' "$tmp/ev" || bad "onesided: no 64-byte RmaPut"
        "$otf2print" -G "$tmp/os/traces.otf2" >"$tmp/defs" 2>&1
        nw=$(grep -c '^RMA_WIN ' "$tmp/defs")
        [ "$nw" = 2 ] || bad "onesided: $nw window definitions, expected 2"
    else
        cat "$tmp/out"
        bad "mpirun -np 4 onesided failed"
    fi
    # the collective operations: every MPI collective of collectives.c
    co="$(cd "$top_builddir" && pwd)/examples/mpi/collectives"
    if [ -x "$co" ] && run4 "$tmp/cod" "$co"; then
        check collectives "$tmp/co" "$tmp/cod/trace.ecl"
        # every collective of collectives.c once per rank blocking and once
        # nonblocking (an MPI_I* call is its member's part too, ecl/mpi/mpi.spec),
        # allreduce once more
        grep '^op ' "$tmp/got" >"$tmp/ops"
        printf 'op %s 8\n' allgather allgatherv >"$tmp/wantops"
        echo "op allreduce 12" >>"$tmp/wantops"
        printf 'op %s 8\n' alltoall alltoallv alltoallw barrier bcast exscan gather gatherv \
            reduce reduce_scatter reduce_scatter_block scan scatter scatterv >>"$tmp/wantops"
        diff -u "$tmp/wantops" "$tmp/ops" || bad "collectives: OTF2 operations"
    else
        cat "$tmp/out"
        bad "mpirun -np 4 collectives failed"
    fi
fi
exit $fail
