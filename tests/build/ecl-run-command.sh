#!/bin/sh
# ecl-run-command.sh -- ecl-run on a command it cannot run (not found, not
# executable, a directory; given by path, by name in PATH, or as the launcher)
# says so once, naming ecl-run and the command, and exits like a shell: 127
# when not found, 126 when found but not executable (doc/tools.md, ecl-run.1),
# instead of the shell's raw "exec: ...: not found".
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
eclrun=$top_builddir/ecl/tools/ecl-run
ECL_RUN_LIBRARY=$top_builddir/ecl/.libs/libecl.so
export ECL_RUN_LIBRARY
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-run-command.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
: > "$tmp/plain"
chmod 644 "$tmp/plain"
mkdir "$tmp/bin" "$tmp/dir"
: > "$tmp/bin/noexec-in-path"
chmod 644 "$tmp/bin/noexec-in-path"

# expect STATUS PROGRAM WORDS: ecl-run PROGRAM exits STATUS with exactly one
# message line "ecl-run: ... 'PROGRAM' ... WORDS" and nothing on stdout
expect() {
    want=$1 prog=$2 words=$3
    shift 3
    (cd "$tmp" && PATH="$tmp/bin:$PATH" "$eclrun" "$@") >"$tmp/out" 2>"$tmp/err"
    st=$?
    lines=$(wc -l < "$tmp/err")
    first=$(head -n 1 "$tmp/err")
    case $first in
    "ecl-run: "*"'$prog'"*"$words"*) ok=1 ;;
    *) ok=0 ;;
    esac
    if [ $st -ne "$want" ] || [ "$ok" -ne 1 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ]; then
        echo "FAIL: ecl-run $*: status $st (want $want), $lines message lines:"
        cat "$tmp/err"
        fail=1
    else
        echo "ecl-run $*: status $st: $first"
    fi
}

expect 127 ./missing "not found" ./missing arg
expect 127 "$tmp/missing" "not found" -- "$tmp/missing"
expect 127 no-such-command-ecl "not found" no-such-command-ecl
expect 127 mpirun.no-such-ecl "not found" -p pre mpirun.no-such-ecl -np 2 ./app
expect 126 ./plain "not executable" ./plain
expect 126 noexec-in-path "not executable" noexec-in-path
expect 126 ./dir "a directory" ./dir

# a command that runs keeps its own status (127 from the command itself too).
# Sanitizer builds: the preloaded libecl brings the ASan runtime into a
# program not built with it (as tests/mpi/common.sh says).
ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS
(cd "$tmp" && "$eclrun" sh -c 'exit 127') >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 127 ] || [ -s "$tmp/err" ]; then
    echo "FAIL: ecl-run sh -c 'exit 127': status $st, or a message:"
    cat "$tmp/err"
    fail=1
fi
(cd "$tmp" && "$eclrun" true) || { echo "FAIL: ecl-run true: status $?"; fail=1; }
exit $fail
