#!/bin/sh
# colours.sh -- colour families by role, the same everywhere: on a run of
# many-ranks.awk (collectives, blocking and non-blocking MPI, user code)
# and on tests/views/vwprog (nested user regions, pthread_join seen
# blocked), each region has one colour in the report's timeline data, the
# call-tree picture and the space-time picture's legend; its family is the
# one its role gives (MPI_Allreduce, MPI_Bcast: collectives; MPI_Waitall:
# blocking MPI; MPI_Isend, MPI_Irecv: other MPI; pthread_join: other
# waits; read (a call that moves bytes): I/O; work, kernel: user code),
# and regions of different families never share a colour.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-colours.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
{ awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk"; echo "3500 2 0 read 40 65536"; } |
    sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" || exit 99
"$pv" -d "$edl" --html "$tmp/mr.html" --svg "$tmp/mr" "$tmp/run.trace" 2>/dev/null || { echo "FAIL: pal-view (many-ranks)"; exit 1; }
"$pv" --html "$tmp/vw.html" --svg "$tmp/vw" "$(ls "$tmp"/vw.*.ecl | head -1)" || { echo "FAIL: pal-view (vwprog)"; exit 1; }
python3 - "$tmp" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
tmp = sys.argv[1]
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
want = {'MPI_Allreduce': 1, 'MPI_Bcast': 1, 'MPI_Waitall': 0, 'MPI_Isend': 2, 'MPI_Irecv': 2,
        'pthread_join': 3, 'read': 4, 'work': 5, 'kernel': 5, 'main': 5}
seen = set()
for run in ('mr', 'vw'):
    s = open(f'{tmp}/{run}.html', encoding='utf-8').read()
    tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
    col = {r['n']: r['c'] for r in tl['regions']}
    fam = {r['n']: r.get('f') for r in tl['regions']}
    for n, f in want.items():
        if n in fam:
            seen.add(n)
            if fam[n] != f: bad(f'{run}: {n} is in family {fam[n]}, expected {f}')
    byc = {}
    for n in col:
        byc.setdefault(col[n], set()).add(fam[n])
    for c, fs in byc.items():
        if len(fs) > 1: bad(f'{run}: colour {c} is used by families {fs}')
    # the call tree's boxes: <g><title>NAME: ...</title><rect fill=...>
    for g in ET.parse(f'{tmp}/{run}/calltree.svg').getroot().iter(NS + 'g'):
        t, r = g.find(NS + 'title'), g.find(NS + 'rect')
        if t is None or r is None: continue
        n = t.text.split(':')[0]
        if n in col and r.get('fill') != col[n]: bad(f'{run}: call tree {n} {r.get("fill")}, timeline {col[n]}')
    # the space-time legend: a swatch, then the name
    root = ET.parse(f'{tmp}/{run}/timeline.svg').getroot()
    els = list(root)
    for a, b in zip(els, els[1:]):
        if a.tag == NS + 'rect' and b.tag == NS + 'text' and a.get('width') == '10':
            n = ''.join(b.itertext()).replace(' (MPI)', '')
            if n in col and a.get('fill') != col[n]: bad(f'{run}: space-time legend {n} {a.get("fill")}, timeline {col[n]}')
if seen != set(want): bad(f'regions not found: {set(want) - seen}')
sys.exit(0 if ok else 1)
PY
