#!/bin/sh
# escape.sh -- every SVG, HTML and JSON output of pal-view is valid UTF-8 and
# parses strictly, whatever the trace's names hold: tests/views/vwnames names
# its regions, counters and markers with byte 0xFF, other ill-formed UTF-8,
# control bytes, quotes and '<&>'. Parsers: python3's xml.etree (expat) and
# json on the bytes decoded as strict UTF-8, and xmllint when installed
# (Debian: libxml2-utils). Also: the unit test of views/escape.c, and the
# report's Profile block keeps its lines; the text views and pal-dump write
# every name with its control bytes escaped (pal_text_escape).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-esc.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$top_builddir/tests/views/vwescape" || bad "escape unit test"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the strict parser)"; exit 77; }

# without the threads group: its pthread_join waits (as long as the run)
# would squeeze the call-tree boxes whose names are checked below
ECL_GROUPS=none ECL_DIR="$tmp" ECL_PREFIX=nm "$top_builddir/tests/views/vwnames" || exit 99
trace=$(ls "$tmp"/nm.*.ecl | head -1)
"$pv" --svg "$tmp/svg" --view utilization --view utilization-total --view timeline \
    --view calltree --view comm --view clock "$trace" || bad "svg exit status"
"$pv" --html "$tmp/r.html" "$trace" || bad "html exit status"
"$pv" --export chrome "$trace" >"$tmp/t.json" || bad "chrome exit status"

# xml FILE...: strict XML parse of each file, bytes decoded as UTF-8
python3 - "$tmp"/svg/*.svg "$tmp/r.html" <<'PY' || bad "strict XML parse"
import sys, xml.etree.ElementTree as ET
ok = True
for p in sys.argv[1:]:
    data = open(p, 'rb').read()
    try:
        data.decode('utf-8', 'strict')
        ET.fromstring(data)
    except Exception as e:
        print(p, e); ok = False
sys.exit(0 if ok else 1)
PY
n=$(ls "$tmp"/svg/*.svg | wc -l)
[ "$n" = 6 ] || bad "$n SVG files, expected 6"
if command -v xmllint >/dev/null 2>&1; then
    for f in "$tmp"/svg/*.svg "$tmp/r.html"; do
        xmllint --noout "$f" || bad "xmllint: $f"
    done
else
    echo "note: xmllint not installed (libxml2-utils), python's parser only"
fi
# the names arrive, with U+FFFD for the bad bytes (calltree titles)
grep -q 'bad.byte' "$tmp/svg/calltree.svg" || bad "calltree lacks bad<FF>byte"
grep -q 'quote&quot;&#39;&lt;&amp;&gt;' "$tmp/svg/calltree.svg" || bad "calltree quote name not escaped"

python3 - "$tmp/t.json" <<'PY' || bad "strict JSON parse"
import sys, json
data = open(sys.argv[1], 'rb').read().decode('utf-8', 'strict')
doc = json.loads(data)
names = {e.get('name') for e in doc['traceEvents']}
want = ['bad\ufffdbyte', 'ctl\ufffd\ufffd\ufffdx'.replace('\ufffd', '\ufffd'), 'quote"\'<&>',
        'tab\there\nnewline']
miss = [w for w in ['bad\ufffdbyte', 'quote"\'<&>', 'tab\there\nnewline'] if w not in names]
if miss:
    print('missing names', miss); sys.exit(1)
PY

# the report's profile keeps its lines
awk '/<h2[^>]*>Profile/ {on=1} on {n++} /<\/pre>/ && on {print n; exit}' "$tmp/r.html" >"$tmp/n"
[ "$(cat "$tmp/n")" -ge 8 ] 2>/dev/null || bad "report profile: $(cat "$tmp/n") lines"

# text for a terminal (pal-view's text views, pal-dump): no control byte of a
# name reaches it raw -- the one rule of pal_text_escape: \n \t \r \\ and \xHH
# (C0, DEL, C1, invalid UTF-8), so a name can neither move the cursor nor
# fake a line
"$pv" --view profile --view calltree "$trace" >"$tmp/text" || bad "text views exit status"
"$top_builddir/pal/pal-dump" "$trace" >"$tmp/dump" || bad "pal-dump exit status"
for f in text dump; do
    python3 - "$tmp/$f" <<'PY' || bad "$f: control bytes or invalid UTF-8 in text output"
import re, sys
data = open(sys.argv[1], 'rb').read()
data.decode('utf-8', 'strict')
bad = re.findall(rb'[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]', data)
if bad:
    print(sys.argv[1], 'raw control bytes:', sorted(set(bad))); sys.exit(1)
PY
    grep -q 'tab\\there\\nnewline' "$tmp/$f" || bad "$f: the name with a newline is not one escaped line"
    grep -q 'ctl\\x01\\x02\\x1fx' "$tmp/$f" || bad "$f: control bytes not written as \\xHH"
    grep -q 'bad\\xffbyte' "$tmp/$f" || bad "$f: an invalid byte not written as \\xHH"
done
exit $fail
