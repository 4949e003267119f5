#!/bin/sh
# ascii.sh -- PAL's ascii reader through pal-dump, on the shipped EDL formats:
#  - PICL per-type counts (pal-dump -d edl/formats/picl.edl --count) equal those
#    computed independently with awk from the rectype/event columns, following
#    picl.edl's bind descriptor; no damaged lines; records = lines. For the
#    committed excerpts, and for the full samples in ../shared/data/picl when
#    they are there (skipped with a message otherwise);
#  - the same through the compiled dictionary (edlc picl.edl -o picl.bin);
#  - golden dumps (tests/pal/golden/ascii-*) of every shipped format's sample and
#    of doc/edl.md's tutorial (CSV-like log and fixed-layout binary stream);
#    ecl.edl, whose sample examples/threads writes at test time, by counts;
#  - bad lines: the exact messages, skip-and-count, and --strict;
#  - a file cut at many byte positions never crashes (run it under ASan).
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
dump="$top_builddir/pal/pal-dump"
edlc="$top_builddir/edl/edlc"
golden="$top_srcdir/tests/pal/golden"
formats="$top_srcdir/edl/formats"
samples="$top_srcdir/tests/edl/samples"
tutorial="$top_srcdir/tests/edl/tutorial"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-ascii-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# ---- PICL counts against awk ----
# picl.edl's bind: <rectype:event> pairs, then <rectype> alone, then DEFAULT.
picl_awk() {
    awk 'BEGIN {
        p["-3:-901"]="trace_start"; p["-4:-901"]="trace_exit"; p["-2:-904"]="trace_level";
        p["-2:-12"]="close"; p["-3:-21"]="send_begin"; p["-4:-21"]="send_end";
        p["-3:-22"]="bsend_begin"; p["-4:-22"]="bsend_end"; p["-3:-27"]="isend_begin";
        p["-4:-27"]="isend_end"; p["-3:-51"]="recv_begin"; p["-4:-51"]="recv_end";
        p["-3:-52"]="recv_blocked_begin"; p["-4:-52"]="recv_blocked_end";
        p["-3:-402"]="barrier_begin"; p["-4:-402"]="barrier_end";
        p["-3:-785"]="bcast_begin"; p["-4:-785"]="bcast_end";
        o["-101"]="stat_time"; o["-102"]="stat_count"; o["-103"]="stat_send_volume";
        o["-104"]="stat_recv_volume"; o["-105"]="stat_size_volume";
        o["-3"]="begin"; o["-4"]="end"; o["-2"]="mark" }
    NF == 0 { next }
    { k = $1 ":" $2; t = (k in p) ? p[k] : ($1 in o) ? o[$1] : "event"; c[t]++; n++ }
    END { for (t in c) print t, c[t]; print "total", n }' "$1" | sort
}

# pal-dump --count without the zero lines, as "type count"
pal_counts() {
    "$dump" -d "$1" --count "$2" 2>"$tmp/count.err" | awk '$2 != 0 { print $1, $2 }' | sort
}

check_counts() {   # DICT TRACE
    picl_awk "$2" >"$tmp/want"
    pal_counts "$1" "$2" >"$tmp/got"
    if ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "FAIL: counts of $2 with $1 differ from awk's:"
        diff "$tmp/want" "$tmp/got"
        fail=1
    fi
    if [ -s "$tmp/count.err" ]; then
        echo "FAIL: reading $2 reported problems:"
        head -5 "$tmp/count.err"
        fail=1
    fi
    lines=$(grep -c . "$2")
    "$dump" -d "$1" --info "$2" >"$tmp/info" 2>&1
    if ! grep -q "^records: *$lines\$" "$tmp/info" || ! grep -q "^damaged: *0\$" "$tmp/info"; then
        echo "FAIL: $2: expected $lines records and no damage:"
        grep "records\|damaged" "$tmp/info"
        fail=1
    fi
}

