#!/bin/bash
# device-check.sh -- the GPU checks of issue 23 in one run, for a machine
# with an NVIDIA GPU, CUDA (nvcc, CUPTI, NVML), gcc and make, and no bison,
# flex, autotools, Check, libdw or libotf2.
#
#   bash tests/gpu/device-check.sh OUTDIR
#
# run from the root of a copy of the source tree that holds a `make dist`
# tarball (ecl-*.tar.gz; ECL_TARBALL=path names another), or from an
# unpacked tarball / a tree with ./configure. It
#   1. configures and builds ECL (--with-cuda, no MPI/Python/OTF2/libdw/PAPI)
#      with make -j$(nproc) and the tests/gpu programs (nvcc);
#   2. runs tests/gpu/unit.sh (synthetic CUPTI records) and
#      tests/gpu/programs.sh (the programs traced, traces checked exactly;
#      among them the stamped saxpy and the stamped 1024^2 matrix multiply,
#      tests/gpu/stamped_mm, whose result the program checks);
#   3. measures (min / median of interleaved runs):
#      - ECL's cost per activity record on top of CUPTI's (its mapping of
#        each record in the buffer callback, timed per record with
#        ECL_GPU_STATS; CUPTI's own iteration left out) and the launch cost of
#        an empty kernel untraced, under CUPTI+ECL;
#      - the stored bytes per kernel (a trace of 20000 empty kernels minus
#        one of 10000, per kernel: its gpu_kernel and gpu_api records), and
#        the encoder's gpu_kernel record alone (unit test);
#      - the NVML sampler's CPU time at the default ECL_GPU_METRICS_HZ
#        (100), in % of a core, and what a 3.5-s run records;
#   4. in-kernel stamps (issue 23): tests/gpu/stampcheck.sh checks the
#      candidate macros of tests/gpu/stampvariants.cuh against ecl_cuda.h's
#      records; tests/gpu/overhead, 3 processes of 21 rotating rounds, gives
#      R = 100 (T2 - T1) / T1 on saxpy (1 M elements, blocks of 256) and a
#      1024^2 matrix multiply (stamped_mm's kernel, tests/gpu/matmul.cuh)
#      for the shipped macros (the targets) and each candidate; a
#      "decision:" line names the candidate with the lowest saxpy R (median
#      of the 3 processes' medians of pairs) among those whose checks
#      passed, and whether it meets R <= 2 % on both (saxpy in blocks of
#      128 and 1024 too, one run each, as figures); with cuobjdump, the
#      SASS of tests/gpu/overhead goes to OUTDIR/overhead.sass and one
#      "sass" line per stamped kernel says what its front and tail hold;
#   5. the figures behind the sampler's design (not checks;
#      ECL_DEVICE_CANDIDATES=0 leaves them out): tests/gpu/nvmlcost -- each
#      NVML query's cost, how often the values change, and 100 wake-ups a
#      second with and without queries (7 rounds of 1 s, interleaved, while
#      tests/gpu/streams keeps the GPU busy).
# ECL_DEVICE_STAMPS_ONLY=1 runs item 4 alone (after configure and the
# build, which take most of its minute or two).
# Prints "PASS"/"FAIL" per check and the figures, a last line
# "device-check: PASS" or "device-check: FAIL (N checks)"; writes the logs
# (and nothing big: no build, no trace) to OUTDIR, so that OUTDIR can be
# carried back; builds and traces in ECL_WORK (default a new directory in
# /tmp). Exit 0 when every check passed. About 3 to 5 minutes with
# ECL_DEVICE_CANDIDATES=0, of which item 4 takes about 15 s; item 5 adds
# about 2.
set -u
out=${1:?usage: device-check.sh OUTDIR}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 16)
fails=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
check() {   # check NAME COMMAND...: PASS/FAIL line
    local name=$1
    shift
    if "$@"; then say "PASS $name"; else say "FAIL $name"; fails=$((fails + 1)); fi
}
: >"$out/summary.txt"
work=${ECL_WORK:-$(mktemp -d /tmp/ecl-device-check.XXXXXX)}
mkdir -p "$work" || exit 1
say "device-check: $(date -u +%FT%TZ) on $(hostname), $jobs cores"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 |
        sed 's/^/gpu: /' | tee -a "$out/summary.txt"
