#!/bin/sh
# install-default.sh -- `make install` with the default prefix (/usr/local)
# leaves a system where ECL works with no change to the environment: in an
# environment holding only Debian's default PATH (/usr/local/bin first), the
# README's `mpicc app.c -lecl` builds (no -I, -L or rpath) and runs (the
# dynamic linker finds libecl.so.N: make install ran ldconfig), the tools on
# PATH are the installed ones (ecl-config, ecl-run, ecl-merge, edlc,
# pal-dump, pal-view), `ecl-run mpirun` traces a program built without ECL,
# `pkg-config ecl` works without PKG_CONFIG_PATH and `import pal` without
# PYTHONPATH (when the module is built). Everything installed is removed
# afterwards (make uninstall, the directories and byte-compiled files it
# leaves, ldconfig again), and the test fails if anything is left behind.
#
# It writes into /usr/local, so it runs only where that is meant: as root,
# with /usr/local writable and no ECL already there, in CI (CI=true, as CI
# services set it) or when asked (ECL_TEST_INSTALL_SYSTEM=yes); it skips,
# saying why, otherwise, in sanitizer and fuzz builds and without MPI.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
sys=/usr/local
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: ECL was configured without MPI (no working mpicc)"
    exit 77
fi
if [ "${CI:-}" != true ] && [ "${ECL_TEST_INSTALL_SYSTEM:-no}" != yes ]; then
    echo "SKIP: installs into $sys: runs in CI (CI=true) or with ECL_TEST_INSTALL_SYSTEM=yes"
    exit 77
fi
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: not root (uid $(id -u)): make install into $sys needs root, as CI has"
    exit 77
fi
if [ ! -d "$sys" ] || [ ! -w "$sys" ]; then
    echo "SKIP: $sys is not a writable directory (a read-only system image?)"
    exit 77
fi
for f in "$sys/bin/ecl-config" "$sys/include/ecl.h" "$sys/lib/pkgconfig/ecl.pc"; do
    if [ -e "$f" ]; then
        echo "SKIP: an ECL is already installed in $sys ($f): this test would replace it, then remove it"
        exit 77
    fi
done
. "$top_srcdir/tests/build/build-args.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-install-default.XXXXXX") || exit 99
# what was in /usr/local before: everything else is this test's to remove
find "$sys" -xdev | sort >"$tmp/before" || exit 99
installed=no
cleanup() {
    if [ $installed = yes ]; then
        (cd "$tmp/build" && ${MAKE:-make} uninstall >uninstall.out 2>&1) ||
            echo "make uninstall failed: $(tail -3 "$tmp/build/uninstall.out")"
        # what make uninstall leaves (directories, __pycache__), deepest first;
        # only what the installation created (listed right after it)
        find "$sys" -xdev | sort >"$tmp/after"
        comm -13 "$tmp/before" "$tmp/after" | sort -r | while read -r p; do
            grep -qxF "$p" "$tmp/installed" || continue
            if [ -d "$p" ] && [ ! -L "$p" ]; then rmdir "$p"; else rm -f "$p"; fi
        done
        command -v ldconfig >/dev/null 2>&1 && ldconfig
        installed=no
    fi
}
trap 'cleanup; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fail() {
    echo "FAIL: $*"
    exit 1
}
mkdir "$tmp/build" "$tmp/work"
echo "+ configure $args (default prefix)"
(cd "$tmp/build" && eval "\"\$top_srcdir/configure\" $args" >configure.out 2>&1) \
    || { tail -20 "$tmp/build/configure.out"; fail "configure (default prefix) failed"; }
grep -q "^prefix = $sys\$" "$tmp/build/Makefile" || fail "the default prefix is not $sys"
echo "+ make install"
installed=yes
(cd "$tmp/build" && ${MAKE:-make} -j2 install >make.out 2>&1)
st=$?
find "$sys" -xdev | sort >"$tmp/all"
comm -13 "$tmp/before" "$tmp/all" >"$tmp/installed"
[ $st -eq 0 ] || { tail -30 "$tmp/build/make.out"; fail "make install into $sys failed"; }
if grep -q "ECL is installed in $sys, but:" "$tmp/build/make.out"; then
    sed -n "/ECL is installed in/,\$p" "$tmp/build/make.out"
    fail "make install says $sys needs more than the default environment"
