#!/bin/sh
# otf2-lulesh.sh -- table (n): the OTF2 round trip of a LULESH-size run.
# bench_lulesh (8 ranks, LULESH 2.0's call tree, halo Isend/Irecv/Waitall and
# an Allreduce per iteration; BENCH_OTF2_RECORDS records, 48 M by default)
# runs once under mpirun; its merged trace is exported (pal-view --export
# otf2) and the archive read back by PAL's OTF2 import. The two text
# profiles must be the same (tests/views/same-profile.awk: equal words,
# numbers within one unit of their last digit), as tests/views/otf2-roundtrip.sh
# asks of the small MPI examples. Prints the records read back on each side,
# the times of the export and of each profile, the sizes, and "same" or the
# lines that differ (exit 1). Run from the build directory after `make bench`.
set -u
bin=${BENCH_BIN:-bench}
pv=${PAL_VIEW:-views/pal-view}
dump=${PAL_DUMP:-pal/pal-dump}
records=${BENCH_OTF2_RECORDS:-$(awk -v s="${BENCH_SCALE:-1}" 'BEGIN {printf "%d", 48000000 * s}')}
iters=${BENCH_OTF2_ITERS:-1000}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
echo
echo "== (n) the OTF2 round trip of a LULESH-size run: 8 ranks, $records records meant =="
if [ ! -x "$bin/bench_lulesh" ] || [ ! -x "$pv" ]; then
    echo "n/a: $bin/bench_lulesh or $pv not built (make bench; bench_lulesh needs MPI)"; exit 0
fi
"$pv" --help 2>&1 | grep -q -- '--export' || { echo "n/a: pal-view without OTF2"; exit 0; }
dir=${BENCH_TMPDIR:-${TMPDIR:-/tmp}}
tmp=$(mktemp -d "$dir/bench-otf2.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
ECL_DIR="$tmp" ECL_PREFIX=lulesh ${MPIRUN:-mpirun} --oversubscribe --mca mpi_yield_when_idle 1 \
    -np 8 "$bin/bench_lulesh" -r "$records" -i "$iters" >"$tmp/run.out" 2>&1 ||
    { cat "$tmp/run.out"; echo "n/a: bench_lulesh failed"; exit 0; }
trace=$tmp/lulesh.ecl
a=$(now)
"$pv" --export otf2 -o "$tmp/otf2" "$trace" || { echo "FAIL: the export"; exit 1; }
printf "%-34s %s s, %s\n" "pal-view --export otf2" "$(since "$a")" "$(du -sh "$tmp/otf2" | cut -f1)"
profile() {   # profile INPUT OUT: the text profile without the input's name and record count
    a=$(now)
    "$pv" "$1" 2>"$2.err" | sed -e 1d -e 's/^  records [0-9]*, /  /' >"$2"
    printf "%-34s %s s\n" "profile of $3" "$(since "$a")"
}
profile "$trace" "$tmp/p.trace" "the trace ($(du -h "$trace" | cut -f1))"
profile "$tmp/otf2/traces.otf2" "$tmp/p.otf2" "the archive"
printf "%-34s %s and %s\n" "records read back" "$("$dump" --count "$trace" 2>/dev/null | tail -n 1)" \
    "$("$dump" --count "$tmp/otf2/traces.otf2" 2>/dev/null | tail -n 1)"
if awk -f "$srcdir/tests/views/same-profile.awk" "$tmp/p.trace" "$tmp/p.otf2"; then
    echo "profiles: same ($(wc -l < "$tmp/p.trace") lines)"
else
    echo "FAIL: the profiles differ"
    exit 1
fi
