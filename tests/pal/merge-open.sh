#!/bin/sh
# merge-open.sh -- the per-file cost of opening a run: a small per-rank trace
# (up to 64 KiB, the whole of it) is read with one open and one pread, its
# magic, header, index, chunk headers and clock measurements all from those
# bytes, no stat of its path (a list of files is not stat'ed), opened
# relative to its directory (whose path is walked once for all its files),
# and no read-ahead hint (nothing is left to read); ecl-merge writes those
# bytes into the run file as it has them (no copy_file_range: that would read
# the file a second time). The same when the run is given as
# its directory, with a merged trace beside the per-rank ones: that one is
# opened once, its header read and nothing more, and left out. Counted with
# strace (skipped without it) on the two ranks of mktraces drift, for
# ecl-merge and for pal-dump of the same files. A trace of many small
# chunks is read in few reads: a chunk read ahead with an earlier one's
# header is not read again.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
mk=$top_builddir/tests/mpi/mktraces
merge=$top_builddir/ecl/tools/ecl-merge
paldump=$top_builddir/pal/pal-dump
command -v strace >/dev/null 2>&1 || { echo "no strace: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/merge-open.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
"$mk" drift "$tmp" || fail "mktraces drift"
# calls TRACE_FILE SYSCALL: how many times the traced program made SYSCALL on it
calls() {
    grep -c "$2([0-9]*<$1>" "$tmp/st"
}
# named TRACE_FILE SYSCALL: how many times SYSCALL named it, by its path or
# relative to its directory's descriptor
named() {
    grep -E -c "$2\((AT_FDCWD(<[^>]*>)?, )?\"$1\"|$2\([0-9]+<$(dirname "$1")>, \"$(basename "$1")\"" "$tmp/st"
}
# one TOOL...: run under strace, then each rank's file opened once, read once
one() {
    # (LeakSanitizer cannot run under ptrace: leaks are other tests' job)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$tmp/st" -e trace=openat,pread64,read,fadvise64,copy_file_range,stat,lstat,newfstatat,statx "$@" >"$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail "$1 failed"; }
    for r in 0 1; do
        f=$tmp/trace.$r.ecl
        opens=$(named "$f" openat)
        [ "$opens" -eq 1 ] || fail "$(basename "$1"): $f opened $opens times, expected 1"
        # (files of one directory: opened relative to it, its path walked once)
        grep -E -q "openat\([0-9]+<$(dirname "$f")>, \"$(basename "$f")\"" "$tmp/st" ||
            fail "$(basename "$1"): $f opened by its path, not relative to its directory"
        n=$(( $(calls "$f" pread64) + $(calls "$f" read) ))
        [ "$n" -eq 1 ] || {
            grep "<$f>" "$tmp/st" | cut -c1-160
            fail "$(basename "$1"): $f read with $n calls, expected 1"
        }
        [ "$(calls "$f" fadvise64)" -eq 0 ] || fail "$(basename "$1"): read-ahead hint on $f"
        [ "$(calls "$f" copy_file_range)" -eq 0 ] || fail "$(basename "$1"): $f read again to copy it"
        stats=$(( $(named "$f" stat) + $(named "$f" lstat) + $(named "$f" newfstatat) + $(named "$f" statx) ))
        [ "$stats" -eq 0 ] || fail "$(basename "$1"): $f stat'ed $stats times by its path"
    done
    echo "$(basename "$1"): each file opened once (relative to its directory), read with one pread (and nothing more), not stat'ed"
}
one "$merge" -q -o "$tmp/m.ecl" "$tmp/trace.0.ecl" "$tmp/trace.1.ecl"
"$paldump" --raw-time "$tmp/m.ecl" > "$tmp/d3" || fail "the run file does not read"
[ "$(wc -l < "$tmp/d3")" -gt 10 ] || fail "the run file holds too few records"
# the directory (with m.ecl in it): the same run file; m.ecl opened once and
# read with one pread of its start
one "$merge" -q -o "$tmp/d.ecl.out" "$tmp"
cmp -s "$tmp/m.ecl" "$tmp/d.ecl.out" || fail "the directory merges otherwise than its files"
opens=$(named "$tmp/m.ecl" openat)
reads=$(calls "$tmp/m.ecl" pread64)
[ "$opens" -eq 1 ] && [ "$reads" -eq 1 ] ||
    fail "the merged trace beside the per-rank ones: opened $opens times, read $reads times, expected 1 and 1"
echo "ecl-merge DIR: the merged trace in it opened once, its start read, left out"
# a trace of 2,000 records chunks of one record each (mktraces chunky): a
# chunk that came with an earlier chunk's read-ahead is taken from there,
# not read again (each used to cost a read of its own)
mkdir "$tmp/ch" || exit 99
"$mk" chunky "$tmp/ch" || fail "mktraces chunky"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$tmp/st" -e trace=pread64,preadv,read "$paldump" -c "$tmp/ch/trace.0.ecl" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "pal-dump of the chunky trace failed"; }
grep -q "^alpha  *2000$" "$tmp/out" || { cat "$tmp/out"; fail "the chunky trace: not its 2000 records"; }
n=$(grep -c "<$tmp/ch/trace.0.ecl>" "$tmp/st")
[ "$n" -le 100 ] || fail "the chunky trace (2,002 chunks, $(wc -c < "$tmp/ch/trace.0.ecl") bytes) read with $n calls, expected at most 100"
echo "pal-dump: a trace of 2,002 small chunks read with $n calls"
# a directory among several paths (found by its open: the inputs are listed
# again), and a directory of merged traces only (refused)
mkdir "$tmp/r1" "$tmp/only" || exit 99
cp "$tmp/trace.1.ecl" "$tmp/r1/" && cp "$tmp/m.ecl" "$tmp/only/" || exit 99
"$merge" -q -o "$tmp/e.ecl.out" "$tmp/trace.0.ecl" "$tmp/r1" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "a file and a directory: not merged"; }
cmp -s "$tmp/m.ecl" "$tmp/e.ecl.out" || fail "a file and a directory merge otherwise than the files"
"$merge" -q -o "$tmp/f.ecl.out" "$tmp/only" >"$tmp/out" 2>&1
st=$?
[ $st -eq 1 ] && grep -q "only/m.ecl' as a run: it is a merged trace already" "$tmp/out" ||
    { cat "$tmp/out"; fail "a directory of a merged trace only: exit $st, expected 1 and the reason"; }
[ -e "$tmp/f.ecl.out" ] && fail "a refused merge left its output"
echo "ecl-merge FILE DIR merges; a directory of merged traces only is refused"
one "$paldump" --raw-time "$tmp/trace.0.ecl" "$tmp/trace.1.ecl"
# (the run file's records say their process and thread as fields too)
sed 's/ process=[0-9]* thread=[0-9]*//' "$tmp/d3" | cmp -s "$tmp/out" - ||
    fail "the per-rank files read otherwise than their run file"
exit 0
