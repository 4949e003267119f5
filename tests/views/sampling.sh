#!/bin/sh
# sampling.sh -- every picture that draws a sample of the matched messages
# draws a uniform one: a run of 4 ranks and 1,500 steps (many-ranks.awk),
# 6,000 messages spread evenly over its whole length, more than the
# filter's 4,096-message reservoir. The space-time picture (--svg) and the
# HTML report's animator and timeline must have message lines in every
# twentieth of the run (they once drew the reservoir's first 1,000 / 2,000
# slots, which hold the run's first messages: a false "no communication"
# stretch), and both must say that they draw a sample and of how many.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-sample.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=1500 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
"$pv" -d "$edl" --view timeline --svg "$tmp/svg" "$tmp/run.trace" || { echo "FAIL: pal-view --svg"; exit 1; }
"$pv" -d "$edl" --html "$tmp/report.html" "$tmp/run.trace" || { echo "FAIL: pal-view --html"; exit 1; }
python3 - "$tmp" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
tmp = sys.argv[1]
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def gaps(name, ts, dur, parts=20):
    seen = [0] * parts
    for t in ts:
        seen[min(parts - 1, max(0, int(t / dur * parts)))] += 1
    empty = [i for i, c in enumerate(seen) if c == 0]
    if empty:
        bad(f'{name}: no message drawn in the twentieths {empty} of the run (per twentieth: {seen})')
    return seen
# the SVG: arrows in the group with the arrow marker, x from X0 to X0 + PW
root = ET.parse(f'{tmp}/svg/timeline.svg').getroot()
arrows = [g for g in root.iter(NS + 'g') if g.get('marker-end') == 'url(#arrow)']
xs = [float(l.get('x1')) for g in arrows for l in g.iter(NS + 'line')]
axis = [g for g in root.iter(NS + 'g') if g.get('class') == 'axis'][0]
line = next(axis.iter(NS + 'line'))
x0, x1 = float(line.get('x1')), float(line.get('x2'))
if not xs:
    bad('svg: no message arrows')
else:
    print('svg arrows per twentieth:', gaps('svg', [x - x0 for x in xs], x1 - x0))
text = ' '.join(''.join(t.itertext()) for t in root.iter(NS + 'text'))
m = re.search(r'a (?:uniform )?sample of ([0-9,]+) of ([0-9,]+)', text)
if not m or int(m.group(2).replace(',', '')) != 6000 or int(m.group(1).replace(',', '')) != len(xs):
    bad(f'svg: the caption does not say it draws a sample of {len(xs)} of 6000 messages: {m and m.group(0)}')
# the HTML report: the messages the animator and the timeline draw
s = open(f'{tmp}/report.html', encoding='utf-8').read()
data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))
tl, anim = data['tl'], data['anim']
msgs = anim.get('msgs', tl['msgs'])
dur = anim['duration']
print('animator messages per twentieth:', gaps('animator', [x[2] for x in msgs], dur))
print('timeline messages per twentieth:', gaps('timeline', [x[2] for x in tl['msgs']], dur))
if tl.get('nmatched') != 6000:
    bad(f"html: the timeline data do not say how many messages were matched (nmatched: {tl.get('nmatched')})")
sys.exit(0 if ok else 1)
PY
