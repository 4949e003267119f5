#!/bin/sh
# otf2-gpu.sh -- GPU work in the OTF2 export, as Score-P writes CUDA: the
# records of role device (kernels, copies) put their location on an
# ACCELERATOR_STREAM in an ACCELERATOR location group per (process,
# device), created by its process's group, whose parent is the device's
# system tree node (domain ACCELERATOR_DEVICE, named by the number the
# field of role device_id gives); their regions are of paradigm CUDA
# (copies: role DATA_TRANSFER); a copy between host and device is an RmaGet
# (to the device: role bytes_received) or RmaPut (from it: bytes_sent) at
# its start and an RmaOpCompleteBlocking at its end on the CUDA window,
# whose remote is the host, other bytes (a copy within a device) the
# Leave's ecl:bytes. Read back, the GPU streams are their process's
# threads again, every kernel and copy is there with its bytes by direction
# and its device (device_leave records), and pal-view's profile of the
# archive is the trace's. On otf2-gpu.trace (2 ranks, 2 devices, 3 GPU
# streams), on an archive written as Score-P writes CUDA copies (RMA
# events outside any region: device_copy records), and on tests/gpu/unit.sh's
# synthetic CUPTI trace when CUDA is there. Skips (77) without OTF2.
set -u
LC_ALL=C
export LC_ALL
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
# read back: kernels and copies are device_leave records of the ranks'
# threads; per (process, region): records, bytes received by the device,
# sent by it, other bytes, and the devices
readback='
function v(k) { return match($0, " " k "=[0-9]+") ? substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : 0 }
$4 == "device_leave" || $4 == "device_copy" {
    r = $0; sub(/.* region="/, "", r); sub(/".*/, "", r); k = $2 " " r
    n[k]++; i[k] += v("received"); o[k] += v("sent"); b[k] += v("bytes")
    d = v("device"); if (!((k, d) in seen)) { seen[k, d] = 1; dev[k] = dev[k] " " d } }
END { for (k in n) print k, n[k], "in=" i[k], "out=" o[k], "other=" b[k], "device" dev[k] }'
got=$("$top_builddir/pal/pal-dump" "$archive" | awk "$readback" | sort)
want=$(printf '%s\n' "p0 memcpy DtoD 1 in=0 out=0 other=65536 device 1" \
       "p0 memcpy DtoH 1 in=0 out=1048576 other=0 device 0" \
       "p0 memcpy HtoD 1 in=1048576 out=0 other=0 device 0" "p0 saxpy 3 in=0 out=0 other=0 device 0" \
       "p0 scale(float*) 2 in=0 out=0 other=0 device 1" \
       "p1 memcpy DtoH 1 in=0 out=4096 other=0 device 0" \
       "p1 memcpy HtoD 1 in=4096 out=0 other=0 device 0" "p1 saxpy 4 in=0 out=0 other=0 device 0")
if [ "$got" = "$want" ]; then
    echo "read back: $(echo "$got" | tr '\n' ';')"
else
    printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"
    echo "FAIL: the kernels and copies read back differ"
    fail=1
