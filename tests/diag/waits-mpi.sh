#!/bin/sh
# waits-mpi.sh -- the wait states and the what-if replay are the same
# whoever reads the run: pal-view -j 1, -j 2, and pal-view --mpi under
# mpirun with 2 and 4 processes (each reading a share, the shares' wait
# states packed, sent up the engine's tree and merged on process 0; with
# -j 2 inside 2 processes too) write byte-identical --waits (text, CSV,
# JSON) and --what-if (net, ideal, scale:delay=0) outputs, messages on
# stderr and exit status. Inputs: tests/diag/lateness in every mode (every
# MPI pattern: point to point, blocking and nonblocking collectives,
# one-sided fences, PSCW and locks, the dependency chain), 4 ranks, as
# per-rank files (shares by file) and as the merged trace (shares by
# thread); examples/mpi/posixio (time in I/O, found while reading); a
# per-rank run with one file cut short (exit 2, its message once). The
# partial results also go through bytes in-process in the tree's order
# (vwmerge --packed --waits: every output compared, the bytes packed again
# the same, cut bytes refused; --waits-only: with the analyses --waits runs
# alone, as pal-view --waits does, the outputs of every analysis).
# --what-if -o and --predict (-o) are read by process 0 alone: the same
# predicted traces. Skips
# without MPI.
. "$top_srcdir/tests/mpi/common.sh"

pv=$top_builddir/views/pal-view
vm=$top_builddir/tests/views/vwmerge
prog=$top_builddir/tests/diag/lateness
[ -x "$top_builddir/views/pal-view-mpi" ] || {
    echo "SKIP: no views/pal-view-mpi (pal-view built without MPI)"
    exit 77
}
PAL_VIEW_MPI=$top_builddir/views/pal-view-mpi
export PAL_VIEW_MPI
D=${LATENESS_MS:-10}
compared=0

# out TAG FILE OPTION... -- INPUT...: pal-view's output, stderr (without
# mpirun's report of a non-zero exit) and exit status into FILE.TAG.*
# (TAG: s serial, j2, m2, m4, m2j2)
out() {
    tag=$1 f=$2
    shift 2
    case $tag in
    s) set -- "$pv" -j 1 "$@" ;;
    j2) set -- "$pv" -j 2 "$@" ;;
    m2j2) set -- env ASAN_OPTIONS="$mpi_asan" timeout 300 "$MPIRUN" --oversubscribe -np 2 \
        "$pv" --mpi -j 2 "$@" ;;
    m*) set -- env ASAN_OPTIONS="$mpi_asan" timeout 300 "$MPIRUN" --oversubscribe -np "${tag#m}" \
        "$pv" --mpi "$@" ;;
    esac
    "$@" >"$f.$tag.out" 2>"$f.$tag.err"
    echo "exit $?" >>"$f.$tag.err"
    sed -i '/^-------------------------------------------------------*$/,/^-------------------------------------------------------*$/d' \
        "$f.$tag.err"
}

# same NAME TAGS OPTION... -- INPUT...: every TAG's output, stderr and exit
# status are the serial one's
same() {
    name=$1 tags=$2
    shift 2
    f=$tmp/cmp
    out s "$f" "$@"
    [ -s "$f.s.out" ] || { cat "$f.s.err"; fail "$name: pal-view $* wrote nothing"; }
    for t in $tags; do
        out "$t" "$f" "$@"
        for o in out err; do
            cmp -s "$f.s.$o" "$f.$t.$o" || {
                diff "$f.s.$o" "$f.$t.$o" | head -20
                fail "$name: pal-view $* ($t): the $o differs from -j 1"
            }
        done
        compared=$((compared + 1))
    done
}

# every output of the wait states on INPUT..., serial against TAGS (the
# text and JSON, made from the same tables as the CSV, against the last)
all_outputs() {
    name=$1 tags=$2
    shift 2
    same "$name" "$tags" --waits=csv "$@"
    for form in text json; do
        same "$name" "${tags##* }" --waits=$form "$@"
    done
    same "$name" "$tags" --what-if net "$@"
    same "$name" "$tags" --what-if ideal "$@"
    same "$name" "$tags" --what-if scale:delay=0 --waits=csv "$@"
}

