#!/bin/sh
# man.sh -- the section 3 man pages (ecl.3, edl.3, pal.3) render without a
# single warning (groff -man -ww, or man -l when groff is missing), and each
# documents exactly its header: every function the header declares (its
# export macro, tests/build/api-names.sh) appears in the page's SYNOPSIS and
# in its DESCRIPTION, and the SYNOPSIS declares no function the header lacks.
# So a function added to a header without its man page fails here.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
names="$top_srcdir/tests/build/api-names.sh"
if command -v groff >/dev/null 2>&1; then
    render() { groff -man -Tutf8 -ww -z "$1" 2>&1; }
elif command -v man >/dev/null 2>&1; then
    render() { MANWIDTH=80 man --warnings=w -l "$1" 2>&1 >/dev/null; }
else
    echo "SKIP: neither groff nor man is installed (apt-get install groff-base man-db)"
    exit 77
fi
fail=0
for pair in ecl/ecl.h:ecl/ecl.3 edl/edl.h:edl/edl.3 pal/pal.h:pal/pal.3; do
    header=$top_srcdir/${pair%%:*}
    page=$top_srcdir/${pair#*:}
    warnings=$(render "$page")
    if [ -n "$warnings" ]; then
        echo "FAIL: ${pair#*:} renders with warnings:"
        printf '%s\n' "$warnings" | sed 's/^/  /'
        fail=1
    fi
    prefix=$(basename "$header" .h)_
    synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$page")
    description=$(sed -n '/^\.SH DESCRIPTION/,$p' "$page")
    declared=$(sh "$names" "$header") || { echo "FAIL: api-names.sh $header"; exit 1; }
    n=0
    for f in $declared; do
        n=$((n + 1))
        printf '%s\n' "$synopsis" | grep -q "[ *]$f(" ||
            { echo "FAIL: ${pair#*:}: SYNOPSIS lacks $f (declared in ${pair%%:*})"; fail=1; }
        printf '%s\n' "$description" | grep -q "\\b$f\\b" ||
            { echo "FAIL: ${pair#*:}: DESCRIPTION does not mention $f"; fail=1; }
    done
    for f in $(printf '%s\n' "$synopsis" | grep -o "$prefix[a-z0-9_]*(" | tr -d '(' | sort -u); do
        printf '%s\n' "$declared" | grep -qx "$f" ||
            { echo "FAIL: ${pair#*:}: SYNOPSIS declares $f, which ${pair%%:*} does not"; fail=1; }
    done
    [ "$n" -ge 10 ] || { echo "FAIL: only $n functions found in ${pair%%:*}"; fail=1; }
    echo "${pair#*:}: $n functions of ${pair%%:*} checked"
done
exit $fail
