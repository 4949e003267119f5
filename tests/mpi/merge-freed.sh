#!/bin/sh
# merge-freed.sh -- receives freed with MPI_Request_free while active
# (mpi_complete flag 16, role untimed) in the merge's message check, which
# pairs through the event layer's one matcher (no MPI needed; the run is
# mktraces freed). Rank 0 sends to rank 1 on communicator 0: tag 7 at 10,
# 20, 30 us, tag 9 at 40, tag 11 at 50; and tag 7 on communicator 5 at 5 us
# (128 bytes, the others 64). Rank 1 receives tag 7 on communicator 0 at 25
# and 35 us (the sends of 10 and 20: a matcher that mixed the communicators
# would pair sizes that differ) and on communicator 5 at 60 us (the send of
# 5 us); it frees a receive
# from rank 0 with tag 7 (it takes the send of 30 us, left over), one from
# any source with any tag (the oldest send left over: tag 9), one with tag
# 99 (nothing to take), and rank 0 frees a send's request. So: 3 messages,
# 2 sends taken by freed receives, the send of tag 11 unmatched. Both merged
# formats say so; exit status 2.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
mk=$top_builddir/tests/mpi/mktraces
merge=$top_builddir/ecl/tools/ecl-merge
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-merge-freed.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

"$mk" freed "$tmp" || fail "mktraces freed"
# the event layer's own account: 3 untimed receives, 3 messages, and
# settled the sends of 30 and 40 us taken (the wildcard takes the oldest)
"$mk" events "$tmp" || fail "the events of the freed run"
for form in "--format=2" "--check"; do
    "$merge" $form -o "$tmp/m.ecl" "$tmp/trace.0.ecl" "$tmp/trace.1.ecl" > "$tmp/out" 2>&1
    st=$?
    cat "$tmp/out"
    [ $st -eq 2 ] || fail "ecl-merge $form: exit status $st, expected 2"
    grep -q "^ecl-merge: 2 sends went to receives freed with MPI_Request_free: their completion is unknown$" "$tmp/out" ||
        fail "ecl-merge $form: not the 2 sends taken by freed receives"
    grep -q "^ecl-merge: 1 sends without a receive and 0 receives without a send in the merged trace$" "$tmp/out" ||
        fail "ecl-merge $form: not the one send of tag 11 unmatched"
    grep -q "receives complete before\|another size" "$tmp/out" &&
        fail "ecl-merge $form: a receive paired with the wrong send"
    [ "$(grep -c . "$tmp/out")" -eq 2 ] || fail "ecl-merge $form: said more than expected"
    [ -s "$tmp/m.ecl" ] || fail "ecl-merge $form: nothing merged"
    rm -f "$tmp/m.ecl"
done
echo "PASS"
