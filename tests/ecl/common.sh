# common.sh -- sourced by the ECL integration tests: paths and helpers.
# The harness exports top_srcdir and top_builddir; fall back for manual runs.
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
B=$top_builddir
CHECK="$B/tests/ecl/check_roundtrip"
STRESS="$B/tests/ecl/stress"
THREADS="$B/examples/threads/threads"

fail() { echo "FAIL: $*" >&2; exit 1; }

# A scratch directory removed at exit; every ECL_* variable from the caller's
# environment is dropped so that only what a test sets applies.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ecl-test.XXXXXX") || exit 99
trap 'rm -rf "$WORK"' EXIT
for v in $(env | sed -n 's/^\(ECL_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export ECL_DIR="$WORK"

# ECL printed exactly one message on stderr ($WORK/err), matching regex $1;
# else fail with $2.
one_message() {
    grep -q "$1" "$WORK/err" || fail "$2"
    [ "$(grep -c '^ecl: ' "$WORK/err")" -eq 1 ] || fail "ECL reported it more than once"
}

# the one trace file in $WORK
trace_file() {
    set -- "$WORK"/*.ecl
    [ "$#" -eq 1 ] && [ -f "$1" ] || fail "expected one trace in $WORK, found: $*"
    echo "$1"
}