else
    say "gpu: no nvidia-smi on PATH"
fi
command -v nvcc >/dev/null || PATH=$PATH:/usr/local/cuda/bin
say "nvcc: $(nvcc --version 2>&1 | tail -n 1)"

# ---- 1. source and build ----
src=""
tarball=${ECL_TARBALL:-$(ls ecl-*.tar.gz 2>/dev/null | tail -n 1)}
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
    rm -rf "$work/src" && mkdir -p "$work/src"
    tar xzf "$tarball" -C "$work/src" || { say "FAIL unpack $tarball"; exit 1; }
    src=$(ls -d "$work"/src/ecl-*/ | head -n 1)
    say "source: $tarball"
elif [ -x ./configure ]; then
    src=$(pwd)
    say "source: $(pwd) (configure present)"
else
    say "FAIL no ecl-*.tar.gz and no ./configure here (make dist on a machine with autotools)"
    exit 1
fi
cd "$src" || exit 1
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
if ./configure --with-cuda="$cuda" --without-mpi --without-python --without-otf2 \
        --without-libdw --without-papi >"$out/configure.log" 2>&1; then
    say "PASS configure (--with-cuda=$cuda)"
    sed -n '/ECL .* configured/,$p' "$out/configure.log" >"$out/configure-summary.txt"
else
    say "FAIL configure: tail of $out/configure.log:"
    tail -n 15 "$out/configure.log"
    exit 1
fi
G="tests/gpu/gpucheck tests/gpu/unit_map tests/gpu/empty tests/gpu/saxpy tests/gpu/copies
   tests/gpu/streams tests/gpu/stamped tests/gpu/stamped_mm tests/gpu/overhead tests/gpu/driver
   tests/gpu/nvmlcost tests/gpu/stampcheck
   tests/gpu/libfakenvml.la"
stamps_only=${ECL_DEVICE_STAMPS_ONLY:-0}
[ "$stamps_only" = 1 ] && G="tests/gpu/gpucheck tests/gpu/overhead tests/gpu/stampcheck"
if make -j"$jobs" >"$out/make.log" 2>&1 && make -j"$jobs" $G >>"$out/make.log" 2>&1; then
    say "PASS build ($(( $(date +%s) - start )) s since start)"
else
    say "FAIL build: tail of $out/make.log:"
    tail -n 25 "$out/make.log"
    exit 1
fi
export top_builddir=$src top_srcdir=$src

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "min=%s median=%s n=%d", v[1], v[int((NR + 1) / 2)], NR }'; }
LIBECL=$src/ecl/.libs/libecl.so
M=$work/measure
mkdir -p "$M"
if [ "$stamps_only" != 1 ]; then
# ---- 2. checks ----
bash tests/gpu/unit.sh >"$out/unit.log" 2>&1
check "unit: mapping and clock correlation of synthetic CUPTI records" test $? -eq 0
bash tests/gpu/programs.sh >"$out/programs.log" 2>&1
rc=$?
grep -E "^(ok|FAIL|SKIP)" "$out/programs.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
check "programs: traced GPU programs, traces read back (exit $rc)" test $rc -eq 0
if [ $rc -eq 77 ]; then
    say "device-check: FAIL (no GPU usable here: the checks and measurements need one)"
    exit 1
fi

# ---- 3. measurements ----
# 3a. launches: untraced vs CUPTI+ECL, interleaved; ECL's own time per record
: >"$M/launch_plain" ; : >"$M/launch_traced" ; : >"$M/map_ns"
for i in 1 2 3 4 5 6 7; do
    tests/gpu/empty 20000 2>>"$M/empty.err" | sed -n 's/.*launch_us=//p' >>"$M/launch_plain"
    rm -rf "$M/t" && mkdir -p "$M/t"
    ECL_DIR="$M/t" ECL_GPU_STATS=1 ECL_RUN_LIBRARY=$LIBECL ecl/tools/ecl-run tests/gpu/empty 20000 \
        >"$M/empty.out" 2>"$M/empty.err"
    sed -n 's/.*launch_us=//p' "$M/empty.out" >>"$M/launch_traced"
    sed -n 's/.*map_ns_per_record=\([0-9.]*\).*/\1/p' "$M/empty.err" >>"$M/map_ns"
