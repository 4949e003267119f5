#!/bin/sh
# mpi.sh -- pal-view on the MPI ring (examples/mpi/ring, 4 ranks, 10 rounds):
# the profile's MPI functions and call counts, matched messages and the top
# communication pairs (golden, times removed), on the merged trace and on the
# four per-rank traces read together; Chrome JSON with one slice per call and
# one flow arrow per message; the communication matrix SVG; collective
# instances grouped across ranks (one barrier); the MPI record types' roles
# in the trace's dictionary (pal-dump --dict); collective bytes.
# Skips (77) when ECL was configured without MPI.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
ring="$(cd "$top_builddir" && pwd)/examples/mpi/ring"
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ] || [ ! -x "$ring" ]; then
    echo "SKIP: ECL was configured without MPI (no examples/mpi/ring)"
    exit 77
fi
pv="$top_builddir/views/pal-view"
check="$top_builddir/tests/views/vwcheck"
golden="$top_srcdir/tests/views/golden"
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-mpi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

(cd "$tmp" && ECL_DIR=$tmp ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
    timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$ring" 10) \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "mpirun failed"; exit 99; }
[ -f "$tmp/trace.ecl" ] || { echo "no merged trace"; exit 99; }

# the MPI records carry their meaning in the trace's dictionary (from mpi.spec)
dump="$top_builddir/pal/pal-dump"
"$dump" --dict "$tmp/trace.ecl" > "$tmp/dict" || bad "pal-dump --dict"
roles() { awk -v r="$1" '$1 == "RECORD" { on = $2 == r } on && /ROLE IS/ { sub(/^ */, ""); print }' "$tmp/dict"; }
[ "$(roles mpi_send)" = 'ROLE IS call, send, communication, idle;' ] || bad "mpi_send roles: $(roles mpi_send)"
[ "$(roles mpi_recv)" = 'ROLE IS call, recv, communication, idle;' ] || bad "mpi_recv roles: $(roles mpi_recv)"
[ "$(roles mpi_barrier)" = 'ROLE IS call, collective, communication, idle;' ] || bad "mpi_barrier roles"
[ "$(roles mpi_init)" = 'ROLE IS process_begin;' ] || bad "mpi_init roles: $(roles mpi_init)"
[ "$(roles mpi_comm)" = 'ROLE IS definition;' ] || bad "mpi_comm roles"
[ "$(roles mpi_complete | tr '\n' ' ')" = 'ROLE IS request_complete; ROLE IS recv WHEN kind IS "1"; ROLE IS untimed WHEN flags IS "16"; ' ] ||
    bad "mpi_complete roles: $(roles mpi_complete)"
grep -q 'FIELD peer  *IS int32 SLEB ROLE peer ' "$tmp/dict" || bad "peer role"
grep -q 'FIELD recvd  *IS uint64 ULEB UNIT "bytes" ROLE bytes_received ' "$tmp/dict" || bad "recvd role"

# normalise: MPI function names and calls, messages, top pairs
norm() {
    awk '/^$/ {on=0; coll=0; pairs=0}
         /^MPI functions/ {on=1; print; next}
         on == 1 && NF >= 9 && $1 != "name" {print "  " $1, $2, $NF}
         /^Process start and end/ {on=2; print "Process start and end"; next}
         on == 2 && NF >= 8 && $1 != "name" {print "  setup", $1, $2}
         /^Collectives/ {coll=1; print "Collectives"; next}
         coll && NF == 4 && $1 != "name" {print "  collective", $1, $2}
         /^Messages/ {print; pairs=1; next}
         pairs && /^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ {print}' "$1" | LC_ALL=C sort
}
for variant in merged per-rank; do
    if [ $variant = merged ]; then
        "$pv" "$tmp/trace.ecl" >"$tmp/p" || bad "pal-view $variant"
    else
        "$pv" "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl "$tmp"/trace.2.ecl "$tmp"/trace.3.ecl \
            >"$tmp/p" || bad "pal-view $variant"
    fi
    grep -q '^  records [0-9]*, ranks 4, threads 4,' "$tmp/p" || bad "$variant: ranks/threads"
    grep -q '^Ranks that wait most' "$tmp/p" || bad "$variant: no waiting ranks"
    norm "$tmp/p" >"$tmp/p.norm"
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$tmp/p.norm" "$golden/mpi-ring.txt"
    elif ! diff -u "$golden/mpi-ring.txt" "$tmp/p.norm"; then
        bad "$variant profile differs from golden"
    fi
done

# Chrome: 4 x (init + 10 send + 10 recv + barrier + finalize) = 92 slices, 40 arrows
"$pv" --export chrome "$tmp/trace.ecl" >"$tmp/c.json" || bad "chrome export"
counts=$("$check" json "$tmp/c.json") || bad "chrome JSON invalid"
case "$counts" in "X=92 s=40 f=40 "*) ;; *) bad "chrome counts: $counts" ;; esac
if command -v python3 >/dev/null 2>&1; then   # trace-event rules, flow ids paired
    python3 "$top_srcdir/tests/views/chrome-check.py" "$tmp/c.json" >/dev/null ||
        bad "chrome export breaks the trace-event rules"
