#!/bin/sh
# boundaries.sh -- the capture libraries keep their edges (DESIGN.md,
# "Libraries with clean edges"):
#   - libecl carries PAL's merge but not the EDL compiler: no parser or
#     scanner symbol (edl_yy*, yyparse, the compiler passes), and it needs
#     neither libedl nor libpal at run time;
#   - libecl-core and libecl never call the C library functions they
#     interpose through the PLT (which would bind to their own exported
#     wrappers): no relocation of either library names one of them
#     (ecl/sys/real.c).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
fail=0
WRAPPED='pthread_create pthread_join pthread_mutex_lock pthread_cond_wait pthread_cond_timedwait
pthread_barrier_wait open open64 openat openat64 creat close read write pread pread64 pwrite
pwrite64 fsync fdatasync'
for lib in ecl/.libs/libecl-core.so ecl/.libs/libecl.so; do
    so=$top_builddir/$lib
    [ -f "$so" ] || { echo "FAIL: $so not built"; fail=1; continue; }
    relocs=$(readelf -rW "$so") || { echo "FAIL: readelf -r $so"; fail=1; continue; }
    n=0
    for f in $WRAPPED; do
        hit=$(printf '%s\n' "$relocs" | awk -v f="$f" '$5 == f || $5 ~ ("^" f "@") {print $3}' | sort -u)
        if [ -n "$hit" ]; then
            echo "FAIL: $lib calls $f through a relocation ($hit), i.e. its own exported wrapper"
            fail=1
        fi
        n=$((n + 1))
    done
    echo "$lib: none of the $n interposed functions is called through a relocation"
done
so=$top_builddir/ecl/.libs/libecl.so
if [ -f "$so" ]; then
    parser=$(nm "$so" | awk '{print $NF}' | grep -E '^(edl_yy|yy|edl_parse_|edl_compile_file|edl_resolve|edl_layout|edl_emit)' | head -5)
    if [ -n "$parser" ]; then
        echo "FAIL: libecl holds EDL compiler symbols:"
        printf '  %s\n' $parser
        fail=1
    else
        echo "libecl: no EDL compiler symbols"
    fi
    deps=$(readelf -dW "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -E '^lib(edl|pal)\.' || true)
    [ -z "$deps" ] || { echo "FAIL: libecl needs $deps"; fail=1; }
fi
exit $fail
