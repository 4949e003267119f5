#!/bin/sh
# merge-open.sh -- the per-file cost of opening a run: a small per-rank trace
# (up to 64 KiB, the whole of it) is read with one open and one pread, its
# magic, header, index, chunk headers and clock measurements all from those
# bytes, and no read-ahead hint (nothing is left to read); ecl-merge then
# copies it once (copy_file_range, or read and write). Counted with strace
# (skipped without it) on the two ranks of mktraces drift, for ecl-merge
# and for pal-dump of the same files.
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
# one TOOL...: run under strace, then each rank's file opened once, read once
one() {
    # (LeakSanitizer cannot run under ptrace: leaks are other tests' job)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$tmp/st" -e trace=openat,pread64,read,fadvise64 "$@" >"$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail "$1 failed"; }
    for r in 0 1; do
        f=$tmp/trace.$r.ecl
        opens=$(grep -c "open.*\"$f\"" "$tmp/st")
        [ "$opens" -eq 1 ] || fail "$(basename "$1"): $f opened $opens times, expected 1"
        n=$(( $(calls "$f" pread64) + $(calls "$f" read) ))
        [ "$n" -eq 1 ] || {
            grep "<$f>" "$tmp/st" | cut -c1-160
            fail "$(basename "$1"): $f read with $n calls, expected 1"
        }
        [ "$(calls "$f" fadvise64)" -eq 0 ] || fail "$(basename "$1"): read-ahead hint on $f"
    done
    echo "$(basename "$1"): each file opened once, read with one pread"
}
one "$merge" -q -o "$tmp/m.ecl" "$tmp/trace.0.ecl" "$tmp/trace.1.ecl"
"$paldump" --raw-time "$tmp/m.ecl" > "$tmp/d3" || fail "the run file does not read"
[ "$(wc -l < "$tmp/d3")" -gt 10 ] || fail "the run file holds too few records"
one "$paldump" --raw-time "$tmp/trace.0.ecl" "$tmp/trace.1.ecl"
# (the run file's records say their process and thread as fields too)
sed 's/ process=[0-9]* thread=[0-9]*//' "$tmp/d3" | cmp -s "$tmp/out" - ||
    fail "the per-rank files read otherwise than their run file"
exit 0
