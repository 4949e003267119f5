#!/bin/sh
# python.sh -- pal.waits in Python (python/palmodule.c, doc/diagnosis.md
# "Python") on a 4-rank MPI run with injected Late Sender waits
# (tests/diag/lateness.c): every wait and cause row, the imbalance and the
# critical path equal pal-view --waits=json's, the what-if replay equals
# pal-view --what-if's, the per-rank files give what the merged trace
# gives, and a missing trace or a bad model raise. With pandas (else said
# and left out): frames=True gives DataFrames with the same rows.
. "$top_srcdir/tests/mpi/common.sh"
. "$top_srcdir/tests/python/lib.sh"
pv=$top_builddir/views/pal-view
run 4 "$top_builddir/tests/diag/lateness" late-sender 10
"$pv" --waits=json "$tmp/trace.ecl" > "$tmp/waits.json" || fail "pal-view --waits=json"
"$pv" --what-if net:L=1ms --waits=json "$tmp/trace.ecl" > "$tmp/whatif.json" ||
    fail "pal-view --what-if net:L=1ms"
cat > "$tmp/check.py" <<'PY'
import json, sys
import pal

d = sys.argv[1]
want = json.load(open(d + "/waits.json"))
got = pal.waits(d + "/trace.ecl")
assert got == want, "pal.waits differs from pal-view --waits=json"
assert any(w["pattern"] == "late_sender" and w["seconds"] > 0 for w in got["waits"]), \
    "no Late Sender wait"
ranks = pal.waits([d + "/trace.%d.ecl" % r for r in range(4)])
assert ranks == want, "the per-rank traces give other waits than the merged one"
wi = pal.waits(d + "/trace.ecl", what_if="net:L=1ms")
assert wi == json.load(open(d + "/whatif.json")), "pal.waits(what_if=) differs from pal-view"
for bad, exc in (((d + "/none.ecl",), pal.Error), ((d + "/trace.ecl",), ValueError)):
    try:
        pal.waits(*bad, what_if=None if exc is pal.Error else "fast")
    except exc:
        pass
    else:
        raise AssertionError("no %s for %s" % (exc.__name__, bad))
try:
    import pandas
except ImportError:
    print("pandas not importable: frames=True not checked")
    sys.exit(0)
f = pal.waits(d + "/trace.ecl", frames=True)
assert isinstance(f["waits"], pandas.DataFrame) and len(f["waits"]) == len(want["waits"])
assert abs(f["waits"].seconds.sum() - sum(w["seconds"] for w in want["waits"])) < 1e-9
assert isinstance(f["critical_path"]["paths"], pandas.DataFrame)
print("frames: %d wait rows" % len(f["waits"]))
PY
"$PY" "$tmp/check.py" "$tmp" 2>"$tmp/err" || { cat "$tmp/err"; fail "pal.waits"; }
grep -q "pal-view: cannot open trace '.*none.ecl'" "$tmp/err" || fail "no message for a missing trace"
echo PASS
