#!/bin/sh
# bad-values.sh -- every ECL_* variable of doc/configuration.md's table, set
# to a value it does not accept, is said once on stderr ("ecl: VAR='VALUE' is
# not valid: ...; ignored, the default is used") and the program is traced
# with the default: a trace is written and reads back whole. A variable added
# to the table without a bad value here fails the test.
. "${top_srcdir:-.}/tests/ecl/common.sh"
PALDUMP=$B/pal/pal-dump
long=$(printf '%01100d' 0)

# bad VAR: a value VAR does not accept (empty: none known)
bad() {
    case $1 in
    ECL_ENABLE) echo maybe ;;
    ECL_DIR) echo "" ;;                 # empty: the default, the current directory
    ECL_PREFIX) echo a/b ;;
    ECL_BUFFER_SIZE) echo 12Q ;;
    ECL_BUFFER_COUNT) echo 99 ;;
    ECL_COMPRESS) echo lz4 ;;
    ECL_COMPRESS_LEVEL) echo 0 ;;
    ECL_COMPRESS_THREADS) echo 0 ;;
    ECL_COMPRESS_PRIORITY) echo high ;;
    ECL_CLOCK) echo sundial ;;
    ECL_ON_FULL) echo wait ;;
    ECL_VERBOSE) echo loud ;;
    ECL_MPI_GROUPS) echo env ;;
    ECL_MERGE) echo maybe ;;
    ECL_PROGRESS) echo sometimes ;;
    ECL_GROUPS) echo functions,everything ;;
    ECL_FILTER) echo "$long" ;;         # longer than a file name may be
    ECL_FUNC_DEPTH) echo 5000 ;;
    ECL_FUNC_MAX_CALLS) echo -1 ;;
    ECL_FUNC_NOTE) echo lots ;;
    ECL_COUNTERS) echo cycles,bogus ;;
    ECL_COUNTER_PERIOD) echo 1parsec ;;
    ECL_GPU) echo maybe ;;
    ECL_GPU_METRICS_HZ) echo fast ;;
    ECL_GPU_BUFFER_SIZE) echo 1 ;;
    ECL_GPU_STATS) echo yes ;;
    *) return 1 ;;
    esac
}

# try "DESCRIPTION" PATTERN VAR=VALUE...: the program run with these settings
# in $WORK prints exactly one ECL message, matching PATTERN, and writes one
# trace that pal-dump reads back whole
try() {
    what=$1 pattern=$2
    shift 2
    rm -f "$WORK"/*.ecl
    (cd "$WORK" && env "$@" "$THREADS" 2 5) > "$WORK/out" 2> "$WORK/err" \
        || { cat "$WORK/err"; fail "$what: the program failed"; }
    n=$(grep -c '^ecl: ' "$WORK/err")
    if ! grep -q "$pattern" "$WORK/err" || [ "$n" -ne 1 ]; then
        cat "$WORK/err"
        fail "$what: $n ECL messages, not one matching '$pattern'"
    fi
    t=$(trace_file)
    "$PALDUMP" -c "$t" > "$WORK/dump" 2>&1 || { cat "$WORK/dump"; fail "$what: the trace does not read back"; }
    echo "$what: $(cut -c1-160 "$WORK/err")"
}

vars=$(sed -n 's/^| `\(ECL_[A-Z0-9_]*\)` |.*/\1/p' "$top_srcdir/doc/configuration.md")
[ -n "$vars" ] || fail "no ECL_* variables in doc/configuration.md's table"
count=0
for v in $vars; do
    value=$(bad "$v") || fail "$v (doc/configuration.md) has no bad value in this test"
    # the message names the variable and the value (the long file name cut)
    case $v in
    ECL_FILTER) shown=0000000000 ;;
    *) shown=$value ;;
    esac
    try "$v='$(echo "$value" | cut -c1-20)'" "^ecl: $v='$shown.*is not valid: .*the default.* is used" "$v=$value"
    count=$((count + 1))
done
# a level that is valid for zstd but not for zlib
try "ECL_COMPRESS=zlib ECL_COMPRESS_LEVEL=12" "^ecl: ECL_COMPRESS_LEVEL='12' is not valid: zlib levels are 1 to 9; ignored, the default is used" \
    ECL_COMPRESS=zlib ECL_COMPRESS_LEVEL=12
# the default is the one used: the trace is named after the default prefix
try "ECL_PREFIX=a/b names the trace trace.PID.ecl" "ECL_PREFIX='a/b'" ECL_PREFIX=a/b
case $t in "$WORK"/trace.[0-9]*.ecl) ;; *) fail "ECL_PREFIX=a/b: trace $t, not trace.PID.ecl" ;; esac
# several bad values: one message each, still a trace
rm -f "$WORK"/*.ecl
(cd "$WORK" && ECL_CLOCK=sundial ECL_ON_FULL=wait "$THREADS" 2 5) >/dev/null 2>"$WORK/err" || fail "two bad values: the program failed"
[ "$(grep -c '^ecl: ' "$WORK/err")" -eq 2 ] || { cat "$WORK/err"; fail "two bad values: not two messages"; }
trace_file >/dev/null
echo "PASS: $count variables"
