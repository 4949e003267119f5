#!/bin/sh
# counter-rates.sh -- the report's counter tracks: a count (samples that
# never decrease: vwnames' "heat", 0, 3, 6, ...) is drawn as its rate per
# second with its unit ("C", from the counter's definition) per second:
# per bucket, (last sample - the last sample of the previous bucket with
# samples) / (the time between them), computed here from pal-dump's
# samples (to pal-dump's nanosecond rounding).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
pd="$top_builddir/pal/pal-dump"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-rates.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ECL_GROUPS=none ECL_DIR="$tmp" ECL_PREFIX=nm "$top_builddir/tests/views/vwnames" || exit 99
trace=$(ls "$tmp"/nm.*.ecl | head -1)
"$pv" --html "$tmp/r.html" "$trace" || { echo "FAIL: pal-view --html"; exit 1; }
"$pd" -t counter_int "$trace" >"$tmp/heat.txt" || exit 99
python3 - "$tmp/r.html" "$tmp/heat.txt" <<'PY'
import json, math, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
c = [x for x in tl['counters'] if x['name'].startswith('heat')]
if not c:
    print('FAIL: no heat counter track'); sys.exit(1)
c = c[0]
samples = [(float(l.split()[0]), float(l.split()[-1].split('=')[1])) for l in open(sys.argv[2])]
w = tl['width']
last = {}
for t, v in samples:
    last[int(t / w)] = (t, v)
want, tol, prev = {}, {}, None
for b in sorted(last):
    if prev is not None:
        dt = last[b][0] - prev[0]
        want[b] = (last[b][1] - prev[1]) / dt
        tol[b] = 2e-9 / dt + 1e-9   # pal-dump prints times rounded to the ns
    prev = last[b]
got = {b: x[2] for b, x in enumerate(c.get('r', [])) if x}
ok = c['cum'] == 1 and c['unit'] == 'C' and set(got) == set(want) and len(want) > 0 and \
     all(math.isclose(got[b], want[b], rel_tol=tol[b]) for b in want)
print(f"heat: cum {c['cum']}, unit {c['unit']!r}, rates per bucket {got}, from pal-dump {want}")
if not ok:
    print('FAIL: the heat track is not its rate per second with its unit'); sys.exit(1)
PY
