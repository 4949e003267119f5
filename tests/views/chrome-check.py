#!/usr/bin/env python3
"""chrome-check.py -- validates a Chrome/Perfetto trace-event file against the
trace-event format rules pal-view relies on: strict UTF-8 JSON (gzip when the
name ends in .gz), an object with traceEvents; every event has a known ph,
pid (and tid except counters/metadata may omit it) as integers, ts in
microseconds >= 0 (not for metadata); X has dur >= 0; C has numeric args;
i has scope s; flow ids are paired, one "s" and one "f" each, f not before s.
Optional window: --from A --to B (seconds): every timed event lies in it.
Prints "X=n C=n i=n s=n f=n M=n" and exits 0, or prints the problem, exit 1."""
import gzip, json, sys

args = sys.argv[1:]
lo = hi = None
if '--from' in args:
    k = args.index('--from'); lo = float(args[k + 1]) * 1e6; del args[k:k + 2]
if '--to' in args:
    k = args.index('--to'); hi = float(args[k + 1]) * 1e6; del args[k:k + 2]
path = args[0]
raw = open(path, 'rb').read()
if path.endswith('.gz'):
    raw = gzip.decompress(raw)
doc = json.loads(raw.decode('utf-8', 'strict'))
ev = doc['traceEvents']
count = {k: 0 for k in 'X C i s f M'.split()}
flows = {}
def bad(msg, e):
    print('FAIL:', msg, json.dumps(e)[:200]); sys.exit(1)
eps = 0.002  # ts are printed with 3 decimals
for e in ev:
    ph = e.get('ph')
    if ph not in count: bad('unknown ph', e)
    count[ph] += 1
    if not isinstance(e.get('pid'), int): bad('pid', e)
    if ph != 'M' and ph != 'C' and not isinstance(e.get('tid'), int): bad('tid', e)
    if not isinstance(e.get('name'), str): bad('name', e)
    if ph == 'M':
        continue
    ts = e.get('ts')
    if not isinstance(ts, (int, float)) or ts < 0: bad('ts', e)
    end = ts
    if ph == 'X':
        if not isinstance(e.get('dur'), (int, float)) or e['dur'] < 0: bad('dur', e)
        end = ts + e['dur']
    if ph == 'C':
        a = e.get('args')
        if not a or not all(isinstance(v, (int, float)) for v in a.values()): bad('counter args', e)
    if ph == 'i' and e.get('s') not in ('t', 'p', 'g'): bad('instant scope', e)
    if ph in 'sf':
        flows.setdefault(e.get('id'), []).append((ph, ts))
    if lo is not None and ts < lo - eps: bad('before the window', e)
    if hi is not None and end > hi + eps: bad('after the window', e)
for i, l in flows.items():
    if sorted(p for p, _ in l) != ['f', 's']: bad('flow id not paired', {'id': i, 'ends': l})
    s = [t for p, t in l if p == 's'][0]; f = [t for p, t in l if p == 'f'][0]
    if f + eps < s: bad('flow ends before it starts', {'id': i})
print(' '.join('%s=%d' % (k, v) for k, v in count.items()))
