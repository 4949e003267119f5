#!/bin/sh
# pal-dump.sh -- pal-dump against golden output (tests/pal/golden) for a small
# trace of a made-up format written by mktrace: text, CSV, JSON (validated by
# jsoncheck), times in seconds and raw, --count (types present) and
# --count-all, --type, filters, --dict, a raw stream read with -d, and the
# exit status and reports for damaged and cut traces and for errors.
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
dump="$top_builddir/pal/pal-dump"
mktrace="$top_builddir/tests/pal/mktrace"
jsoncheck="$top_builddir/tests/pal/jsoncheck"
golden="$top_srcdir/tests/pal/golden"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-dump-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

"$mktrace" small "$tmp/small.ecl" || exit 99
"$mktrace" damaged "$tmp/damaged.ecl" || exit 99
"$mktrace" cut "$tmp/cut.ecl" || exit 99
"$mktrace" flat "$tmp/flat.bin" "$tmp/flat.dict" || exit 99
"$mktrace" lab-dict "$tmp/lab.dict" || exit 99

. "$top_srcdir/tests/pal/golden.sh"

check small.txt 0 "$tmp/small.ecl"
check small.csv 0 --format=csv "$tmp/small.ecl"
check small.json 0 --format json "$tmp/small.ecl"
check small-count.txt 0 --count "$tmp/small.ecl"
check small-type.txt 0 -t ping --type alarm "$tmp/small.ecl"
check small-type-count.txt 0 -c -t note -t sample "$tmp/small.ecl"
check small-unknown-type.txt 0 -c -t nosuch "$tmp/small.ecl"
check small-stream.txt 0 --stream 2 "$tmp/small.ecl"
check small-window.txt 0 --raw-time --from 1005 --to 1040 "$tmp/small.ecl"
check small-window-s.txt 0 --from 0.000005 --to 0.00004 "$tmp/small.ecl"
check small-raw.txt 0 --raw-time -n 4 "$tmp/small.ecl"
check small-count-all.txt 0 --count-all "$tmp/small.ecl"
check small-head.txt 0 -n 3 --format json "$tmp/small.ecl"
check small-dict.txt 0 --dict "$tmp/small.ecl"
check flat.txt 0 -d "$tmp/flat.dict" "$tmp/flat.bin"
check flat.json 0 -d "$tmp/flat.dict" --format=json "$tmp/flat.bin"
check damaged.txt 2 "$tmp/damaged.ecl"
check damaged-count.txt 2 -c "$tmp/damaged.ecl"
check cut.txt 2 "$tmp/cut.ecl"
check cut-strict.txt 2 --strict "$tmp/cut.ecl"
check given-dict.txt 0 -c -d "$tmp/lab.dict" "$tmp/small.ecl"

# JSON Lines must be valid JSON, line by line (strings with quotes, tabs,
# control bytes, non-UTF-8 bytes; 64-bit extremes).
for f in small.ecl damaged.ecl; do
    "$dump" --format json "$tmp/$f" 2>/dev/null | "$jsoncheck" >/dev/null || {
        echo "FAIL: invalid JSON from $f"
        fail=1
    }
done
"$dump" -d "$tmp/flat.dict" --format json "$tmp/flat.bin" | "$jsoncheck" >/dev/null || {
    echo "FAIL: invalid JSON from flat.bin"
    fail=1
}

# errors: exit status 1 and a message naming the file
expect_error() {
    what=$1 pattern=$2
    shift 2
    "$dump" "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -ne 1 ]; then
        echo "FAIL: $what: exit status $st, expected 1"
        fail=1
    fi
    if ! grep -q -- "$pattern" "$tmp/err"; then
        echo "FAIL: $what: stderr lacks '$pattern':"
        cat "$tmp/err"
        fail=1
    fi
}
expect_error "missing file" "cannot open trace '$tmp/none.ecl'" "$tmp/none.ecl"
expect_error "no dictionary" "bad magic at byte 0" "$tmp/flat.bin"
expect_error "unknown option" "Try 'pal-dump --help'" --bogus "$tmp/small.ecl"
expect_error "bad format" "unknown format" --format xml "$tmp/small.ecl"
expect_error "no trace" "no trace given"
expect_error "bad dictionary" "cannot load dictionary" -d "$tmp/small.ecl" "$tmp/flat.bin"
expect_error "bad time" "bad time '1x' (seconds" --from 1x "$tmp/small.ecl"
expect_error "bad raw time" "bad time '-1' (raw time units" --raw-time --to -1 "$tmp/small.ecl"

"$dump" --help >"$tmp/out" || { echo "FAIL: --help"; fail=1; }
grep -q "Exit status" "$tmp/out" || { echo "FAIL: --help lacks the exit status"; fail=1; }
"$dump" --version | grep -q "^pal-dump" || { echo "FAIL: --version"; fail=1; }

[ "$fail" = 0 ] && echo "pal-dump: all checks passed"
exit $fail
