#!/bin/sh
# samples.sh -- the shipped descriptors describe their samples: every line or
# record is recognised by the bind descriptor and well formed, and the number
# of records of each type equals what awk computes independently from the
# keys. Uses the real PICL traces in ../shared/data/picl when they exist (the
# committed excerpts under tests/edl/samples always), and the log of
# examples/toymp/toymp-ring for toymp.edl.
. "$top_srcdir/tests/edl/common.sh"

# walk DESCRIPTOR TRACE EXPECTED: edl-walk's counts must equal EXPECTED.
walk()
{
    "$WALK" "$1" "$2" >"$TMP/got" 2>"$TMP/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        failed "$(basename "$2"): edl-walk exit status $rc"
        head -5 "$TMP/err"
    fi
    sort "$TMP/got" >"$TMP/got.sorted"
    sort "$3" >"$TMP/want.sorted"
    if diff -u "$TMP/want.sorted" "$TMP/got.sorted"; then
        echo "ok: $(basename "$2"): $(awk '$1 != "unknown" && $1 != "errors" {n += $2} END {print n}' "$TMP/got") records"
    else
        failed "$(basename "$2"): counts differ"
    fi
}

# PICL 2.0: the record a line is, from its rectype and event, per PICL.md.
picl_counts()
{
    awk '
    BEGIN {
        m["-3 -901"] = "trace_start";  m["-4 -901"] = "trace_exit"
        m["-2 -904"] = "trace_level";  m["-2 -12"] = "close"
        m["-3 -21"] = "send_begin";    m["-4 -21"] = "send_end"
        m["-3 -22"] = "bsend_begin";   m["-4 -22"] = "bsend_end"
        m["-3 -27"] = "isend_begin";   m["-4 -27"] = "isend_end"
        m["-3 -51"] = "recv_begin";    m["-4 -51"] = "recv_end"
        m["-3 -52"] = "recv_blocked_begin"; m["-4 -52"] = "recv_blocked_end"
        m["-3 -402"] = "barrier_begin"; m["-4 -402"] = "barrier_end"
        m["-3 -785"] = "bcast_begin";  m["-4 -785"] = "bcast_end"
        s["-101"] = "stat_time"; s["-102"] = "stat_count"; s["-103"] = "stat_send_volume"
        s["-104"] = "stat_recv_volume"; s["-105"] = "stat_size_volume"
        s["-3"] = "begin"; s["-4"] = "end"; s["-2"] = "mark"
    }
    NF == 0 { next }
    {
        # well formed: 6 tokens and ndata = 0, or 7 + ndata * k tokens
        k = 1
        if (NF > 6 && $7 ~ /^"/) { k = gsub(/%/, "%", $7) }
        if (!((NF == 6 && $6 == 0) || NF == 7 + $6 * k)) { bad++ }
        key = $1 " " $2
        r = (key in m) ? m[key] : ($1 in s) ? s[$1] : "event"
        n[r]++
    }
    END {
        for (r in n) print r, n[r]
        print "unknown 0"
        print "errors", bad + 0
    }' "$1"
}

picl_dir=$top_srcdir/../shared/data/picl
set -- "$SRC"/samples/*.ttf
if [ -d "$picl_dir" ]; then
    set -- "$@" "$picl_dir"/*.ttf
else
    echo "note: $picl_dir not found; only the committed excerpts are walked"
fi
for t in "$@"; do
    picl_counts "$t" >"$TMP/want"
    walk "$FORMATS/picl.edl" "$t" "$TMP/want"
done

# Old compact PICL: the record from the key (first token).
awk '
BEGIN {
    split("trace_start open - send probe recv recv_blocking recv_waking message sync " \
          "compstats commstats close trace_level trace_mark - trace_stop trace_flush " \
          "trace_exit block_begin block_end trace_mark_array clock_sync trace_files", m, " ")
}
NF == 0 { next }
{ r = ($1 in m && m[$1] != "-") ? m[$1] : "unknown"; n[r]++ }
END { for (r in n) print r, n[r]; print "unknown 0"; print "errors 0" }' \
    "$SRC/samples/ring4.picl1" >"$TMP/want"
walk "$FORMATS/picl1.edl" "$SRC/samples/ring4.picl1" "$TMP/want"

# The tutorial's CSV log (after its header line and comments) and binary stream.
awk -F, 'NR > 1 && NF && !/^#/ {
    r = ($4 ~ /^(start|enter|leave|send|recv|sample)$/) ? $4 : "note"; n[r]++ }
    END { for (r in n) print r, n[r]; print "unknown 0"; print "errors 0" }' \
    "$SRC/tutorial/app.csv" >"$TMP/want"
walk "$SRC/tutorial/applog.edl" "$SRC/tutorial/app.csv" "$TMP/want"
printf 'switch 3\nirq 2\nstack 2\nunknown 0\nerrors 0\n' >"$TMP/want"
walk "$SRC/tutorial/sched.edl" "$SRC/tutorial/sched.dat" "$TMP/want"

# toymp (a format described in EDL only): the log its shipped generator
# writes; the record is the third token.
"$top_srcdir/examples/toymp/toymp-ring" 5 4 >"$TMP/ring.log" || failed "toymp-ring"
awk '!/^#/ && NF { n[$3]++ } END { for (r in n) print r, n[r]; print "unknown 0"; print "errors 0" }' \
    "$TMP/ring.log" >"$TMP/want"
walk "$FORMATS/toymp.edl" "$TMP/ring.log" "$TMP/want"
exit $fail
