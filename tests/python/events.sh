#!/bin/sh
# events.sh -- Trace.events() (the event layer, pal_events) in Python counts
# what pal-view's profile counts (markers, counter samples, lost records,
# unmatched leaves, regions open at the end, sends, receives, matched
# messages) on a toymp log and the PICL excerpt, and each matched message's
# ends agree with the send and receive events before it.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/py-events.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
pv="$top_builddir/views/pal-view"
cat >"$tmp/count.py" <<'PY'
import sys
import pal

t = pal.open(sys.argv[1], dictionary=sys.argv[2])
n = {}
unmatched = at_end = lost = 0
last = {}   # (process, stream) -> the last send or recv event
for e in t.events():
    k = e["kind"]
    n[k] = n.get(k, 0) + 1
    if k == "leave" and "unmatched" in e.get("flags", ()):
        if e.get("at_end"):
            at_end += 1
        else:
            unmatched += 1
    if k == "lost":
        lost += e["count"]
    if k in ("send", "recv"):
        last[(e["process"], e["stream"])] = e
    if k == "message":
        end = last[(e["process"], e["stream"])]
        s, r = e["send"], e["recv"]
        mine = s if end["kind"] == "send" else r
        other = r if end["kind"] == "send" else s
        if (mine[0], mine[1]) != (end["process"], end["stream"]) or mine[2] != end["time"] \
                or other[0] != end["peer"] or e["tag"] != end["tag"]:
            print("FAIL: message %r does not complete %r" % (e, end))
            sys.exit(1)
g = n.get
print("markers %d, counter samples %d, lost %d, unmatched leaves %d, open at end %d"
      % (g("marker", 0), g("counter", 0), lost, unmatched, at_end))
if g("send", 0) or g("recv", 0):
    print("Messages: %d sends, %d receives, %d matched"
          % (g("send", 0), g("recv", 0), g("message", 0)))
PY
same() {
    name=$1
    "$pv" -d "$3" "$2" 2>/dev/null | sed -n 's/^  \(markers .*\)$/\1/p; /^Messages:/p' >"$tmp/want"
    "$PY" "$tmp/count.py" "$2" "$3" >"$tmp/got" || { echo "FAIL: $name: events()"; fail=1; return; }
    if [ ! -s "$tmp/want" ]; then
        echo "FAIL: $name: pal-view said nothing"
        fail=1
    elif diff -u "$tmp/want" "$tmp/got"; then
        n=$((n + 1))
        echo "ok: $name: $(tr '\n' ' ' <"$tmp/got")"
    else
        echo "FAIL: $name: Trace.events() counts otherwise than pal-view"
        fail=1
    fi
}
sh "$top_srcdir/examples/toymp/toymp-ring" 4 3 >"$tmp/ring.log" || exit 99
same toymp "$tmp/ring.log" "$top_srcdir/edl/formats/toymp.edl"
same picl "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf" "$top_srcdir/edl/formats/picl.edl"
[ "$n" -eq 2 ] || { echo "FAIL: $n of 2 traces compared"; fail=1; }
exit $fail
