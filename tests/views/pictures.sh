#!/bin/sh
# pictures.sh -- the SVG pictures are finished ParaGraph panels: on the
# traces of tests/views/vwprog (nested regions on 3 threads), vwnames (long
# and broken names) and the PICL sample (8 ranks, messages), every plot has
# a labelled axis whose tick labels are round (k times a 1, 2 or 5 step) and
# lie inside the picture; the space-time picture colours rows by region
# (several colours, a legend naming the regions under their colour
# families, MPI ones among them) and draws
# messages as arrows; call-tree boxes wide enough carry their names, cut with
# an ellipsis when narrow; the communication matrix has rank labels, axis
# titles and a colour scale and its title fits.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-pic.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" || exit 99
# without the threads group: its pthread_join waits (as long as the whole
# run) would take the call tree's width from the names it is about
ECL_GROUPS=none ECL_DIR="$tmp" ECL_PREFIX=nm "$top_builddir/tests/views/vwnames" || exit 99
"$top_builddir/edl/edlc" -o "$tmp/picl.dict" "$top_srcdir/edl/formats/picl.edl" || exit 99
"$pv" --svg "$tmp/vw" "$(ls "$tmp"/vw.*.ecl | head -1)" || bad "vwprog svg"
"$pv" --svg "$tmp/nm" "$(ls "$tmp"/nm.*.ecl | head -1)" || bad "vwnames svg"
"$pv" -d "$tmp/picl.dict" --svg "$tmp/picl" "$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf" ||
    bad "picl svg"

python3 - "$tmp" <<'PY' || fail=1
import math, os, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
tmp = sys.argv[1]
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def load(d, n):
    return ET.parse(os.path.join(tmp, d, n + '.svg')).getroot()
def round_step(vals):
    if len(vals) < 2: return False
    st = vals[1] - vals[0]
    if st <= 0: return False
    m = st / 10 ** math.floor(math.log10(st) + 1e-9)
    if not any(abs(m - k) < 1e-6 for k in (1, 2, 5, 10)): return False
    return all(abs(v / st - round(v / st)) < 1e-6 for v in vals)
for d in ('vw', 'nm', 'picl'):
    for n in ('utilization', 'utilization-total', 'timeline', 'calltree'):
        root = load(d, n); W = float(root.get('width'))
        axes = [g for g in root.iter(NS + 'g') if g.get('class') == 'axis']
        if not axes: bad(f'{d}/{n}: no axis'); continue
        for g in axes:
            texts = [t for t in g.iter(NS + 'text')]
            ticks = [t for t in texts if t.get('text-anchor') in ('start', 'middle', 'end') and re.fullmatch(r'-?[0-9.]+', t.text or '')]
            title = texts[-1].text or ''
            if not re.search(r'\((s|ms|µs|ns|%|bytes)\)|bytes', title): bad(f'{d}/{n}: axis title without unit: {title!r}')
            vals = [float(t.text) for t in ticks]
            if not round_step(vals): bad(f'{d}/{n}: ticks not round: {vals}')
            for t in ticks:
                x = float(t.get('x')); a = t.get('text-anchor'); w = 6.5 * len(t.text)
                lo = x - (w if a == 'end' else w / 2 if a == 'middle' else 0)
                if lo < 0 or lo + w > W + 1: bad(f'{d}/{n}: tick {t.text} clipped at x={x}')
# space-time: region colours and a legend
root = load('vw', 'timeline')
fills = {r.get('fill') for r in root.iter(NS + 'rect') if r.get('height') not in (None,) and r.get('width') != r.get('height')}
legend = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
for name in ('solve', 'kernel', 'halo', 'main'):
    if name not in legend: bad(f'timeline legend lacks {name}')
fills.discard('white')
legend_cols = {r.get('fill') for r in root.iter(NS + 'rect') if r.get('width') == '10' and r.get('height') == '10'}
if len(fills) < 2: bad(f'timeline uses {len(fills)} region colours')
if not fills <= legend_cols: bad(f'timeline colours {fills - legend_cols} not in the legend')
root = load('picl', 'timeline')
lines = [l for g in root.iter(NS + 'g') if g.get('marker-end') for l in g.iter(NS + 'line')]
if not lines: bad('picl timeline: no message arrows')
if not any('MPI' in (t.text or '') for t in root.iter(NS + 'text') if t.get('class') == 'family'):
    bad('picl timeline legend has no MPI colour family')
# call tree: names on boxes, ellipsis on the long one
root = load('nm', 'calltree')
labels = [t.text or '' for g in root.iter(NS + 'g') if g.find(NS + 'rect') is not None for t in g.findall(NS + 'text')]
boxes = [r for g in root.iter(NS + 'g') for r in g.findall(NS + 'rect') if float(r.get('width')) > 14]
if len(labels) != len(boxes): bad(f'calltree: {len(boxes)} wide boxes, {len(labels)} labels')
# (how much of it fits depends on the run's timing: any prefix will do)
LONG = 'a-very-long-region-name-that-does-not-fit-in-any-box-of-the-call-tree-picture-at-all'
if not any(l.endswith('\u2026') and len(l) > 1 and LONG.startswith(l[:-1]) for l in labels): bad(f'calltree: long name not cut with an ellipsis: {labels}')
# communication matrix
root = load('picl', 'comm'); txt = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
for w in ('receiver rank', 'sender rank', 'log scale', 'B'):
    if w not in txt: bad(f'comm lacks {w!r}')
if not any(s.get('id') == 'heat' for s in root.iter(NS + 'linearGradient')): bad('comm: no colour scale')
if float(root.get('width')) < 6.5 * len('Communication matrix (bytes, sender row)') + 10: bad('comm title clipped')
nums = sorted({t.text for t in root.iter(NS + 'text') if re.fullmatch(r'[0-7]', t.text or '')})
if nums != [str(i) for i in range(8)]: bad(f'comm rank labels {nums}')
sys.exit(0 if ok else 1)
PY
exit $fail
