#!/bin/sh
# chrome.sh -- the Chrome/Perfetto export of a trace with counters and
# markers (tests/views/vwnames): valid by the trace-event rules
# (chrome-check.py), as many counter samples ("C") and markers ("i") as
# pal-dump counts records of those types, one slice per enter; a --from/--to
# window keeps exactly the samples and markers pal-dump keeps with the same
# window and no event outside it; -o x.json.gz and --gzip give the same
# document gzip-compressed; bad window values are usage errors.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
dump="$top_builddir/pal/pal-dump"
check="$top_srcdir/tests/views/chrome-check.py"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the validator)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-chrome.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ECL_DIR="$tmp" ECL_PREFIX=nm "$top_builddir/tests/views/vwnames" || exit 99
trace=$(ls "$tmp"/nm.*.ecl | head -1)

# n TYPE... [-- pal-dump options]: records of these types
n() { "$dump" --count "$@" "$trace" | awk '$1 == "total" {print $2}'; }
want_c=$(n -t counter_int -t counter_float)
want_i=$(n -t marker)
want_x=$(n -t enter -t wait_enter)   # a slice per region entered, joins included
echo "pal-dump: counters $want_c, markers $want_i, enters $want_x"
[ "$want_c" = 65 ] && [ "$want_i" = 8 ] || bad "vwnames wrote $want_c counters, $want_i markers"

"$pv" --export chrome "$trace" >"$tmp/all.json" || bad "export status"
got=$(python3 "$check" "$tmp/all.json") || bad "all.json invalid"
echo "export: $got"
case "$got" in "X=$want_x C=$want_c i=$want_i s=0 f=0 M="*) ;; *) bad "counts: $got" ;; esac
python3 - "$tmp/all.json" <<'PY' || bad "counter tracks"
import json, sys
ev = json.load(open(sys.argv[1], encoding='utf-8'))['traceEvents']
c = {}
for e in ev:
    if e['ph'] == 'C':
        c.setdefault(e['name'], []).append(e['args']['value'])
heat = c.get('heat <&> "C"'); load = c.get('load\ufffd\x01')
ok = heat == [i * 3 for i in range(40)] and load == [i * 0.25 for i in range(25)]
if not ok: print('tracks', {k: len(v) for k, v in c.items()})
sys.exit(0 if ok else 1)
PY

# a window between the 10th and 11th, and the 30th and 31st heat samples
"$dump" -t counter_int "$trace" | awk '{print $1}' >"$tmp/times"
from=$(awk 'NR == 10 {a = $1} NR == 11 {printf "%.9f\n", (a + $1) / 2}' "$tmp/times")
to=$(awk 'NR == 30 {a = $1} NR == 31 {printf "%.9f\n", (a + $1) / 2}' "$tmp/times")
wc_=$(n -t counter_int -t counter_float --from "$from" --to "$to")
wi=$(n -t marker --from "$from" --to "$to")
"$pv" --export chrome --from "$from" --to "$to" "$trace" >"$tmp/win.json" || bad "window status"
got=$(python3 "$check" --from "$from" --to "$to" "$tmp/win.json") || bad "window invalid"
echo "window [$from, $to]: $got (pal-dump: counters $wc_, markers $wi)"
case "$got" in *" C=$wc_ i=${wi:-0} "*) ;; *) bad "window counts: $got" ;; esac
[ "${wc_:-0}" -ge 20 ] || bad "window holds $wc_ counter samples, expected >= 20"

# gzip: by name and by option, the same document
"$pv" --export chrome -o "$tmp/t.json.gz" "$trace" || bad "-o .gz status"
gzip -dc "$tmp/t.json.gz" | cmp -s - "$tmp/all.json" || bad "-o x.json.gz differs"
"$pv" --export chrome --gzip "$trace" | gzip -dc | cmp -s - "$tmp/all.json" || bad "--gzip differs"
"$pv" --export chrome -o "$tmp/plain.json" "$trace" && cmp -s "$tmp/plain.json" "$tmp/all.json" ||
    bad "-o plain differs"
python3 "$check" "$tmp/t.json.gz" >/dev/null || bad "gz invalid"

"$pv" --export chrome --from x "$trace" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q -- '--from' "$tmp/err" || bad "bad --from"
"$pv" -o "$tmp/x.json" "$trace" >/dev/null 2>&1
[ $? = 1 ] || bad "-o without --export"
exit $fail
