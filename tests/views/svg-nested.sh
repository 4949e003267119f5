#!/bin/sh
# svg-nested.sh -- the space-time picture (--svg, timeline.svg) draws each
# thread's call stack as sub-rows, as the report's timeline does:
# 1. tests/views/vwprog (nested user regions, a frame left open): each
#    thread has as many sub-rows as its deepest call stack, computed here
#    from pal-dump's enter/leave records (main thread 2, workers 4); every
#    box at depth >= 2 of a worker is named by its own region (kernel or
#    halo), never by a parent's (step, solve); every box 40 pixels wide or
#    more carries a label, the start of its box's name; each box has its
#    region's colour in the HTML report of the same trace.
# 2. many-ranks.awk (4 ranks: collectives, blocking and non-blocking MPI,
#    user code): every box's colour is the report's, in the family its role
#    gives; wide boxes are labelled (some are: its times are fixed); the
#    legend groups the regions under their family's name.
# 3. With MPI (examples/mpi/halo, 2 ranks: MPI calls inside a region
#    "exchange"): every message arrow starts and ends on the sub-row of the
#    call that sends or receives it (depth 1), not on the thread's first.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
dump="$top_builddir/pal/pal-dump"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-svgnest.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" || exit 99
trace=$(ls "$tmp"/vw.*.ecl | head -1)
"$pv" --view timeline --svg "$tmp/vw" --html "$tmp/vw.html" "$trace" || { echo "FAIL: pal-view (vwprog)"; exit 1; }
"$dump" "$trace" >"$tmp/vw.dump" || { echo "FAIL: pal-dump"; exit 1; }
awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/mr.trace" || exit 99
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --view timeline --svg "$tmp/mr" --html "$tmp/mr.html" \
    "$tmp/mr.trace" 2>/dev/null || { echo "FAIL: pal-view (many-ranks)"; exit 1; }
halo="$(cd "$top_builddir" && pwd)/examples/mpi/halo"
mpi=no
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$halo" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    mkdir "$tmp/halo"
    # Open MPI's own allocations are not ours to check (as in mpi.sh)
    (cd "$tmp/halo" && env -u ECL_PREFIX ECL_DIR="$tmp/halo" \
        ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" timeout 120 \
        "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 2 "$halo" 20) >"$tmp/halo.out" 2>&1 ||
        { cat "$tmp/halo.out"; echo "mpirun failed"; exit 99; }
    "$pv" --view timeline --svg "$tmp/halo" "$tmp/halo/trace.ecl" || { echo "FAIL: pal-view (halo)"; exit 1; }
    mpi=yes
else
    echo "note: no MPI: the arrows' sub-rows are not checked"
fi
python3 - "$tmp" "$mpi" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
tmp, mpi = sys.argv[1], sys.argv[2] == 'yes'
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def lanes(path):
    root = ET.parse(path).getroot()
    return root, [g for g in root.iter(NS + 'g') if g.get('class') == 'lane']
def levels(lane):
    return [g for g in lane if g.tag == NS + 'g' and g.get('class') == 'level']
def boxes(level):   # (rect, title) of each box of a level
    return [(r, r.find(NS + 'title').text) for r in level if r.tag == NS + 'rect']
nlabels = 0
def check_labels(level, where):
    # a box at least 40 pixels wide (rows are 14 high here) is labelled: a
    # label follows it and starts its name
    global nlabels
    els = list(level)
    for a, b in zip(els, els[1:] + [None]):
        if a.tag != NS + 'rect': continue
        t = a.find(NS + 'title').text
        if b is not None and b.tag == NS + 'text' and b.get('class') == 'label':
            nlabels += 1
            lab = b.text.rstrip('\u2026')
            if not lab or not t.startswith(lab): bad(f'{where}: label {b.text!r} on a box of {t}')
        elif float(a.get('width')) >= 40:
            bad(f'{where}: a box of {t}, {a.get("width")} px wide, has no label')
def colours(html):
    s = open(html, encoding='utf-8').read()
    tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
    return {r['n']: r['c'] for r in tl['regions']}, {r['n']: r.get('f') for r in tl['regions']}

# 1. vwprog: the deepest stack per thread, from the records
depth, stack = {}, {}
for line in open(f'{tmp}/vw.dump'):
    m = re.match(r'\S+ p(\d+) s(\d+) (enter|leave|wait_enter|wait_leave) region="([^"]*)"', line)
    if not m: continue
    key, ev, name = (int(m.group(1)), int(m.group(2))), m.group(3), m.group(4)
    st = stack.setdefault(key, [])
    if ev.endswith('enter'):
        st.append(name)
        depth[key] = max(depth.get(key, 0), len(st))
    elif name in st:   # a leave closes its frame and what is still open inside it
        del st[len(st) - 1 - st[::-1].index(name):]
