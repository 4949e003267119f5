#!/bin/sh
# merge-roundtrip.sh -- the run file (ecl-merge --format=3, the default, and
# the automatic merge at MPI_Finalize) reads back exactly as the re-encoding
# merge (--format=2, kept for this and for older readers) wrote: the same
# records, in the same order, at the same corrected times to the ns
# (pal-dump --raw-time compared byte for byte), on the MPI examples and a
# 64-rank run; and the format-2 files still read. The run file is version 3
# and holds each per-rank trace byte for byte.
. "$top_srcdir/tests/mpi/common.sh"

# same DIR LABEL: merges DIR's per-rank traces both ways and compares
same() {
    d=$1
    what=$2
    set -- "$d"/trace.[0-9]*.ecl
    n=$#
    "$merge" -q --format=2 -o "$d/m2.ecl" "$@"
    st2=$?
    "$merge" -q -o "$d/m3.ecl" "$@"
    st3=$?
    [ $st2 -le 2 ] && [ $st3 -eq $st2 ] || fail "$what: ecl-merge exit status $st3 (format 2: $st2)"
    "$paldump" --raw-time "$d/m2.ecl" > "$d/d2" 2> "$d/e2" || fail "$what: format 2 does not read"
    "$paldump" --raw-time "$d/m3.ecl" > "$d/d3" 2> "$d/e3" || fail "$what: format 3 does not read"
    lines=$(wc -l < "$d/d2")
    [ "$lines" -gt $((n * 4)) ] || fail "$what: only $lines records"
    cmp -s "$d/d2" "$d/d3" || {
        diff "$d/d2" "$d/d3" | head -20
        fail "$what: the run file reads otherwise than the re-encoding merge"
    }
    [ -s "$d/e3" ] && { cat "$d/e3"; fail "$what: reading the run file said something"; }
    # version 3 at byte 8, and every per-rank trace inside it as it is
    [ "$(od -An -tu2 -j8 -N2 "$d/m3.ecl" | tr -d ' ')" = 3 ] || fail "$what: not version 3"
    # members in the order given, each at a 4096-byte boundary after the last
    blocks=$(( $(wc -c < "$d/m3.ecl") / 4096 ))
    b=1
    for f in "$@"; do
        size=$(wc -c < "$f")
        while [ $b -le $blocks ]; do
            if dd if="$d/m3.ecl" bs=4096 skip=$b count=$(( (size + 4095) / 4096 )) 2>/dev/null |
                head -c "$size" | cmp -s - "$f"; then
                break
            fi
            b=$((b + 1))
        done
        [ $b -le $blocks ] || fail "$what: $f is not in the run file byte for byte"
        b=$((b + (size + 4095) / 4096))
    done
    echo "$what: $lines records, the same from both forms"
}

ECL_MERGE=0 run 4 "$ex/ring" 10
same "$tmp" ring
rm -f "$tmp"/*.ecl

ECL_MERGE=0 run 4 "$ex/halo" 10
same "$tmp" halo
rm -f "$tmp"/*.ecl

ECL_MERGE=0 run 4 "$ex/threads"
same "$tmp" threads
rm -f "$tmp"/*.ecl

# the automatic merge at MPI_Finalize writes the run file
run 4 "$ex/p2p"
[ "$(od -An -tu2 -j8 -N2 "$tmp/trace.ecl" | tr -d ' ')" = 3 ] || fail "p2p: trace.ecl is not a run file"
"$paldump" --raw-time "$tmp/trace.ecl" > "$tmp/auto" || fail "p2p: trace.ecl does not read"
mv "$tmp/trace.ecl" "$tmp/auto.ecl.kept"
same "$tmp" p2p
cmp -s "$tmp/auto" "$tmp/d2" || fail "p2p: the automatic merge reads otherwise than ecl-merge --format=2"
rm -f "$tmp"/*.ecl "$tmp/auto.ecl.kept"

# 64 ranks
RUN_TIMEOUT=300 ECL_MERGE=0 run 64 "$ex/ring" 2
same "$tmp" "ring, 64 ranks"
echo "PASS"
