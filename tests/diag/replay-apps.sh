#!/bin/sh
# replay-apps.sh -- pal-view --what-if on application-shaped runs (issue
# 20: the replay with the trace's own parameters reproduces the measured
# run within 5 %, and an ideal network is never longer): bench/bench_cg
# (NPB CG's communication: row sums and transpose exchanges, Allreduce of
# the dot products; class S, 5 iterations) at 4 processes and
# bench/bench_lulesh (LULESH 2.0's shape: halo Isend/Irecv/Waitall with 7
# neighbours, an Allreduce per iteration; 50 iterations) at 8, under a real
# mpirun and traced by ECL. The traces are checked to hold the programs'
# communication (exact message and collective counts) and CG's answer to
# equal that of one process. The replay re-times recorded times, so it
# does not depend on the machine's load; nothing else is timed.
. "$top_srcdir/tests/mpi/common.sh"

pv=$top_builddir/views/pal-view
cg=$top_builddir/bench/bench_cg
lulesh=$top_builddir/bench/bench_lulesh
[ -x "$cg" ] && [ -x "$lulesh" ] || fail "bench_cg or bench_lulesh not built (make check builds them)"
# eight ranks on few cores: ranks that wait give their core away
OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_mpi_yield_when_idle

# replay NAME TRACE RANKS: --what-if net within 5 % of the measured run,
# and every rank's lane within 5 % of its recorded length, both taken
# without MPI_Init (the run's: the longest of any rank; a lane's: its
# rank's), which would otherwise make up most of a short run; ideal no
# longer than measured; a lane per rank
replay() {
    "$pv" --what-if net --waits=json "$2" > "$tmp/net.json" || fail "$1: --what-if net"
    "$pv" --what-if ideal --waits=json "$2" > "$tmp/ideal.json" || fail "$1: --what-if ideal"
    "$pv" --export csv "$2" > "$tmp/prof.csv" || fail "$1: --export csv"
    m=$(sed -n '1s/.*"measured":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    p=$(sed -n '1s/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    i=$(sed -n '1s/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/ideal.json")
    init=$(awk -F, '$1 == "region" && $4 == "MPI_Init" && $7 > t { t = $7 } END { print t + 0 }' "$tmp/prof.csv")
    echo "$1: measured $m s (MPI_Init up to $init s), replayed with the measured network $p s, ideal $i s"
    [ -n "$m" ] && [ -n "$p" ] && [ -n "$i" ] || fail "$1: no measured or predicted time in the JSON"
    awk -v m="$m" -v p="$p" -v s="$init" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(m > s && s > 0 && d <= 0.05 * (m - s)) }' ||
        fail "$1: replayed $p s, measured $m s: more than 5 % of the $m - $init s after MPI_Init apart"
    awk -v m="$m" -v i="$i" 'BEGIN { exit !(i <= m) }' || fail "$1: ideal $i s > measured $m s"
    lanes=$(grep -c '^{"rank":' "$tmp/net.json")
    [ "$lanes" = "$3" ] || fail "$1: $lanes lanes in the replay, $3 ranks ran"
    awk -F, '$1 == "region" && $4 == "MPI_Init" { print $2, $7 }' "$tmp/prof.csv" > "$tmp/init.txt"
    awk -F'[:,}]' 'FNR == NR { init[$1] = $2; next } /^{"rank":/ {
        s = init[$2]; d = $8 - $6; if (d < 0) d = -d
        if (!(s > 0 && $6 > s && d <= 0.05 * ($6 - s))) {
            print "rank " $2 ": recorded " $6 " s (MPI_Init " s " s), replayed " $8 " s"; bad = 1
        }
    } END { exit bad }' FS=' ' "$tmp/init.txt" FS='[:,}]' "$tmp/net.json" ||
        fail "$1: a rank's replayed length is more than 5 % of its time after MPI_Init off"
}
# counts NAME TRACE SENDS ALLREDUCES: the profile's messages and instances
counts() {
    "$pv" "$2" > "$tmp/profile.txt" || fail "$1: profile"
    grep -q "^Messages: $3 sends, $3 receives, $3 matched$" "$tmp/profile.txt" ||
        fail "$1: expected $3 matched messages: $(grep '^Messages' "$tmp/profile.txt")"
    n=$(awk '/^Collectives/ { c = 1 } c && $1 == "MPI_Allreduce" { print $2; exit }' "$tmp/profile.txt")
    [ "$n" = "$4" ] || fail "$1: $n MPI_Allreduce instances, expected $4"
}
zeta() { sed -n 's/^bench_cg: zeta \([0-9.e+-]*\), .*, verified$/\1/p' "$tmp/out"; }

ECL_PREFIX=one
export ECL_PREFIX
run 1 "$cg" -c S -i 5
z1=$(zeta)
[ -n "$z1" ] || fail "bench_cg on 1 process: not verified"
ECL_PREFIX=cg
run 4 "$cg" -c S -i 5
z4=$(zeta)
[ -n "$z4" ] || fail "bench_cg on 4 processes: not verified"
awk -v a="$z1" -v b="$z4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-12 * a) }' ||
    fail "bench_cg: zeta $z4 on 4 processes, $z1 on 1"
# 5 solves of 26 products: a row-sum exchange per rank (2 x 2 grid) and a
# transpose exchange on the 2 ranks off the diagonal; Allreduce: per solve
# 1 + 2 x 25 + 1, and 1 for the norms
counts cg "$tmp/cg.ecl" 780 265
replay cg-4 "$tmp/cg.ecl" 4

ECL_PREFIX=lulesh
run 8 "$lulesh" -r 200000 -i 50
# 2 x 2 x 2 ranks, 7 neighbours each, 3 exchanges per iteration
counts lulesh "$tmp/lulesh.ecl" 8400 50
replay lulesh-8 "$tmp/lulesh.ecl" 8
echo PASS
