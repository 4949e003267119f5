#!/bin/sh
# replay.sh -- table (o): the what-if replay and the prediction on
# application-shaped runs. Per round (BENCH_REPS rounds, default 7, the runs
# of a round interleaved): bench_cg (NPB CG's communication, class
# BENCH_CG_CLASS, default W) traced at 1, 2, 4 and 8 processes and
# bench_lulesh (LULESH 2.0's shape, BENCH_REPLAY_RECORDS records, default
# 2 M, over BENCH_REPLAY_ITERS iterations, default 200) at 8, each under
# mpirun --oversubscribe. On every trace `pal-view --what-if net` (the
# network measured from the trace itself) and `--what-if ideal`: the
# measured run against the replayed one (issue 20's target: within 5 %)
# and ideal <= measured. Then `pal-view --predict 8` from the round's CG
# runs at 1, 2 and 4 processes against its measured run at 8: per region
# (calls and exclusive seconds per rank: pal-view --export csv of the
# 8-process run, summed over the ranks / 8), for the regions together, for
# them without MPI_Init and MPI_Finalize, and for the run's length. Min and median
# over the rounds; the prediction's numbers depend on the machine's load
# (oversubscribed runs on few cores): they are reported, nothing fails on
# them. Exit 1 only when a program or pal-view fails.
#   sh ../bench/replay.sh      (from the build directory, after make bench)
set -u
bin=${BENCH_BIN:-bench}
pv=${PAL_VIEW:-views/pal-view}
reps=${BENCH_REPS:-7}
cls=${BENCH_CG_CLASS:-W}
records=${BENCH_REPLAY_RECORDS:-$(awk -v s="${BENCH_SCALE:-1}" 'BEGIN {printf "%d", 2000000 * s}')}
iters=${BENCH_REPLAY_ITERS:-200}
echo
echo "== (o) what-if replay and prediction: bench_cg class $cls at 1, 2, 4, 8 processes," \
    "bench_lulesh at 8 ($records records meant), $reps rounds, min / median =="
if [ ! -x "$bin/bench_cg" ] || [ ! -x "$bin/bench_lulesh" ] || [ ! -x "$pv" ]; then
    echo "n/a: $bin/bench_cg, $bin/bench_lulesh or $pv not built (make bench; they need MPI)"; exit 0
