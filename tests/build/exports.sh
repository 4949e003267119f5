#!/bin/sh
# exports.sh -- the shared libraries export their API prefix and nothing else
# (hidden visibility plus an explicit export list); the capture libraries
# also export their wrappers of the exec family (ecl/api/exec.c), all of them,
# so that preloading libecl (ecl-run) interposes them. libpal and libedl
# export exactly the functions their headers declare (tests/build/api-names.sh).
set -u
fail=0
check() {
    lib=$1 prefix=$2
    so=$top_builddir/$lib
    if [ ! -f "$so" ]; then
        echo "FAIL: $so not built"
        fail=1
        return
    fi
    syms=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^_' | sort)
    bad=$(printf '%s\n' "$syms" | grep -v "^$prefix" || true)
    n=$(printf '%s\n' "$syms" | grep -c "^$prefix" || true)
    echo "$lib: $n symbols with prefix $prefix"
    if [ -n "$bad" ]; then
        echo "FAIL: $lib exports symbols outside $prefix:"
        printf '  %s\n' $bad
        fail=1
    fi
    if [ "$n" -lt 5 ]; then
        echo "FAIL: $lib exports too few $prefix symbols ($n)"
        fail=1
    fi
}
EXEC='execve execvpe execv execvp fexecve execl execlp execle'
EXEC_RE='\(execve\|execvpe\|execv\|execvp\|fexecve\|execl\|execlp\|execle\)$'
# and the automatic instrumentation's entry points and wrappers (ecl/auto,
# doc/instrumentation.md): compiler hooks, OMPT, pthread and POSIX I/O; the
# CUDA driver's injection entry InitializeInjection (ecl/gpu, doc/gpu.md)
AUTO='InitializeInjection ompt_start_tool pthread_create pthread_join pthread_mutex_lock pthread_cond_wait
pthread_cond_timedwait pthread_barrier_wait open open64 openat openat64 creat close read write
pread pread64 pwrite pwrite64 fsync fdatasync'
EXEC_RE="\\($(echo $EXEC $AUTO | sed 's/ /\\|/g')\\)\$"
check_exec() {
    for f in $EXEC $AUTO __cyg_profile_func_enter __cyg_profile_func_exit; do
        nm -D --defined-only "$top_builddir/$1" | awk '{print $3}' | grep -qx "$f" \
            || { echo "FAIL: $1 does not export $f"; fail=1; }
    done
}
check ecl/.libs/libecl-core.so "\\(ecl_\\|$EXEC_RE\\)"
check_exec ecl/.libs/libecl-core.so
# libecl adds the MPI profiling layer: the C (MPI_*) and Fortran (mpi_*, MPI_*,
# Open MPI's ompi_*_f) wrapper names.
check ecl/.libs/libecl.so "\\(ecl_\\|MPI_\\|mpi_\\|ompi_[a-z_]*_f$\\|$EXEC_RE\\)"
check_exec ecl/.libs/libecl.so
check pal/.libs/libpal.so pal_
check edl/shared/.libs/libedl.so edl_
# the export list is the header: every declared function, nothing else
same_as_header() {
    want=$(sh "$top_srcdir/tests/build/api-names.sh" "$top_srcdir/$2")
    got=$(nm -D --defined-only "$top_builddir/$1" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u)
    if [ "$want" != "$got" ]; then
        echo "FAIL: $1 does not export exactly the functions of $2:"
        printf '%s\n' "$want" >"$tmp.want"
        printf '%s\n' "$got" >"$tmp.got"
        diff "$tmp.want" "$tmp.got" | sed -n 's/^</  declared, not exported:/p; s/^>/  exported, not declared:/p'
        fail=1
    else
        echo "$1: exports the $(printf '%s\n' "$want" | wc -l) functions of $2"
    fi
}
tmp=$(mktemp "${TMPDIR:-/tmp}/exports.XXXXXX") || exit 99
trap 'rm -f "$tmp" "$tmp.want" "$tmp.got"' EXIT
same_as_header pal/.libs/libpal.so pal/pal.h
same_as_header edl/shared/.libs/libedl.so edl/edl.h
exit $fail