# the partial results through bytes, merged in the tree's order; with
# --waits-only, only the analyses --waits runs (their outputs also those
# of a run of every analysis)
packed() {
    name=$1
    shift
    for p in 2 3 4; do
        "$vm" --packed --waits $p "$@" >"$tmp/vm" 2>"$tmp/vm.err" || {
            cat "$tmp/vm" "$tmp/vm.err"
            fail "$name: vwmerge --packed --waits $p"
        }
    done
    "$vm" --packed --waits-only 3 "$@" >"$tmp/vm1" 2>"$tmp/vm.err" || {
        cat "$tmp/vm1" "$tmp/vm.err"
        fail "$name: vwmerge --packed --waits-only 3"
    }
    echo "ok: $name: through bytes in 2, 3, 4 parts: $(cat "$tmp/vm")"
}

for m in late-sender late-receiver barrier nxn bcast reduce nbc rma wintest lock chain; do
    rm -f "$tmp"/*.ecl "$tmp"/lateness.*.times
    run 4 "$prog" "$m" "$D" >/dev/null
    mkdir "$tmp/$m"
    mv "$tmp"/trace.*ecl "$tmp/$m/"
    packed "$m (per-rank files)" "$tmp/$m"/trace.[0-9]*.ecl
    packed "$m (merged)" "$tmp/$m/trace.ecl"
    case $m in
    late-sender | nbc | rma | lock | chain)
        all_outputs "$m (per-rank files)" "j2 m2 m4" "$tmp/$m"/trace.[0-9]*.ecl ;;
    *)
        same "$m (per-rank files)" "j2 m2 m4" --waits=csv "$tmp/$m"/trace.[0-9]*.ecl ;;
    esac
    same "$m (merged)" "m2 m4" --waits=csv "$tmp/$m/trace.ecl"
    # the patterns are there to compare: some wait of the mode was found
    n=$(grep -c '^wait,' "$tmp/cmp.s.out")
    [ "$n" -gt 0 ] || fail "$m: no wait state found"
    echo "ok: $m: $n wait rows the same with -j 1, -j 2, --mpi 2 and 4"
done
# 4 shares read by 2 processes of 2 threads each
all_outputs "chain (per-rank files, --mpi -j 2)" m2j2 "$tmp/chain"/trace.[0-9]*.ecl

# time in I/O: rows found while reading, one per rank, thread and call path
rm -f "$tmp"/*.ecl
ECL_GROUPS=all run 4 "$top_builddir/examples/mpi/posixio" "$tmp" >/dev/null
mkdir "$tmp/io"
mv "$tmp"/trace.*ecl "$tmp/io/"
packed "posixio" "$tmp/io"/trace.[0-9]*.ecl
same "posixio" "j2 m2 m4" --waits=csv "$tmp/io"/trace.[0-9]*.ecl
n=$(grep -c '^wait,io,' "$tmp/cmp.s.out")
[ "$n" -ge 4 ] || fail "posixio: $n rows of time in I/O, expected one per rank at least"
same "posixio (merged)" "m2 m4" --waits=json "$tmp/io/trace.ecl"

# a damaged run: rank 2's file cut short: exit 2 and the reader's messages
# once each, from whichever process read it
mkdir "$tmp/cut"
cp "$tmp/chain"/trace.[0-9]*.ecl "$tmp/cut/"
sz=$(wc -c <"$tmp/cut/trace.2.ecl")
head -c $((sz * 2 / 3)) "$tmp/chain/trace.2.ecl" >"$tmp/cut/trace.2.ecl"
same "cut" "j2 m2 m4" --waits=csv "$tmp/cut"/trace.[0-9]*.ecl
grep -q '^exit 2$' "$tmp/cmp.m4.err" || fail "cut: --mpi exit status $(tail -1 "$tmp/cmp.m4.err"), expected 2"
grep -q "^pal-view: $tmp/cut/trace.2.ecl: .*truncated" "$tmp/cmp.m4.err" ||
    fail "cut: no message names the cut file: $(cat "$tmp/cmp.m4.err")"
[ -z "$(sort "$tmp/cmp.m4.err" | uniq -d)" ] || fail "cut: a message said twice: $(cat "$tmp/cmp.m4.err")"

# --what-if -o: process 0 reads alone and writes the same predicted trace
"$pv" --what-if scale:delay=0 -o "$tmp/pred.s.ecl" "$tmp/chain"/trace.[0-9]*.ecl >"$tmp/pred.s.out" ||
    fail "--what-if -o"
ASAN_OPTIONS="$mpi_asan" "$MPIRUN" --oversubscribe -np 2 "$pv" --mpi --what-if scale:delay=0 \
    -o "$tmp/pred.m.ecl" "$tmp/chain"/trace.[0-9]*.ecl >"$tmp/pred.m.out" || fail "--mpi --what-if -o"
cmp "$tmp/pred.s.out" "$tmp/pred.m.out" || fail "--mpi --what-if -o: the prediction differs"
"$top_builddir/pal/pal-dump" "$tmp/pred.s.ecl" >"$tmp/pred.s.dump" || fail "pal-dump of the prediction"
"$top_builddir/pal/pal-dump" "$tmp/pred.m.ecl" >"$tmp/pred.m.dump" || fail "pal-dump of the --mpi prediction"
cmp "$tmp/pred.s.dump" "$tmp/pred.m.dump" || fail "--mpi --what-if -o: the predicted trace differs"
# --predict: process 0 reads the small runs (scaling.awk's, as predict.sh
# writes them) alone: the same prediction and exit status, and with -o the
# same synthesized run
edl="$top_srcdir/tests/diag/scaling.edl"
for P in 2 4 8; do
    awk -v P=$P -f "$top_srcdir/tests/diag/scaling.awk" | sort -n -s -k1,1 >"$tmp/run$P.trace" ||
        fail "scaling.awk"
done
runs="$tmp/run2.trace $tmp/run4.trace $tmp/run8.trace"
# shellcheck disable=SC2086
"$pv" -d "$edl" --predict 32 --waits=csv -o "$tmp/syn.s.ecl" $runs >"$tmp/r.s.out" 2>"$tmp/r.s.err"
st_s=$?
# shellcheck disable=SC2086
ASAN_OPTIONS="$mpi_asan" "$MPIRUN" --oversubscribe -np 2 "$pv" --mpi -d "$edl" --predict 32 --waits=csv \
    -o "$tmp/syn.m.ecl" $runs >"$tmp/r.m.out" 2>"$tmp/r.m.err"
st_m=$?
[ "$st_s" = 0 ] || fail "--predict: exit status $st_s: $(cat "$tmp/r.s.err")"
[ "$st_m" = 0 ] || fail "--mpi --predict: exit status $st_m: $(cat "$tmp/r.m.err")"
[ -s "$tmp/r.s.out" ] || fail "--predict wrote nothing"
cmp "$tmp/r.s.out" "$tmp/r.m.out" || fail "--mpi --predict: the prediction differs"
"$top_builddir/pal/pal-dump" "$tmp/syn.s.ecl" >"$tmp/syn.s.dump" || fail "pal-dump of the synthesized run"
"$top_builddir/pal/pal-dump" "$tmp/syn.m.ecl" >"$tmp/syn.m.dump" || fail "pal-dump of the --mpi synthesized run"
cmp "$tmp/syn.s.dump" "$tmp/syn.m.dump" || fail "--mpi --predict -o: the synthesized run differs"

echo "compared $compared outputs"
[ "$compared" -ge 90 ] || fail "only $compared outputs compared"
echo "PASS"
