#!/bin/sh
# install.sh -- an installation into a fresh prefix works with nothing but
# `eval "$(ecl-config --env)"`: this source tree is configured with a
# temporary --prefix (the build's own configure arguments otherwise), built
# and installed; then, in an environment holding only PATH=/usr/bin:/bin and
# what ecl-config --env prints, the README's route is taken: `mpicc app.c
# -lecl` (no -I, no -L), mpirun, the installed pal-dump reads the merged
# trace back (exact counts), `pkg-config ecl`/`ecl-config --libs` link too,
# and `import pal` reads the same trace when the module is built. It skips in
# sanitizer and fuzz builds (the plain build runs it) and without MPI.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
if [ "${ECL_TEST_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: ECL was configured without MPI (no working mpicc)"
    exit 77
fi
. "$top_srcdir/tests/build/build-args.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-install.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
prefix=$tmp/prefix
mkdir "$tmp/build" "$tmp/work"
echo "+ configure --prefix=$prefix $args"
# the build's arguments come back quoted for the shell
(cd "$tmp/build" && eval "\"\$top_srcdir/configure\" --prefix=\"\$prefix\" $args" >configure.out 2>&1) \
    || { tail -20 "$tmp/build/configure.out"; fail "configure --prefix=$prefix failed"; }
echo "+ make install"
(cd "$tmp/build" && ${MAKE:-make} -j2 install >make.out 2>&1) \
    || { tail -30 "$tmp/build/make.out"; fail "make install into $prefix failed"; }
grep -q "ECL is installed in $prefix, but:" "$tmp/build/make.out" \
    || fail "make install did not say what a prefix off the search paths needs"
have_python=no
[ -e "$tmp/build/python/pal.so" ] && have_python=yes

cp "$top_srcdir/tests/build/install-app.c" "$tmp/work/app.c" || exit 99
cat >"$tmp/work/tool.c" <<'EOC'
#include <stdio.h>
#include <pal.h>
#include <edl.h>
int main(int argc, char **argv)
{
    pal_reader *r;
    const pal_record *rec;
    unsigned long n = 0;
    if (argc != 2 || pal_reader_open(argv[1], NULL, &r) != PAL_OK)
        return 1;
    while (pal_reader_next(r, &rec) == PAL_OK)
        n += pal_recdesc_has_role(pal_record_desc(rec), PAL_ROLE_SEND) != 0;
    pal_reader_close(r);
    printf("sends %lu (PAL %s, EDL %s)\n", n, PAL_VERSION_STRING, EDL_VERSION_STRING);
    return PAL_ROLE_SEND != (int)EDL_ROLE_SEND;
}
EOC
cat >"$tmp/work/script.sh" <<EOS
set -eu
eval "\$('$prefix/bin/ecl-config' --env)"
cd '$tmp/work'
echo "+ mpicc app.c -o app -lecl"
mpicc app.c -o app -lecl
echo "+ mpirun -np 2 ./app"
ECL_DIR=. timeout 120 mpirun --oversubscribe -np 2 ./app
echo "+ pal-dump --count trace.ecl"
command -v pal-dump
pal-dump --count trace.ecl > counts
echo "+ pkg-config ecl"
cc app.c -o app-pc \$(pkg-config --cflags ecl) \$(mpicc --showme:compile) \
    \$(pkg-config --libs ecl) \$(mpicc --showme:link)
pkg-config --modversion ecl
echo "+ ecl-config --cflags --libs (no environment but PATH)"
env -i PATH=/usr/bin:/bin mpicc app.c -o app-cfg \$('$prefix/bin/ecl-config' --cflags --libs)
env -i PATH=/usr/bin:/bin ldd ./app-cfg | grep libecl
echo "+ cc tool.c \$(ecl-config --pal --cflags --libs) (pal.h, edl.h)"
env -i PATH=/usr/bin:/bin cc -std=c99 -pedantic-errors -Wall -Werror tool.c -o tool \$('$prefix/bin/ecl-config' --pal --cflags --libs)
env -i PATH=/usr/bin:/bin ./tool trace.ecl
if [ $have_python = yes ]; then
    echo "+ python3 -c 'import pal'"
    python3 -c 'import pal, sys; print(pal.__file__); t = pal.open("trace.ecl"); c = t.counts(); sys.exit(0 if (c["mpi_send"], c["enter"]) == (1, 2) else "counts %r" % c)'
fi
EOS
env -i PATH=/usr/bin:/bin HOME="$tmp" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    sh "$tmp/work/script.sh" >"$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 0 ] || fail "the route through ecl-config --env failed (status $st)"
grep -q "^$prefix/bin/pal-dump\$" "$tmp/out" || fail "pal-dump was not the installed one"
grep -q "libecl\\.so\\.[0-9]* => $prefix/lib/libecl\\.so" "$tmp/out" \
    || fail "the program linked with ecl-config --libs does not find $prefix/lib/libecl.so by itself"
[ $have_python = no ] || grep -q "^$prefix/.*/pal" "$tmp/out" || fail "import pal did not find the installed module"
for want in "enter 2" "leave 2" "mpi_init 2" "mpi_finalize 2" "mpi_send 1" "mpi_recv 1"; do
    set -- $want
    awk -v t="$1" -v n="$2" '$1 == t && $2 == n { ok = 1 } END { exit !ok }' "$tmp/work/counts" \
        || { cat "$tmp/work/counts"; fail "the installed run's trace has not $2 $1 records"; }
done
[ -x "$tmp/work/app-pc" ] || fail "pkg-config ecl did not link the program"
grep -q "^sends 1 (PAL " "$tmp/out" || fail "a PAL tool built with ecl-config --pal did not count 1 send"
echo "PASS: install into $prefix, built and traced with only ecl-config --env"
