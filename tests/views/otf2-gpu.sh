#!/bin/sh
# otf2-gpu.sh -- GPU work in the OTF2 export, as Score-P writes CUDA: the
# records of role device (kernels, copies) put their location on an
# ACCELERATOR_STREAM in an ACCELERATOR location group created by its
# process's, their regions are of paradigm CUDA (copies: role DATA_TRANSFER,
# their bytes on the Leave); read back, the GPU streams are their process's
# threads again, every kernel and copy with its bytes is there (device_leave
# records) and pal-view's profile of the archive is the trace's. On
# otf2-gpu.trace (2 ranks, 3 GPU streams), and on tests/gpu/unit.sh's
# synthetic CUPTI trace when CUDA is there. Skips (77) without OTF2.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
if [ "${ECL_TEST_HAVE_OTF2:-no}" != yes ]; then
    echo "SKIP: ECL was configured without OTF2 (no libotf2: Debian libotf2-trace-dev)"
    exit 77
fi
edl=$top_srcdir/tests/views/otf2-gpu.edl
trace=$top_srcdir/tests/views/otf2-gpu.trace
pv="$top_builddir/views/pal-view"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/otf2-gpu.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
if ! "$top_builddir/edl/edlc" -o "$tmp/gpu.bin" "$edl" 2>"$tmp/edlc.err"; then
    cat "$tmp/edlc.err"
    exit 99
fi
fail=0
"$pv" -d "$edl" --export otf2 -o "$tmp/otf2" "$trace" || { echo "FAIL: export"; exit 1; }
archive=$tmp/otf2/traces.otf2
# the profiles, but for the first line (the input's name) and the record count
"$pv" -d "$edl" "$trace" | sed -e 1d -e 's/^  records [0-9]*, /  /' >"$tmp/p.trace"
"$pv" "$archive" 2>"$tmp/p.err" | sed -e 1d -e 's/^  records [0-9]*, /  /' >"$tmp/p.otf2"
if [ -s "$tmp/p.err" ] || ! diff "$tmp/p.trace" "$tmp/p.otf2"; then
    cat "$tmp/p.err"
    echo "FAIL: the profile of the archive differs from the trace's"
    fail=1
else
    echo "profiles equal: $(sed -n 1p "$tmp/p.otf2")"
fi
# read back: kernels and copies are device_leave records of the ranks' threads
got=$("$top_builddir/pal/pal-dump" "$archive" |
      awk '/ device_leave / { r = $0; sub(/.*region="/, "", r); sub(/".*/, "", r)
                              b = 0; if (/ bytes=/) { b = $0; sub(/.* bytes=/, "", b); sub(/ .*/, "", b) }
                              n[$2 " " r]++; s[$2 " " r] += b }
           END { for (k in n) print k, n[k], s[k] }' | sort)
want=$(printf '%s\n' "p0 memcpy DtoH 1 1048576" "p0 memcpy HtoD 1 1048576" "p0 saxpy 3 0" \
       "p0 scale(float*) 2 0" "p1 memcpy DtoH 1 4096" "p1 memcpy HtoD 1 4096" "p1 saxpy 4 0")
if [ "$got" = "$want" ]; then
    echo "read back: $(echo "$got" | tr '\n' ';')"
else
    printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"
    echo "FAIL: the kernels and copies read back differ"
    fail=1
