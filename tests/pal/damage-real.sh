#!/bin/sh
# damage-real.sh -- one damaged spot costs at most one chunk's records on real
# traces: examples/threads traced with small buffers (many chunks), damaged
# all over (header, copies, dictionary and definition chunks, records, end
# summary, index, footer) and read back by PAL (tests/pal/damage_real.c).
# The same for the per-rank traces of an MPI run, read as a run and merged,
# is tests/mpi/damage.sh.
set -u
: "${top_builddir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-damage-real.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ECL_DIR=$tmp ECL_BUFFER_SIZE=8K "$top_builddir/examples/threads/threads" >/dev/null || exit 99
set -- "$tmp"/trace.*.ecl
[ -f "$1" ] || { echo "no trace written"; exit 99; }
"$top_builddir/tests/pal/damage_real" "$1"
