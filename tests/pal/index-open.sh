#!/bin/sh
# index-open.sh -- a closed ECL trace is opened through its own index (the
# kind-3 chunk its footer names; a run file's members keep theirs): the
# chunks are found reading only the bytes around their headers, and what
# is read is what a scan of the whole file gives. A 5-thread trace of
# examples/threads and a run file (of 4 ranks of examples/mpi/ring with MPI,
# else ecl-merge of that trace) say "files indexed" in pal-dump --info; the same trace with its
# index damaged, or without its footer, is scanned instead (files indexed
# 0) and gives the same records; at 24 places a damaged chunk header costs
# the same with the index as with the scan (same records, same messages
# but the index's own). With strace, opening reads under a quarter of the
# file (its payloads are not read).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
paldump=$top_builddir/pal/pal-dump
tmp=$(mktemp -d "${TMPDIR:-/tmp}/index-open.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
u64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }
flip() {
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %o $((b ^ 90)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
indexed() { "$paldump" --info "$1" 2>/dev/null | sed -n 's/^files indexed: *\([0-9]*\).*/\1/p'; }

ECL_DIR="$tmp" ECL_PREFIX=th "$top_builddir/examples/threads/threads" 4 3000 >/dev/null 2>&1 ||
    exit 99
t=$(ls "$tmp"/th.*.ecl 2>/dev/null | head -1)
[ -n "$t" ] || { echo "examples/threads wrote no trace"; exit 99; }
size=$(wc -c <"$t")
"$paldump" --raw-time "$t" >"$tmp/ref" 2>"$tmp/ref.err" || bad "the trace does not read cleanly"
[ "$(indexed "$t")" = 1 ] || bad "a closed trace: files indexed '$(indexed "$t")', expected 1"
"$paldump" --info "$t" | grep -q '^threads: *5$' || bad "threads: $("$paldump" --info "$t" | grep threads)"

# the index chunk (the footer names it) damaged: scanned, the same records
io=$(u64 "$t" $((size - 8)))
cp "$t" "$tmp/ix.ecl"
flip "$tmp/ix.ecl" $((io + 64 + 5))
"$paldump" --raw-time "$tmp/ix.ecl" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 2 ] || bad "a damaged index: exit status $st, expected 2"
grep -q 'index chunk damaged' "$tmp/err" || bad "a damaged index is not said: $(head -2 "$tmp/err")"
cmp -s "$tmp/out" "$tmp/ref" || bad "a damaged index: other records"
[ "$(indexed "$tmp/ix.ecl")" = 0 ] || bad "a damaged index was used"
# no footer (the last 16 bytes cut): scanned, the same records
head -c $((size - 16)) "$t" >"$tmp/nf.ecl"
"$paldump" --raw-time "$tmp/nf.ecl" 2>/dev/null | cmp -s - "$tmp/ref" || bad "no footer: other records"
[ "$(indexed "$tmp/nf.ecl")" = 0 ] || bad "no footer: an index was used"

# a damaged chunk header costs the same through the index as in a scan
n=0
i=1
while [ $i -le 24 ]; do
    off=$((size * i / 25))
    mkdir -p "$tmp/d"
    cp "$t" "$tmp/d/t.ecl"
    flip "$tmp/d/t.ecl" $off
    [ "$(indexed "$tmp/d/t.ecl")" = 1 ] && n=$((n + 1))
    "$paldump" --raw-time "$tmp/d/t.ecl" >"$tmp/a.out" 2>"$tmp/a.err"
    sa=$?
    flip "$tmp/d/t.ecl" $((io + 64 + 5))   # its index damaged too: scanned
    "$paldump" --raw-time "$tmp/d/t.ecl" >"$tmp/b.out" 2>"$tmp/b.err"
    sb=$?
    grep -v 'index chunk damaged\|footer names byte' "$tmp/b.err" >"$tmp/b.err2"
    if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err2" || [ $sa != $sb ]; then
        bad "byte $off damaged: the index gives other than the scan"
        diff "$tmp/a.err" "$tmp/b.err2" | head -5
    fi
    i=$((i + 1))
done
[ $n -ge 20 ] || bad "only $n of 24 damaged traces opened through their index"
echo "ok: damaged at 24 places: the index ($n) and the scan agree"

# a run file: each member through its own index
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$top_builddir/examples/mpi/ring" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
        case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
    done
    ring=$(cd "$top_builddir" && pwd)/examples/mpi/ring
    mkdir "$tmp/run"
    (cd "$tmp/run" && ECL_DIR="$tmp/run" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
        timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$ring" 10) \
        >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "mpirun failed"; exit 99; }
    m=$tmp/run/trace.ecl members=4
else
    "$top_builddir/ecl/tools/ecl-merge" -q -o "$tmp/m.ecl" "$t" >/dev/null 2>&1
    m=$tmp/m.ecl members=1
fi
[ "$(indexed "$m")" = $members ] ||
    bad "a run file of $members members: files indexed '$(indexed "$m")'"
echo "ok: a run file: its $members members through their index"

if command -v strace >/dev/null 2>&1 &&
    strace -f -e trace=pread64 -o "$tmp/st" "$paldump" --dict "$t" >/dev/null 2>&1; then
    got=$(grep -o '= [0-9]*$' "$tmp/st" | awk '{s += $2} END {print s + 0}')
    [ "$got" -lt $((size / 4)) ] || bad "opening read $got bytes of a $size-byte trace"
    echo "ok: opening read $got bytes of $size"
else
    echo "note: no strace here: the bytes read at open are not counted"
fi
exit $fail
