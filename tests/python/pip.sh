#!/bin/sh
# pip.sh -- `pip install --no-build-isolation ./python` builds the module
# `pal` in a fresh venv against libpal found by pkg-config (a .pc file for
# this build's libpal, as an installed one would be found), with no network
# (--no-index) and no PYTHONPATH, and the module imported from the venv reads
# an examples/threads trace as pal-dump does:
#   - the system Python's venv (--system-site-packages: its setuptools and
#     numpy): counts, columns; with numpy made unimportable, records still
#     iterate and columns/to_pandas raise ImportError saying they need numpy;
#   - the same from the sdist ecl-pal-VERSION.tar.gz (make dist-python,
#     which make dist runs);
#   - a venv of another Python >= 3.9 (pyenv, a python3 first on PATH), with
#     no system packages: built with numpy when that Python has it, else
#     without, and then columns says so.
# Each part skips, saying why, when its interpreter, venv or setuptools is
# missing; the test skips (77) when no part could run.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
top_builddir=$(cd "$top_builddir" && pwd)
if [ ! -e "$top_builddir/pal/.libs/libpal.so" ]; then
    echo "SKIP: no shared libpal in this build"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/py-pip.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
unset PYTHONPATH PYTHONHOME
fail=0
ran=0

# libpal of this build, described as pkg-config describes an installed one
mkdir "$tmp/pc"
version=$(sed -n 's/^Version: *//p' "$top_builddir/pal/pal.pc")
cat >"$tmp/pc/pal.pc" <<EOF
libdir=$top_builddir/pal/.libs
Name: pal
Description: libpal of the build tree (tests/python/pip.sh)
Version: $version
Libs: -L\${libdir} -lpal
Cflags: -I$top_srcdir/pal -I$top_srcdir/edl
EOF
PKG_CONFIG_PATH=$tmp/pc
export PKG_CONFIG_PATH
# pip builds in the source directory: a copy keeps the tree clean
cp -R "$top_srcdir/python" "$tmp/src"

(cd "$tmp" && ECL_DIR="$tmp" ECL_PREFIX=t "$top_builddir/examples/threads/threads" 2 50 >/dev/null) \
    || { echo "FAIL: examples/threads"; exit 1; }
trace=$(ls "$tmp"/t.*.ecl | head -n 1)
"$top_builddir/pal/pal-dump" --count "$trace" >"$tmp/counts" || { echo "FAIL: pal-dump"; exit 1; }

# run_py VENV ARGS...: the venv's python, with a sanitizer build's runtime
run_py() {
    py=$1/bin/python
    shift
    if [ -n "${ECL_TEST_SAN_PRELOAD:-}" ]; then
        LD_PRELOAD="$ECL_TEST_SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0 "$py" "$@"
    else
        "$py" "$@"
    fi
}

# part NAME PYTHON VENV-OPTION [SOURCE]: make a venv, pip install SOURCE
# (default: the copy of python/), check
part() {
    name=$1 base=$2 opt=$3 src=${4:-$tmp/src}
    venv=$tmp/venv-$name
    echo "== $name: $base ($("$base" -c 'import sys; print(sys.version.split()[0])'))"
    if ! "$base" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
        echo "SKIP part $name: $base is older than 3.9"
        return
    fi
    if ! "$base" -m venv $opt "$venv" >"$tmp/venv.out" 2>&1; then
        cat "$tmp/venv.out"
        echo "SKIP part $name: $base -m venv $opt fails (Debian: python3-venv)"
        return
    fi
    if ! "$venv/bin/python" -c 'import setuptools' 2>/dev/null; then
        echo "SKIP part $name: no setuptools in a venv of $base, and --no-index cannot fetch it"
        return
    fi
    # pip builds a wheel: setuptools >= 70.1 can, an older one needs the package wheel
    if ! "$venv/bin/python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null &&
       ! "$venv/bin/python" -c 'import wheel' 2>/dev/null; then
        echo "SKIP part $name: the venv of $base has setuptools $("$venv/bin/python" -c \
            'import setuptools; print(setuptools.__version__)') without the package wheel" \
            "(pip builds a wheel), and --no-index cannot fetch it"
        return
    fi
    echo "+ pip install --no-build-isolation --no-index ${src#$tmp/}"
    if ! "$venv/bin/python" -m pip install --no-build-isolation --no-index "$src" \
            >"$tmp/pip.out" 2>&1; then
        cat "$tmp/pip.out"
        echo "FAIL: pip install in the $name venv"
        fail=1
        return
    fi
    ran=$((ran + 1))
    run_py "$venv" "$tmp/check.py" "$trace" "$tmp/counts" "$venv" || fail=1
    # the same module with numpy made unimportable: records still iterate
    if "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
        run_py "$venv" "$tmp/check.py" "$trace" "$tmp/counts" "$venv" block || fail=1
    fi
}

