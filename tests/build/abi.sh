#!/bin/sh
# abi.sh -- no exported symbol disappears: every symbol of the committed
# lists tests/build/abi/LIB.syms (the dynamic symbols each installed library
# exported at its last -version-info) is still exported by the built
# library. A symbol that disappears is an incompatible change: it fails here
# until the list is updated together with -version-info (current+1,
# revision 0, age 0; configure.ac). New symbols are listed (a compatible
# addition: current+1, age+1) without failing. libecl's list holds the MPI
# wrappers without the optional MPI-4 families (configure adds those when
# the MPI library has them); without MPI libecl is not compared.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
exported() {
    nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVWi]$/ && $3 !~ /^_/ {print $3}' | sort -u
}
check() {
    so=$top_builddir/$1
    list=$top_srcdir/tests/build/abi/$2.syms
    if [ ! -f "$so" ]; then
        echo "FAIL: $so not built"
        fail=1
        return
    fi
    exported "$so" >"$tmp.got"
    gone=$(sort -u "$list" | comm -23 - "$tmp.got")
    new=$(sort -u "$list" | comm -13 - "$tmp.got")
    if [ -n "$gone" ]; then
        echo "FAIL: $2 no longer exports $(printf '%s\n' "$gone" | wc -l) symbols of tests/build/abi/$2.syms" \
             "(an incompatible change: update the list and -version-info together):"
        printf '  %s\n' $gone
        fail=1
    fi
    echo "$2: $(wc -l <"$list") listed symbols exported${new:+, $(printf '%s\n' "$new" | wc -l) new:}"
    [ -z "$new" ] || printf '  new: %s\n' $new
}
tmp=$(mktemp "${TMPDIR:-/tmp}/abi.XXXXXX") || exit 99
trap 'rm -f "$tmp" "$tmp.got"' EXIT
check ecl/.libs/libecl-core.so libecl-core
check pal/.libs/libpal.so libpal
check edl/shared/.libs/libedl.so libedl
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ]; then
    check ecl/.libs/libecl.so libecl
else
    echo "libecl: not compared (configured without MPI: libecl is libecl-core)"
fi
exit $fail
