#!/bin/sh
# omp.sh -- pal-view --waits on an OpenMP program with one slow thread per
# round (tests/diag/ompwait.c, clang -fopenmp, traced through OMPT under
# ecl-run): the Wait at Thread Barrier that pal-view finds per thread, at
# the loop's implicit barriers and at the explicit ones, equals the waits
# the program injected (its threads' arrivals, measured by the program:
# expect-waits.awk, as for an MPI barrier) within 2 % plus 1 ms per wait;
# the causes lie on the late threads. Skipped without clang's OpenMP (GCC's
# libgomp has no OMPT).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
[ -n "$CLANG" ] || skip "no clang found by configure (OpenMP waits need OMPT: LLVM libomp)"
cd "$WORK" || exit 99
$CLANG -g -O0 -fopenmp "$top_srcdir/tests/diag/ompwait.c" -o ompwait 2> cerr ||
    skip "clang -fopenmp cannot build (libomp-dev missing?): $(head -1 cerr)"
D=${LATENESS_MS:-25}
SLACK_MS=${SLACK_MS:-1}
run_traced ompwait env OMP_NUM_THREADS=4 $ECLRUN ./ompwait "$D" 4
"$B/views/pal-view" --waits=csv "$TRACE" > waits.csv || fail "pal-view --waits=csv"
# the arrivals as barrier waits: the loop's and the explicit barrier's
sed 's/^omp_loop /wait_barrier /; s/^omp_explicit /wait_barrier /' ompwait.times |
    awk -f "$top_srcdir/tests/diag/expect-waits.awk" > expect || fail "expect-waits.awk"
cat expect
grep -q thread_barrier waits.csv || fail "no thread_barrier wait found: OMPT recorded no barrier?"
grep '^wait,thread_barrier' waits.csv
# got KIND: the seconds and waits of thread_barrier on barriers named
# "omp KIND @ompwait.c:..."
got() {
    awk -F, -v k="$1" '$1 == "wait" && $2 == "thread_barrier" {
            n = split($5, a, "/"); if (index(a[n], "omp " k " @ompwait.c:") == 1) s += $6 }
        END { printf "%.9f\n", s + 0 }' waits.csv
}
for kind in implicit explicit; do
    e=$(awk -v k="$kind" '$1 == "wait_barrier" && $2 == k { print $3 }' expect)
    w=$(awk -v k="$kind" '$1 == "wait_barrier" && $2 == k { print $4 }' expect)
    case $kind in implicit) g=$(got "implicit barrier") ;; *) g=$(got barrier) ;; esac
    echo "$kind barriers: pal-view $g s, injected $e s in $w waits"
    awk -v g="$g" -v e="$e" -v k="$w" -v s="$SLACK_MS" 'BEGIN {
            d = g - e; if (d < 0) d = -d; exit !(d <= 0.02 * e + k * s / 1000 && e > 0) }' ||
        fail "$kind barriers: pal-view found $g s, the program injected $e s"
done
# the causes of the waits are on the late threads: none on a waiting
# thread's own time, and they add up to the waits
w=$(awk -F, '$1 == "wait" && $2 == "thread_barrier" { s += $6 } END { printf "%.9f\n", s }' waits.csv)
c=$(awk -F, '$1 == "cause" && $2 == "thread_barrier" { s += $6 } END { printf "%.9f\n", s }' waits.csv)
awk -v w="$w" -v c="$c" 'BEGIN { d = w - c; if (d < 0) d = -d; exit !(d <= 0.02 * w + 0.001) }' ||
    fail "causes $c s, waits $w s"
echo "PASS"
