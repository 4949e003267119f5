# lib.sh -- sourced by tests/python/*.sh: finds the Python the module `pal`
# was built for (PYTHON, from configure through the test environment) and
# the module in the build tree (python/pal.so), or skips (77) saying why.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
if [ ! -e "$top_builddir/python/pal.so" ]; then
    echo "SKIP: the Python module is not built (configure found no python3 with numpy" \
         "and Python.h, or --without-python; see configure's summary)"
    exit 77
fi
PY=${ECL_TEST_PY:-python3}
PYTHONPATH="$top_builddir/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
# A sanitizer build's module needs the sanitizer runtimes loaded first; an
# uninstrumented interpreter leaks by design, so leak checks are off.
if [ -n "${ECL_TEST_SAN_PRELOAD:-}" ]; then
    LD_PRELOAD="$ECL_TEST_SAN_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LD_PRELOAD ASAN_OPTIONS
fi
"$PY" -c 'import pal' || { echo "FAIL: $PY cannot import pal from $top_builddir/python"; exit 1; }
dump="$top_builddir/pal/pal-dump"
check="$top_srcdir/tests/python/check.py"
