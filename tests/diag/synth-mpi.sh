#!/bin/sh
# synth-mpi.sh -- pal-view --what-if SPEC -o on the MPI examples (4 ranks
# under a real mpirun, traced by ECL; doc/diagnosis.md, "The predicted run
# as a trace"):
# - with the network measured from the trace (net), the replay gives the
#   run back, and so does the trace written: pal-dump of it is pal-dump of
#   the input, record for record;
# - with an ideal network the trace written measures what --what-if
#   predicted, rank by rank (within 0.01 % + 10 us: replayed again, a collective's
#   waits are resolved anew); --what-if ideal on it is not longer (to
#   0.01 % + 10 us, as its waits are resolved anew; what it still gains are
#   waits the first replay could not tie to a late call and kept as
#   recorded: printed, not asserted, as it depends on the run's timing;
#   tests/diag/synth.sh checks that an ideal trace has no MPI time left
#   where every wait is tied); its messages are matched as the
#   input's are; pal-view --waits, --html and the OTF2 export read it;
# - --predict 8 -o from runs of ring and halo at 2 and 4 ranks: a trace of
#   8 ranks with twice the 4-rank run's messages, all matched, time in
#   order on every stream; the same for split at 4 and 8 ranks to 16
#   (sub-communicators, an intercommunicator and a rooted broadcast in
#   each copy).
. "$top_srcdir/tests/mpi/common.sh"

