#!/bin/sh
# userapi.sh -- regions by name (ECL_ENTER/ECL_LEAVE, ecl_enter_name) and
# the Fortran module ecl_f.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
run_traced "c" "$B/tests/auto/userapi"
expect "enter outer" "$(count "$TRACE" enter 'region="outer"')" 11
expect "leave outer" "$(count "$TRACE" leave 'region="outer"')" 11
expect "enter inner" "$(count "$TRACE" enter 'region="inner"')" 30
expect "region_def" "$(count "$TRACE" region_def)" 2
[ -n "$GFORTRAN" ] || skip "C checked; no gfortran found by configure for the Fortran module"
cd "$WORK" || exit 99
$GFORTRAN -I"$B/ecl/fortran" "$S/userapi.f90" -o userapi-f "$B/ecl/fortran/libecl_f.a" \
    -L"$B/ecl/.libs" -lecl-core -Wl,-rpath,"$B/ecl/.libs" || fail "cannot build the Fortran program"
run_traced "fortran" ./userapi-f
expect "fortran: enter solve" "$(count "$TRACE" enter 'region="solve"')" 4
expect "fortran: leave solve" "$(count "$TRACE" leave 'region="solve"')" 4
expect "fortran: enter 'by name'" "$(count "$TRACE" enter 'region="by name"')" 2
expect "fortran: leave 'by name'" "$(count "$TRACE" leave 'region="by name"')" 2
expect "fortran: marker" "$(count "$TRACE" marker 'text="fortran done" length=12')" 1
exit 0
