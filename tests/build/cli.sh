#!/bin/sh
# cli.sh -- every tool follows one convention (doc/tools.md): --help prints a
# usage with the exit statuses on standard output and exits 0; -V and
# --version print the same line, "TOOL (ecl) VERSION" (edlc adds
# ", dictionary format M.N"), exit 0; an unknown option exits 1 with a message on standard error whose first
# line starts with "TOOL: " and names the option -- the tool's name, not the
# path it was run by; `pal-view --html -o FILE` is refused, not written to "-o";
# an unreadable input or an output that cannot be created: status 1, a message
# starting with the tool's name that names the file.
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
    # the exit statuses are documented where the options are
    if ! grep -qi "exit status" "$tmp/help"; then
        echo "FAIL: $name --help does not give the exit statuses"
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
(cd "$tmp" && "$top_builddir/views/pal-view" --svg -o out no-such.ecl) 2>"$tmp/err"
st=$?
if [ $st -ne 1 ] || ! grep -q "^pal-view: --svg takes its directory" "$tmp/err" || [ -e "$tmp/-o" ]; then
    cat "$tmp/err"
    echo "FAIL: pal-view --svg -o out: status $st"
    fail=1
fi
# A message that is not about a place in an input starts with the tool's name
# too: an input that cannot be read, an output that cannot be created (-o
# FILE, the one way to name a single output file: ecl-merge, edlc, pal-view's
# --export; --html takes its own), each with exit status 1 and the file named.
B=$top_builddir
ECL_DIR=$tmp "$B/examples/threads/threads" 2 3 >/dev/null 2>&1 || exit 99
set -- "$tmp"/trace.*.ecl
trace=$1
edl=$top_srcdir/tests/views/many-ranks.edl
no=$tmp/no-such-dir
# refuses NAME FILE COMMAND...: status 1, the first message line starts with
# "NAME: " and names FILE as given, in quotes (not a temporary file beside it)
refuses() {
    name=$1 file=$2
    shift 2
    "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    first=$(head -n 1 "$tmp/err")
    case $first in
    "$name: "*"'$file'"*) ok=1 ;;
    *) ok=0 ;;
    esac
    if [ $st -ne 1 ] || [ $ok -ne 1 ]; then
        echo "FAIL: ${*##*/}: status $st (not 1), or a first message line without '$name: ' or '$file': '$first'"
        fail=1
    else
        echo "$name: $first"
    fi
}
refuses pal-dump "$no/t.ecl" "$B/pal/pal-dump" "$no/t.ecl"
refuses pal-view "$no/t.ecl" "$B/views/pal-view" "$no/t.ecl"
refuses ecl-merge "$no/t.ecl" "$B/ecl/tools/ecl-merge" -o "$tmp/m.ecl" "$no/t.ecl"
refuses edlc "$no/x.edl" "$B/edl/edlc" "$no/x.edl"
refuses ecl-merge "$no/m.ecl" "$B/ecl/tools/ecl-merge" -o "$no/m.ecl" "$trace"
refuses edlc "$no/x.bin" "$B/edl/edlc" -o "$no/x.bin" "$edl"
refuses pal-view "$no/x.csv" "$B/views/pal-view" --export csv -o "$no/x.csv" "$trace"
refuses pal-view "$no/x.html" "$B/views/pal-view" --html "$no/x.html" "$trace"
refuses pal-view "$no/x.json" "$B/views/pal-view" --export chrome -o "$no/x.json" "$trace"
exit $fail
