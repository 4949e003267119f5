#!/bin/sh
# exports.sh -- the shared libraries export their API prefix and nothing else
# (hidden visibility plus an explicit export list).
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
check ecl/.libs/libecl-core.so ecl_
# libecl adds the MPI profiling layer: the C (MPI_*) and Fortran (mpi_*, MPI_*,
# Open MPI's ompi_*_f) wrapper names.
check ecl/.libs/libecl.so '\(ecl_\|MPI_\|mpi_\|ompi_[a-z_]*_f$\)'
check pal/.libs/libpal.so pal_
exit $fail
