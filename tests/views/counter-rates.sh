#!/bin/sh
# counter-rates.sh -- the report's counter tracks: a count (samples that
# never decrease) is drawn as its rate per second with its unit per second,
# a gauge as its values. A run of many-ranks.awk (4 ranks, 3 steps) with a
# counter "sent" (unit B, many-ranks.edl): on rank 0 a count that grows by
# 4096 B every 100 us (40,960,000 B/s) and whose step doubles in its second
# half; on rank 1 samples that go down and up (a gauge). Per bucket the
# rate is (last sample - the last sample of the previous bucket with
# samples) / (the time between them), computed here from the samples. The
# two go into two runs: one name's track is a count only when no process's
# samples decrease.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-rates.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk" >"$tmp/base" || exit 99
# a count on rank 0: t = 100, 200, ... 3000 us; 4096 B per step, 8192 after 1500 us
awk 'BEGIN { v = 0; for (t = 100; t <= 3000; t += 100) { v += t <= 1500 ? 4096 : 8192; printf "%d 0 0 sent %d\n", t, v } }' >"$tmp/count"
# a gauge on rank 1: 10, 5, 20, 15, ...
awk 'BEGIN { for (i = 0; i < 20; i++) printf "%d 1 0 sent %d\n", 150 + 100 * i, (i % 2 ? 5 : 10) + 10 * int(i / 2) }' >"$tmp/gauge"
sort -n -s -k1,1 "$tmp/base" "$tmp/count" >"$tmp/count.trace" || exit 99
sort -n -s -k1,1 "$tmp/base" "$tmp/gauge" >"$tmp/gauge.trace" || exit 99
"$pv" -d "$edl" --html "$tmp/count.html" "$tmp/count.trace" || { echo "FAIL: pal-view --html (count)"; exit 1; }
"$pv" -d "$edl" --html "$tmp/gauge.html" "$tmp/gauge.trace" || { echo "FAIL: pal-view --html (gauge)"; exit 1; }
python3 - "$tmp" <<'PY'
import json, math, re, sys
tmp = sys.argv[1]
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def track(run):
    s = open(f'{tmp}/{run}.html', encoding='utf-8').read()
    tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
    c = [x for x in tl['counters'] if x['name'].startswith('counter#')]
    if len(c) != 1: bad(f'{run}: {len(c)} counter tracks'); return tl, None
    return tl, c[0]
tl, c = track('count')
if c:
    # times from the run's first record, at 0 (the communicator definitions)
    samples = [(float(l.split()[0]) * 1e-6, float(l.split()[4])) for l in open(f'{tmp}/count')]
    w = tl['width']
    last = {}
    for t, v in samples:
        last[int(t / w + 1e-9)] = (t, v)
    want, prev = {}, None
    for b in sorted(last):
        if prev is not None:
            want[b] = (last[b][1] - prev[1]) / (last[b][0] - prev[0])
        prev = last[b]
    got = {b: x[2] for b, x in enumerate(c.get('r', [])) if x}
    print(f"count: cum {c['cum']}, unit {c['unit']!r}, {len(got)} buckets with a rate, "
          f"rates {sorted(set(round(v) for v in got.values()))} B/s")
    if c['cum'] != 1 or c['unit'] != 'B': bad(f"count: cum {c['cum']}, unit {c['unit']!r}")
    if set(got) != set(want) or len(want) < 20:
        bad(f'count: rates in buckets {sorted(got)}, expected {sorted(want)}')
    for b in want:
        if b in got and not math.isclose(got[b], want[b], rel_tol=1e-9):
            bad(f'count: bucket {b} rate {got[b]}, expected {want[b]}')
    if not {40960000, 81920000} <= set(round(v) for v in got.values()):
        bad('count: the rates are not 40,960,000 and 81,920,000 B/s')
tl, c = track('gauge')
if c:
    print(f"gauge: cum {c['cum']}, unit {c['unit']!r}, rates {'r' in c}")
    if c['cum'] != 0 or 'r' in c or c['unit'] != 'B': bad(f'gauge: drawn as a count ({c["cum"]}, {c["unit"]!r})')
sys.exit(0 if ok else 1)
PY