"$edlc" "$formats/picl.edl" -o "$tmp/picl.bin" || { echo "FAIL: edlc picl.edl"; exit 1; }
for t in "$samples"/*.ttf; do
    check_counts "$formats/picl.edl" "$t"
    check_counts "$tmp/picl.bin" "$t"
done
shared="$top_srcdir/../shared/data/picl"
if ls "$shared"/*.ttf >/dev/null 2>&1; then
    for t in "$shared"/*.ttf; do
        check_counts "$formats/picl.edl" "$t"
    done
else
    echo "note: $shared not found; the full PICL samples are not checked"
fi

# ---- golden dumps ----
. "$top_srcdir/tests/pal/golden.sh"

check ascii-picl-test.txt 0 -d "$formats/picl.edl" "$samples/mpicl_test.excerpt.ttf"
check ascii-picl-lab5.txt 0 -d "$formats/picl.edl" "$samples/mpicl_lab5.excerpt.ttf"
check ascii-picl-test.json 0 -d "$formats/picl.edl" -f json -n 40 "$samples/mpicl_test.excerpt.ttf"
check ascii-picl-test.csv 0 -d "$formats/picl.edl" -f csv -n 12 "$samples/mpicl_test.excerpt.ttf"
check ascii-picl1-ring4.txt 0 -d "$formats/picl1.edl" "$samples/ring4.picl1"
check ascii-picl1-ring4.count 0 -d "$formats/picl1.edl" --count "$samples/ring4.picl1"
# times at the ends of int64 (seconds * 1e9 + microseconds saturate, never
# wrap), negative parts, a value out of range
check ascii-picl1-extreme.txt 2 -d "$formats/picl1.edl" "$top_srcdir/tests/pal/ascii/extreme.picl1"
check ascii-applog.txt 0 -d "$tutorial/applog.edl" "$tutorial/app.csv"
check ascii-applog.json 0 -d "$tutorial/applog.edl" -f json "$tutorial/app.csv"
check ascii-sched.txt 0 -d "$tutorial/sched.edl" "$tutorial/sched.dat"
check ascii-picl.dict 0 -d "$formats/picl.edl" --dict "$samples/mpicl_test.excerpt.ttf"
# toymp, described in EDL only: its generator's log, regions and counters by
# the names each process's definitions give
"$top_srcdir/examples/toymp/toymp-ring" 4 3 >"$tmp/ring.log" || { echo "FAIL: toymp-ring"; fail=1; }
check ascii-toymp.txt 0 -d "$formats/toymp.edl" "$tmp/ring.log"
if [ -z "${UPDATE_GOLDEN:-}" ]; then
    n=$(grep -c ' region="[a-z]*"$' "$golden/ascii-toymp.txt")
    m=$(grep -c ' \(enter\|leave\) ' "$golden/ascii-toymp.txt")
    [ "$n" -eq 56 ] && [ "$m" -eq 56 ] ||
        { echo "FAIL: toymp: $n of $m enter/leave records show a region name (want 56)"; fail=1; }
fi
# The embedding example knows no format: through roles alone it finds the
# regions, calls and durations of the toymp log. Counts follow from the
# generator's 4 ranks and 3 rounds (a barrier every second round); call
# times are the sums of the log's duration column.
embed="$top_builddir/examples/embed/embed"
if [ -x "$embed" ]; then
    "$embed" "$tmp/ring.log" "$formats/toymp.edl" | awk '/^region / { p = 1; next } p' >"$tmp/embed"
    awk '$3 ~ /^(send|recv|barrier)$/ { us[$3] += $4 }
         END { printf "main 4\ncompute 12\nexchange 12\n";
               for (c in us) printf "%s %d %.6f\n", c, c == "barrier" ? 4 : 12, us[c] / 1e6 }' \
        "$tmp/ring.log" | sort >"$tmp/want"
    awk '{ print $1, $2, ($1 ~ /^(send|recv|barrier)$/) ? $3 : "" }' "$tmp/embed" |
        sed 's/ $//' | sort >"$tmp/got"
    cmp -s "$tmp/want" "$tmp/got" ||
        { echo "FAIL: examples/embed on toymp:"; diff "$tmp/want" "$tmp/got"; fail=1; }
else
    echo "note: $embed is not built; the embedding example is not checked"
fi

# --dict prints EDL that compiles back to the same dictionary
"$edlc" "$golden/ascii-picl.dict" -o "$tmp/picl2.bin" 2>"$tmp/edlc.err" &&
    cmp -s "$tmp/picl.bin" "$tmp/picl2.bin" ||
    { echo "FAIL: pal-dump --dict output does not compile back to picl.bin"; cat "$tmp/edlc.err"; fail=1; }

# ---- ecl.edl: its sample is written at test time (examples/threads), so it
# is checked by counts: read with ecl.edl (given as source) they equal the
# counts read with the trace's embedded dictionary, with no damage ----
threads="$(cd "$top_builddir" && pwd)/examples/threads/threads"
if [ -x "$threads" ]; then
    (cd "$tmp" && ECL_DIR="$tmp" ECL_PREFIX=t "$threads" 2 20 >/dev/null) ||
        { echo "FAIL: examples/threads failed"; fail=1; }
    ecl=$(ls "$tmp"/t.*.ecl 2>/dev/null | head -n 1)
    if [ -n "$ecl" ]; then
        "$dump" --count "$ecl" >"$tmp/ecl-embedded" 2>&1
        "$dump" -d "$formats/ecl.edl" --count "$ecl" >"$tmp/ecl-given" 2>&1 ||
            { echo "FAIL: pal-dump -d ecl.edl failed"; cat "$tmp/ecl-given"; fail=1; }
        if ! cmp -s "$tmp/ecl-embedded" "$tmp/ecl-given"; then
            echo "FAIL: counts with ecl.edl differ from those with the embedded dictionary"
            diff "$tmp/ecl-embedded" "$tmp/ecl-given"
            fail=1
        fi
        total=$(awk '$1 == "total" { print $2 }' "$tmp/ecl-given")
        [ "${total:-0}" -gt 0 ] || { echo "FAIL: no ECL records counted"; fail=1; }
    else
        echo "FAIL: examples/threads wrote no trace"
        fail=1
    fi
else
    echo "note: $threads not built; ecl.edl counts not checked"
fi

# ---- bad lines ----
bad="$top_srcdir/tests/pal/ascii/broken.ttf"
check ascii-broken.txt 2 -d "$formats/picl.edl" "$bad"
check ascii-broken.info 2 -d "$formats/picl.edl" --info "$bad"
check ascii-broken-strict.txt 2 -d "$formats/picl.edl" --strict "$bad"

# ---- cut at many byte positions: no crash ----
src="$samples/mpicl_test.excerpt.ttf"
size=$(wc -c <"$src")
i=0
while [ "$i" -le "$size" ]; do
    head -c "$i" "$src" >"$tmp/cut.ttf"
    "$dump" -d "$tmp/picl.bin" --count "$tmp/cut.ttf" >"$tmp/cut.out" 2>"$tmp/cut.err"
    st=$?
    if [ "$st" -gt 2 ]; then
        echo "FAIL: cut at byte $i: exit status $st"
        head -5 "$tmp/cut.err"
        fail=1
        break
    fi
    i=$((i + 37))
done

exit $fail