fi
if command -v otf2-print >/dev/null 2>&1; then
    otf2-print -G "$archive" >"$tmp/defs" 2>&1 || { echo "FAIL: otf2-print -G"; fail=1; }
    # accelerator groups: created by a rank, their parent a device node
    got=$(awk '/^SYSTEM_TREE_NODE_DOMAIN/ && /Domain: ACCELERATOR_DEVICE/ { d++ }
               /^LOCATION_GROUP/ && /Type: ACCELERATOR,/ {
                   g++; if (/Creator: "rank [01]"/) c++
                   n = $0; sub(/.*Name: "/, "", n); sub(/".*/, "", n)
                   p = $0; sub(/.*Parent: "CUDA Device::/, "", p); sub(/".*/, "", p); gp = gp " " n "@" p }
               /^LOCATION / && /Type: ACCELERATOR_STREAM/ { s++ }
               /^LOCATION / && /Type: CPU_THREAD/ { t++ }
               /^REGION/ && /Paradigm: CUDA/ { k = k ($0 ~ /Role: DATA_TRANSFER/ ? "T" : "F") }
               /^GROUP/ && /Type: COMM_LOCATIONS, Paradigm: CUDA/ { m = $0; sub(/.*Flags: NONE, /, "", m); sub(/ Members.*/, "", m) }
               /^RMA_WIN/ && /Name: "CUDA window"/ && /Communicator: "CUDA"/ { w++ }
               END { printf "%d device nodes, %d accelerator groups (%d created by a rank:%s), %d streams, %d CPU threads, CUDA regions %s, %d CUDA window on %s locations",
                             d, g, c, gp, s, t, k, w, m }' "$tmp/defs")
    want="2 device nodes, 3 accelerator groups (3 created by a rank: rank 0 GPU 0@0 rank 0 GPU 1@1 rank 1 GPU 0@0), 3 streams, 2 CPU threads, CUDA regions TFFTT, 1 CUDA window on 4 locations"
    if [ "$got" = "$want" ]; then
        echo "otf2-print: $got"
    else
        echo "FAIL: otf2-print: $got, not $want"
        fail=1
    fi
    # the copies: RmaGet to the device, RmaPut from it, the remote the rank's
    # CPU thread, each completed; no Leave of a copy carries ecl:bytes_*
    if otf2-print "$archive" >"$tmp/events" 2>"$tmp/print.err"; then
        got=$(awk '/^RMA_GET|^RMA_PUT/ { b = $0; sub(/.*Bytes: /, "", b); sub(/,.*/, "", b)
                                        r = $0; sub(/.*Remote: [0-9]* \("/, "", r); sub(/".*/, "", r)
                                        print $1, r, b }
                   /^RMA_OP_COMPLETE_BLOCKING/ { c++ }
                   END { print "completions", c + 0 }' "$tmp/events" | sort | tr '\n' ';')
        want="RMA_GET rank 0 thread 0 1048576;RMA_GET rank 1 thread 0 4096;RMA_PUT rank 0 thread 0 1048576;RMA_PUT rank 1 thread 0 4096;completions 4;"
        if [ "$got" = "$want" ]; then
            echo "otf2-print events: $got"
        else
            echo "FAIL: otf2-print events: $got, not $want"
            fail=1
        fi
    else
        cat "$tmp/print.err"
        echo "FAIL: otf2-print cannot read the events"
        fail=1
    fi
else
    echo "otf2-print not found (Debian otf2-tools): the archive is checked through PAL only"
fi

# An archive as Score-P writes CUDA (tests/gpu/otf2-cuda-writer, with
# libotf2): copies are RmaGet/RmaPut ... RmaOpCompleteBlocking outside any
# region of the stream; PAL reads each as one device_copy call, with its
# direction, bytes, length and device, kernels as device_enter/_leave.
cw=$top_builddir/tests/gpu/otf2-cuda-writer
if [ -x "$cw" ]; then
    "$cw" "$tmp/scorep" >"$tmp/cw.out" 2>&1 || { cat "$tmp/cw.out"; echo "FAIL: otf2-cuda-writer"; exit 1; }
    "$top_builddir/pal/pal-dump" "$tmp/scorep/traces.otf2" >"$tmp/scorep.dump" 2>"$tmp/scorep.err" ||
        { cat "$tmp/scorep.err"; echo "FAIL: pal-dump of the Score-P-like archive"; fail=1; }
    got=$(awk "$readback" "$tmp/scorep.dump" | sort)
    want=$(printf '%s\n' "p0 kernel 2 in=0 out=0 other=0 device 3" \
           "p0 memcpy DtoH 1 in=0 out=2048 other=0 device 3" \
           "p0 memcpy HtoD 2 in=3072 out=0 other=0 device 3")
    copies=$(awk '$4 == "device_copy" { d = $0; sub(/.* duration=/, "", d); sub(/ .*/, "", d); printf "%s@%s+%s ", $3, $1, d }' "$tmp/scorep.dump")
    if [ "$got" = "$want" ] && [ "$copies" = "s1@0.000015000+5000 s1@0.000044000+4000 s1@0.000080000+10000 " ]; then
        echo "Score-P-like archive: $(echo "$got" | tr '\n' ';') copies $copies"
    else
        printf 'got:\n%s\ncopies %s\nwant:\n%s\n' "$got" "$copies" "$want"
        echo "FAIL: the Score-P-like archive's copies read back differ"
        fail=1
    fi
    # and pal-view's profile lists them in its GPU table: calls and bytes
    got=$("$pv" "$tmp/scorep/traces.otf2" 2>&1 |
          awk '/^GPU / { g = 1; next } /^$/ { g = 0 } g && $1 == "memcpy" { print $2, $3, $(NF - 1) }' |
          tr '\n' ';')
    if [ "$got" = "HtoD 2 3072;DtoH 1 2048;" ]; then
        echo "Score-P-like archive profile: $got"
    else
        echo "FAIL: the Score-P-like archive's GPU profile: '$got', not 'HtoD 2 3072;DtoH 1 2048;'"
        fail=1
    fi
else
    echo "FAIL: tests/gpu/otf2-cuda-writer not built"
    fail=1
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
# per region: records, bytes received by the device, sent by it, other
# bytes, devices; and the streams that hold them
getv='function v(k) { return match($0, " " k "=[0-9]+") ? substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : 0 }'
tally='{ r = $0; sub(/.* region="/, "", r); sub(/".*/, "", r)
         n[r]++; i[r] += v(IN); o[r] += v(OUT); b[r] += v("bytes"); st[$2 " " $3] = 1
         d = v("device"); if (!((r, d) in seen)) { seen[r, d] = 1; dev[r] = dev[r] " " d } }
       END { for (k in n) print "region " k ": " n[k] " in=" i[k] " out=" o[k] " other=" b[k] " device" dev[k]
             c = 0; for (k in st) c++; print "streams " c }'
"$pd" "$ct" | awk -v types="$(tr '\n' ' ' <"$tmp/devtypes")" -v IN=to_device -v OUT=from_device \
    "$getv"'
    BEGIN { split(types, t, " "); for (j in t) dev_[t[j]] = 1 } dev_[$4] '"$tally" |
    sort >"$tmp/cupti.want"
grep -q 'region memcpy HtoD: 2 in=8388608 out=0 other=0 device 0' "$tmp/cupti.want" &&
    grep -q 'region empty(): 10 in=0 out=0 other=0 device 1' "$tmp/cupti.want" ||
    { cat "$tmp/cupti.want"; echo "FAIL: the CUPTI trace's copies or devices are not as unit_map made them"; fail=1; }
"$pv" --export otf2 -o "$tmp/cupti/otf2" "$ct" || { echo "FAIL: export of the CUPTI trace"; exit 1; }
"$pd" "$tmp/cupti/otf2/traces.otf2" |
    awk -v IN=received -v OUT=sent "$getv"'
    $4 == "device_leave" '"$tally" | sort >"$tmp/cupti.got"
if cmp -s "$tmp/cupti.want" "$tmp/cupti.got"; then
    echo "CUPTI trace read back: $(tr '\n' ';' <"$tmp/cupti.got")"
else
    diff "$tmp/cupti.want" "$tmp/cupti.got"
    echo "FAIL: the CUPTI trace's GPU work read back differs (above: trace <, archive >)"
    fail=1
fi
if command -v otf2-print >/dev/null 2>&1; then
    otf2-print -G "$tmp/cupti/otf2/traces.otf2" >"$tmp/cupti.defs"
    n=$(grep -c '^LOCATION .*Type: ACCELERATOR_STREAM' "$tmp/cupti.defs")
    want=$(sed -n 's/^streams //p' "$tmp/cupti.want")
    [ "$n" = "$want" ] || { echo "FAIL: $n ACCELERATOR_STREAM locations, not $want"; fail=1; }
    g=$(grep '^LOCATION_GROUP .*Type: ACCELERATOR,' "$tmp/cupti.defs" | sed 's/.*Parent: "\([^"]*\)".*/\1/' | tr '\n' ' ')
    [ "$g" = "CUDA Device::0 CUDA Device::1 " ] ||
        { echo "FAIL: the CUPTI trace's accelerator groups are in '$g', not one per device"; fail=1; }
fi
exit $fail
