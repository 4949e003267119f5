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

# pal-view's text profile of that trace, through the dictionary's roles
# only: kernels and copies are calls with role device, in a "GPU" section of
# their own (a copy is a call with bytes, not communication), so there is no
# "MPI functions" section; each row gives its section (GPU, Regions, ...),
# name, calls, bytes and achieved bandwidth (bytes / total time)
"$b/views/pal-view" --view profile "$trace" >"$TMP/profile.out" 2>&1 ||
    { echo "FAIL: pal-view --view profile"; cat "$TMP/profile.out"; exit 1; }
# rows PROFILE: its region rows as "SECTION: NAME calls=N[ bytes=B[ GB/s=R]]"
# (the numbers are the row's last 7, 8 or 9 words)
rows() {
    awk '/^[A-Z]/ { sec = $0; if (sec ~ /^GPU /) sec = "GPU"; next }
         sec !~ /^(Regions|MPI functions|GPU)$/ || $1 == "name" || NF < 8 { next }
         { k = 0; while (k < NF && $(NF - k) ~ /^[0-9.]+$/) k++
           name = $1; for (i = 2; i <= NF - k; i++) name = name " " $i
           line = sec ": " name " calls=" $(NF - k + 1)
           if (k >= 8) line = line " bytes=" $(NF - k + 8)
           if (k == 9) line = line " GB/s=" $NF
           print line }' "$1"
}
rows "$TMP/profile.out" >"$TMP/profile.rows"
pwant() {
    if grep -qxF "$1" "$TMP/profile.rows"; then echo "ok: profile: $1"
    else echo "FAIL: profile: want '$1'"; fail=1; fi
}
if grep -q '^MPI functions' "$TMP/profile.out"; then
    echo "FAIL: profile: GPU work listed under MPI functions"; fail=1
else
    echo "ok: profile: no MPI functions"
fi
pwant "GPU: saxpy(int, float, float const*, float*) calls=$((11 + 1000 + 7 * (100000 / 7))) bytes=0"
pwant "GPU: empty() calls=10 bytes=0"
# 4 MiB in 350 us each: 11.984 GB/s
pwant "GPU: memcpy HtoD calls=2 bytes=8388608 GB/s=11.984"
pwant "GPU: memcpy DtoH calls=1 bytes=4194304 GB/s=11.984"
pwant "GPU: memset calls=1 bytes=1024 GB/s=0.512"
# the CPU side stays in Regions: the runtime calls that launched them
if grep -q '^Regions: \(saxpy\|empty()\|memcpy\|memset\)' "$TMP/profile.rows"; then
    echo "FAIL: profile: GPU work also under Regions"; fail=1
else
    echo "ok: profile: GPU work only under GPU"
fi
if [ $fail -ne 0 ]; then cat "$TMP/profile.out"; fi
# the OTF2 export read back gives the same profile rows (copies' bytes on
# their Leave's ecl:bytes attribute), the sections aside: OTF2 has no role
# device, so read back kernels and copies are regions
if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
    rows=$TMP/profile.rows
    if "$b/views/pal-view" --export otf2 -o "$TMP/otf2" "$trace" &&
        "$b/views/pal-view" --view profile "$TMP/otf2/traces.otf2" >"$TMP/profile.out" 2>&1; then
        # (and a table's bytes column is there when a row of it moved bytes)
        sed 's/^[^:]*: //; s/ bytes=0$//' "$rows" | sort >"$rows.trace"
        rows "$TMP/profile.out" | sed 's/^[^:]*: //; s/ bytes=0$//' | sort >"$rows"
        if cmp -s "$rows" "$rows.trace"; then
            echo "ok: profile: the same from the OTF2 export"
        else
            echo "FAIL: profile: the OTF2 export's differs"; diff "$rows.trace" "$rows"; fail=1
        fi
    else
        echo "FAIL: profile: OTF2 export"; cat "$TMP/profile.out"; fail=1
    fi
fi

# launch -> kernel links in the HTML report, from the role correlation: the
# 21 launch calls each linked to its kernel (the page's data), and drawn as
# 21 arrows at load in a browser when there is one
if "$b/views/pal-view" --html "$TMP/report.html" "$trace" >"$TMP/html.out" 2>&1; then
    if grep -q '"nlinks":21,"links":\[\[' "$TMP/report.html"; then
        echo "ok: html: nlinks=21"
    else
        echo "FAIL: html: want nlinks=21: $(grep -o '"nlinks":[0-9]*' "$TMP/report.html")"; fail=1
    fi
    chromium=""
    for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
        [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
    done
    if [ -n "$chromium" ]; then
        drawn=$(timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
            --virtual-time-budget=3000 --dump-dom "file://$TMP/report.html" 2>/dev/null |
            sed -n 's/.*data-tl-links="\([^"]*\)".*/\1/p' | head -n 1)
        if [ "$drawn" = "21,21" ]; then echo "ok: html: 21 launch arrows drawn"
        else echo "FAIL: html: arrows drawn,in view '$drawn', want 21,21"; fail=1; fi
    else
        echo "ok: html: no chromium here, arrows not drawn in a browser"
    fi
else
    echo "FAIL: pal-view --html"; cat "$TMP/html.out"; fail=1
fi

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

# ECL's NVML sampler on a stand-in libnvidia-ml (tests/gpu/fake_nvml.c:
# a power sample every 20 ms in the driver's buffer) for 2.5 s: every
# buffered power sample recorded once, at its own time (20 ms apart, in
# order), the other metrics once per round (first, 2 periodic, last)
mkdir -p "$TMP/nvml"
fake=$b/tests/gpu/.libs/libfakenvml.so
if "$b/tests/gpu/unit_map" --nvml "$TMP/nvml" "$fake" 2>"$TMP/nvml.err"; then
    echo "ok: NVML sampler on the stand-in"
else
    echo "FAIL: unit_map --nvml"; cat "$TMP/nvml.err"; fail=1
fi
"$b/tests/gpu/gpucheck" "$TMP"/nvml/nvml.*.ecl >"$TMP/nvml.check" 2>&1
n=$(sed -n 's/^counter gpu0 power samples=\([0-9]*\) .*/\1/p' "$TMP/nvml.check")
if [ "${n:-0}" -ge 120 ] && [ "${n:-0}" -le 126 ]; then
    echo "ok: power samples=$n (50 per second)"
else
    echo "FAIL: power samples=${n:-none}, want 120-126"; cat "$TMP/nvml.check"; fail=1
fi
for c in "sm clock" temperature "memory clock" utilization "memory utilization" "memory used"; do
    if grep -q "^counter gpu0 $c samples=4 " "$TMP/nvml.check"; then echo "ok: $c samples=4"
    else echo "FAIL: $c: want 4 samples"; cat "$TMP/nvml.check"; fail=1; fi
done
"$b/pal/pal-dump" "$TMP"/nvml/nvml.*.ecl 2>/dev/null |
    awk '/counter="gpu0 power"/ { if (n++ && ($1 - t < 0.0195 || $1 - t > 0.0205)) bad++; t = $1 }
         END { if (n == 0 || bad) { print "FAIL: power sample times: " bad + 0 " gaps not 20 ms"; exit 1 }
               print "ok: power samples 20 ms apart" }' || fail=1
grep -q "nvml_samples=2 " "$TMP/nvml.err" && echo "ok: 2 periodic rounds" ||
    { echo "FAIL: want nvml_samples=2"; cat "$TMP/nvml.err"; fail=1; }
exit $fail
