#!/bin/sh
# waits.sh -- pal-view --waits on MPI programs with injected waits
# (tests/diag/lateness.c, 4 ranks under a real mpirun, traced by ECL): for
# every pattern (Late Sender on MPI_Recv and on MPI_Wait, Late Receiver on
# MPI_Ssend, Wait at Barrier, Wait at NxN on MPI_Allreduce, MPI_Allgather
# and MPI_Alltoall, Late Broadcast on MPI_Bcast and MPI_Scatter, Early Reduce
# on MPI_Reduce and MPI_Gather; the same patterns of nonblocking
# collectives, in the calls that complete them; Wait at Fence, Late Post
# and Early Wait of one-sided synchronisation (MPI_Win_wait, and MPI_Win_test
# polled until the epoch completes), Lock Contention of passive
# target locks) the seconds pal-view finds per pattern and
# call equal the waits the program injected, within 2 % plus an absolute
# slack of SLACK_MS (1 ms) per wait, for what the MPI library itself takes
# between the program's clock reading and the call's (a message's latency,
# a barrier's exit skew). The injected waits are measured by the program
# (a loaded machine oversleeps: see lateness.c) and computed by
# expect-waits.awk from the definitions; each is also at least 0.25 of the
# nominal delay (the program did inject them; no more is asserted of the
# nominal delays, which the machine's load stretches or, through the skew
# of the collective before them, shortens). Patterns a
# mode does not inject are 0 where the program makes them impossible (no
# Late Receiver when every receive is posted first, no Late Sender when
# every send is). Causes: every delay is slept in the region "delay", so
# the direct delays found for each pattern are on "delay", on the late
# ranks: all direct causes add up to the pattern's waits (2 % plus the
# slack) and "delay" has at least 3/4 of them (the rest: a late rank
# descheduled outside any region); the load
# imbalance of "delay" (max - mean over the ranks) is the program's own
# measure of its sleeps, on the rank that slept most. CSV, JSON and the
# text table give the same numbers, and so do the per-rank traces read as
# one run and the merged trace. The chain mode checks the critical path.
. "$top_srcdir/tests/mpi/common.sh"

pv=$top_builddir/views/pal-view
prog=$top_builddir/tests/diag/lateness
awkf=$top_srcdir/tests/diag/expect-waits.awk
D=${LATENESS_MS:-25}
SLACK_MS=${SLACK_MS:-1}

# got PATTERN CALL: seconds in the CSV for that pattern and innermost call
# (any: any call)
got() {
    awk -F, -v t="${3:-wait}" -v p="$1" -v c="$2" 'NR > 1 && $1 == t && $2 == p {
            n = split($5, a, "/"); if (a[n] == c || c == "any") s += $6 }
        END { printf "%.9f\n", s + 0 }' "$tmp/waits.csv"
}

# near GOT WANT WAITS: |GOT - WANT| <= 2 % of WANT + WAITS x SLACK_MS
near() {
    awk -v g="$1" -v e="$2" -v k="$3" -v s="$SLACK_MS" 'BEGIN {
        d = g - e; if (d < 0) d = -d; exit !(d <= 0.02 * e + k * s / 1000) }'
}

# jobs_same NAME [OPTION]...: the per-rank traces read in 1, 2 and 4
# threads (-j: each thread's share of the ranks analysed apart, the shares'
# wait states merged, messages between shares paired by the merge) give
# byte-identical wait states in every form, and the same what-if replay
jobs_same() {
    n=$1
    shift
    for f in text csv json; do
        "$pv" -j 1 "$@" --waits=$f "$tmp"/trace.[0-9]*.ecl > "$tmp/j1.$f" ||
            fail "$n: pal-view -j 1 $* --waits=$f"
        for j in 2 4; do
            "$pv" -j $j "$@" --waits=$f "$tmp"/trace.[0-9]*.ecl > "$tmp/j$j.$f" ||
                fail "$n: pal-view -j $j $* --waits=$f"
            cmp "$tmp/j1.$f" "$tmp/j$j.$f" || fail "$n: $* --waits=$f: -j $j differs from -j 1"
        done
    done
}

