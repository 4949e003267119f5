#!/bin/sh
# html-mpi.sh -- what the HTML report's timeline says about MPI calls is
# what pal-dump and pal-view say (html-mpi.mjs in headless Chromium, with
# playwright-core): a click on an MPI_Isend shows the record's peer, tag,
# communicator, bytes and request and its exact start and end. The run:
# many-ranks.awk, 4 ranks, 3 steps. Skips (77), saying why, without
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
# rank 1's second MPI_Isend as pal-dump prints it (duration in us: many-ranks.edl)
"$pd" -d "$edl" --type isend -p 1 --head 2 "$tmp/run.trace" | tail -1 >"$tmp/isend" || exit 99
cat "$tmp/isend"
EXPECT=$(python3 - "$tmp/isend" <<'PY'
import json, sys
f = open(sys.argv[1]).read().split()
kv = dict(x.split('=', 1) for x in f[4:])
end_ns = round(float(f[0]) * 1e9)
start_ns = end_ns - int(kv['duration']) * 1000
fmt = lambda ns: '%d.%09d' % divmod(ns, 10**9)
print(json.dumps({'click': {'rank': 1, 'end': end_ns / 1e9, 'endText': f[0], 'start': fmt(start_ns),
                            'peer': int(kv['peer']), 'tag': int(kv['tag']), 'communicator': int(kv['comm']),
                            'bytes': int(kv['bytes']), 'request': int(kv['request'])}}))
PY
) || exit 99
mkdir -p "$tmp/js/node_modules"
ln -s "$(cd "$pw" && pwd)" "$tmp/js/node_modules/playwright-core"
cp "$top_srcdir/tests/views/browser.mjs" "$top_srcdir/tests/views/html-mpi.mjs" "$tmp/js/"
CHROMIUM=$(command -v "$chromium") EXPECT=$EXPECT timeout 120 node "$tmp/js/html-mpi.mjs" "$tmp/report.html"
