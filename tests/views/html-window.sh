#!/bin/sh
# html-window.sh -- a report with a window (--html --from A --to B) keeps
# every slice that overlaps the window, exactly, even when the run has far
# more slices than the report keeps: on a run of many-ranks.awk with 4 ranks
# and 3,000 steps (75,000 slices, above the 20,000 kept), the window of two
# steps in the middle has its slices (computed here from the trace's
# records: each call ends at its time and lasted its duration) all in the
# report's data, with their times to the microsecond, and the data say so
# (wslices: the window, true, their number); the report still says that the
# run's slices are not all kept (complete false, nslices 75,000). Without a
# window the report has no wslices.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-hwin.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=3000 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
# two steps (1 ms each) in the middle; the bounds fall between the records' microseconds
"$pv" -d "$edl" --html "$tmp/w.html" --from 1.5000005 --to 1.5020005 "$tmp/run.trace" >/dev/null ||
    { echo "FAIL: pal-view --html --from --to"; exit 1; }
"$pv" -d "$edl" --html "$tmp/all.html" "$tmp/run.trace" >/dev/null || { echo "FAIL: pal-view --html"; exit 1; }
python3 - "$tmp" <<'PY'
import json, re, sys
tmp = sys.argv[1]
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def data(path):
    s = open(path, encoding='utf-8').read()
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
wa, wb = 1.5000005, 1.5020005
# the calls of the trace: TIME RANK THREAD EVENT DURATION ... (microseconds)
calls = {'work', 'isend', 'irecv', 'waitall', 'allreduce', 'bcast'}
want, total = [], 0
for line in open(f'{tmp}/run.trace'):
    f = line.split()
    if len(f) < 5 or f[3] not in calls: continue
    total += 1
    end, start = int(f[0]), int(f[0]) - int(f[4])
    if end / 1e6 > wa and start / 1e6 < wb:
        want.append((int(f[1]), int(f[2]), start, end))
tl = data(f'{tmp}/w.html')
rows = tl['rows']
got = sorted((rows[s[0]]['p'], rows[s[0]]['t'], round(s[3] * 1e6), round(s[4] * 1e6))
             for s in tl['slices'] if s[4] > wa and s[3] < wb)
print(f'{total} calls in the run, {len(want)} in the window; report: {len(tl["slices"])} slices kept, '
      f'{len(got)} in the window, wslices {tl.get("wslices")}')
if tl.get('nslices') != total: bad(f'nslices {tl.get("nslices")}, the trace has {total} calls')
if tl.get('complete') is not False: bad('the report says every slice of the run is kept')
if len(want) < 40: bad(f'the window holds only {len(want)} calls (the test expects two steps)')
if got != sorted(want):
    missing = sorted(set(want) - set(got))[:5]
    bad(f'the window\'s slices differ: {len(got)} kept, {len(want)} in the trace; missing e.g. {missing}')
w = tl.get('wslices')
if not w or abs(w[0] - wa) > 1e-9 or abs(w[1] - wb) > 1e-9 or w[2] is not True or w[3] != len(want):
    bad(f'wslices {w}, expected [{wa}, {wb}, true, {len(want)}]')
if 'wslices' in data(f'{tmp}/all.html'): bad('a report without a window has wslices')
sys.exit(0 if ok else 1)
PY
