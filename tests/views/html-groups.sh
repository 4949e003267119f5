#!/bin/sh
# html-groups.sh -- grouped rows and collective instances in the HTML
# report's timeline, in headless Chromium driven by playwright-core
# (html-groups.mjs): a run of 100 ranks (every tenth with a second thread)
# and 6 steps, written by many-ranks.awk in the format many-ranks.edl
# describes; each step has one MPI_Allreduce and one MPI_Bcast over the
# 100 ranks, so the run has 12 collective instances. The report must parse
# as XML (xmllint). Screenshots: $VIEWS_ARTIFACTS (default: the build
# directory) html-groups-{load,open,coll}.png. Skips (77), saying why,
# without Chromium, node or playwright-core.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
chromium=""
for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
done
pw=""
for d in "${PLAYWRIGHT_CORE_DIR:-}" "$top_builddir/node_modules/playwright-core" \
         "$(npm root -g 2>/dev/null)/playwright-core"; do
    [ -n "$d" ] && [ -f "$d/package.json" ] && { pw=$d; break; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-groups.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
awk -v N=100 -v S=6 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" "$tmp/run.trace" >"$tmp/profile.txt" || { echo "FAIL: pal-view"; exit 1; }
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --html "$tmp/report.html" "$tmp/run.trace" ||
    { echo "FAIL: pal-view --html"; exit 1; }
fail=0
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$tmp/report.html" || { echo "FAIL: the report is not well-formed XML"; fail=1; }
fi
# the filters see what the generator wrote: 6 allreduce and 6 bcast instances
grep -Eq '^  MPI_Allreduce +6 ' "$tmp/profile.txt" || { echo "FAIL: allreduce instances"; fail=1; }
grep -Eq '^  MPI_Bcast +6 ' "$tmp/profile.txt" || { echo "FAIL: bcast instances"; fail=1; }
# every row of every level covers the whole run: its runs add up to the
# level's buckets (rows once lost their last run when k did not divide them)
python3 - "$tmp/report.html" <<'PY' || fail=1
import json, re, sys
s = open(sys.argv[1], encoding='utf-8', errors='replace').read()
tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
nb, nc = tl['nb'], -(-tl['nb'] // tl['coarse'])
bad = [(lv, i, sum(r[1::2])) for lv, want in (('lv0', nc), ('lv1', nb), ('counts', nb))
       for i, r in enumerate(tl[lv]) if sum(r[1::2]) != want]
# the call-stack levels too, within the report's bucket budget
bad += [('dl', i, d, sum(r[1::2])) for i, row in enumerate(tl['dl']) for d, r in enumerate(row)
        if sum(r[1::2]) != tl['dlnb']]
if sum(len(row) for row in tl['dl']) * tl['dlnb'] > 262144:
    bad.append(('dl budget', sum(len(row) for row in tl['dl']), tl['dlnb']))
if bad:
    print(f'FAIL: timeline rows that do not cover the run (level, row, buckets; want {nc}/{nb}): {bad[:5]}')
    sys.exit(1)
PY
if [ -z "$chromium" ]; then
    echo "SKIP: chromium not installed (apt-get install -y chromium)"; [ $fail = 0 ] && exit 77; exit 1
fi
if [ -z "$pw" ] || ! command -v node >/dev/null 2>&1; then
    echo "SKIP: playwright-core or node not found: grouped rows and collectives are not tested"
    echo "      (npm install --prefix \$top_builddir playwright-core; ./run does it)"
    [ $fail = 0 ] && exit 77; exit 1
fi
mkdir -p "$tmp/js/node_modules"
ln -s "$(cd "$pw" && pwd)" "$tmp/js/node_modules/playwright-core"
cp "$top_srcdir/tests/views/browser.mjs" "$top_srcdir/tests/views/html-groups.mjs" "$tmp/js/"
art="${VIEWS_ARTIFACTS:-$top_builddir}"
CHROMIUM=$(command -v "$chromium") EXPECT_ROWS=110 EXPECT_COLLS=12 timeout 120 \
    node "$tmp/js/html-groups.mjs" "$tmp/report.html" "$art/html-groups" || fail=1
exit $fail
