#!/bin/sh
# replay.sh -- pal-view --what-if on the MPI examples (4 ranks under a real
# mpirun, traced by ECL): replayed with the network parameters measured
# from the trace itself (--what-if net) each run is predicted within 5 %
# of its measured length (the replay's tolerance, doc/diagnosis.md), and
# with an ideal network (--what-if ideal) never longer than measured;
# the JSON says the same as the text; the per-rank traces read in 1, 2 and
# 4 threads (-j) give byte-identical replays and wait states.
. "$top_srcdir/tests/mpi/common.sh"

pv=$top_builddir/views/pal-view
for ex in ring p2p halo collectives onesided matched master_worker; do
    [ -x "$top_builddir/examples/mpi/$ex" ] || fail "no example $ex"
    rm -f "$tmp"/*.ecl
    run 4 "$top_builddir/examples/mpi/$ex"
    "$pv" --what-if net --waits=json "$tmp/trace.ecl" > "$tmp/net.json" || fail "$ex: --what-if net"
    "$pv" --what-if ideal --waits=json "$tmp/trace.ecl" > "$tmp/ideal.json" || fail "$ex: --what-if ideal"
    m=$(sed -n 's/.*"measured":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    p=$(sed -n 's/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    i=$(sed -n 's/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/ideal.json")
    echo "$ex: measured $m s, replayed with the measured network $p s, ideal $i s"
    [ -n "$m" ] && [ -n "$p" ] && [ -n "$i" ] || fail "$ex: no measured or predicted time in the JSON"
    awk -v m="$m" -v p="$p" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05 * m) }' ||
        fail "$ex: replayed $p s, measured $m s: more than 5 % apart"
    awk -v m="$m" -v i="$i" 'BEGIN { exit !(i <= m) }' || fail "$ex: ideal $i s > measured $m s"
    for opt in "--what-if net" "--what-if ideal" "--waits=csv" "--waits=json"; do
        "$pv" -j 1 $opt "$tmp"/trace.[0-9]*.ecl > "$tmp/j1" || fail "$ex: -j 1 $opt"
        for j in 2 4; do
            "$pv" -j $j $opt "$tmp"/trace.[0-9]*.ecl > "$tmp/j$j" || fail "$ex: -j $j $opt"
            cmp "$tmp/j1" "$tmp/j$j" || fail "$ex: $opt: -j $j differs from -j 1"
        done
    done
done
echo PASS