done
say "figure: ECL time per activity record (its mapping in CUPTI's buffer callback, timed per record, CUPTI's iteration left out; ns): $(med <"$M/map_ns")"
say "figure: empty-kernel launch, untraced (us): $(med <"$M/launch_plain")"
say "figure: empty-kernel launch, CUPTI+ECL (us): $(med <"$M/launch_traced")"
mapmed=$(med <"$M/map_ns" | sed -n 's/.*median=\([0-9.]*\).*/\1/p')
check "target: ECL cost per activity record <= 100 ns (median ${mapmed:-?})" \
    awk -v m="${mapmed:-1e9}" 'BEGIN { exit !(m <= 100) }'
# 3b. stored bytes per kernel launch (uncompressed trace)
size_of() {
    rm -rf "$M/s" && mkdir -p "$M/s"
    ECL_DIR="$M/s" ECL_COMPRESS=none ECL_GPU_METRICS_HZ=0 \
        ECL_RUN_LIBRARY=$LIBECL ecl/tools/ecl-run tests/gpu/empty "$1" >/dev/null 2>&1
    cat "$M"/s/*.ecl 2>/dev/null | wc -c
}
s1=$(size_of 10000)
s2=$(size_of 20000)
perk=$(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.1f", (b - a) / 10000 }')
unitk=$(sed -n 's/^kernel_record_bytes=//p' "$out/unit.log")
say "figure: trace bytes per launched kernel (gpu_kernel + gpu_api records): $perk"
say "figure: stored gpu_kernel record (encoder, unit test): ${unitk:-?} bytes"
check "target: stored kernel record <= 24 B (${unitk:-?})" \
    awk -v m="${unitk:-1e9}" 'BEGIN { exit !(m <= 24) }'
# 3c. NVML sampler CPU time at the default rate, in steady state (the
# rounds after the first, up to the last periodic one): runs of ~3.5 s
: >"$M/nvml"
for i in 1 2 3 4 5 6 7; do
    rm -rf "$M/n" && mkdir -p "$M/n"
    ECL_DIR="$M/n" ECL_GPU_STATS=1 tests/gpu/streams 1750 >/dev/null 2>"$M/nvml.err"
    # runs with samples only: no sample is no measurement
    sed -n 's/.*nvml_samples=\([1-9][0-9]*\) nvml_cpu_percent=\([0-9.]*\).*/\2/p' \
        "$M/nvml.err" >>"$M/nvml"
done
say "figure: NVML sampler at ECL_GPU_METRICS_HZ=100 (default), % of one core: $(med <"$M/nvml") ($(sed -n 's/.*\(nvml_samples=[0-9]*\).*\(nvml_records=[0-9]*\).*/\1 \2/p' "$M/nvml.err") in the last run)"
# what one of those runs recorded: power samples per second of run
rm -rf "$M/n1" && mkdir -p "$M/n1"
ECL_DIR="$M/n1" tests/gpu/streams 1750 >/dev/null 2>&1
tests/gpu/gpucheck "$M"/n1/*.ecl 2>/dev/null | grep "^counter" | sed 's/^/figure: 3.5-s run: /' |
    tee -a "$out/summary.txt"
nv=$(med <"$M/nvml" | sed -n 's/.*median=\([0-9.]*\).*/\1/p')
check "target: NVML sampling <= 0.1 % of a core (median ${nv:-?})" \
    awk -v m="${nv:-1e9}" 'BEGIN { exit !(m <= 0.1) }'
fi   # stamps_only

# ---- 4. in-kernel stamps: the shipped macros and the candidates ----
# 4a. the candidates write what ecl_cuda.h writes (tests/gpu/stampvariants.cuh)
bash tests/gpu/stampcheck.sh >"$out/stampcheck.log" 2>&1
rc=$?
grep -E "^(FAIL|SKIP)" "$out/stampcheck.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
check "stampcheck: candidate stamp macros against ecl_cuda.h's records (exit $rc; $(grep -c '^ok' "$out/stampcheck.log") ok lines)" test $rc -eq 0
if [ $rc -eq 77 ]; then
    say "device-check: FAIL (no GPU usable here: the checks and measurements need one)"
    exit 1
fi
# 4b. R of each, 3 processes of 21 rotating rounds (about 1 s each)
: >"$out/overhead.out"
orc=""
for i in 1 2 3; do
    ECL_DIR="$M" ECL_GPU=off tests/gpu/overhead 21 1024 256 >"$M/overhead.$i" 2>&1
    orc="$orc $?"
    sed "s/^/run$i /" "$M/overhead.$i" >>"$out/overhead.out"
done
check "overhead: 3 runs, each recorded the shipped macros' regions of a multiply (exits:$orc)" \
    test "$orc" = " 0 0 0"
# one line per kernel: R (median of pairs, min of pairs) and T2 of each run
awk '$2 ~ /^(saxpy_1M|matmul|diag_|cand_)/ {
        k = $2
        if (!(k in line)) { order[++n] = k; line[k] = "" }
        for (i = 3; i <= NF; i++) {
            split($i, kv, "=")
            v[kv[1]] = kv[2]
        }
        line[k] = line[k] sprintf(" | %s: R %s %% (pair min %s), T1 %s us, T2 %s us", $1,
                                  v["R_pair_median"], v["R_pair_min"], v["T1_median_us"],
                                  v["T2_median_us"])
    }
    END { for (i = 1; i <= n; i++) print "figure: R " order[i] line[order[i]] }' \
    "$out/overhead.out" | tee -a "$out/summary.txt"
