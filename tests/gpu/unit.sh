#!/bin/sh
# unit.sh -- ECL's GPU record mapping and clock correlation without a GPU:
# unit_map maps synthetic CUPTI records (and in-kernel stamps) into a trace;
# gpucheck reads it back with PAL; the counts, bytes, names, locations and
# the launch windows must be exactly what unit_map put in.
b=${top_builddir:-.}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0
"$b/tests/gpu/unit_map" "$TMP" >"$TMP/unit.out" || { cat "$TMP/unit.out"; echo "FAIL: unit_map"; exit 1; }
cat "$TMP/unit.out"
trace=$(ls "$TMP"/gpu.*.ecl | head -n 1)
"$b/tests/gpu/gpucheck" "$trace" >"$TMP/check.out" || { echo "FAIL: gpucheck"; exit 1; }
want() {
    if grep -qxF "$1" "$TMP/check.out"; then echo "ok: $1"; else echo "FAIL: want '$1'"; fail=1; fi
}
# 21 test kernels + 1000 size kernels + 100000 cost kernels (7 x 14285 mapped)
want "kernels=$((21 + 1000 + 7 * (100000 / 7)))"
want "kernel saxpy(int, float, float const*, float*)=$((11 + 1000 + 7 * (100000 / 7)))"
want "kernel empty()=10"
want "copies=3"
want "copy memcpy HtoD=2 bytes=8388608"
want "copy memcpy DtoH=1 bytes=4194304"
want "memsets=1"
want "syncs=1"
want "stamps=12"
want "gpu_locations=5"
# the 20 launched before their kernels link inside their windows; the one
# launch call that begins after its kernel began is out
want "api_calls=21"
want "kernels_linked=21"
want "window_violations=1"
want "sm_locations=4"
if [ $fail -ne 0 ]; then cat "$TMP/check.out"; fi

# GPU capture forced on where there may be no GPU or driver: the program
# goes on, its trace is whole, and what is missing is said at most once
mkdir -p "$TMP/start"
if "$b/tests/gpu/unit_map" --start "$TMP/start" 2>"$TMP/start.err"; then
    echo "ok: ECL_GPU=on starts and stops"
else
    echo "FAIL: ECL_GPU=on: unit_map --start failed"; cat "$TMP/start.err"; fail=1
fi
notes=$(grep -c '^ecl: ' "$TMP/start.err")
if [ "$notes" -le 1 ]; then
    echo "ok: $notes note(s) about GPU capture$(sed -n '1s/^/: /p' "$TMP/start.err")"
else
    echo "FAIL: $notes notes, want at most 1:"; cat "$TMP/start.err"; fail=1
fi
"$b/pal/pal-dump" --info "$TMP"/start/start.*.ecl >"$TMP/start.info" 2>&1 ||
    { echo "FAIL: the trace of ECL_GPU=on does not read"; cat "$TMP/start.info"; fail=1; }
exit $fail
