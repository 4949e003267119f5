#!/bin/sh
# events-messages.sh -- PAL_EVENTS_MESSAGES (the merge's check reads with
# it) gives the sends, receives, untimed receives and messages of a read
# without it, in the same order and to the last field, and no region: on
# the PICL samples (sends on enter records, receives on leave records:
# frames are kept), the OTF2-shaped test traces, and made-up ECL runs with
# receives freed while active and clocks that need correcting (tests/mpi/
# mktraces, frames not kept: no enter or leave record sends or receives).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
ev="$top_builddir/tests/pal/test_pal_events"
edlc="$top_builddir/edl/edlc"
mk="$top_builddir/tests/mpi/mktraces"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/events-messages.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

check() {
    if out=$("$ev" --messages "$@" 2>&1); then
        n=$((n + 1))
        echo "ok: ${out} ($*)"
    else
        echo "FAIL: ${out} ($*)"
        fail=1
    fi
}

"$edlc" -o "$tmp/picl.dict" "$top_srcdir/edl/formats/picl.edl" || exit 99
for f in "$top_srcdir"/tests/edl/samples/*.ttf; do
    check -d "$tmp/picl.dict" "$f"
done
for t in otf2-req otf2-gpu; do
    check -d "$top_srcdir/tests/views/$t.edl" "$top_srcdir/tests/views/$t.trace"
done
for run in freed drift; do
    mkdir "$tmp/$run" && "$mk" "$run" "$tmp/$run" || exit 99
    check "$tmp/$run"
done
[ "$fail" = 0 ] || exit 1
echo "events-messages: $n traces, the same messages with PAL_EVENTS_MESSAGES"
