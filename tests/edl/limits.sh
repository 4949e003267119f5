#!/bin/sh
# limits.sh -- edlc on hostile inputs: an endless input (/dev/zero) is
# refused at EDL_SOURCE_MAX (16 MiB) with a message, not read until memory
# runs out; NUL bytes in comments and strings are scanned in linear time
# (60,000 NULs: a CPU-time limit of 10 s, where the quadratic scanner took
# 30 s; the behaviour asserted is that the compile ends and gives the same
# dictionary as without the comment).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
edlc=$top_builddir/edl/edlc
tmp=$(mktemp -d "${TMPDIR:-/tmp}/edl-limits.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
picl=$top_srcdir/edl/formats/picl.edl

# /dev/zero: refused, with a message naming the limit, in bounded memory
# (2 GB of address space; a sanitizer build, which reserves far more and
# cannot start under it, runs without that limit)
if { (ulimit -v 2000000 && exec "$edlc" --version) >/dev/null 2>&1; } 2>/dev/null; then
    vlimit="ulimit -v 2000000"
else
    vlimit=":"
fi
(ulimit -t 20; $vlimit; exec "$edlc" -o "$tmp/z.bin" /dev/zero) >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || bad "edlc /dev/zero: exit status $st, expected 1"
grep -q "^edlc: '/dev/zero': larger than 16 MiB" "$tmp/err" ||
    bad "edlc /dev/zero: no message about the size: $(cat "$tmp/err")"
[ -e "$tmp/z.bin" ] && bad "edlc /dev/zero left an output"
(ulimit -t 20; exec "$edlc" --print /dev/zero) >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "larger than 16 MiB" "$tmp/err" ||
    bad "edlc --print /dev/zero: exit status $st: $(cat "$tmp/err")"

"$edlc" -o "$tmp/plain.bin" "$picl" || exit 99
python3 - "$picl" "$tmp" <<'PY' || exit 99
import sys
src = open(sys.argv[1], 'rb').read()
z = b'\0' * 60000
open(sys.argv[2] + '/block.edl', 'wb').write(b'/* ' + z + b' */\n' + src)
open(sys.argv[2] + '/line.edl', 'wb').write(b'-- ' + z + b'\n' + src)
open(sys.argv[2] + '/string.edl', 'wb').write(src + b'\n"' + z + b'"\n')
PY
for k in block line; do
    (ulimit -t 10; exec "$edlc" -o "$tmp/$k.bin" "$tmp/$k.edl") 2>"$tmp/err"
    st=$?
    [ $st -eq 0 ] || bad "60,000 NULs in a $k comment: exit status $st: $(head -c 300 "$tmp/err")"
    cmp -s "$tmp/plain.bin" "$tmp/$k.bin" || bad "a $k comment of NULs changed the dictionary"
done
# in a string: errors (a NUL ends the string), reported, in bounded time
(ulimit -t 10; exec "$edlc" -o "$tmp/string.bin" "$tmp/string.edl") 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "error" "$tmp/err" ||
    bad "60,000 NULs in a string: exit status $st, expected 1 with errors"

[ $fail -eq 0 ] && echo "limits: all checks passed"
exit $fail
