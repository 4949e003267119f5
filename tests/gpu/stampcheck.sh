#!/bin/sh
# stampcheck.sh -- the candidate in-kernel stamp macros of
# tests/gpu/stampvariants.cuh checked against ecl_cuda.h's records:
#   1. everywhere: the checker itself (stampcheck --selftest: buffers laid
#      out as ecl_cuda.h writes them accepted, each kind of damage refused);
#   2. on a GPU: tests/gpu/stampcheck runs each candidate and ecl_cuda.h's
#      macros on the same kernels, traced, and checks each buffer, what
#      libecl recorded of it, and the results; then what libecl said at
#      exit (the regions left open and the blocks beyond the buffer, counted
#      over all) and the trace read back (gpucheck: the regions recorded).
# Prints "ok:"/"FAIL:" lines; exit 0, 1, or 77 (no GPU here, after the
# selftest passed; or not built, in a sanitizer build).
b=${top_builddir:-.}
G=$b/tests/gpu
if [ ! -x "$G/stampcheck" ]; then
    echo "SKIP: tests/gpu/stampcheck is not built in a sanitizer build (nvcc links no sanitizer runtime); the plain build runs it"
    exit 77
fi
"$G/stampcheck" --selftest || exit 1
TMP=$(mktemp -d) || exit 99
trap 'rm -rf "$TMP"' EXIT
ECL_DIR="$TMP" ECL_PREFIX=t ECL_GPU=off "$G/stampcheck" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
if [ $rc -eq 77 ]; then
    echo "SKIP: the candidates' checks on a GPU (tests/gpu/stampcheck): no GPU here"
    exit 77
fi
fail=0
[ $rc -eq 0 ] || { echo "FAIL: stampcheck exit $rc; its stderr:"; cat "$TMP/err"; fail=1; }
want=$(sed -n 's/^expect_stderr=//p' "$TMP/out")
if [ -n "$want" ] && grep -qxF "$want" "$TMP/err"; then
    echo "ok: libecl said at exit: $want"
else
    echo "FAIL: libecl did not say '${want:-?}' at exit; its stderr:"
    sed 's/^/    /' "$TMP/err"
    fail=1
fi
stamps=$(sed -n 's/^expect_stamps=//p' "$TMP/out")
trace=$(ls "$TMP"/t.*.ecl 2>/dev/null | head -n 1)
if [ -n "$trace" ] && "$G/gpucheck" "$trace" >"$TMP/check" 2>&1 &&
        grep -qx "stamps=${stamps:-?}" "$TMP/check"; then
    echo "ok: the trace holds the $stamps regions recorded"
else
    echo "FAIL: the trace (${trace:-none}) does not hold stamps=${stamps:-?}:"
    sed 's/^/    /' "$TMP/check" 2>/dev/null
    fail=1
fi
exit $fail
