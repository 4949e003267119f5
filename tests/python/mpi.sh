#!/bin/sh
# mpi.sh -- the Python module on a real 4-rank run of examples/mpi/halo
# (Isend/Irecv/Waitall, regions): the merged trace.ecl and the run read from
# its per-rank files (a directory) each equal pal-dump record by record
# (tests/python/check.py), with 4 ranks; the isend DataFrame has one row per
# send with the peer, tag and bytes of the description's integer types.
# examples/python/profile.py gives the calls per region and MPI function of
# the halo run, and of an MPI-only run (examples/mpi/ring: no regions).
# Skips (77) when ECL was configured without MPI.
set -u
. "$(dirname "$0")/lib.sh"
halo="$top_builddir/examples/mpi/halo"
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ] || [ ! -x "$halo" ]; then
    echo "SKIP: ECL was configured without MPI (no examples/mpi/halo)"
    exit 77
fi
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/py-mpi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run"
(cd "$tmp/run" && ECL_DIR=$tmp/run LD_PRELOAD= ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
    timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$halo") \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "mpirun failed"; exit 99; }
[ -f "$tmp/run/trace.ecl" ] || { echo "no merged trace"; exit 99; }
fail=0
"$PY" "$check" "$dump" --expect-ranks 4 --type mpi_isend --type mpi_irecv --type enter \
    "$tmp/run/trace.ecl" || fail=1
mkdir "$tmp/ranks" && mv "$tmp"/run/trace.[0-9]*.ecl "$tmp/ranks/"
"$PY" "$check" "$dump" --expect-ranks 4 --type mpi_isend "$tmp/ranks" || fail=1
"$PY" - "$tmp/run/trace.ecl" "$dump" <<'PYEOF' || fail=1
import subprocess, sys
import pal
trace, dump = sys.argv[1], sys.argv[2]
t = pal.open(trace)
n = int(subprocess.run([dump, "--count", "--type", "mpi_isend", trace], stdout=subprocess.PIPE,
                       check=True).stdout.split()[-1])
c = t.columns("mpi_isend")
bad = 0
if len(c["time"]) != n or n == 0:
    print("FAIL: %d isend rows, pal-dump counts %d" % (len(c["time"]), n)); bad = 1
if sorted(set(c["process"].tolist())) != [0, 1, 2, 3]:
    print("FAIL: isend processes %s" % sorted(set(c["process"].tolist()))); bad = 1
for f, kind in t.fields("mpi_isend").items():
    if f in c and f != "time" and kind.startswith(("int", "uint")) and c[f].dtype.name != kind:
        print("FAIL: %s is %s, described %s" % (f, c[f].dtype, kind)); bad = 1
print("%d isends on ranks 0-3, fields %s" % (n, sorted(c)))
sys.exit(bad)
PYEOF

# profile.py: regions and MPI calls, counts as pal-dump's
profile() {
    "$PY" "$top_srcdir/examples/python/profile.py" "$1" >"$tmp/profile" \
        || { cat "$tmp/profile"; echo "FAIL: profile.py $1"; fail=1; return; }
    shift
    for want; do
        set -- $want
        awk -v r="$1" -v n="$2" '$1 == r && $2 == n && $3 > 0 {ok = 1} END {exit !ok}' \
            "$tmp/profile" || { cat "$tmp/profile"; echo "FAIL: profile.py: not $2 calls of $1"; fail=1; }
    done
}
n_isend=$("$dump" --count --type mpi_isend "$tmp/run/trace.ecl" | awk '$1 == "mpi_isend" {print $2}')
profile "$tmp/run/trace.ecl" "MPI_Isend $n_isend" "MPI_Waitall $n_isend" "MPI_Allreduce 4"
ring="$top_builddir/examples/mpi/ring"
mkdir "$tmp/ring"
(cd "$tmp/ring" && ECL_DIR=$tmp/ring LD_PRELOAD= ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
    timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 2 "$ring") \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "mpirun ring failed"; exit 99; }
n_send=$("$dump" --count --type mpi_send "$tmp/ring/trace.ecl" | awk '$1 == "mpi_send" {print $2}')
[ "${n_send:-0}" -gt 0 ] || { echo "FAIL: no mpi_send in the ring run"; fail=1; }
profile "$tmp/ring/trace.ecl" "MPI_Send $n_send" "MPI_Recv $n_send"
exit $fail
