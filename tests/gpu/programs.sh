#!/bin/sh
# programs.sh -- the tests/gpu programs traced on a real GPU; each trace is
# read back with gpucheck and must hold exactly the GPU work the program
# did: kernel and copy counts, bytes, names, every kernel inside the time
# window of the CUDA call that launched it (after clock correlation), the
# in-kernel regions, NVML samples that make sense (power > 0, clock > 0).
# Prints one "ok:"/"FAIL:" line per check; exit 0, 1, or 77 (skipped, with
# the reason) where there is no GPU.
b=${top_builddir:-.}
s=${top_srcdir:-.}
G=$b/tests/gpu
LIBECL=$b/ecl/.libs/libecl.so
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0
# A sanitizer build does not build them (tests/gpu.inc.am): nvcc links no
# sanitizer runtime, which a sanitized libecl needs.
if [ ! -x "$G/saxpy" ]; then
    echo "SKIP: the nvcc-built GPU programs are not built in a sanitizer build (nvcc links no sanitizer runtime); the plain build runs them"
    exit 77
fi

# a GPU? (the program says why not, and exits 77)
out=$(ECL_ENABLE=0 ECL_GPU=off "$G/saxpy" 1024 1 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
    echo "$out"
    exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: saxpy does not run untraced: $out"; exit 1; }

# run NAME PROGRAM [ARGS]: traced into $TMP/NAME, read back into $TMP/NAME.out
run() {
    name=$1
    shift
    mkdir -p "$TMP/$name"
    if ! ECL_DIR="$TMP/$name" ECL_PREFIX=t ECL_GPU_STATS=1 "$@" >"$TMP/$name.log" 2>&1; then
        echo "FAIL: $name: $* failed:"
        cat "$TMP/$name.log"
        fail=1
        return 1
    fi
    trace=$(ls "$TMP/$name"/t.*.ecl 2>/dev/null | head -n 1)
    if [ -z "$trace" ]; then
        echo "FAIL: $name: no trace written"
        cat "$TMP/$name.log"
        fail=1
        return 1
    fi
    "$G/gpucheck" "$trace" >"$TMP/$name.out" 2>&1 || { echo "FAIL: $name: gpucheck"; fail=1; }
    return 0
}
# want NAME LINE: gpucheck printed exactly LINE
want() {
    if grep -qxF "$2" "$TMP/$1.out"; then
        echo "ok: $1: $2"
    else
        echo "FAIL: $1: want '$2'; got:"
        sed 's/^/    /' "$TMP/$1.out"
        fail=1
    fi
}
# value NAME KEY: the number after KEY= in gpucheck's output
value() {
    sed -n "s/^$2=\\([0-9-]*\\).*/\\1/p" "$TMP/$1.out" | head -n 1
}
# atleast NAME KEY N
atleast() {
    v=$(value "$1" "$2")
    if [ -n "$v" ] && [ "$v" -ge "$3" ]; then
        echo "ok: $1: $2=$v >= $3"
    else
        echo "FAIL: $1: $2=${v:-missing}, want >= $3"
        fail=1
    fi
}

# 1. a stream of empty kernels, not linked with ECL: ecl-run starts ECL and
#    CUPTI through the CUDA driver's injection (CUDA_INJECTION64_PATH)
if run empty env ECL_RUN_LIBRARY="$LIBECL" "$b/ecl/tools/ecl-run" "$G/empty" 500; then
    want empty "kernels=501"
    want empty "kernel empty_kernel()=501"
    want empty "kernels_linked=501"
    want empty "window_violations=0"
    want empty "copies=0"
fi

# 2. saxpy, linked with ECL: 2 copies in, 10 kernels, 1 copy out
if run saxpy "$G/saxpy" 1048576 10; then
    want saxpy "kernels=10"
    want saxpy "kernel saxpy(int, float, float const*, float*)=10"
    want saxpy "copy memcpy HtoD=2 bytes=8388608"
    want saxpy "copy memcpy DtoH=1 bytes=4194304"
    want saxpy "kernels_linked=10"
    want saxpy "window_violations=0"
fi

# 2b. kernels launched through the driver API (cuLaunchKernel), each linked
# to its call by correlation id
if run driver "$G/driver" 4096 20; then
    want driver "kernels=20"
    want driver "kernel add_one(int, float*)=20"
    want driver "kernels_linked=20"
    want driver "window_violations=0"
fi

# 3. copies both ways, a memset
if run copies "$G/copies" 5 3 8388608; then
    want copies "copies=8"
    want copies "copy memcpy HtoD=5 bytes=41943040"
    want copies "copy memcpy DtoH=3 bytes=25165824"
    want copies "memsets=1"
    want copies "kernels=0"
fi

# 4. two streams whose kernels overlap; NVML samples along the way
if run streams "$G/streams" 50; then
    want streams "kernels=100"
    want streams "kernel spin(long long, int*)=100"
    want streams "kernel_streams=2"
    want streams "window_violations=0"
    atleast streams overlap_ns 1000000
    # power: the driver's own samples (about 50 a second) over the run;
    # SM clock: read at the sampler's first and last rounds at least
    for c in "gpu0 power:5" "gpu0 sm clock:2"; do
        want_n=${c##*:}
        c=${c%:*}
        line=$(grep "^counter $c samples=" "$TMP/streams.out")
        n=$(echo "$line" | sed -n 's/.*samples=\([0-9]*\).*/\1/p')
        min=$(echo "$line" | sed -n 's/.* min=\([0-9.e+-]*\).*/\1/p')
        if [ -n "$n" ] && [ "$n" -ge "$want_n" ] && awk -v m="$min" 'BEGIN { exit !(m > 0) }'; then
            echo "ok: streams: counter $c: $n samples, min $min > 0"
        else
            echo "FAIL: streams: counter $c: '${line:-no samples}' (want >= $want_n samples, min > 0)"
            fail=1
        fi
    done
    for c in "gpu0 temperature" "gpu0 memory clock" "gpu0 utilization" "gpu0 memory used"; do
        if grep -q "^counter $c samples=" "$TMP/streams.out"; then
            echo "ok: streams: counter $c sampled"
        else
            echo "FAIL: streams: no samples of $c"
            fail=1
        fi
    done
fi

# 5. in-kernel regions: 4096 blocks x 3 launches, on SM lanes
if run stamped "$G/stamped" 1048576 3; then
    want stamped "kernels=3"
    want stamped "stamps=12288"
    atleast stamped sm_locations 1
    want stamped "window_violations=0"
fi

# 5b. a buffer for 1000 of the 4096 blocks: the other blocks' regions are
# counted and said, never written over memory
if run stamped_small "$G/stamped" 1048576 2 1000; then
    want stamped_small "stamps=2000"
    if grep -q "ecl: 3096 block(s) of a kernel on device 0 ran beyond the blocks its stamp buffer holds" \
            "$TMP/stamped_small.log" &&
       grep -q "ecl: in-kernel regions not recorded in all: 0 left open, 0 backwards; 6192 block(s) beyond their stamp buffer" \
            "$TMP/stamped_small.log"; then
        echo "ok: stamped_small: the 3096 blocks per launch beyond the buffer said"
    else
        echo "FAIL: stamped_small: no message of the regions beyond the buffer:"
        sed 's/^/    /' "$TMP/stamped_small.log"
        fail=1
    fi
fi

# 6. in-kernel regions of a compute-bound kernel: a 1024^2 matrix multiply,
# 4096 blocks x 3 launches (after 2 fill kernels), its result checked by the
# program; ECL's own calibration kernel and stamp copies are left out
if run stamped_mm "$G/stamped_mm" 1024 3; then
    want stamped_mm "kernels=5"
    want stamped_mm "kernel mm_stamped(int, float const*, float const*, float*, unsigned int, ecl_gpu_log)=3"
    want stamped_mm "kernel fill(int, float*, float)=2"
    want stamped_mm "memsets=3"
    want stamped_mm "copy memcpy DtoH=1 bytes=4194304"
    want stamped_mm "stamps=12288"
    atleast stamped_mm sm_locations 1
    want stamped_mm "window_violations=0"
fi

exit $fail
