#!/bin/sh
# damage.sh -- the per-rank traces of a real run (examples/mpi/halo, small
# buffers: many chunks per rank): rank 0's file damaged all over, the run read
# back as one stream by PAL and merged, must lose at most one chunk's records
# and say it found damage (tests/pal/damage_real.c). pal-view on a damaged
# run says so too (exit 2), and still draws its profile.
. "$top_srcdir/tests/mpi/common.sh"

ECL_MERGE=0 ECL_BUFFER_SIZE=4K run 4 "$ex/halo" 20
for r in 0 1 2 3; do [ -s "$tmp/trace.$r.ecl" ] || fail "no trace of rank $r"; done
"$top_builddir/tests/pal/damage_real" --merge --step 997 "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl \
    "$tmp"/trace.2.ecl "$tmp"/trace.3.ecl || fail "damage costs more than one chunk"

# pal-view on a run with a damaged chunk: the profile, and exit status 2
size=$(wc -c < "$tmp/trace.0.ecl")
printf '\377\377\377\377' | dd of="$tmp/trace.0.ecl" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$top_builddir/views/pal-view" "$tmp" > "$tmp/view.out" 2> "$tmp/view.err"
st=$?
cat "$tmp/view.err"
[ $st -eq 2 ] || fail "pal-view exit status $st on a damaged run, expected 2"
grep -q "MPI_Sendrecv\|MPI_Isend\|MPI_Waitall" "$tmp/view.out" || fail "pal-view drew no profile"
grep -q "trace.0.ecl: byte" "$tmp/view.err" || fail "pal-view did not report the damage"
grep -q "trace.0.ecl: .*trace.0.ecl" "$tmp/view.err" && fail "pal-view names the file twice"
echo "PASS"
