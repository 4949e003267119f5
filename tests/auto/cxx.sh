#!/bin/sh
# cxx.sh -- C++ functions compiled with -finstrument-functions appear with
# demangled names; ECL_SCOPE (ecl.hpp) enters and leaves its region.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
[ -n "$CXX" ] || skip "no C++ compiler (g++ or clang++) found by configure"
cd "$WORK" || exit 99
$CXX -g -O0 -DWITH_ECL -I"$top_srcdir/ecl" -finstrument-functions "$S/cxx.cpp" -o cxx \
    -L"$B/ecl/.libs" -lecl-core -Wl,-rpath,"$B/ecl/.libs" || fail "cannot build cxx"
run_traced "c++" ./cxx
expect "enter demo::Shape::area() const" "$(count "$TRACE" enter 'region="demo::Shape::area() const"')" 4
expect "leave demo::Shape::area() const" "$(count "$TRACE" leave 'region="demo::Shape::area() const"')" 4
expect "enter int demo::twice<int>(int)" "$(count "$TRACE" enter 'region="int demo::twice<int>(int)"')" 4
expect "enter scoped region" "$(count "$TRACE" enter 'region="scoped region"')" 4
expect "leave scoped region" "$(count "$TRACE" leave 'region="scoped region"')" 4
"$PALDUMP" --type region_def "$TRACE" | grep -q '_Z' && fail "a mangled name is left"
exit 0