print('deepest stack per thread (records):', depth)
if sorted(depth.values()) != [2, 4, 4]:
    bad(f'vwprog: expected stacks of 2, 4 and 4 frames, the records give {depth}')
col, fam = colours(f'{tmp}/vw.html')
root, ls = lanes(f'{tmp}/vw/timeline.svg')
got = {(int(l.get('data-rank')), int(l.get('data-thread'))): l for l in ls}
if set(got) != set(depth):
    bad(f'vwprog: lanes {sorted(got)}, threads with frames {sorted(depth)}')
want_at = {0: {'solve'}, 1: {'step'}, 2: {'kernel', 'halo'}, 3: {'halo'}}
for key, lane in got.items():
    lv = levels(lane)
    if int(lane.get('data-levels')) != len(lv) or len(lv) != depth.get(key):
        bad(f'thread {key}: {len(lv)} sub-rows (data-levels {lane.get("data-levels")}), deepest stack {depth.get(key)}')
    ys = []
    for d, level in enumerate(lv):
        if int(level.get('data-depth')) != d: bad(f'thread {key}: sub-row {d} says depth {level.get("data-depth")}')
        bx = boxes(level)
        if not bx: bad(f'thread {key}: sub-row {d} is empty')
        ys.append({r.get('y') for r, _ in bx})
        names = {t for _, t in bx}
        if depth.get(key) == 4 and not names <= want_at[d]:
            bad(f'thread {key} depth {d}: boxes named {names}, expected among {want_at[d]}')
        if depth.get(key) == 4 and d == 2 and 'kernel' not in names:
            bad(f'thread {key} depth 2: no kernel box ({names})')
        for r, t in bx:
            if r.get('fill') != col.get(t): bad(f'{t}: fill {r.get("fill")}, report colour {col.get(t)}')
        check_labels(level, f'thread {key} depth {d}')
    # one y per sub-row, sub-rows one under the other
    if any(len(y) != 1 for y in ys) or [float(next(iter(y))) for y in ys] != sorted(float(next(iter(y))) for y in ys):
        bad(f'thread {key}: sub-rows not stacked: {ys}')

# 2. many-ranks: colours and families
col, fam = colours(f'{tmp}/mr.html')
want = {'MPI_Allreduce': 1, 'MPI_Bcast': 1, 'MPI_Waitall': 0, 'MPI_Isend': 2, 'MPI_Irecv': 2, 'work': 5}
root, ls = lanes(f'{tmp}/mr/timeline.svg')
drawn = set()
for lane in ls:
    for level in levels(lane):
        check_labels(level, f'many-ranks rank {lane.get("data-rank")}')
        for r, t in boxes(level):
            drawn.add(t)
            if r.get('fill') != col.get(t): bad(f'many-ranks {t}: fill {r.get("fill")}, report colour {col.get(t)}')
for n, f in want.items():
    if n not in drawn: bad(f'many-ranks: no box of {n} (drawn: {sorted(drawn)})')
    if fam.get(n) != f: bad(f'many-ranks: {n} in family {fam.get(n)}, expected {f}')
if nlabels == 0: bad('no box is labelled')
caps = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'family']
for c in ('MPI waits (blocking)', 'MPI collectives', 'MPI communication', 'user code'):
    if c not in caps: bad(f'many-ranks legend: no family "{c}" ({caps})')

# 3. halo: arrows start and end on the MPI calls' sub-row (depth 1)
if mpi:
    root, ls = lanes(f'{tmp}/halo/timeline.svg')
    rows = []   # (y, y + h, rank, depth) of every sub-row
    for lane in ls:
        for level in levels(lane):
            bx = boxes(level)
            if bx:
                y, h = float(bx[0][0].get('y')), float(bx[0][0].get('height'))
                rows.append((y, y + h, lane.get('data-rank'), int(level.get('data-depth'))))
    def row_of(y):
        return next(((r, d) for a, b, r, d in rows if a <= y <= b), None)
    arrows = [l for g in root.iter(NS + 'g') if g.get('marker-end') == 'url(#arrow)' for l in g.iter(NS + 'line')]
    if not arrows: bad('halo: no arrows')
    for l in arrows:
        a, b = row_of(float(l.get('y1'))), row_of(float(l.get('y2')))
        if a is None or b is None or a[1] != 1 or b[1] != 1:
            bad(f'halo: an arrow from sub-row {a} to {b}, expected depth 1 (inside "exchange")'); break
    print(f'halo: {len(arrows)} arrows, {len(rows)} sub-rows')
sys.exit(0 if ok else 1)
PY