cat >"$tmp/check.py" <<'PYEOF'
import sys
trace, counts_file, venv = sys.argv[1:4]
if sys.argv[4:] == ["block"]:
    sys.modules["numpy"] = None          # import numpy raises ImportError
try:
    import numpy
except ImportError:
    numpy = None
import pal
bad = 0
def expect(cond, what):
    global bad
    if not cond:
        print("FAIL: " + what)
        bad += 1
expect(pal.__file__.startswith(venv), "pal imported from %s, not the venv" % pal.__file__)
want = {}
for line in open(counts_file):
    k, v = line.split()
    if k != "total":
        want[k] = int(v)
t = pal.open(trace)
expect(t.counts() == want, "counts %r, pal-dump says %r" % (t.counts(), want))
n = sum(1 for r in t if r.type == "enter")
expect(n == want["enter"], "iterated %d enter records, pal-dump says %d" % (n, want["enter"]))
if numpy is not None:
    cols = t.columns("enter")
    expect(len(cols["time"]) == want["enter"], "columns('enter') has %d rows" % len(cols["time"]))
    print("numpy %s: %d records iterated, columns read %d rows" % (numpy.__version__, n, len(cols["time"])))
else:
    for what in ("columns", "to_pandas"):
        try:
            getattr(t, what)("enter")
            expect(False, "%s worked without numpy" % what)
        except ImportError as e:
            expect("needs numpy" in str(e), "%s's error does not say it needs numpy: %s" % (what, e))
            print("no numpy: %d records iterated; %s says: %s" % (n, what, e))
sys.exit(1 if bad else 0)
PYEOF

sys_py=${ECL_TEST_PY:-/usr/bin/python3}
[ -x "$sys_py" ] || sys_py=$(command -v python3 || true)
if [ -n "$sys_py" ]; then
    part system "$sys_py" --system-site-packages
    # the sdist that make dist writes (make dist-python), built the same way
    if (cd "$tmp" && ${MAKE:-make} -s -C "$top_builddir" dist-python >"$tmp/sdist.out" 2>&1) &&
       cp "$top_builddir/ecl-pal-$version.tar.gz" "$tmp/"; then
        part sdist "$sys_py" --system-site-packages "$tmp/ecl-pal-$version.tar.gz"
    else
        cat "$tmp/sdist.out"
        echo "FAIL: make dist-python"
        fail=1
    fi
else
    echo "SKIP part system: no python3"
fi
# another interpreter: the first python3 on PATH, or python3.N, that is not the system one
other=""
sys_real=$("$sys_py" -c 'import sys, os; print(os.path.realpath(sys.executable))' 2>/dev/null)
for c in python3 python3.13 python3.12 python3.11 python3.10 python3.9; do
    p=$(command -v "$c" 2>/dev/null) || continue
    real=$("$p" -c 'import sys, os; print(os.path.realpath(sys.executable))' 2>/dev/null) || continue
    if [ "$real" != "$sys_real" ]; then
        other=$p
        break
    fi
done
if [ -n "$other" ]; then
    part other "$other" ""
else
    echo "SKIP part other: no Python >= 3.9 besides $sys_py on PATH"
fi
if [ $ran -eq 0 ] && [ $fail -eq 0 ]; then
    echo "SKIP: no venv could build the module (see above)"
    exit 77
fi
exit $fail
