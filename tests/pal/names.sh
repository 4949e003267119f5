#!/bin/sh
# names.sh -- pal-dump resolves ids to names through the trace's description
# alone: on a real ECL trace (examples/threads), every enter, leave and
# counter sample shows a name, and that name is the one the process's own
# region_def / counter_def gave the id (checked against the --raw-ids dump,
# record by record); times are seconds from the start, never before it, and
# equal the raw ticks converted with the header's rate; names survive reading
# two traces as one run and merging them.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
dump="$top_builddir/pal/pal-dump"
threads="$top_builddir/examples/threads/threads"
if [ ! -x "$threads" ]; then
    echo "SKIP: $threads is not built"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-names-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

(cd "$tmp" && ECL_DIR="$tmp" ECL_PREFIX=t "$threads" 3 20 >/dev/null) || { echo "FAIL: threads"; exit 1; }
trace=$(ls "$tmp"/t.*.ecl | head -n 1)
"$dump" "$trace" >"$tmp/named" || { echo "FAIL: pal-dump"; exit 1; }
"$dump" --raw-ids "$trace" >"$tmp/raw" || { echo "FAIL: pal-dump --raw-ids"; exit 1; }
"$dump" --raw-ids --raw-time "$trace" >"$tmp/ticks" || { echo "FAIL: pal-dump --raw-time"; exit 1; }

# Line by line: the named dump shows, for each id, the name the raw dump's
# definitions give it (same process).
paste -d '\n' "$tmp/raw" "$tmp/named" | awk '
    function val(line, key,    s) {
        if (!match(line, " " key "=[^ ]*")) return ""
        s = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
        return s
    }
    NR % 2 == 1 { raw = $0; next }
    {
        split(raw, f, " "); p = f[2]; type = f[4]
        if (type == "region_def") region[p, val(raw, "region")] = val(raw, "name")
        if (type == "counter_def") counter[p, val(raw, "counter")] = val(raw, "name")
        if (type == "thread_def") thread[p, val(raw, "stream")] = val(raw, "name")
        key = ""
        if (type == "enter" || type == "leave" || type == "wait_enter" || type == "wait_leave") key = "region"
        if (type ~ /^counter_(int|float)$/) key = "counter"
        if (type == "thread_begin") key = "parent"   # ECL threads group: the parent stream
        if (key == "") { if (raw != $0) { print "differs: " raw " / " $0; bad++ }; next }
        id = val(raw, key); name = val($0, key)
        want = key == "region" ? region[p, id] : key == "counter" ? counter[p, id] : thread[p, id]
        if (want == "" || name != want) { print "line " NR/2 ": " key "=" id " shows " name ", defined as " want; bad++ }
        checked[key]++
    }
    END {
        if (checked["region"] < 20 || checked["counter"] < 10) { print "too few checked"; bad++ }
        print "checked " checked["region"] " regions, " checked["counter"] " counters"
        exit bad > 0
    }' || fail=1

# Seconds from the start: ticks minus the header's start, over its rate (the
# ticks are cycles: a float computation, so within 2 ns).
tps=$("$dump" --info "$trace" | awk '/^ticks per second:/ { print $4 }')
start=$("$dump" --info "$trace" | awk '/^start time:/ { print $3 }')
paste -d ' ' "$tmp/ticks" "$tmp/raw" | awk -v tps="$tps" -v start="$start" '
    { n = NF / 2 + 0; t = $1; s = $(n + 1)
      want = (t - start) / tps
      if (s < 0 || (s - want > 2e-9 || want - s > 2e-9)) { print "time " s " for " t " ticks, want " want; bad++ } }
    END { exit bad > 0 }' || { echo "FAIL: times are not seconds from the start"; fail=1; }

# Two traces read as one run (--force: two runs of the program): every
# region id still resolves, on its own process.
(cd "$tmp" && ECL_DIR="$tmp" ECL_PREFIX=u "$threads" 2 5 >/dev/null) || { echo "FAIL: threads"; exit 1; }
"$dump" --force "$trace" "$tmp"/u.*.ecl >"$tmp/run" 2>/dev/null
n=$(grep -c ' \(enter\|leave\) ' "$tmp/run")
named=$(grep -c ' \(enter\|leave\) region="[a-z]*"$' "$tmp/run")
procs=$(awk '{ print $2 }' "$tmp/run" | sort -u | tr '\n' ' ')
[ "$n" -gt 0 ] && [ "$n" = "$named" ] && [ "$procs" = "p0 p1 " ] ||
    { echo "FAIL: run of two traces: $named of $n regions named, processes $procs"; fail=1; }

# The same two traces merged into one (ecl-merge): the merged dictionary
# keeps the roles and references, so the names are the same, line for line.
merge="$top_builddir/ecl/tools/ecl-merge"
if [ -x "$merge" ]; then
    # (status 2: two runs, no MPI ranks -- warned about, merged as asked)
    "$merge" -q -f -o "$tmp/merged.ecl" "$trace" "$tmp"/u.*.ecl 2>/dev/null
    [ -s "$tmp/merged.ecl" ] || { echo "FAIL: ecl-merge wrote nothing"; fail=1; }
    "$dump" "$tmp/merged.ecl" | grep ' \(enter\|leave\) ' |
        sed 's/ process=[0-9]* thread=[0-9]*//' | awk '{ $1 = ""; print }' >"$tmp/m1"
    grep ' \(enter\|leave\) ' "$tmp/run" | awk '{ $1 = ""; print }' >"$tmp/m2"
    cmp -s "$tmp/m1" "$tmp/m2" ||
        { echo "FAIL: the merged trace names regions otherwise than the run"; diff "$tmp/m2" "$tmp/m1" | head; fail=1; }
else
    echo "note: $merge is not built; the merged trace is not checked"
fi

[ "$fail" = 0 ] && echo "names: all checks passed"
exit $fail