pv=$top_builddir/views/pal-view
num() { awk -v k="$2" 'index($0, "  " k) == 1 { sub("^  " k " *", ""); print $1; exit }' "$1"; }
for ex in ring p2p halo collectives onesided matched master_worker; do
    [ -x "$top_builddir/examples/mpi/$ex" ] || fail "no example $ex"
    rm -rf "$tmp"/*.ecl "$tmp/otf2"
    run 4 "$top_builddir/examples/mpi/$ex"
    "$pv" --what-if net -o "$tmp/net.ecl" "$tmp/trace.ecl" > "$tmp/net.txt" || fail "$ex: --what-if net -o"
    "$paldump" "$tmp/trace.ecl" > "$tmp/a.txt" || fail "$ex: pal-dump of the trace"
    "$paldump" "$tmp/net.ecl" > "$tmp/b.txt" || fail "$ex: pal-dump of the trace written"
    cmp -s "$tmp/a.txt" "$tmp/b.txt" || { diff "$tmp/a.txt" "$tmp/b.txt" | head; fail "$ex: the run replayed with its own network, written, differs from the run"; }
    "$pv" --what-if ideal -o "$tmp/ideal.ecl" "$tmp/trace.ecl" > "$tmp/ideal.txt" || fail "$ex: --what-if ideal -o"
    "$pv" --what-if ideal "$tmp/ideal.ecl" > "$tmp/again.txt" || fail "$ex: --what-if ideal on the trace written"
    p=$(num "$tmp/ideal.txt" predicted)
    m=$(num "$tmp/again.txt" measured)
    q=$(num "$tmp/again.txt" predicted)
    echo "$ex: ideal predicted $p s; the trace written measures $m s, ideal again $q s"
    awk -v a="$p" -v b="$m" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-6) }' ||
        fail "$ex: predicted $p s, the trace written measures $m s"
    awk -v a="$m" -v b="$q" 'BEGIN { exit !(a != "" && b != "" && b <= a * 1.0001 + 1e-5) }' ||
        fail "$ex: an ideal network makes the ideal trace longer: $q s, $m s"
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $4 }' "$tmp/ideal.txt" | sort > "$tmp/x"
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $3 }' "$tmp/again.txt" | sort > "$tmp/y"
    [ -s "$tmp/x" ] && paste "$tmp/x" "$tmp/y" | awk '{ d = $3 - $6; if (d < 0) d = -d
        if ($1 != $4 || $2 != $5 || d > 1e-5 + 1e-4 * $3) bad = 1 } END { exit bad }' ||
        { diff "$tmp/x" "$tmp/y"; fail "$ex: per-rank times differ from the prediction by more than 0.01 % + 10 us"; }
    "$pv" "$tmp/trace.ecl" | grep '^Messages' > "$tmp/m0"
    "$pv" "$tmp/ideal.ecl" | grep '^Messages' > "$tmp/m1"
    cmp -s "$tmp/m0" "$tmp/m1" || fail "$ex: messages $(cat "$tmp/m1"), the run's $(cat "$tmp/m0")"
    "$pv" --waits "$tmp/ideal.ecl" > /dev/null || fail "$ex: --waits on the trace written"
    "$pv" --html "$tmp/r.html" "$tmp/ideal.ecl" || fail "$ex: --html on the trace written"
    if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
        "$pv" --export otf2 -o "$tmp/otf2" "$tmp/ideal.ecl" || fail "$ex: OTF2 export of the trace written"
    fi
done
# --predict -o from runs at two sizes: twice the larger's ranks, twice its
# messages, every one matched, time in order on every stream; split's
# sub-communicators, intercommunicator and rooted broadcast moved per copy
for set in "ring 2 4" "halo 2 4" "split 4 8"; do
    set -- $set
    ex=$1 a=$2 b=$3 N=$(($3 * 2))
    rm -rf "$tmp"/*.ecl "$tmp/r2" "$tmp/r4"
    run "$a" "$top_builddir/examples/mpi/$ex"
    mkdir "$tmp/r2" && mv "$tmp"/*.ecl "$tmp/r2/" || fail "$ex: no trace at $a ranks"
    run "$b" "$top_builddir/examples/mpi/$ex"
    mkdir "$tmp/r4" && mv "$tmp"/*.ecl "$tmp/r4/" || fail "$ex: no trace at $b ranks"
    "$pv" --predict $N -o "$tmp/s8.ecl" "$tmp/r2/trace.ecl" "$tmp/r4/trace.ecl" > "$tmp/pred.txt" ||
        fail "$ex: --predict $N -o"
    "$pv" "$tmp/s8.ecl" > "$tmp/s8.txt" || fail "$ex: profile of the synthesized run"
    grep -q " ranks $N, " "$tmp/s8.txt" || fail "$ex: the synthesized run has not $N ranks"
    n4=$("$pv" "$tmp/r4/trace.ecl" | sed -n 's/^Messages: \([0-9]*\) sends.*/\1/p')
    msg=$(grep '^Messages' "$tmp/s8.txt")
    echo "$ex at $N ranks: $msg (the $b-rank run: $n4 sends)"
    [ "$msg" = "Messages: $((2 * n4)) sends, $((2 * n4)) receives, $((2 * n4)) matched" ] ||
        fail "$ex: $msg; $((2 * n4)) sends, all matched, expected"
    if [ "$ex" = split ]; then
        # the second copy's first half of the world broadcasts from its own rank 8
        "$paldump" "$tmp/s8.ecl" > "$tmp/d.txt"
        grep -q 'p9 s1 mpi_bcast .* root=8 ' "$tmp/d.txt" || fail "split: the copy's broadcast root not moved"
        grep -q 'p9 s0 mpi_comm .* inter=1 ranks="15 13 11 9" remote="14 12 10 8"' "$tmp/d.txt" ||
            fail "split: the copy's intercommunicator not moved"
    fi
    "$paldump" "$tmp/s8.ecl" | awk '{ k = $2 " " $3; if (k in last && $1 < last[k]) { print "time goes back: " $0; bad = 1 } last[k] = $1 }
         END { exit bad }' || fail "$ex: the synthesized run: time goes back on a stream"
    "$pv" --what-if net "$tmp/s8.ecl" > "$tmp/s8w.txt" || fail "$ex: --what-if on the synthesized run"
    sed -n 2,4p "$tmp/s8w.txt"
    grep '^Run length' "$tmp/pred.txt"
done
echo PASS
