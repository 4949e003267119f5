#!/bin/sh
# merge-options.sh -- pal_merge_options' size field (tests/build/merge_options.c)
# on the made-up two-rank run of tests/mpi/mktraces.
set -u
: "${top_builddir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/merge-options.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
"$top_builddir/tests/mpi/mktraces" drift "$tmp" || { echo "FAIL: mktraces drift"; exit 99; }
"$top_builddir/tests/build/merge_options" "$tmp"