# rmed KERNEL: the median over the processes of R_pair_median
rmed() {
    sed -n "s/^run[0-9] $1 .*R_pair_median=\\([0-9.-]*\\).*/\\1/p" "$out/overhead.out" |
        sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
for k in saxpy_1M matmul; do
    r=$(rmed $k)
    check "target: in-kernel stamps R <= 2 % on $k, ecl_cuda.h as shipped (median over 3 runs of the median of 21 pairs: ${r:-?})" \
        awk -v m="${r:-1e9}" 'BEGIN { exit !(m <= 2) }'
done
# saxpy in blocks of 128 and of 1024 (one run each; figures, not checks):
# (the 1-D candidate of the last GPU session ranged 1.0 % to 3.6 % over them)
for bs in 128 1024; do
    ECL_DIR="$M" ECL_GPU=off tests/gpu/overhead 21 1024 $bs >"$M/overhead.bs$bs" 2>&1
    cp "$M/overhead.bs$bs" "$out/overhead-block$bs.out"
    say "figure: R saxpy in blocks of $bs (median of 21 pairs):$(sed -n \
        's/^\(saxpy_1M\|diag_saxpy_copy\|diag_saxpy_floor\|cand_saxpy_1M_[a-z0-9]*\) .*R_pair_median=\([0-9.-]*\).*/ \1 \2 %,/p' \
        "$M/overhead.bs$bs" | tr -d '\n' | sed 's/,$//')"
done
# 4c. the decision: the candidate with the lowest saxpy R whose checks passed
best="" bestr=""
for c in $(sed -n 's/^run1 cand_saxpy_1M_\([a-z0-9]*\) .*/\1/p' "$out/overhead.out"); do
    rs=$(rmed "cand_saxpy_1M_$c")
    rm_=$(rmed "cand_matmul_$c")
    if grep -q "^FAIL: $c:" "$out/stampcheck.log" || ! grep -q "^ok: $c:" "$out/stampcheck.log"; then
        ok=no
    else
        ok=yes
    fi
    say "figure: stamp candidate $c: saxpy R ${rs:-?} %, matmul R ${rm_:-?} % (medians over 3 runs), checks passed: $ok"
    if [ $ok = yes ] && [ -n "$rs" ] &&
            { [ -z "$best" ] || awk -v a="$rs" -v b="$bestr" 'BEGIN { exit !(a < b) }'; }; then
        best=$c bestr=$rs bestm=$rm_
    fi
done
if [ -n "$best" ]; then
    meets=no
    awk -v a="$bestr" -v b="${bestm:-1e9}" 'BEGIN { exit !(a <= 2 && b <= 2) }' && meets=yes
    say "decision: best candidate $best (saxpy R $bestr %, matmul R ${bestm:-?} %; shipped: saxpy $(rmed saxpy_1M) %, floor $(rmed diag_saxpy_floor) %, the plain kernel against a copy of itself $(rmed diag_saxpy_copy) %); meets R <= 2 % on both: $meets"
else
    say "decision: no candidate passed its checks"
fi
# 4d. the machine code: is BEGIN predicated (no BSSY/BRA before the first
# load), and what follows the body's last store
command -v cuobjdump >/dev/null || PATH=$PATH:$cuda/bin
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass tests/gpu/overhead >"$out/overhead.sass" 2>&1
    awk '
    function flush(  i, fl, bs, br, ls, ex) {
        if (fn == "" || fn !~ /(saxpy|mm_)/) return
        fl = 0; bs = 0; br = 0; ls = 0; ex = 0
        for (i = 1; i <= n; i++) {
            if (!fl && ins[i] ~ /LDG/) fl = i
            if (ins[i] ~ /BSSY/) bs++
            if (!fl && ins[i] ~ /(^|[ }])BRA/) br++
            if (ins[i] ~ /STG\.E[ .]/ && ins[i] !~ /STG\.E\.(64|128)/) ls = i
            if (ins[i] ~ /EXIT/) ex = i
        }
        printf "sass %s: instructions=%d before_first_LDG=%d BSSY=%d BRA_before_first_LDG=%d after_body_store_to_last_EXIT=%d\n",
            fn, n, fl ? fl - 1 : -1, bs, br, ls ? ex - ls : -1
    }
    /Function : / { flush(); fn = $3; n = 0; next }
    /^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+[^ \t\/]/ {
        l = $0
        sub(/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/, "", l)
        sub(/[ \t]*;.*$/, "", l)
        if (l !~ /^NOP/) ins[++n] = l
    }
    END { flush() }' "$out/overhead.sass" | tee "$out/sass-summary.txt" | tee -a "$out/summary.txt"
