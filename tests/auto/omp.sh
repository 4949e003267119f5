#!/bin/sh
# omp.sh -- OpenMP through OMPT, under ecl-run with no relink: a program
# built with clang -fopenmp (LLVM libomp) runs 6 parallel regions of 3
# threads; each thread's stream has exactly 6 enters of the parallel
# region, and 6 of its loop; barriers are recorded on every thread; the
# explicit tasks are entered and left.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
[ -n "$CLANG" ] || skip "no clang found by configure"
cd "$WORK" || exit 99
$CLANG -g -O0 -fopenmp "$S/omp.c" -o omp 2> cerr || skip "clang -fopenmp cannot build (libomp-dev missing?): $(head -1 cerr)"
run_traced "omp" env OMP_NUM_THREADS=3 $ECLRUN ./omp
"$PALDUMP" "$TRACE" > all
# (region names have blanks: whole lines are matched)
streams=$(awk '$4 == "enter" && /region="omp parallel @omp.c:/ { print $3 }' all | sort -u)
expect "streams in parallel regions" "$(echo "$streams" | wc -l)" 3
for s in $streams; do
    expect "$s: enter parallel" "$(awk -v s="$s" '$3 == s && $4 == "enter" && /region="omp parallel @omp.c:[0-9]+"/' all | wc -l)" 6
    expect "$s: enter loop" "$(awk -v s="$s" '$3 == s && $4 == "enter" && /region="omp for @omp.c:[0-9]+"/' all | wc -l)" 6
    expect "$s: leave loop" "$(awk -v s="$s" '$3 == s && $4 == "leave" && /region="omp for @omp.c:[0-9]+"/' all | wc -l)" 6
    expect "$s: explicit barriers" "$(awk -v s="$s" '$3 == s && $4 == "wait_call" && /region="omp barrier @omp.c:[0-9]+"/' all | wc -l)" 6
    n=$(awk -v s="$s" '$3 == s && $4 == "wait_call" && /region="omp implicit barrier/' all | wc -l)
    [ "$n" -ge 6 ] || fail "$s: $n implicit barriers"
done
expect "task enters" "$(grep -c 'enter region="omp task @omp.c:' all)" 6
expect "task leaves" "$(grep -c 'leave region="omp task @omp.c:' all)" 6
exit 0
