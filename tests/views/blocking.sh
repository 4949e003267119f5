#!/bin/sh
# blocking.sh -- time inside blocking MPI point-to-point calls is waiting
# (state idle), not overhead (doc/views.md, "Roles"): tests/views/blocking
# (4 ranks under a real mpirun, traced by ECL) blocks rank 0 in MPI_Send
# (8 MiB) and MPI_Ssend for about 3D each while rank 1 sleeps, and rank 2 in
# MPI_Recv for about D, while rank 3 polls with MPI_Iprobe for about D.
# pal-view's CSV and profile must count the time of rank 0's sends as its
# idle time and rank 3's polling as busy, leave overhead to ECL's own time
# (buffer flushes, well under D), and list rank 0 among the ranks that
# wait most with that idle time. The trace's dictionary gives the blocking sends the role idle.
# Skips (77) when ECL was configured without MPI.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/tests/mpi/common.sh"   # skips without MPI; run, per_rank_files, $tmp
pv="$top_builddir/views/pal-view"
dump=$paldump
fail=0
bad() { echo "FAIL: $*"; fail=1; }

D=30   # ms
run 4 "$(cd "$top_builddir" && pwd)/tests/views/blocking" $D
per_rank_files 4

# the blocking sends wait: role idle in the trace's dictionary (mpi.spec)
"$dump" --dict "$tmp/trace.ecl" >"$tmp/dict" || bad "pal-dump --dict"
roles() { awk -v r="$1" '$1 == "RECORD" { on = $2 == r } on && /ROLE IS/ { sub(/^ */, ""); print }' "$tmp/dict"; }
for r in mpi_send mpi_ssend mpi_rsend; do
    [ "$(roles $r)" = 'ROLE IS call, send, communication, idle;' ] || bad "$r roles: $(roles $r)"
done
[ "$(roles mpi_bsend)" = 'ROLE IS call, send, communication;' ] || bad "mpi_bsend roles: $(roles mpi_bsend)"

"$pv" --export csv "$tmp/trace.ecl" >"$tmp/csv" || bad "pal-view --export csv"
"$pv" "$tmp/trace.ecl" >"$tmp/p" || bad "pal-view"
# csv: kind,process,thread,name,...; state rows: seconds in column 7;
# region rows: calls in 6, inclusive seconds in 7
st() { awk -F, -v p="$1" -v s="$2" '$1 == "state" && $2 == p && $4 == s { t += $7 } END { printf "%.9f\n", t }' "$tmp/csv"; }
reg() { awk -F, -v p="$1" -v g="$2" '$1 == "region" && $2 == p && $4 == g { t += $7 } END { printf "%.9f\n", t }' "$tmp/csv"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

send=$(reg 0 MPI_Send) ssend=$(reg 0 MPI_Ssend)
idle0=$(st 0 idle) over0=$(st 0 overhead)
echo "rank 0: MPI_Send $send s, MPI_Ssend $ssend s, idle $idle0 s, overhead $over0 s"
# the program blocked them (else this test shows nothing): about 3D each
ge "$send" "$(echo "$D" | awk '{ print 2.5 * $1 / 1e3 }')" || bad "MPI_Send lasted $send s, not ~3D: it did not block"
ge "$ssend" "$(echo "$D" | awk '{ print 2.5 * $1 / 1e3 }')" || bad "MPI_Ssend lasted $ssend s, not ~3D"
# their time is rank 0's waiting (its barrier's wait comes on top) ...
ge "$idle0" "$(awk -v a="$send" -v b="$ssend" 'BEGIN { print a + b - 1e-6 }')" ||
    bad "rank 0 idle $idle0 s < its blocking sends' $send + $ssend s"
# ... and no overhead: ECL's own time only, far below D
ge "$(echo "$D" | awk '{ print $1 / 4e3 }')" "$over0" || bad "rank 0 overhead $over0 s (its sends counted as overhead)"
# rank 2 waits in MPI_Recv
recv2=$(reg 2 MPI_Recv) idle2=$(st 2 idle)
ge "$idle2" "$(awk -v a="$recv2" 'BEGIN { print a - 1e-6 }')" || bad "rank 2 idle $idle2 s < its MPI_Recv $recv2 s"

# rank 3 polls with MPI_Iprobe for about D: communication that does not
# wait is busy, neither idle nor overhead
probe3=$(reg 3 MPI_Iprobe) busy3=$(st 3 busy) over3=$(st 3 overhead)
echo "rank 3: MPI_Iprobe $probe3 s, busy $busy3 s, overhead $over3 s"
ge "$probe3" "$(echo "$D" | awk '{ print 0.5 * $1 / 1e3 }')" || bad "MPI_Iprobe lasted $probe3 s, not ~D"
ge "$busy3" "$(awk -v a="$probe3" 'BEGIN { print a - 1e-6 }')" || bad "rank 3 busy $busy3 s < its MPI_Iprobe $probe3 s"
ge "$(echo "$D" | awk '{ print $1 / 4e3 }')" "$over3" || bad "rank 3 overhead $over3 s (its MPI_Iprobe counted as overhead)"

# the profile ranks the ranks by the same idle seconds: rank 0 is listed
# with its blocked sends counted (the CSV's idle); the list is in decreasing
# order. (Which rank waits most is the program's timing: rank 2 receives
# from the delayed rank 0, so under a sanitizer or load it may come first.)
awk '/^Ranks that wait most/ { on = 1; next } /^$/ { on = 0 } on { print $2, $3 }' "$tmp/p" >"$tmp/rw"
awk 'NR > 1 && $2 > last + 1e-9 { exit 1 } { last = $2 }' "$tmp/rw" ||
    { cat "$tmp/rw"; bad "'Ranks that wait most' is not in decreasing order"; }
w0=$(awk '$1 == 0 { print $2 }' "$tmp/rw")
[ -n "$w0" ] || { cat "$tmp/rw"; bad "rank 0 is not among the ranks that wait most"; }
awk -v a="$w0" -v b="$idle0" 'BEGIN { d = a - b; exit !(d < 1e-5 && d > -1e-5) }' ||
    bad "profile: rank 0 waits $w0 s, the CSV says $idle0 s"
exit $fail
