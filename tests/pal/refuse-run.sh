#!/bin/sh
# refuse-run.sh -- inputs that do not make one run are refused with a message
# and exit status 1 (doc/tools.md), never a crash: the same rank twice
# (`pal-dump --count trace.1.ecl trace.1.ecl`), an ECL trace with a trace of
# another format, and (with MPI) a directory holding two different runs (an
# MPI program rerun with fewer ranks into it). Checked for pal-dump,
# pal-view, ecl-merge and the Python module (when built).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
b=$top_builddir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-refuse-run.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

dump=$b/pal/pal-dump view=$b/views/pal-view merge=$b/ecl/tools/ecl-merge
mkdir "$tmp/run" || exit 99
"$b/tests/mpi/mktraces" drift "$tmp/run" || exit 99
"$b/tests/pal/mktrace" flat "$tmp/flat.bin" "$tmp/flat.dict" || exit 99

# refused WHAT MESSAGE CMD...: exit 1, one message with MESSAGE, no output file
refused() {
    what=$1 msg=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 1 ] || bad "$what: exit status $st, expected 1 ($(cat "$tmp/err"))"
    grep -q "$msg" "$tmp/err" || bad "$what: message lacks '$msg': $(cat "$tmp/err")"
    [ -e "$tmp/m.ecl" ] && bad "$what: ecl-merge left an output" && rm -f "$tmp/m.ecl"
}

one=$tmp/run/trace.1.ecl
for t in dump view merge; do
    case $t in
    dump) cmd="$dump --count" ;;
    view) cmd="$view" ;;
    merge) cmd="$merge -q -o $tmp/m.ecl" ;;
    esac
    refused "$t: the same rank twice" "both are rank 1" $cmd "$one" "$one"
    if [ $t = merge ]; then      # no -d: the foreign trace cannot be opened
        refused "$t: mixed formats" "flat.bin.*not an ECL trace" $cmd "$tmp/flat.bin" "$one"
    else
        refused "$t: mixed formats" "only ECL traces make a run" \
            $cmd -d "$tmp/flat.dict" "$tmp/flat.bin" "$one"
    fi
done
refused "pal-dump --force: the same rank twice" "both are rank 1" "$dump" --force "$one" "$one"

if [ -e "$b/python/pal.so" ] && [ -n "${ECL_TEST_PY:-python3}" ]; then
    PYTHONPATH="$b/python${PYTHONPATH:+:$PYTHONPATH}"
    export PYTHONPATH
    if [ -n "${ECL_TEST_SAN_PRELOAD:-}" ]; then
        LD_PRELOAD="$ECL_TEST_SAN_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
        ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
        export LD_PRELOAD ASAN_OPTIONS
    fi
    "${ECL_TEST_PY:-python3}" - "$one" "$tmp/flat.bin" "$tmp/flat.dict" <<'PYEOF' || bad "the Python module did not refuse cleanly"
import sys
import pal
one, flat, fdict = sys.argv[1:4]
bad = 0
for what, args, kw, msg in (("the same rank twice", [one, one], {}, "both are rank 1"),
                            ("mixed formats", [flat, one], {"dictionary": fdict},
                             "only ECL traces make a run")):
    try:
        t = pal.open(args, **kw)
        t.count()
        print("FAIL: python: %s was read" % what); bad += 1
    except pal.Error as e:
        if msg not in str(e):
            print("FAIL: python: %s: message %r lacks %r" % (what, str(e), msg)); bad += 1
sys.exit(1 if bad else 0)
PYEOF
fi

# two runs in one directory: a 2-rank run, then a 1-rank run into it
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    asan="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    for np in 2 1; do
        ECL_DIR=$tmp/mpi ECL_MERGE=0 ASAN_OPTIONS=$asan timeout 120 \
            "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np $np "$b/examples/mpi/ring" \
            >"$tmp/mpi.out" 2>&1 || { cat "$tmp/mpi.out"; echo "FAIL: mpirun -np $np ring"; exit 1; }
    done
    refused "pal-dump: two runs" "traces of different runs" "$dump" --count "$tmp/mpi"
    refused "pal-view: two runs" "traces of different runs" "$view" "$tmp/mpi"
    refused "ecl-merge: two runs" "traces of different runs" "$merge" -q -o "$tmp/m.ecl" "$tmp/mpi"
    "$dump" --count --force "$tmp/mpi" >/dev/null 2>"$tmp/err"
    st=$?
    [ $st -eq 0 ] && grep -q "different runs; read together as asked" "$tmp/err" ||
        bad "pal-dump --force on two runs: exit $st, expected 0 with a note: $(cat "$tmp/err")"
else
    echo "two runs in one directory: not checked (ECL configured without MPI)"
fi

[ $fail -eq 0 ] && echo "refuse-run: all checks passed"
exit $fail
