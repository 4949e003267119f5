#!/bin/sh
# damage.sh -- every output of pal-view says when the trace it read was
# damaged: a run of many-ranks.awk (4 ranks, 3 steps) with one bad line
# (a peer that is not a number). The text profile, the window profile
# (--from/--to), the CSV (a "damage" row), the Chrome export
# (otherData.damage), the HTML report (a banner before the timeline, and
# the timeline's data) and every SVG picture (a red line under the title)
# name the damage; the exit status is 2. The same run without the bad line
# gives none of them and status 0.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-damage.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/good.trace" || exit 99
{ head -50 "$tmp/good.trace"; echo "1300 1 0 isend 3 0 zz 1 4096 12"; tail -n +51 "$tmp/good.trace"; } >"$tmp/bad.trace"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for t in good bad; do
    want=0; [ $t = bad ] && want=2
    "$pv" -d "$edl" "$tmp/$t.trace" >"$tmp/$t.profile" 2>/dev/null; st=$?
    [ $st = $want ] || bad "$t: profile exit status $st, expected $want"
    "$pv" -d "$edl" --from 0.001 --to 0.002 "$tmp/$t.trace" >"$tmp/$t.window" 2>/dev/null
    "$pv" -d "$edl" --export csv "$tmp/$t.trace" >"$tmp/$t.csv" 2>/dev/null
    "$pv" -d "$edl" --export chrome -o "$tmp/$t.json" "$tmp/$t.trace" 2>/dev/null
    "$pv" -d "$edl" --html "$tmp/$t.html" "$tmp/$t.trace" 2>/dev/null
    "$pv" -d "$edl" --svg "$tmp/$t.svg" "$tmp/$t.trace" 2>/dev/null; st=$?
    [ $st = $want ] || bad "$t: --svg exit status $st, expected $want"
done
python3 - "$tmp" <<'PY' || fail=1
import glob, json, os, re, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
NS = '{http://www.w3.org/2000/svg}'
ok = True
def bad(m):
    global ok; print('FAIL:', m); ok = False
def notes(t):
    """what each output of run t says about damage: {output: text or None}"""
    out = {}
    for k in ('profile', 'window'):
        m = re.search(r'^  (damaged trace: .*)$', open(f'{tmp}/{t}.{k}').read(), re.M)
        out[k] = m and m.group(1)
    rows = [l for l in open(f'{tmp}/{t}.csv').read().splitlines() if l.startswith('damage,')]
    out['csv'] = rows[0] if rows else None
    out['chrome'] = json.load(open(f'{tmp}/{t}.json')).get('otherData', {}).get('damage')
    s = open(f'{tmp}/{t}.html', encoding='utf-8').read()
    m = re.search(r'<p id="damage"[^>]*>(.*?)</p>', s, re.S)
    out['html banner'] = m and m.group(1)
    if m and s.index('id="damage"') > s.index('id="tl"'):
        bad(f'{t}: the HTML banner comes after the timeline')
    tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
    out['html data'] = tl.get('damage')
    svgs = sorted(glob.glob(f'{tmp}/{t}.svg/*.svg'))
    if not svgs:
        bad(f'{t}: no SVG written')
    for f in svgs:
        root = ET.parse(f).getroot()
        d = [e for e in root.iter(NS + 'text') if e.get('class') == 'damage']
        out['svg ' + os.path.basename(f)] = ''.join(d[0].itertext()) if d else None
    return out
for k, v in notes('good').items():
    if v:
        bad(f'clean run: {k} says {v!r}')
for k, v in notes('bad').items():
    if not v or '1 damaged chunk or bad line skipped' not in v:
        bad(f'damaged run: {k} does not say so: {v!r}')
    else:
        print(f'{k}: {v[:90]}')
sys.exit(0 if ok else 1)
PY
exit $fail
