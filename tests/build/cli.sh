#!/bin/sh
# cli.sh -- every tool follows one convention (doc/tools.md): --help prints a
# usage on standard output and exits 0; -V and --version print the same
# line, "TOOL (ecl) VERSION" (edlc adds ", dictionary format M.N"), exit 0;
# an unknown option exits 1 with a message on standard error whose first
# line starts with "TOOL: " and names the option -- the tool's name, not the
# path it was run by; `pal-view --html -o FILE` is refused, not written to "-o".
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
for t in pal/pal-dump views/pal-view ecl/tools/ecl-merge edl/edlc ecl/tools/ecl-run \
         ecl/tools/ecl-config; do
    name=${t##*/}
    exe=$top_builddir/$t
    "$exe" --help >"$tmp/help" 2>"$tmp/help.err"
    st=$?
    if [ $st -ne 0 ] || ! grep -qi "usage" "$tmp/help" || [ -s "$tmp/help.err" ]; then
        echo "FAIL: $name --help: status $st, no usage on standard output, or a message"
        fail=1
    fi
    v1=$("$exe" -V 2>&1); s1=$?
    v2=$("$exe" --version 2>&1); s2=$?
    case $v2 in
    "$name (ecl) $version"|"$name (ecl) $version, "*) ;;
    *) echo "FAIL: $name --version says '$v2', not '$name (ecl) $version'"; fail=1 ;;
    esac
    if [ "$v1" != "$v2" ] || [ $s1 -ne 0 ] || [ $s2 -ne 0 ]; then
        echo "FAIL: $name: -V ('$v1', status $s1) and --version ('$v2', status $s2) differ"
        fail=1
    fi
    "$exe" --no-such-option </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    first=$(head -n 1 "$tmp/err")
    case $first in
    "$name: "*"--no-such-option"*) ;;
    *) echo "FAIL: $name --no-such-option: first message line '$first'"; fail=1 ;;
    esac
    if [ $st -ne 1 ]; then
        echo "FAIL: $name --no-such-option: status $st, not 1 (usage error)"
        fail=1
    fi
    echo "$name: --help, -V = --version ($v2), unknown option: '$first', status $st"
done
# an option that takes a file name does not take the next option as one:
# `pal-view --html -o r.html` wrote a file named "-o"
(cd "$tmp" && "$top_builddir/views/pal-view" --html -o r.html no-such.ecl) 2>"$tmp/err"
st=$?
if [ $st -ne 1 ] || ! grep -q "^pal-view: --html takes its file name" "$tmp/err" || [ -e "$tmp/-o" ]; then
    cat "$tmp/err"
    echo "FAIL: pal-view --html -o r.html: status $st"
    fail=1
else
    echo "pal-view --html -o: $(cat "$tmp/err")"
fi
exit $fail