fi
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
dir=${BENCH_TMPDIR:-${TMPDIR:-/tmp}}
tmp=$(mktemp -d "$dir/bench-replay.XXXXXX") || exit 1
if [ "${BENCH_KEEP_TRACES:-0}" = 1 ]; then echo "kept in $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# mpirun NP DIR PROGRAM ARG...: one traced run into DIR (trace DIR/run.ecl)
mpi() {
    np=$1 d=$2
    shift 2
    rm -rf "$d" && mkdir -p "$d" || exit 1
    ECL_DIR="$d" ECL_PREFIX=run ${MPIRUN:-mpirun} --oversubscribe --mca mpi_yield_when_idle 1 \
        -np "$np" "$@" >"$d.out" 2>&1 || { cat "$d.out"; echo "FAIL: mpirun -np $np $*"; exit 1; }
}
# replay NAME DIR ROUND: --what-if net and ideal, one line "name round measured net ideal"
replay() {
    for m in net ideal; do
        "$pv" --what-if $m --waits=json "$2/run.ecl" >"$tmp/$m.json" ||
            { echo "FAIL: pal-view --what-if $m on $1"; exit 1; }
    done
    m=$(sed -n '1s/.*"measured":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    p=$(sed -n '1s/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/net.json")
    i=$(sed -n '1s/.*"predicted":\([0-9.e+-]*\).*/\1/p' "$tmp/ideal.json")
    [ -n "$m" ] && [ -n "$p" ] && [ -n "$i" ] || { echo "FAIL: $1: no measured or predicted time"; exit 1; }
    echo "$1 $3 $m $p $i" >>"$tmp/replay.dat"
}
: >"$tmp/replay.dat"
: >"$tmp/pred.dat"
r=1
while [ $r -le "$reps" ]; do
    for P in 1 2 4 8; do
        mpi $P "$tmp/cg$P" "$bin/bench_cg" -c "$cls"
        grep -q ', verified$' "$tmp/cg$P.out" || { cat "$tmp/cg$P.out"; echo "FAIL: bench_cg not verified"; exit 1; }
        replay "cg-$P" "$tmp/cg$P" $r
    done
    mpi 8 "$tmp/lulesh" "$bin/bench_lulesh" -r "$records" -i "$iters"
    replay lulesh-8 "$tmp/lulesh" $r
    # the prediction at 8 from 1, 2, 4, and what the run at 8 measured
    "$pv" --predict 8 --waits=csv "$tmp/cg1/run.ecl" "$tmp/cg2/run.ecl" "$tmp/cg4/run.ecl" \
        >"$tmp/pred.csv" || { echo "FAIL: pal-view --predict"; exit 1; }
    "$pv" --export csv "$tmp/cg8/run.ecl" >"$tmp/prof8.csv" || { echo "FAIL: pal-view --export csv"; exit 1; }
    len8=$(awk -v n=cg-8 -v r=$r '$1 == n && $2 == r { print $3 }' "$tmp/replay.dat")
    awk -F, -v r=$r -v len="$len8" '
        FNR == NR { if ($1 == "region") { t[$4] += $8; c[$4] += $6; all += $8 } next }
        $1 == "region" { print r, $2, $3 "," $4, $7, t[$2] / 8, $5, c[$2] / 8; seen[$2] = 1
                         if ($2 != "MPI_Init" && $2 != "MPI_Finalize") { pp += $7; pm += t[$2] / 8 } }
        $1 == "total" { print r, "(all-regions)", "-", $7, all / 8, 0, 0
                        print r, "(no-Init/Finalize)", "-", pp, pm, 0, 0 }
        $1 == "length" { print r, "(run-length)", "outside:" $3, $7, len, 0, 0 }
        END { for (n in t) if (!(n in seen)) print r, n, "(not-predicted)", 0, t[n] / 8, 0, c[n] / 8 }
    ' "$tmp/prof8.csv" "$tmp/pred.csv" >>"$tmp/pred.dat"
    r=$((r + 1))
done
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "replay with the trace's own network (--what-if net) and with an ideal one, per run:"
printf "  %-10s %21s %23s %23s %8s\n" "run" "measured s (min/med)" "net error % (min/max)" \
    "ideal/measured (min/max)" "ideal<=m"
for n in cg-1 cg-2 cg-4 cg-8 lulesh-8; do
    awk -v n=$n '$1 == n {
        m[++k] = $3; e[k] = 100 * ($4 - $3) / $3; q[k] = $5 / $3; ok += ($5 <= $3)
    }
    function srt(a, i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
    function med(a) { return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    END {
        srt(m); srt(e); srt(q)
        printf "  %-10s %10.3f %10.3f %11.4f %11.4f %11.4f %11.4f %5d/%d\n", n, m[1], med(m),
            e[1], e[k], q[1], q[k], ok, k
    }' "$tmp/replay.dat"
done
echo
echo "--predict 8 from the CG runs at 1, 2, 4 against the run at 8 (seconds per rank; error = predicted / measured - 1):"
printf "  %-18s %-18s %17s %12s %12s %19s\n" "region" "models: calls,mean" "calls pred/meas" "predicted s" \
    "measured s" "|error| % min/med"
awk '{ print $2 }' "$tmp/pred.dat" | awk '!s[$0]++' | while read -r reg; do
    awk -v g="$reg" '$2 == g {
        p[++k] = $4; m[k] = $5; e[k] = $5 > 0 ? 100 * ($4 / $5 - 1) : 0; if (e[k] < 0) e[k] = -e[k]
        pc[k] = $6; mc[k] = $7
        if (!($3 in mod)) { mod[$3] = 0; ord[++nm] = $3 } mod[$3]++
    }
    function srt(a, i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
    function med(a) { return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    END {
        for (i = 1; i <= nm; i++) if (ms == "" || mod[ord[i]] > mod[ms]) ms = ord[i]
        ms = ms " " mod[ms] "/" k
        srt(p); srt(m); srt(e); srt(pc); srt(mc)
        cs = mc[k] > 0 ? sprintf("%8.1f %8.1f", med(pc), med(mc)) : sprintf("%8s %8s", "", "")
        printf "  %-18s %-18s %s %12.6f %12.6f %9.1f %9.1f\n", g, ms, cs, med(p), med(m), e[1], med(e)
    }' "$tmp/pred.dat"
done
echo "(calls per rank and seconds per rank, predicted and measured: medians over the rounds; error: of the seconds;"
echo " models: those chosen in most rounds, in how many;"
echo " (no-Init/Finalize): the regions but MPI_Init and MPI_Finalize, whose seconds are the MPI library's start-up)"
