#!/bin/sh
# version.sh -- one version everywhere: the version macros of ecl.h, pal.h
# and edl.h, the package version (configure.ac's AC_INIT, config.h) and what
# every tool's --version prints agree; the libraries' sonames follow the
# libtool -version-info of configure.ac (current - age).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
want=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$want" ] || { echo "FAIL: no PACKAGE_VERSION in config.h"; exit 1; }
for h in ecl/ecl.h pal/pal.h edl/edl.h; do
    P=$(basename "$h" .h | tr a-z A-Z)
    v() { sed -n "s/^#define ${P}_VERSION_$1 \\(.*\\)\$/\\1/p" "$top_srcdir/$h"; }
    got="$(v MAJOR).$(v MINOR).$(v PATCH)"
    str=$(v STRING | tr -d '"')
    if [ "$got" != "$want" ] || [ "$str" != "$want" ]; then
        echo "FAIL: $h says $got (\"$str\"), the package is $want"
        fail=1
    else
        echo "$h: ${P}_VERSION $got"
    fi
done
for t in pal/pal-dump views/pal-view ecl/tools/ecl-merge ecl/tools/ecl-run ecl/tools/ecl-config edl/edlc; do
    out=$("$top_builddir/$t" --version 2>&1 | head -n 1)
    case $out in
    *" $want"|*" $want "*|*" $want, "*) echo "$t --version: $out" ;;
    *) echo "FAIL: $t --version says '$out', not $want"; fail=1 ;;
    esac
done
for lib in ecl/.libs/libecl-core ecl/.libs/libecl pal/.libs/libpal edl/shared/.libs/libedl; do
    name=$(basename "$lib")
    var=$(echo "$name" | sed 's/^lib//; s/-core$//' | tr a-z A-Z)_LT_VERSION
    vi=$(sed -n "s/^$var = //p" "$top_builddir/Makefile")
    major=$(echo "$vi" | awk -F: '{print $1 - $3}')
    soname=$(readelf -dW "$top_builddir/$lib.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    if [ "$soname" != "$name.so.$major" ]; then
        echo "FAIL: $lib.so has soname $soname, -version-info $vi makes $name.so.$major"
        fail=1
    else
        echo "$name: -version-info $vi, soname $soname"
    fi
done
exit $fail
