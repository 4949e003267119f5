#!/bin/sh
# chrome-args.sh -- the Chrome export's MPI slices carry the call's
# arguments as pal-dump prints them: every MPI_Isend and MPI_Irecv of a run
# of many-ranks.awk (4 ranks, 3 steps) is an "X" slice whose args hold the
# record's peer, tag, communicator, request (and bytes for the sends), at
# the record's time; an export above PAL_VIEW_WARN_MB warns on stderr and
# suggests a window, a filter and gzip, one below it does not.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
pd="$top_builddir/pal/pal-dump"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checker)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-chargs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
edl="$top_srcdir/tests/views/many-ranks.edl"
awk -v N=4 -v S=3 -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 >"$tmp/run.trace" || exit 99
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$pd" -d "$edl" --type isend --type irecv "$tmp/run.trace" >"$tmp/dump" || exit 99
PAL_VIEW_WARN_MB=1000 "$pv" -d "$edl" --export chrome -o "$tmp/run.json" "$tmp/run.trace" 2>"$tmp/err" ||
    bad "export status"
[ -s "$tmp/err" ] && bad "a small export warns: $(cat "$tmp/err")"
python3 - "$tmp/dump" "$tmp/run.json" <<'PY' || fail=1
import json, sys
want = []
for l in open(sys.argv[1]):
    f = l.split()
    kv = dict(x.split('=', 1) for x in f[4:])
    a = {'peer': int(kv['peer']), 'tag': int(kv['tag']), 'communicator': int(kv['comm']),
         'request': int(kv['request'])}
    if f[3] == 'isend': a['bytes'] = int(kv['bytes'])
    end_us = round(float(f[0]) * 1e6, 3)
    want.append(('MPI_Isend' if f[3] == 'isend' else 'MPI_Irecv', int(f[1][1:]), end_us, a))
ev = json.load(open(sys.argv[2]))['traceEvents']
got = [(e['name'], e['pid'], round(e['ts'] + e['dur'], 3), e.get('args')) for e in ev
       if e['ph'] == 'X' and e['name'] in ('MPI_Isend', 'MPI_Irecv')]
key = lambda x: (x[1], x[2], x[0])
want.sort(key=key); got.sort(key=key)
if want != got:
    print(f'FAIL: {len(got)} MPI slices with arguments, pal-dump {len(want)} records; first differences:')
    for w, g in [(w, g) for w, g in zip(want, got) if w != g][:3]:
        print('  pal-dump', w, '\n  export  ', g)
    sys.exit(1)
print(f'{len(got)} MPI_Isend/MPI_Irecv slices carry the records\' arguments')
PY
PAL_VIEW_WARN_MB=0.001 "$pv" -d "$edl" --export chrome -o "$tmp/big.json" "$tmp/run.trace" 2>"$tmp/err" ||
    bad "export status (warning)"
cat "$tmp/err"
grep -q 'warning: the Chrome export is' "$tmp/err" && grep -q -- '--from/--to' "$tmp/err" &&
    grep -q 'ECL_FILTER' "$tmp/err" && grep -q -- '--gzip' "$tmp/err" || bad "no size warning with its advice"
cmp -s "$tmp/run.json" "$tmp/big.json" || bad "the warning changed the export"
exit $fail
