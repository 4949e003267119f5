#!/bin/sh
# merge-roundtrip.sh -- the run file (ecl-merge --format=3, the default, and
# the automatic merge at MPI_Finalize) reads back exactly as the re-encoding
# merge (--format=2, kept for this and for older readers) wrote: the same
# records, in the same order, at the same corrected times to the ns
# (pal-dump --raw-time compared byte for byte), on the MPI examples and a
# 64-rank run; and the format-2 files still read. The run file is version 3
# and holds each per-rank trace byte for byte. With --compress=zstd the raw
# records chunks are compressed on the way: it reads the same again, is
# smaller, and its index (checked by merge_index with the codec alone)
# names every chunk where it moved; a damaged records chunk in a per-rank
# trace is kept as it is (not compressed, so not made good): the compressed
# run file reads as the copying merge's, the damage said. --check pairs the
# run file's messages with the event layer's matcher: the same counts as the
# format-2 merge's check; a rank's file missing leaves its partners'
# messages unmatched, said, exit status 2.
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
    # members in the order given, each where its index entry says, byte for
    # byte: one copied in the kernel (larger than 64 KiB) at a 4096-byte
    # boundary (blocks a file system may share), a smaller one at 8
    ix=$(od -An -tu8 -j64 -N8 "$d/m3.ecl" | tr -d ' ')
    [ "$(od -An -tu4 -j24 -N4 "$d/m3.ecl" | tr -d ' ')" = $# ] || fail "$what: not $# members"
    e=$ix
    for f in "$@"; do
        size=$(wc -c < "$f")
        off=$(od -An -tu8 -j$((e + 8)) -N8 "$d/m3.ecl" | tr -d ' ')
        [ "$(od -An -tu8 -j$((e + 16)) -N8 "$d/m3.ecl" | tr -d ' ')" = "$size" ] ||
            fail "$what: $f: the index says another length"
        align=8
        [ "$size" -gt 65536 ] && align=4096
        [ $((off % align)) = 0 ] || fail "$what: $f at byte $off, not a multiple of $align"
        tail -c +$((off + 1)) "$d/m3.ecl" | head -c "$size" | cmp -s - "$f" ||
            fail "$what: $f is not in the run file byte for byte"
        e=$((e + 128))
    done
    # --compress: the same records again, from a smaller file whose index
    # and members' own indexes name the chunks where they are now
    "$merge" -q --compress=zstd -o "$d/m3z.ecl" "$@"
    [ $? -eq $st2 ] || fail "$what: ecl-merge --compress exit status (format 2: $st2)"
    "$paldump" --raw-time "$d/m3z.ecl" > "$d/d3z" 2> "$d/e3z" ||
        fail "$what: the compressed run file does not read"
    [ -s "$d/e3z" ] && { cat "$d/e3z"; fail "$what: reading the compressed run file said something"; }
    cmp -s "$d/d2" "$d/d3z" || {
        diff "$d/d2" "$d/d3z" | head -20
        fail "$what: the compressed run file reads otherwise than the re-encoding merge"
    }
    "$top_builddir/tests/pal/merge_index" "$d/m3z.ecl" > "$d/ix" || {
        cat "$d/ix"; fail "$what: the compressed run file's index does not name its chunks"; }
    zs=$(wc -c < "$d/m3z.ecl")
    s3=$(wc -c < "$d/m3.ecl")
    nz=$(sed -n 's/^chunks: .* \([0-9]*\) zstd$/\1/p' "$d/ix")
    # smaller: its members are not padded to 4096 bytes (their bytes differ
    # from the per-rank files': no block can be shared), and raw chunks
    # worth it are compressed (the halo's: see damaged below)
    [ "$zs" -lt "$s3" ] ||
        fail "$what: --compress=zstd wrote $zs bytes ($nz zstd chunks), kept as written $s3"
    echo "$what: $lines records, the same from both forms; --compress: $zs of $s3 bytes, $nz zstd chunks"
}

