#!/bin/sh
# locks.sh -- pal-view --waits: Lock Contention on a run with exact times
# (microseconds, described by tests/diag/locks.edl; doc/diagnosis.md,
# "Lock contention"). No MPI needed. Window 1, target 0: rank 0 holds an
# exclusive lock until its unlock ends at 101, rank 1's exclusive request
# (10 .. 102) waits 91. Window 2: a library that acquires in MPI_Win_unlock:
# rank 2's lock returns at once (210 .. 211) while rank 0 holds the lock
# (200 .. 301), its unlock (220 .. 305) waits 81; rank 0's unlock, which
# ends first, does not wait for rank 2. Window 1 again: shared locks do not
# contend (rank 1's slow shared lock is no wait); rank 0's MPI_Win_lock_all
# (shared, of every target, no lock type) holds target 3 until 701 against
# rank 1's exclusive request (610 .. 702): 91. Window 3: exclusive locks of
# two targets do not contend.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-diag-locks.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
#     TIME RANK THREAD EVENT DURATION WINDOW [TARGET [LOCK_TYPE]]
sort -n -s -k1,1 > "$tmp/run.trace" <<'END'
1 0 0 lock 1 1 0 1
102 1 0 lock 92 1 0 1
101 0 0 unlock 1 1 0
104 1 0 unlock 1 1 0
201 0 0 lock 1 2 0 1
211 2 0 lock 1 2 0 1
301 0 0 unlock 1 2 0
305 2 0 unlock 85 2 0
401 0 0 lock 1 1 0 2
450 1 0 lock 40 1 0 2
501 0 0 unlock 1 1 0
460 1 0 unlock 1 1 0
601 0 0 lock_all 1 1
702 1 0 lock 92 1 3 1
701 0 0 unlock_all 1 1
704 1 0 unlock 1 1 3
801 0 0 lock 1 3 0 1
850 1 0 lock 40 3 1 1
901 0 0 unlock 1 3 0
860 1 0 unlock 1 3 1
END
"$pv" -d "$top_srcdir/tests/diag/locks.edl" --waits=csv "$tmp/run.trace" > "$tmp/waits.csv" ||
    fail "pal-view --waits=csv"
cat "$tmp/waits.csv"
grep '^wait,' "$tmp/waits.csv" | sort > "$tmp/got"
cat > "$tmp/want" <<'END'
wait,lock_contention,1,0,MPI_Win_lock,0.000182000,2,,
wait,lock_contention,2,0,MPI_Win_unlock,0.000081000,1,,
END
cmp "$tmp/want" "$tmp/got" || fail "the waits are not rank 1's 2 x 91 us in MPI_Win_lock and rank 2's 81 us in MPI_Win_unlock"
# every wait was for rank 0, and its causes add up to the waits
awk -F, '$1 == "cause" && $2 == "lock_contention" { s += $6; if ($3 != 0) bad = 1 }
    END { exit bad || s < 0.000262999 || s > 0.000263001 }' "$tmp/waits.csv" ||
    fail "the causes of Lock Contention are not rank 0's 263 us"
# Window 4, a loaded machine: rank 0's unlock (1101 .. 1130) released the
# lock before it returned, as ranks 1 and 2 took it in turn (their lock
# calls end at 1102 and 1105). Rank 1 waits 92 for rank 0; rank 2 waits 84,
# 82 for rank 0 (until rank 1 took the lock) and 2 for rank 1 (until its
# release); rank 1's unlock does not wait.
sort -n -s -k1,1 > "$tmp/late.trace" <<'END'
1002 0 0 lock 1 4 0 1
1102 1 0 lock 92 4 0 1
1105 2 0 lock 85 4 0 1
1130 0 0 unlock 29 4 0
1104 1 0 unlock 1 4 0
1107 2 0 unlock 1 4 0
END
"$pv" -d "$top_srcdir/tests/diag/locks.edl" --waits=csv "$tmp/late.trace" > "$tmp/late.csv" ||
    fail "pal-view --waits=csv (window 4)"
cat "$tmp/late.csv"
grep '^wait,' "$tmp/late.csv" | sort > "$tmp/got"
cat > "$tmp/want" <<'END'
wait,lock_contention,1,0,MPI_Win_lock,0.000092000,1,,
wait,lock_contention,2,0,MPI_Win_lock,0.000084000,1,,
END
cmp "$tmp/want" "$tmp/got" || fail "window 4: the waits are not rank 1's 92 us and rank 2's 84 us in MPI_Win_lock"
awk -F, '$1 == "cause" && $2 == "lock_contention" { s[$3] += $6 }
    END { exit !(s[0] > 0.000173999 && s[0] < 0.000174001 && s[1] > 0.000001999 && s[1] < 0.000002001) }' \
    "$tmp/late.csv" || fail "window 4: the causes are not rank 0's 174 us and rank 1's 2 us"
# the text table's total
"$pv" -d "$top_srcdir/tests/diag/locks.edl" --waits "$tmp/run.trace" > "$tmp/waits.txt" ||
    fail "pal-view --waits"
awk '$1 == "lock_contention" && NF == 3 { t = $2 " " $3 } END { exit t != "0.000263 3" }' "$tmp/waits.txt" ||
    fail "the text table's Lock Contention is not 0.000263 s in 3 waits"
grep -q 'lock_contention = Lock Contention' "$tmp/waits.txt" || fail "no title of lock_contention"
echo "PASS: Lock Contention 263 us in 3 waits, for rank 0"
