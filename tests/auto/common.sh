# common.sh -- sourced by the tests of automatic instrumentation (tests/auto):
# the ECL test helpers, the compilers configure found (env.sh, generated),
# and helpers that count records in a trace through pal-dump.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"
. "$B/tests/auto/env.sh"
S="$top_srcdir/tests/auto"
PALDUMP="$B/pal/pal-dump"
LIBECL="$B/ecl/.libs/libecl.so"
ECLRUN="env ECL_RUN_LIBRARY=$LIBECL $B/ecl/tools/ecl-run"
# a sanitizer build's libecl is preloaded into programs built without it
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
export ASAN_OPTIONS

# count TRACE TYPE [FIELDS]: records of TYPE whose fields are exactly FIELDS
# (as pal-dump prints them, e.g. 'region="fib"'); every record of TYPE when
# FIELDS is absent.
count() {
    "$PALDUMP" --type "$2" "$1" > "$WORK/dump" || fail "pal-dump cannot read $1"
    if [ $# -ge 3 ]; then
        awk -v t="$2" -v f="$3" '{ s = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", s) }
            s == t " " f { n++ } END { print n + 0 }' "$WORK/dump"
    else
        awk -v t="$2" '$4 == t { n++ } END { print n + 0 }' "$WORK/dump"
    fi
}

# expect WHAT GOT WANTED
expect() {
    [ "$2" = "$3" ] || fail "$1: $2, expected $3"
    echo "$1: $2"
}

# run_traced LABEL COMMAND...: runs it, must exit 0; the one trace in $WORK
# is then $TRACE.
run_traced() {
    label=$1; shift
    rm -f "$WORK"/*.ecl
    "$@" > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "$label: exit status $?"; }
    TRACE=$(trace_file)
}

# skip WHY: exit 77 with the reason
skip() {
    echo "SKIP: $*"
    exit 77
}
