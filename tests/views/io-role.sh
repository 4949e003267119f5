#!/bin/sh
# io-role.sh -- I/O is what the record role io says, not what a region is
# named (doc/edl.md, "Roles"): on a trace of io-role.edl where commit_log
# and close are calls with role io (their file a name, role file), fetch and
# store I/O calls whose bytes are received and sent, and fsync and work
# calls without the role,
# - pal-view --waits counts exactly the io calls' durations as time in I/O
#   (pattern io), per call path and rank, and nothing for fsync;
# - the report's colour families put commit_log, close, fetch and store in
#   I/O (4) and fsync, work in user code (5), and phase too, left open at
#   the end just after the trace's last record, the close in it;
# - the OTF2 export (with otf2-print) gives close an IoDestroyHandle of the
#   handle "journal.log", fetch a read and store a write of their bytes (by
#   the bytes' role: no POSIX name), and fsync no I/O event.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
edl="$top_srcdir/tests/views/io-role.edl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-io-role.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
cat > "$tmp/run.trace" <<'TRACE'
50 0 begin phase
1000 0 call work 900
1300 0 call fsync 300
1500 0 fop commit_log 250 "journal.log"
1800 0 get fetch 100 "journal.log" 4096
1900 0 put store 50 "journal.log" 512
2900 1 begin phase
3000 1 fop commit_log 1250 "journal.log"
3500 1 call work 400
3600 1 end phase
4000 0 fop close 40 "journal.log"
TRACE
"$pv" -d "$edl" --waits=csv "$tmp/run.trace" > "$tmp/waits.csv" || { echo "FAIL: pal-view --waits"; exit 1; }
got=$(awk -F, '$1 == "wait" && $2 == "io" { printf "%s:%s:%s:%d ", $3, $5, $6, $7 }' "$tmp/waits.csv")
# sorted by call path, then rank
want="0:phase/close:0.000040000:1 0:phase/commit_log:0.000250000:1 1:phase/commit_log:0.001250000:1 0:phase/fetch:0.000100000:1 0:phase/store:0.000050000:1 "
echo "time in I/O: $got"
[ "$got" = "$want" ] || { echo "FAIL: time in I/O is '$got', not '$want'"; fail=1; }

"$pv" -d "$edl" --html "$tmp/r.html" "$tmp/run.trace" || { echo "FAIL: pal-view --html"; exit 1; }
if command -v python3 >/dev/null 2>&1; then
    fam=$(python3 - "$tmp/r.html" <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
tl = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1))['tl']
print(' '.join(f"{r['n']}={r.get('f')}" for r in sorted(tl['regions'], key=lambda r: r['n'])))
PY
)
    echo "families: $fam"
    [ "$fam" = "close=4 commit_log=4 fetch=4 fsync=5 phase=5 store=4 work=5" ] ||
        { echo "FAIL: families '$fam', not the io calls in I/O (4), fsync, work user (5)"; fail=1; }
else
    echo "python3 not found: the report's families are not checked"
fi

if command -v otf2-print >/dev/null 2>&1 &&
   "$pv" -d "$edl" --export otf2 -o "$tmp/otf2" "$tmp/run.trace" 2>/dev/null; then
    got=$(otf2-print "$tmp/otf2/traces.otf2" 2>&1 |
          awk '/^IO_/ { n[$1]++; if ($0 !~ /Handle: "journal.log"/) bad++ }
               /^IO_OPERATION_BEGIN/ { m = $0; sub(/.*Mode: /, "", m); sub(/,.*/, "", m)
                                       b = $0; sub(/.*Bytes Request: /, "", b); sub(/,.*/, "", b)
                                       ops = ops " " m ":" b }
               /^IO_OPERATION_COMPLETE/ { r = $0; sub(/.*Bytes Result: /, "", r); sub(/,.*/, "", r)
                                          res = res " " r }
               END { printf "%d destroy, %d create, ops%s, results%s, %d elsewhere",
                     n["IO_DESTROY_HANDLE"], n["IO_CREATE_HANDLE"], ops, res, bad }')
    echo "OTF2 I/O events: $got"
    [ "$got" = "1 destroy, 0 create, ops READ:4096 WRITE:512, results 4096 512, 0 elsewhere" ] ||
        { echo "FAIL: OTF2 I/O events '$got'"; fail=1; }
else
    echo "otf2-print or the OTF2 export not available: the export is not checked"
fi
exit $fail
