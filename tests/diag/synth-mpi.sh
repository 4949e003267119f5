#!/bin/sh
# synth-mpi.sh -- pal-view --what-if SPEC -o on the MPI examples (4 ranks
# under a real mpirun, traced by ECL; doc/diagnosis.md, "The predicted run
# as a trace"):
# - with the network measured from the trace (net), the replay gives the
#   run back, and so does the trace written: pal-dump of it is pal-dump of
#   the input, record for record;
# - with an ideal network the trace written measures what --what-if
#   predicted, rank by rank (within 10 us: replayed again, a collective's
#   waits are resolved anew); it has no network time left (--what-if ideal
#   on it gains at most 0.1 %: what remains are waits the replay could not
#   tie to a late call, kept as recorded); its messages are matched as the
#   input's are; pal-view --waits, --html and the OTF2 export read it.
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
    awk -v a="$m" -v b="$q" 'BEGIN { exit !(a != "" && b != "" && a - b <= 1e-3 * a) }' ||
        fail "$ex: an ideal network still gains $m - $q s on the ideal trace"
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $4 }' "$tmp/ideal.txt" | sort > "$tmp/x"
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $3 }' "$tmp/again.txt" | sort > "$tmp/y"
    [ -s "$tmp/x" ] && paste "$tmp/x" "$tmp/y" | awk '{ d = $3 - $6; if (d < 0) d = -d
        if ($1 != $4 || $2 != $5 || d > 1e-5) bad = 1 } END { exit bad }' ||
        { diff "$tmp/x" "$tmp/y"; fail "$ex: per-rank times differ from the prediction by more than 10 us"; }
    "$pv" "$tmp/trace.ecl" | grep '^Messages' > "$tmp/m0"
    "$pv" "$tmp/ideal.ecl" | grep '^Messages' > "$tmp/m1"
    cmp -s "$tmp/m0" "$tmp/m1" || fail "$ex: messages $(cat "$tmp/m1"), the run's $(cat "$tmp/m0")"
    "$pv" --waits "$tmp/ideal.ecl" > /dev/null || fail "$ex: --waits on the trace written"
    "$pv" --html "$tmp/r.html" "$tmp/ideal.ecl" || fail "$ex: --html on the trace written"
    if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
        "$pv" --export otf2 -o "$tmp/otf2" "$tmp/ideal.ecl" || fail "$ex: OTF2 export of the trace written"
    fi
done
echo PASS
