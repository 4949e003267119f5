#!/bin/sh
# otf2-roundtrip.sh -- an OTF2 export read back is the trace: pal-view's text
# profile of a trace and of its archive (pal-view --export otf2, read by
# PAL's OTF2 import) are equal line for line -- MPI_Init and MPI_Finalize
# (process start and end), the waiting (idle) share and the ranks that wait,
# the bytes of nonblocking and persistent calls, collectives, messages, the
# run's length -- but for the trace's name, its dictionary and the record
# count; numbers are equal to the last digit printed, give or take one in
# that digit (times turned into seconds from another zero round
# differently). On real 4-rank mpiruns of examples/mpi halo (Isend/Irecv,
# persistent requests, Waitall; again with buffers so small that ECL's
# flushes, its own overhead, happen mid-run), ring, collectives, io (MPI-IO), io again
# with POSIX I/O recorded (ECL_GROUPS=all) and posixio (files written and
# read with write/read/pread, exported as OTF2 IoOperation records on POSIX
# IoHandles, read back with their bytes). Skips (77) without OTF2 or MPI.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
if [ "${ECL_TEST_HAVE_OTF2:-no}" != yes ]; then
    echo "SKIP: ECL was configured without OTF2 (no libotf2: Debian libotf2-trace-dev)"
    exit 77
fi
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: ECL was configured without MPI (no examples/mpi)"
    exit 77
fi
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done
pv="$top_builddir/views/pal-view"
ex="$top_builddir/examples/mpi"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/otf2-roundtrip.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
# the profile without what names the input: its first line and the record count
profile() {
    "$pv" "$1" 2>"$2.err" | sed -e 1d -e 's/^  records [0-9]*, /  /' >"$2"
}
# same A B: the lines pair up, words are equal, numbers within one unit of
# their last printed digit; the lines that differ are shown
same() {
    awk -f "$top_srcdir/tests/views/same-profile.awk" "$1" "$2"
}
roundtrip() {
    name=$1
    shift
    mkdir "$tmp/$name"
    if ! (cd "$tmp/$name" && ECL_DIR=$tmp/$name LD_PRELOAD= \
            ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
            timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$@") \
            >"$tmp/out" 2>&1; then
        cat "$tmp/out"
        echo "FAIL: $name: mpirun $*"
        fail=1
        return
    fi
    trace=$tmp/$name/trace.ecl
    "$pv" --export otf2 -o "$tmp/$name/otf2" "$trace" || { echo "FAIL: $name: export"; fail=1; return; }
    profile "$trace" "$tmp/$name/p.trace"
    profile "$tmp/$name/otf2/traces.otf2" "$tmp/$name/p.otf2"
    if [ -s "$tmp/$name/p.otf2.err" ]; then
        cat "$tmp/$name/p.otf2.err"
        echo "FAIL: $name: pal-view said something about the archive"
        fail=1
    fi
    if same "$tmp/$name/p.trace" "$tmp/$name/p.otf2"; then
        echo "$name: profiles equal ($(wc -l <"$tmp/$name/p.trace") lines;" \
             "$(grep -c '^  MPI_' "$tmp/$name/p.trace") MPI function lines)"
    else
        echo "FAIL: $name: the profile of the OTF2 export differs from the trace's"
        fail=1
    fi
}
roundtrip halo "$ex/halo"
grep -q '^Ranks that wait most' "$tmp/halo/p.otf2" || { echo "FAIL: halo: no waiting ranks"; fail=1; }
grep -q '^  MPI_Init  *4 ' "$tmp/halo/p.otf2" || { echo "FAIL: halo: no MPI_Init"; fail=1; }
grep -q '^  MPI_Isend  *80 .* 640$' "$tmp/halo/p.otf2" || { echo "FAIL: halo: no Isend bytes"; fail=1; }
roundtrip ring "$ex/ring"
# buffers so small that they flush while the ranks run: ECL's flush records
# (role overhead) go out as regions of the measurement system and must come
# back as overhead, not as a region of the program
ECL_BUFFER_SIZE=4K
export ECL_BUFFER_SIZE
roundtrip halo-flush "$ex/halo" 200
unset ECL_BUFFER_SIZE
grep -q '^  flush ' "$tmp/halo-flush/p.otf2" && { echo "FAIL: halo-flush: flushes read back as a region"; fail=1; }
grep -q '^  flush ' "$tmp/halo-flush/p.trace" && { echo "FAIL: halo-flush: flushes in the trace's regions"; fail=1; }
n=$("$top_builddir/pal/pal-dump" --count "$tmp/halo-flush/trace.ecl" 2>/dev/null | awk '$1 == "flush" { print $2 }')
[ "${n:-0}" -gt 0 ] || { echo "FAIL: halo-flush: the run flushed no buffer (ECL_BUFFER_SIZE=4K)"; fail=1; }
roundtrip collectives "$ex/collectives"
roundtrip io "$ex/io"
ECL_GROUPS=all
export ECL_GROUPS
roundtrip io-posix "$ex/io"
roundtrip posixio "$ex/posixio"
unset ECL_GROUPS
grep -q '^  write ' "$tmp/io-posix/p.otf2" || { echo "FAIL: io-posix: no POSIX write calls"; fail=1; }
# POSIX I/O as OTF2 I/O records: each rank's file (posixio.RANK) written in
# 8 blocks of 4 KiB, synced, read back in 9 reads and 1 pread, opened and
# closed twice; read back by the import as io_leave records with the handle
# (its file), the operation and the bytes of the IoOperationComplete
got=$("$top_builddir/pal/pal-dump" "$tmp/posixio/otf2/traces.otf2" 2>&1 |
      awk '/ io_leave / && /handle="[^"]*posixio\.[0-3]"/ {
               op = $0; sub(/.*operation="/, "", op); sub(/".*/, "", op)
               b = $0; sub(/.* bytes=/, "", b); sub(/ .*/, "", b)
               n[op]++; s[op] += b }
           END { printf "read %d %d, write %d %d, flush %d, open %d, close %d",
                        n["read"], s["read"], n["write"], s["write"], n["flush"],
                        n["open"], n["close"] }')
want="read 40 147456, write 32 131072, flush 4, open 8, close 8"
if [ "$got" = "$want" ]; then
    echo "posixio: I/O read back: $got"
else
    echo "FAIL: posixio: the archive's I/O read back is '$got', not '$want'"
    fail=1
fi
# and as otf2-print shows them (Debian otf2-tools), when it is there
if command -v otf2-print >/dev/null 2>&1; then
    got=$(otf2-print "$tmp/posixio/otf2/traces.otf2" 2>&1 |
          awk '/^IO_OPERATION_BEGIN/ && /Handle: "[^"]*posixio\.[0-3]"/ { n++ }
               /^IO_CREATE_HANDLE/ && /posixio\.[0-3]"/ { c++ }
               /^IO_DESTROY_HANDLE/ && /posixio\.[0-3]"/ { d++ }
               END { printf "%d operations, %d creations, %d destructions", n, c, d }')
    want="76 operations, 8 creations, 8 destructions"
    if [ "$got" = "$want" ]; then
        echo "posixio: otf2-print: $got"
    else
        echo "FAIL: posixio: otf2-print shows $got, not $want"
        fail=1
    fi
    otf2-print -G "$tmp/posixio/otf2/traces.otf2" 2>&1 |
        grep -q '^IO_PARADIGM .*Identification: "POSIX"' ||
        { echo "FAIL: posixio: no IoParadigm POSIX in the definitions"; fail=1; }
else
    echo "posixio: otf2-print not found (Debian otf2-tools): the archive is checked through PAL only"
fi
exit $fail