fi

"$pv" --svg "$tmp/svg" --view comm --view timeline "$tmp/trace.ecl" || bad "svg"
"$check" xml "$tmp/svg/comm.svg" >/dev/null || bad "comm.svg not well-formed"
[ "$(grep -c '<title>[0-9]* to [0-9]*: 10 messages' "$tmp/svg/comm.svg")" = 4 ] || bad "comm cells"
"$check" xml "$tmp/svg/timeline.svg" >/dev/null || bad "timeline.svg not well-formed"
[ "$(grep -c '<line x1=' "$tmp/svg/timeline.svg")" -ge 40 ] || bad "timeline arrows"
"$pv" --export csv "$tmp/trace.ecl" | grep -c '^message,' | grep -qx 4 || bad "csv message rows"

# collectives: every collective of examples/mpi/collectives is one instance
# across the 4 ranks (MPI_Allreduce twice), found by the role collective
coll="$(dirname "$ring")/collectives"
if [ -x "$coll" ]; then
    mkdir "$tmp/coll"
    (cd "$tmp/coll" && ECL_DIR=$tmp/coll ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
        timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$coll") \
        >"$tmp/out" 2>&1 || { cat "$tmp/out"; bad "mpirun collectives"; }
    "$pv" "$tmp/coll/trace.ecl" >"$tmp/cp" || bad "pal-view collectives"
    awk '/^Collectives/ {on=1; next} /^$/ {on=0} on && $1 != "name" {print $1, $2}' "$tmp/cp" \
        >"$tmp/cl"
    grep -qx 'MPI_Allreduce 2' "$tmp/cl" || bad "collectives: MPI_Allreduce instances"
    grep -qx 'MPI_Bcast 1' "$tmp/cl" || bad "collectives: MPI_Bcast instances"
    [ "$(awk '$2 != 1' "$tmp/cl" | wc -l)" = 1 ] || bad "collectives: $(cat "$tmp/cl")"
    # collective bytes (roles bytes_sent + bytes_received) in the profile:
    # MPI_Bcast of 10 ints, 4 ranks: the root sends 40, three ranks receive 40;
    # two MPI_Allreduce of 10 ints: 4 ranks x 2 calls x (40 sent + 40 received)
    awk '/^MPI functions/ {on=1; next} /^$/ {on=0} on && $1 != "name" {print $1, $NF}' \
        "$tmp/cp" >"$tmp/cb"
    grep -qx 'MPI_Bcast 160' "$tmp/cb" || bad "collectives: MPI_Bcast bytes: $(grep Bcast "$tmp/cb")"
    grep -qx 'MPI_Allreduce 640' "$tmp/cb" || bad "collectives: MPI_Allreduce bytes"
fi
exit $fail
