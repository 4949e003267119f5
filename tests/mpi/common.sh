# common.sh -- sourced by the MPI tests: runs examples under a real mpirun
# (4 ranks, --oversubscribe: the machines have 2 cores) into a fresh trace
# directory and checks the traces read back through PAL (check_trace).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"

if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: ECL was configured without MPI (no working mpicc)"
    exit 77
fi
MPIRUN=${ECL_TEST_MPIRUN:-mpirun}
# Open MPI refuses root without these; the test machines run as root.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Sanitizer builds: Open MPI leaks at exit from components it has unloaded
# (no library name to suppress), so leak checking is off in the MPI processes
# only (ecl-merge and check_trace keep it); programs not built with the
# sanitizers (Fortran, ecl-run's preloading) load its runtime late.
mpi_asan="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# No ECL_* setting of the caller leaks into a test.
for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
done

ex=$top_builddir/examples/mpi
check=$top_builddir/tests/mpi/check_trace
merge=$top_builddir/ecl/tools/ecl-merge
paldump=$top_builddir/pal/pal-dump
eclrun=$top_builddir/ecl/tools/ecl-run
ECL_RUN_LIBRARY=$top_builddir/ecl/.libs/libecl.so
export ECL_RUN_LIBRARY

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-mpi-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}

# run NP PROGRAM [ARG]...: mpirun in $tmp with ECL_DIR=$tmp; fails on a
# non-zero exit or after $RUN_TIMEOUT seconds (a hang: output shown). Extra
# environment: set it before calling.
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
run() {
    np=$1
    shift
    echo "+ mpirun -np $np $*"
    if ! (cd "$tmp" && ECL_DIR=$tmp ASAN_OPTIONS=$mpi_asan timeout "$RUN_TIMEOUT" "$MPIRUN" --oversubscribe -np "$np" "$@") \
            > "$tmp/out" 2>&1; then
        cat "$tmp/out"
        fail "mpirun -np $np $* exited with an error or did not end within $RUN_TIMEOUT s"
    fi
    cat "$tmp/out"
}

# run_fails NP PROGRAM [ARG]...: the same, for runs that must not succeed.
run_fails() {
    np=$1
    shift
    echo "+ mpirun -np $np $* (must fail)"
    if (cd "$tmp" && ECL_DIR=$tmp ASAN_OPTIONS=$mpi_asan timeout "$RUN_TIMEOUT" "$MPIRUN" --oversubscribe -np "$np" "$@") \
            > "$tmp/out" 2>&1; then
        cat "$tmp/out"
        fail "mpirun -np $np $* succeeded"
    fi
    cat "$tmp/out"
}

# no_errors: the run printed the MPI test suites' " No Errors"
no_errors() {
    grep -q '^ No Errors$' "$tmp/out" || fail "the program did not print ' No Errors'"
}

# check [CHECK]... TRACE
check() {
    "$check" "$@" || fail "check_trace $*"
}

# per_rank_files N: every rank wrote its trace and the merged one exists
per_rank_files() {
    r=0
    while [ "$r" -lt "$1" ]; do
        [ -s "$tmp/trace.$r.ecl" ] || fail "no trace of rank $r"
        r=$((r + 1))
    done
    [ -s "$tmp/trace.ecl" ] || fail "no merged trace.ecl"
}