# mode MODE "PATTERN CALL NOMINAL_UNITS"... [-- ZERO_PATTERN...]
mode() {
    m=$1
    shift
    rm -f "$tmp"/*.ecl "$tmp"/lateness.*.times
    run 4 "$prog" "$m" "$D"
    cat "$tmp"/lateness.*.times | awk -f "$awkf" > "$tmp/expect" || fail "expect-waits.awk"
    "$pv" --waits=csv "$tmp/trace.ecl" > "$tmp/waits.csv" || fail "pal-view --waits=csv ($m)"
    jobs_same "$m"
    jobs_same "$m" --what-if net,scale:delay=0
    echo "== $m: expected (pattern call seconds waits)"
    cat "$tmp/expect"
    echo "== $m: pal-view --waits=csv"
    cat "$tmp/waits.csv"
    zero=0
    for spec in "$@"; do
        if [ "$spec" = -- ]; then
            zero=1
            continue
        fi
        if [ $zero = 1 ]; then
            g=$(awk -F, -v p="$spec" 'NR > 1 && $1 == "wait" && $2 == p { s += $6 }
                END { printf "%.9f\n", s + 0 }' \
                "$tmp/waits.csv")
            awk -v g="$g" -v s="$SLACK_MS" 'BEGIN { exit !(g <= s / 1000) }' ||
                fail "$m: $spec is $g s, expected 0"
            continue
        fi
        set -- $spec
        line=$(awk -v p="$1" -v c="$2" '$1 == p && $2 == c' "$tmp/expect")
        [ -n "$line" ] || fail "$m: the program injected no $1 on $2"
        e=$(echo "$line" | awk '{ print $3 }')
        k=$(echo "$line" | awk '{ print $4 }')
        g=$(got "$1" "$2")
        echo "$m: $1 $2: pal-view $g s, injected $e s in $k waits, nominal $3 x $D ms"
        awk -v e="$e" -v nom="$3" -v d="$D" 'BEGIN { exit !(e >= 0.25 * nom * d / 1000) }' ||
            fail "$m: $1 on $2: the program injected $e s, under a quarter of $3 x $D ms"
        # the direct causes of the pattern's waits: the late ranks' "delay"
        w=$(awk -F, -v p="$1" 'NR > 1 && $1 == "wait" && $2 == p { s += $6 } END { printf "%.9f\n", s }' \
            "$tmp/waits.csv")
        c=$(got "$1" delay cause)
        a=$(awk -F, -v p="$1" 'NR > 1 && $1 == "cause" && $2 == p && $5 != "(no direct delay)" {
            s += $6 } END { printf "%.9f\n", s }' "$tmp/waits.csv")
        echo "$m: $1: waits $w s, caused by delay $c s, by any call path $a s"
        # Exact: the waits equal the injected delays. On a loaded machine a late
        # rank can also be descheduled outside "delay", which makes real waits
        # the program did not inject; the trace shows them as other causes, and
        # then the part of the waits caused by "delay" must equal the injected.
        if near "$g" "$e" "$k"; then
            awk -v c="$c" -v w="$w" 'BEGIN { exit !(c >= 0.75 * w) }' ||
                fail "$m: $1: causes on 'delay' $c s, waits $w s"
        elif near "$c" "$e" "$k" && awk -v g="$g" -v e="$e" 'BEGIN { exit !(g > e) }'; then
            echo "$m: $1: $g s found, more than the $e s injected: the excess has other causes than 'delay'"
        else
            fail "$m: $1 on $2: pal-view found $g s (caused by 'delay': $c s), the program injected $e s (nominal $3 x $D ms)"
        fi
        # every wait has its causes; the excess a loaded machine adds may
        # have none on the late side (a holder descheduled while it held a
        # lock, a rank held back before its call: "(no direct delay)")
        n=$(awk -F, -v p="$1" 'NR > 1 && $1 == "cause" && $2 == p { s += $6 } END { printf "%.9f\n", s }' \
            "$tmp/waits.csv")
        if near "$g" "$e" "$k"; then
            near "$a" "$w" "$k" || fail "$m: $1: direct causes $a s, waits $w s"
        else
            near "$n" "$w" "$k" || fail "$m: $1: causes $n s (direct: $a s), waits $w s"
        fi
        shift 3
    done
    # the load imbalance of "delay": max - mean over the ranks, and where
    line=$(awk '$1 == "imbalance" && $2 == "delay"' "$tmp/expect")
    e=$(echo "$line" | awk '{ print $3 }')
    er=$(echo "$line" | awk '{ print $4 }')
    g=$(awk -F, '$1 == "imbalance" && $5 == "delay" { print $6 }' "$tmp/waits.csv")
    gr=$(awk -F, '$1 == "imbalance" && $5 == "delay" { print $3 }' "$tmp/waits.csv")
    echo "$m: imbalance of delay: pal-view $g s on rank $gr, slept $e s on rank $er"
    [ -n "$g" ] && near "$g" "$e" 2 || fail "$m: imbalance of delay $g s, the program slept $e s"
    [ "$gr" = "$er" ] || fail "$m: the most delayed rank is $er, pal-view says $gr"
}

mode late-sender "late_sender MPI_Recv 6" "late_sender MPI_Wait 6" -- late_receiver
# every Late Sender wait is rank 0's (thread 1: the MPI layer's main thread)
awk -F, 'NR > 1 && $1 == "wait" && $2 == "late_sender" && $3 != 0 { bad = 1 } END { exit bad }' \
    "$tmp/waits.csv" || fail "a Late Sender wait on a rank other than 0"
# ... and caused by the senders, never by rank 0
awk -F, 'NR > 1 && $1 == "cause" && $2 == "late_sender" && $3 == 0 { bad = 1 } END { exit bad }' \
    "$tmp/waits.csv" || fail "a Late Sender wait caused by rank 0"
# the four per-rank traces read as one run give the same numbers as the
# merged trace
"$pv" --waits=csv "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl "$tmp"/trace.2.ecl "$tmp"/trace.3.ecl \
    > "$tmp/ranks.csv" || fail "pal-view --waits=csv on the per-rank traces"
cmp "$tmp/waits.csv" "$tmp/ranks.csv" || fail "the per-rank traces give other waits than the merged one"
# the text table and JSON say the same as the CSV
"$pv" --waits "$tmp/trace.ecl" > "$tmp/waits.txt" || fail "pal-view --waits"
cat "$tmp/waits.txt"
t=$(awk '$1 == "late_sender" && NF == 3 { print $2; exit }' "$tmp/waits.txt")
c=$(awk -F, 'NR > 1 && $1 == "wait" && $2 == "late_sender" { s += $6 } END { printf "%.6f\n", s }' \
    "$tmp/waits.csv")
[ "$t" = "$c" ] || fail "text total $t, CSV total $c"
"$pv" --waits=json "$tmp/trace.ecl" > "$tmp/waits.json" || fail "pal-view --waits=json"
if command -v python3 >/dev/null; then
    j=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.6f" % sum(w["seconds"] for w in d["waits"] if w["pattern"]=="late_sender"))' "$tmp/waits.json") ||
        fail "the JSON does not parse"
    [ "$j" = "$c" ] || fail "JSON total $j, CSV total $c"
fi
# a trace cut in the middle: the tables, a message, exit status 2
size=$(wc -c < "$tmp/trace.ecl")
head -c $((size * 2 / 3)) "$tmp/trace.ecl" > "$tmp/cut.ecl"
"$pv" --waits "$tmp/cut.ecl" > "$tmp/cut.txt" 2>"$tmp/err"
st=$?
[ $st = 2 ] || fail "--waits on a cut trace: exit status $st, expected 2"
grep -q '^Wait states' "$tmp/cut.txt" || fail "--waits on a cut trace wrote no table"
grep -q "^pal-view: .*cut.ecl" "$tmp/err" || fail "--waits on a cut trace: no message naming the file"
"$pv" --waits "$tmp/none.ecl" 2>"$tmp/err" && fail "--waits on a missing trace succeeded"
grep -q "^pal-view: .*none.ecl" "$tmp/err" || fail "no message for a missing trace"
"$pv" --waits=xml "$tmp/trace.ecl" 2>"$tmp/err" && fail "--waits=xml accepted"
grep -q "pal-view: --waits: expected text, csv or json, got 'xml'" "$tmp/err" || fail "no message for --waits=xml"

mode late-receiver "late_receiver MPI_Ssend 3" -- late_sender
# gains MODE: what-if without the delays: every rank waited (at last) for
# the most delayed rank, so the run gains that rank's delay as the program
# measured it
gains() {
    "$pv" --what-if scale:delay=0 "$tmp/trace.ecl" > "$tmp/whatif.txt" ||
        fail "$1: --what-if scale:delay=0"
    cat "$tmp/whatif.txt"
    gain=$(awk '/^  gain / { print $2 }' "$tmp/whatif.txt")
    most=$(cat "$tmp"/lateness.*.times | awk '$3 == "slept" { s[$4] += $5 } END { for (r in s) if (s[r] > m) m = s[r]; printf "%.9f\n", m }')
    echo "$1: what-if scale:delay=0 gains $gain s, the most delayed rank slept $most s"
    # On a loaded machine a rank can also be late for other reasons
    # (descheduled outside "delay"): the trace shows that lateness as other
    # causes of the waits, and it stays after the what-if, so the gain may be
    # less by up to that much, never more than the delay.
    other=$(awk -F, 'NR > 1 && $1 == "cause" && $5 != "delay" { s += $6 }
        END { printf "%.9f\n", s }' "$tmp/waits.csv")
    near "$gain" "$most" 2 ||
        awk -v g="$gain" -v m="$most" -v o="$other" -v s="$SLACK_MS" \
            'BEGIN { exit !(g <= m + 2 * s / 1000 && g >= m - o - 2 * s / 1000) }' ||
        fail "$1: what-if scale:delay=0 gains $gain s, not $most s (other causes of the waits: $other s)"
}
mode barrier "wait_barrier MPI_Barrier 6"
gains barrier
mode nxn "wait_nxn MPI_Allreduce 6" "wait_nxn MPI_Allgather 6" "wait_nxn MPI_Alltoall 6"
mode bcast "late_broadcast MPI_Bcast 3" "late_broadcast MPI_Scatter 6"
mode reduce "early_reduce MPI_Reduce 1" "early_reduce MPI_Gather 1"
# the root's result needs every member: the critical path leaves the root's
# call for the last member, so the 2 D (and more) the root waited for the
# later members after the first are not the call's on the path: at most
# what is left of the root's call after the last member arrived (its
# duration in the trace less last arrival - root's arrival, as the program
# measured them; under D unless the loaded machine held the root back), plus
# the longest call of another member (a member's own call is its time: a
# loaded machine may hold one back, and the path may then go through it),
# plus the slack
for c in MPI_Reduce:0 MPI_Gather:3; do
    root=${c#*:}
    c=${c%:*}
    type=$(echo "$c" | tr 'A-Z' 'a-z')
    g=$(awk -F, -v c=$c '$1 == "critical_path" && $5 == c { s += $6 } END { printf "%.9f\n", s }' \
        "$tmp/waits.csv")
    dur=$("$top_builddir/pal/pal-dump" --type "$type" -p "$root" "$tmp/trace.ecl" |
        awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^duration=/) { sub(/duration=/, "", $i); print $i / 1e9; exit } }')
    left=$(cat "$tmp"/lateness.*.times | awk -v c="$c#0" -v d="${dur:-0}" '$1 == "early_reduce" && $2 == c {
            if ($3 == "root") r = $5; else if ($5 > m) m = $5 }
        END { printf "%.9f\n", d - (m - r) }')
    others=0
    for p in 0 1 2 3; do
        [ "$p" = "$root" ] && continue
        d=$("$top_builddir/pal/pal-dump" --type "$type" -p "$p" "$tmp/trace.ecl" |
            awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^duration=/) { sub(/duration=/, "", $i); print $i / 1e9; exit } }')
        others=$(awk -v a="$others" -v b="${d:-0}" 'BEGIN { printf "%.9f\n", (b > a ? b : a) }')
    done
    echo "reduce: $c has $g s of the critical path; its root's call went on $left s after the last arrival; another member's longest call: $others s"
    [ -n "$dur" ] || fail "reduce: no $type record of rank $root"
    awk -v g="$g" -v l="$left" -v o="$others" -v s="$SLACK_MS" 'BEGIN { exit !(g <= l + o + s / 1000) }' ||
        fail "reduce: $c has $g s of the critical path, more than the $left s of its root's call after the last arrival and the $others s of another member's call"
done

# nonblocking collectives: the waits are in the calls that complete them
mode nbc "wait_nxn MPI_Wait 6" "wait_nxn MPI_Waitall 6" "wait_barrier MPI_Wait 6" \
    "late_broadcast MPI_Wait 3" "early_reduce MPI_Waitall 1"
# ... and none in the calls that start them
for c in MPI_Iallreduce MPI_Iallgather MPI_Ibarrier MPI_Ibcast MPI_Ireduce; do
    g=$(awk -F, -v c=$c '$1 == "wait" { n = split($5, a, "/"); if (a[n] == c) s += $6 }
        END { printf "%.9f\n", s }' "$tmp/waits.csv")
    near "$g" 0 1 || fail "nbc: $g s of waits in $c, which only starts the collective"
done

# one-sided synchronisation: fences, and general active target epochs
# whose post is late (the wait is in MPI_Win_start or MPI_Win_complete, as
# the MPI library blocks: any call) or whose wait is early
mode rma "wait_fence MPI_Win_fence 6" "late_post any 3" "early_wait MPI_Win_wait 3"
# passive target locks: exclusive requests wait for the holder's unlock (in
# MPI_Win_lock or MPI_Win_unlock, as the library blocks: any call); shared
# ones, which the program also makes while rank 0 holds a shared lock and
# sleeps, do not (the lock type of each MPI_Win_lock, role lock_type)
# MPI_Win_test loops: the target polls until its exposure epoch completes;
# Early Wait from its first test to the completing one, as MPI_Win_wait
mode wintest "early_wait MPI_Win_test 3"
mode lock "lock_contention any 3"
# the replay waits in each lock for the holder's unlock: without rank 0's
# delays the exclusive requests do not wait either
gains lock

# The critical path of the dependency chain: every rank's "crit" (2 x D
# each, as the program measured its sleeps) and none of the "side" work
# that the waiting hides; each rank's share at least its own "crit"; the
# whole path no shorter than the chain.
rm -f "$tmp"/*.ecl "$tmp"/lateness.*.times
run 4 "$prog" chain "$D"
cat "$tmp"/lateness.*.times | awk -f "$awkf" > "$tmp/expect" || fail "expect-waits.awk"
"$pv" --waits=csv "$tmp/trace.ecl" > "$tmp/waits.csv" || fail "pal-view --waits=csv (chain)"
jobs_same chain
jobs_same chain --what-if scale:crit=0.5
grep '^critical' "$tmp/waits.csv"
cat "$tmp/expect"
e=$(awk '$1 == "slept" && $2 == "crit" { print $3 }' "$tmp/expect")
g=$(awk -F, '$1 == "critical_path" && $5 == "crit" { print $6 }' "$tmp/waits.csv")
echo "chain: crit on the critical path: pal-view ${g:-none} s, slept $e s"
[ -n "$g" ] && near "$g" "$e" 4 || fail "chain: crit on the critical path ${g:-none} s, slept $e s"
g=$(awk -F, '$1 == "critical_path" && $5 == "side" { s += $6 } END { printf "%.9f\n", s }' "$tmp/waits.csv")
near "$g" 0 1 || fail "chain: side on the critical path: $g s"
len=$(awk -F, '$1 == "critical_length" { print $6 }' "$tmp/waits.csv")
awk -v l="$len" -v e="$e" 'BEGIN { exit !(l >= e) }' || fail "chain: critical path $len s < crit $e s"
sum=$(awk -F, '$1 == "critical_path" { s += $6 } END { printf "%.9f\n", s }' "$tmp/waits.csv")
near "$sum" "$len" 1 || fail "chain: the call paths' shares add up to $sum s, the path is $len s"
for r in 0 1 2 3; do
    own=$(awk -v r=$r '$3 == "slept" && $1 == "crit" && $4 == r { print $5 }' "$tmp"/lateness.$r.times)
    got=$(awk -F, -v r=$r '$1 == "critical_rank" && $3 == r { s += $6 } END { printf "%.9f\n", s }' \
        "$tmp/waits.csv")
    awk -v g="$got" -v o="$own" -v s="$SLACK_MS" 'BEGIN { exit !(g >= 0.98 * o - s / 1000) }' ||
        fail "chain: rank $r has $got s on the critical path, less than its crit $own s"
done
# What-if replay of the chain: replayed as recorded it is the measured run
# (within 1 %); "ideal" MPI is never longer; halving "crit" gains half of
# every rank's crit, as the program measured it (the chain waits for each
# crit in turn, and the side work, D/2, stays hidden behind the halved
# crit of D)
whatif() {
    "$pv" --what-if "$1" "$tmp/trace.ecl" > "$tmp/whatif.txt" || fail "pal-view --what-if $1"
    cat "$tmp/whatif.txt"
}
field() { awk -v f="$1" '$0 ~ "^  " f " " { print $(NF - 1); exit }' "$tmp/whatif.txt"; }
whatif scale:crit=1
meas=$(field measured)
rec=$(field "replayed as recorded")
pred=$(field predicted)
near "$rec" "$meas" 0 || awk -v a="$rec" -v b="$meas" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b) }' ||
    fail "what-if: replayed as recorded $rec s, measured $meas s"
[ "$pred" = "$rec" ] || fail "what-if scale:crit=1 predicts $pred s, not the replayed $rec s"
whatif ideal
pred=$(field predicted)
awk -v p="$pred" -v r="$rec" 'BEGIN { exit !(p <= r) }' || fail "what-if ideal: $pred s > $rec s"
# the network model: the trace's own parameters give the replay back; a
# latency 10 ms longer than measured lengthens the run by 10 ms per link of
# the chain (3 messages) and per tree level of each barrier (2 barriers of
# 4 ranks, log2 4 = 2 levels): 70 ms
whatif net
[ "$(field predicted)" = "$rec" ] || fail "what-if net (measured network) predicts $(field predicted) s, not $rec s"
L=$(awk '/network measured from/ { sub(/.*L = /, ""); print $1 + 0; exit }' "$tmp/whatif.txt")
n=$(awk '/network measured from/ { print $4; exit }' "$tmp/whatif.txt")
[ "$n" = 3 ] || fail "what-if: the network measured from $n messages, expected the chain's 3"
L2=$(awk -v l="$L" 'BEGIN { printf "%.9f\n", l + 0.010 }')
whatif "net:L=$L2"
gain=$(field gain)
echo "what-if net:L=$L2 (measured $L s + 10 ms): gain $gain s, expected -0.070 s"
near "$(awk -v g="$gain" 'BEGIN { printf "%.9f\n", -g }')" 0.070 1 ||
    fail "what-if net:L=$L2 gains $gain s, expected -0.070 s"
"$pv" --what-if net:L=fast "$tmp/trace.ecl" 2>"$tmp/err" && fail "--what-if net:L=fast accepted"
grep -q "pal-view: --what-if: bad value in 'net:L=fast'" "$tmp/err" || fail "no message for net:L=fast"
whatif scale:crit=0.5
gain=$(field gain)
half=$(awk '$1 == "slept" && $2 == "crit" { printf "%.9f\n", $3 / 2 }' "$tmp/expect")
echo "what-if scale:crit=0.5: gain $gain s, half of crit $half s"
near "$gain" "$half" 4 || fail "what-if scale:crit=0.5 gains $gain s, half of crit is $half s"
"$pv" --what-if scale:crit "$tmp/trace.ecl" 2>"$tmp/err" && fail "--what-if scale:crit accepted"
grep -q "pal-view: --what-if: bad item 'scale:crit'" "$tmp/err" || fail "no message for a bad --what-if"
echo "PASS"
