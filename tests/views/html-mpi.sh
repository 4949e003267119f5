#!/bin/sh
# html-mpi.sh -- what the HTML report's timeline says about MPI calls is
# what pal-dump and pal-view say (html-mpi.mjs in headless Chromium, with
# playwright-core): a click on an MPI_Isend shows the record's peer, tag,
# communicator, bytes and request and its exact start and end (a run of
# many-ranks.awk: 4 ranks, 3 steps), and its "jump to the receive" selects
# the rank-2 slice in which pal-dump shows the matching completion; on a run
# with 6,000 messages the whole-run view draws per-pair counts and no
# message line, a zoomed view draws lines, and the messages control hides
# them; the window profile of a selection
# (4 ranks, 1,500 steps: more slices than the page keeps) has the calls,
# inclusive and exclusive seconds per region that `pal-view --from --to`
# prints for the window the page reports; the report written with
# --from/--to opens on that window with the same profile; on the trace of
# tests/views/vwprog (nested regions, depth 3), a click on a depth >= 2
# sub-row shows the slice at that depth, not its child or parent; every
# cell of the heat map (threads x regions) equals the CSV's region row, and
# clicking one shows that region on that thread in the timeline. Skips (77), saying why, without
# Chromium, node or playwright-core.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
pd="$top_builddir/pal/pal-dump"
chromium=""
for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
done
pw=""
for d in "${PLAYWRIGHT_CORE_DIR:-}" "$top_builddir/node_modules/playwright-core" \
         "$(npm root -g 2>/dev/null)/playwright-core"; do
    [ -n "$d" ] && [ -f "$d/package.json" ] && { pw=$d; break; }
done
if [ -z "$chromium" ]; then echo "SKIP: chromium not installed (apt-get install -y chromium)"; exit 77; fi
if [ -z "$pw" ] || ! command -v node >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: playwright-core, node or python3 not found (npm install --prefix \$top_builddir playwright-core)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-mpi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
"$pv" -d "$edl" --html "$tmp/report.html" "$tmp/run.trace" || { echo "FAIL: pal-view --html"; exit 1; }
awk -v N=4 -v S=1500 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/big.trace" || exit 99
"$pv" -d "$edl" --html "$tmp/big.html" "$tmp/big.trace" || { echo "FAIL: pal-view --html (big)"; exit 1; }
# rank 1's second MPI_Isend as pal-dump prints it (duration in us: many-ranks.edl)
"$pd" -d "$edl" --type isend -p 1 --head 2 "$tmp/run.trace" | tail -1 >"$tmp/isend" || exit 99
cat "$tmp/isend"
# ... and the completions on rank 2, where its partner receive is
"$pd" -d "$edl" --type complete -p 2 "$tmp/run.trace" >"$tmp/complete" || exit 99
EXPECT=$(python3 - "$tmp/isend" "$tmp/complete" <<'PY'
import json, sys
f = open(sys.argv[1]).read().split()
kv = dict(x.split('=', 1) for x in f[4:])
end_ns = round(float(f[0]) * 1e9)
start_ns = end_ns - int(kv['duration']) * 1000
fmt = lambda ns: '%d.%09d' % divmod(ns, 10**9)
# its receive: the second completion of a receive from rank 1, tag 1, on rank 2
recv = [l.split() for l in open(sys.argv[2])]
recv = [r for r in recv if 'kind=1' in r and 'peer=1' in r and 'tag=1' in r]
print(json.dumps({'click': {'rank': 1, 'end': end_ns / 1e9, 'endText': f[0], 'start': fmt(start_ns),
                            'peer': int(kv['peer']), 'tag': int(kv['tag']), 'communicator': int(kv['comm']),
                            'bytes': int(kv['bytes']), 'request': int(kv['request']),
                            'recv': float(recv[1][0])}}))
PY
) || exit 99
# a window of whole profile buckets from 30 % to 55 % of the run, and what
# pal-view --from --to says about it
win=$(python3 - "$tmp/big.html" <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
p = tl['prof']
print(repr(round(p['nb'] * 0.3) * p['width']), repr(round(p['nb'] * 0.55) * p['width']))
PY
) || exit 99
set -- $win
"$pv" -d "$edl" --from "$1" --to "$2" "$tmp/big.trace" >"$tmp/window.txt" || { echo "FAIL: pal-view --from --to"; exit 1; }
"$pv" -d "$edl" --from "$1" --to "$2" --html "$tmp/window.html" "$tmp/big.trace" ||
    { echo "FAIL: pal-view --from --to --html"; exit 1; }
cat "$tmp/window.txt"
WEXPECT=$(python3 - "$tmp/window.txt" "$1" "$2" <<'PY'
import json, sys
regions = {}
for l in open(sys.argv[1]).read().splitlines()[5:]:
    f = l.split()
    if len(f) == 5:
        regions[f[0]] = {'calls': int(f[2]), 'total': float(f[3]), 'excl': float(f[4])}
print(json.dumps({'from': float(sys.argv[2]), 'to': float(sys.argv[3]), 'regions': regions}))
PY
) || exit 99
mkdir -p "$tmp/js/node_modules"
ln -s "$(cd "$pw" && pwd)" "$tmp/js/node_modules/playwright-core"
cp "$top_srcdir/tests/views/browser.mjs" "$top_srcdir/tests/views/html-mpi.mjs" "$tmp/js/"
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" || exit 99
"$pv" --html "$tmp/nested.html" "$(ls "$tmp"/vw.*.ecl | head -1)" || { echo "FAIL: pal-view --html (nested)"; exit 1; }
# the heat map against the CSV's per-thread region rows
"$pv" -d "$edl" --export csv "$tmp/big.trace" >"$tmp/big.csv" || { echo "FAIL: pal-view --export csv"; exit 1; }
HEXPECT=$(python3 -c 'import json, sys; print(json.dumps({"heat": {"csv": open(sys.argv[1]).read()}}))' "$tmp/big.csv") || exit 99
fail=0
CHROMIUM=$(command -v "$chromium") EXPECT=$HEXPECT timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/big.html" || fail=1
CHROMIUM=$(command -v "$chromium") EXPECT='{"depth": true}' timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/nested.html" || fail=1
CHROMIUM=$(command -v "$chromium") EXPECT=$EXPECT timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/report.html" || fail=1
CHROMIUM=$(command -v "$chromium") EXPECT="{\"window\": $WEXPECT, \"msgs\": true}" timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/big.html" || fail=1
CHROMIUM=$(command -v "$chromium") EXPECT="{\"opened\": $WEXPECT}" timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/window.html" || fail=1
exit $fail