# damaged DIR LABEL: a byte of rank 1's largest thread chunk flipped, then
# both merges of the damaged traces read the same
damaged() {
    d=$1
    what=$2
    set -- $("$top_builddir/tests/pal/merge_index" "$d/m3.ecl" 1)
    [ $# -eq 2 ] && [ "$2" -gt 8 ] || fail "$what: no records chunk of rank 1 found ($*)"
    mkdir "$d/dmg"
    cp "$d"/trace.[0-9]*.ecl "$d/dmg/"
    b=$(od -An -tu1 -j $(($1 + $2 / 2)) -N1 "$d/dmg/trace.1.ecl" | tr -d ' ')
    printf "\\$(printf %o $((b ^ 90)))" |
        dd of="$d/dmg/trace.1.ecl" bs=1 seek=$(($1 + $2 / 2)) conv=notrunc 2>/dev/null
    "$merge" -q -o "$d/dmg/copy.ecl" "$d/dmg"/trace.[0-9]*.ecl
    [ $? -eq 2 ] || fail "$what, damaged: ecl-merge exit status, expected 2"
    "$merge" -q -z zstd -o "$d/dmg/z.ecl" "$d/dmg"/trace.[0-9]*.ecl
    [ $? -eq 2 ] || fail "$what, damaged: ecl-merge --compress exit status, expected 2"
    "$paldump" --raw-time "$d/dmg/copy.ecl" > "$d/dmg/d1" 2> "$d/dmg/e1"
    st1=$?
    "$paldump" --raw-time "$d/dmg/z.ecl" > "$d/dmg/d2" 2> "$d/dmg/e2"
    st2=$?
    cat "$d/dmg/e2"
    [ $st1 -eq 2 ] && [ $st2 -eq 2 ] || fail "$what, damaged: pal-dump exit status $st1 / $st2"
    grep -q "payload CRC mismatch" "$d/dmg/e2" || fail "$what, damaged: not said"
    cmp -s "$d/dmg/d1" "$d/dmg/d2" || fail "$what, damaged: the compressed run file reads otherwise"
    [ "$(wc -l < "$d/dmg/d2")" -lt "$(wc -l < "$d/d2")" ] || fail "$what, damaged: nothing lost?"
    "$top_builddir/tests/pal/merge_index" "$d/dmg/z.ecl" > "$d/dmg/ix" || {
        cat "$d/dmg/ix"; fail "$what, damaged: the index does not name the chunks"; }
    grep -q "^chunks: .* [1-9][0-9]* zstd$" "$d/dmg/ix" || fail "$what, damaged: nothing compressed"
    rm -rf "$d/dmg"
    echo "$what: a damaged records chunk under --compress is kept as it is, said, the rest read"
}

# checked DIR LABEL: --check finds the messages the format-2 merge pairs,
# all of them matched; without rank 2's file the unmatched ones are said
checked() {
    d=$1
    what=$2
    "$merge" --check -o "$d/c.ecl" "$d"/trace.[0-9]*.ecl 2> "$d/ce" || {
        cat "$d/ce"; fail "$what: ecl-merge --check exit status $?"; }
    "$merge" --format=2 -o "$d/c2.ecl" "$d"/trace.[0-9]*.ecl 2> "$d/ce2" || fail "$what: format 2"
    m3=$(sed -n "s/.*, \([0-9]*\) messages matched\$/\1/p" "$d/ce")
    m2=$(sed -n "s/.*, \([0-9]*\) messages matched\$/\1/p" "$d/ce2")
    [ -n "$m3" ] && [ "$m3" -gt 0 ] && [ "$m3" = "$m2" ] || {
        cat "$d/ce" "$d/ce2"; fail "$what: --check matched '$m3' messages, format 2 '$m2'"; }
    mkdir "$d/miss"
    for f in "$d"/trace.[0-9]*.ecl; do
        case $f in */trace.2.ecl) ;; *) cp "$f" "$d/miss/" ;; esac
    done
    "$merge" --check -o "$d/miss/c.ecl" "$d/miss"/trace.[0-9]*.ecl 2> "$d/ce"
    st=$?
    "$merge" --format=2 -o "$d/miss/c2.ecl" "$d/miss"/trace.[0-9]*.ecl 2> "$d/ce2"
    cat "$d/ce"
    [ $st -eq 2 ] || fail "$what without rank 2: ecl-merge --check exit status $st, expected 2"
    grep -q "rank 2: no trace among the inputs" "$d/ce" || fail "$what: rank 2 not named missing"
    u3=$(grep "sends without a receive" "$d/ce" | sed 's/^ecl-merge: //')
    u2=$(grep "sends without a receive" "$d/ce2" | sed 's/^ecl-merge: //')
    case $u3 in
    [1-9]*" sends without a receive and "[1-9]*" receives without a send in the merged trace (ranks are missing or incomplete)") ;;
    *) fail "$what without rank 2: unmatched messages not said ('$u3')" ;;
    esac
    [ "$u3" = "$u2" ] || fail "$what without rank 2: --check says '$u3', format 2 '$u2'"
    # the default merge does not decode: it names the missing rank only
    "$merge" -o "$d/miss/c.ecl" "$d/miss"/trace.[0-9]*.ecl 2> "$d/ce"
    [ $? -eq 2 ] && ! grep -q "without a receive" "$d/ce" || fail "$what: the default merge checked"
    rm -rf "$d/miss" "$d/c.ecl" "$d/c2.ecl"
    echo "$what: --check matched $m3 messages as format 2 did; without rank 2: $u3"
}

ECL_MERGE=0 run 4 "$ex/ring" 10
same "$tmp" ring
checked "$tmp" ring
rm -f "$tmp"/*.ecl

ECL_MERGE=0 run 4 "$ex/halo" 10
same "$tmp" halo
damaged "$tmp" halo
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
