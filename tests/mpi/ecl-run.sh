#!/bin/sh
# ecl-run.sh -- an unmodified binary traced with ecl-run, launcher first
# (`ecl-run mpirun ...`) and launcher outside (`mpirun ... ecl-run ./app`),
# gives the same calls as the program linked with -lecl; ECL_* settings reach
# the ranks.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/ring" 6
check --ranks 4 --match --canon "$tmp/linked.txt" "$tmp/trace.ecl"
rm -f "$tmp"/*.ecl

echo "+ ecl-run --prefix=pre mpirun -np 4 ring-plain"
(cd "$tmp" && ECL_DIR=$tmp ASAN_OPTIONS=$mpi_asan timeout 120 "$eclrun" --prefix=pre "$MPIRUN" --oversubscribe -np 4 \
    "$ex/ring-plain" 6) > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "ecl-run mpirun"; }
cat "$tmp/out"
[ -s "$tmp/pre.ecl" ] || fail "ECL_PREFIX did not reach the ranks (no pre.ecl)"
check --ranks 4 --match --order --canon "$tmp/outer.txt" "$tmp/pre.ecl"
diff "$tmp/linked.txt" "$tmp/outer.txt" || fail "ecl-run mpirun: the trace differs from -lecl"

run 4 "$eclrun" "$ex/ring-plain" 6
check --ranks 4 --match --order --canon "$tmp/inner.txt" "$tmp/trace.ecl"
diff "$tmp/linked.txt" "$tmp/inner.txt" || fail "mpirun ecl-run: the trace differs from -lecl"

# without ecl-run the plain binary writes nothing
rm -f "$tmp"/*.ecl
run 4 "$ex/ring-plain" 2
ls "$tmp"/*.ecl 2>/dev/null && fail "the plain binary traced by itself"
echo "PASS"
