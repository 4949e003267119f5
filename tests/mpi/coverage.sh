#!/bin/sh
# coverage.sh -- every MPI function the installed mpi.h declares is either
# wrapped (ecl/mpi/mpi.spec) or listed with a reason as untraced by design
# (ecl/mpi/untraced.list), never both; and libecl exports the C wrapper of
# every wrapped function this MPI library has.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: ECL was configured without MPI (no working mpicc)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-coverage-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
mpicc=${ECL_TEST_MPICC:-mpicc}
# The functions of mpi.h: the profiling names it declares (every MPI
# function has one), from the preprocessed header as the compiler sees it.
printf '#include <mpi.h>\n' > "$tmp/h.c"
"$mpicc" -E "$tmp/h.c" > "$tmp/h.i" 2> "$tmp/err" || { cat "$tmp/err"; fail "$mpicc -E cannot read mpi.h"; }
grep -oE '(^|[^A-Za-z0-9_])PMPI_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/h.i" |
    sed -E 's/^[^P]*P(MPI_[A-Za-z0-9_]+).*/\1/' | sort -u > "$tmp/mpi_h"
n=$(wc -l < "$tmp/mpi_h")
[ "$n" -gt 300 ] || fail "found only $n functions in mpi.h"
echo "mpi.h declares $n functions"

awk -v out=funcs -f "$top_srcdir/ecl/mpi/gen.awk" "$top_srcdir/ecl/mpi/mpi.ids" \
    "$top_srcdir/ecl/mpi/mpi.spec" > "$tmp/funcs" || fail "gen.awk out=funcs"
awk '{ print $1 }' "$tmp/funcs" | sort -u > "$tmp/wrapped"
grep -v '^#' "$top_srcdir/ecl/mpi/untraced.list" | awk 'NF { print $1 }' | sort > "$tmp/untraced"
sort -u "$tmp/untraced" | cmp -s - "$tmp/untraced" || fail "untraced.list names a function twice"
grep -v '^#' "$top_srcdir/ecl/mpi/untraced.list" | awk 'NF && NF != 2 { print; exit 1 }' ||
    fail "untraced.list: a line is not 'MPI_NAME REASON'"

both=$(comm -12 "$tmp/wrapped" "$tmp/untraced")
[ -z "$both" ] || fail "wrapped and listed as untraced: $both"
sort -u "$tmp/wrapped" "$tmp/untraced" > "$tmp/known"
missing=$(comm -23 "$tmp/mpi_h" "$tmp/known")
[ -z "$missing" ] || fail "neither wrapped (ecl/mpi/mpi.spec) nor untraced by design (ecl/mpi/untraced.list):" $missing
echo "$(comm -12 "$tmp/mpi_h" "$tmp/wrapped" | wc -l) wrapped, $(comm -12 "$tmp/mpi_h" "$tmp/untraced" | wc -l) untraced by design"

# what the library exports: every wrapped function of this mpi.h
lib=$top_builddir/ecl/.libs/libecl.so
[ -f "$lib" ] || { echo "SKIP: no shared libecl to inspect"; exit 77; }
nm -D --defined-only "$lib" | awk '{ print $3 }' | grep '^MPI_' | sort -u > "$tmp/exported"
gone=$(comm -12 "$tmp/mpi_h" "$tmp/wrapped" | comm -23 - "$tmp/exported")
[ -z "$gone" ] || fail "wrapped in the spec but not exported by libecl:" $gone
echo "PASS"