fi
echo "installed: $(wc -l <"$tmp/installed") new paths in $sys"
have_python=no
[ -e "$tmp/build/python/pal.so" ] && have_python=yes

cp "$top_srcdir/tests/build/install-app.c" "$tmp/work/app.c" || exit 99
cat >"$tmp/work/plain.c" <<'EOC'
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, v = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return v != 7;
}
EOC
cat >"$tmp/work/script.sh" <<EOS
set -eu
cd '$tmp/work'
echo "+ mpicc app.c -o app -lecl"
mpicc app.c -o app -lecl
ldd ./app | grep 'libecl\\.so'
echo "+ mpirun -np 2 ./app"
mkdir linked preloaded
ECL_DIR=linked timeout 120 mpirun --oversubscribe -np 2 ./app
for t in ecl-config ecl-run ecl-merge edlc pal-dump pal-view; do
    echo "tool \$(command -v \$t) \$(\$t --version | head -n 1)"
done
pal-dump --count linked/trace.ecl >counts
echo "+ ecl-run mpirun -np 2 ./plain (built without ECL)"
mpicc plain.c -o plain
ECL_DIR=preloaded timeout 120 ecl-run mpirun --oversubscribe -np 2 ./plain
pal-dump --count preloaded/trace.ecl >counts.preloaded
echo "+ pkg-config ecl"
pkg-config --modversion ecl
cc app.c -o app-pc \$(pkg-config --cflags ecl) \$(mpicc --showme:compile) \
    \$(pkg-config --libs ecl) \$(mpicc --showme:link)
if [ $have_python = yes ]; then
    echo "+ python3 -c 'import pal'"
    python3 -c 'import pal, sys; print("pal", pal.__file__); t = pal.open("linked/trace.ecl"); c = t.counts(); sys.exit(0 if (c["mpi_send"], c["enter"]) == (1, 2) else "counts %r" % c)'
fi
EOS
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp" OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 sh "$tmp/work/script.sh" >"$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 0 ] || fail "the default-prefix route failed (status $st)"
grep -q "libecl\\.so\\.[0-9]* => $sys/lib/libecl\\.so" "$tmp/out" \
    || fail "the program linked with -lecl does not find $sys/lib/libecl.so through the linker's cache"
for t in ecl-config ecl-run ecl-merge edlc pal-dump pal-view; do
    grep -q "^tool $sys/bin/$t " "$tmp/out" || fail "$t on PATH is not $sys/bin/$t"
done
for want in "enter 2" "mpi_send 1" "mpi_recv 1"; do
    set -- $want
    awk -v t="$1" -v n="$2" '$1 == t && $2 == n { ok = 1 } END { exit !ok }' "$tmp/work/counts" \
        || { cat "$tmp/work/counts"; fail "the linked run's trace has not $2 $1 records"; }
done
for want in "mpi_send 1" "mpi_recv 1"; do
    set -- $want
    awk -v t="$1" -v n="$2" '$1 == t && $2 == n { ok = 1 } END { exit !ok }' \
        "$tmp/work/counts.preloaded" \
        || { cat "$tmp/work/counts.preloaded"; fail "ecl-run's trace has not $2 $1 records"; }
done
[ -x "$tmp/work/app-pc" ] || fail "pkg-config ecl did not link the program"
[ $have_python = no ] || grep -q "^pal $sys/" "$tmp/out" || fail "import pal did not find the module in $sys"
cleanup
find "$sys" -xdev | sort >"$tmp/end"
if ! cmp -s "$tmp/before" "$tmp/end"; then
    comm -13 "$tmp/before" "$tmp/end" | head -20
    fail "the installation left paths behind in $sys (above)"
fi
echo "PASS: installed into $sys, used with no environment change, removed again"