else
    say "sass: no cuobjdump here (the SASS of tests/gpu/overhead not dumped)"
fi
# ---- 5. NVML candidates ----
if [ "${ECL_DEVICE_CANDIDATES:-1}" != 0 ] && [ "$stamps_only" != 1 ]; then
    # 5. NVML: what queries cost, how often values change, what 100
    # wake-ups a second cost, the GPU kept busy (2 streams of ~2 ms
    # kernels for up to 80 s, stopped when done)
    mkdir -p "$M/bg"
    ECL_DIR="$M/bg" ECL_GPU=off tests/gpu/streams 20000 >/dev/null 2>&1 &
    bg=$!
    sleep 1
    timeout 120 tests/gpu/nvmlcost 7 1 >"$out/nvmlcost.out" 2>&1
    nrc=$?
    kill "$bg" 2>/dev/null
    wait "$bg" 2>/dev/null
    grep -E "^(query|summary|SKIP)" "$out/nvmlcost.out" | sed 's/^/figure: nvmlcost /' |
        tee -a "$out/summary.txt"
    say "figure: nvmlcost exit $nrc"
fi
for f in launch_plain launch_traced map_ns nvml; do cp "$M/$f" "$out/runs-$f.txt" 2>/dev/null; done
cp "$M/empty.err" "$out/empty-traced.err" 2>/dev/null
cp "$M/nvml.err" "$out/nvml-last.err" 2>/dev/null
say "device-check: $(( $(date +%s) - start )) s; logs in $out, build and traces in $work"
if [ $fails -eq 0 ]; then say "device-check: PASS"; else say "device-check: FAIL ($fails checks)"; fi
exit $((fails != 0))