fi
if command -v otf2-print >/dev/null 2>&1; then
    otf2-print -G "$archive" >"$tmp/defs" 2>&1 || { echo "FAIL: otf2-print -G"; fail=1; }
    got=$(awk '/^LOCATION_GROUP/ && /Type: ACCELERATOR,/ { g++; if (/Creator: "rank [01]"/) c++ }
               /^LOCATION / && /Type: ACCELERATOR_STREAM/ { s++ }
               /^LOCATION / && /Type: CPU_THREAD/ { t++ }
               /^REGION/ && /Paradigm: CUDA/ { k = k ($0 ~ /Role: DATA_TRANSFER/ ? "T" : "F") }
               END { printf "%d accelerator groups (%d created by a rank), %d streams, %d CPU threads, CUDA regions %s",
                             g, c, s, t, k }' "$tmp/defs")
    want="2 accelerator groups (2 created by a rank), 3 streams, 2 CPU threads, CUDA regions TFFT"
    if [ "$got" = "$want" ]; then
        echo "otf2-print: $got"
    else
        echo "FAIL: otf2-print: $got, not $want"
        fail=1
    fi
    otf2-print "$archive" >/dev/null 2>"$tmp/print.err" ||
        { cat "$tmp/print.err"; echo "FAIL: otf2-print cannot read the events"; fail=1; }
else
    echo "otf2-print not found (Debian otf2-tools): the archive is checked through PAL only"
fi

# The same on tests/gpu/unit.sh's synthetic CUPTI trace (tests/gpu/unit_map,
# built with CUDA): every (process, thread) with records of role device is
# one ACCELERATOR_STREAM, and the archive read back has each region's device
# records with their bytes, as the trace has them.
um=$top_builddir/tests/gpu/unit_map
if [ ! -x "$um" ]; then
    echo "unit_map not built (no CUDA): the CUPTI trace part is skipped"
    exit $fail
fi
mkdir "$tmp/cupti"
"$um" "$tmp/cupti" >"$tmp/cupti.out" 2>&1 || { cat "$tmp/cupti.out"; echo "FAIL: unit_map"; exit 1; }
set -- "$tmp/cupti"/gpu.*.ecl
ct=$1
pd="$top_builddir/pal/pal-dump"
# the record types of role device, from the trace's own description
"$pd" --dict "$ct" | awk '/^RECORD / { r = $2 } /^ *ROLE IS .*device/ { print r }' >"$tmp/devtypes"
[ -s "$tmp/devtypes" ] || { echo "FAIL: the CUPTI trace has no records of role device"; exit 1; }
# per region: records and bytes; and the streams that hold them
tally='{ r = $0; sub(/.* region="/, "", r); sub(/".*/, "", r)
         b = 0; if (/ bytes=/) { b = $0; sub(/.* bytes=/, "", b); sub(/ .*/, "", b) }
         n[r]++; s[r] += b; st[$2 " " $3] = 1 }
       END { for (k in n) print "region " k ": " n[k] " " s[k]; c = 0; for (k in st) c++
             print "streams " c }'
"$pd" "$ct" | awk -v types="$(tr '\n' ' ' <"$tmp/devtypes")" \
    'BEGIN { split(types, t, " "); for (i in t) dev[t[i]] = 1 } dev[$4] '"$tally" |
    sort >"$tmp/cupti.want"
"$pv" --export otf2 -o "$tmp/cupti/otf2" "$ct" || { echo "FAIL: export of the CUPTI trace"; exit 1; }
"$pd" "$tmp/cupti/otf2/traces.otf2" | awk '$4 == "device_leave" '"$tally" | sort >"$tmp/cupti.got"
if cmp -s "$tmp/cupti.want" "$tmp/cupti.got"; then
    echo "CUPTI trace read back: $(tr '\n' ';' <"$tmp/cupti.got")"
else
    diff "$tmp/cupti.want" "$tmp/cupti.got"
    echo "FAIL: the CUPTI trace's GPU work read back differs (above: trace <, archive >)"
    fail=1
fi
if command -v otf2-print >/dev/null 2>&1; then
    n=$(otf2-print -G "$tmp/cupti/otf2/traces.otf2" | grep -c '^LOCATION .*Type: ACCELERATOR_STREAM')
    want=$(sed -n 's/^streams //p' "$tmp/cupti.want")
    [ "$n" = "$want" ] || { echo "FAIL: $n ACCELERATOR_STREAM locations, not $want"; fail=1; }
fi
exit $fail
