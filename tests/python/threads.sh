#!/bin/sh
# threads.sh -- the Python module on a real ECL trace of examples/threads
# (4 threads: regions, markers, int and float counters, a user record type):
# counts, every record, columns and DataFrames equal pal-dump's
# (tests/python/check.py); to_pandas('enter') has the columns time, process,
# stream, region with region a categorical of the region_def names; errors
# are pal.Error with PAL's status, unknown types KeyError; a damaged copy
# reads around the damage as pal-dump does (strict: pal.Error); the example
# examples/python/profile.py finds the calls per region the program made.
set -u
. "$(dirname "$0")/lib.sh"
threads="$top_builddir/examples/threads/threads"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/py-threads.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && ECL_DIR="$tmp" ECL_PREFIX=t "$threads" 4 200 >/dev/null) || { echo "FAIL: threads"; exit 1; }
trace=$(ls "$tmp"/t.*.ecl | head -n 1)
fail=0
"$PY" "$check" "$dump" --type enter --type progress --type counter_float --type marker "$trace" || fail=1

"$PY" - "$trace" "$dump" <<'PYEOF' || fail=1
import subprocess, sys
import numpy as np
import pal
trace, dump = sys.argv[1], sys.argv[2]
bad = 0
def expect(cond, what):
    global bad
    if not cond:
        print("FAIL: " + what); bad += 1
t = pal.open(trace)
defs = {d["name"] for d in t.to_pandas("region_def").to_dict("records")}
# pthread_join: the threads group of the automatic instrumentation (on by
# default) records each join as a waiting region
expect(defs == {"main", "worker", "iteration", "compute", "reduce", "pthread_join"},
       "region_def names %s" % defs)
try:
    import pandas as pd
    df = t.to_pandas("enter")
    expect(list(df.columns) == ["time", "process", "stream", "region"], "enter columns %s" % list(df.columns))
    expect(str(df.dtypes["time"]) == "float64" and str(df.dtypes["stream"]) == "uint32",
           "enter dtypes %s" % df.dtypes.to_dict())
    expect(isinstance(df.dtypes["region"], pd.CategoricalDtype) and
           set(df["region"].cat.categories) <= defs, "region categories")
    # 4 workers x 200 iterations: an iteration, a compute and a reduce each
    n = df.groupby("region", observed=True).size().to_dict()
    expect(n.get("iteration") == 800 and n.get("compute") == 800 and n.get("reduce") == 800
           and n.get("worker") == 4 and n.get("main") == 1, "enters per region %s" % n)
    expect(bool(df["time"].is_monotonic_increasing), "times in order")
    waits = t.to_pandas("wait_enter")
    expect(len(waits) == 4 and set(waits["region"]) == {"pthread_join"}, "4 joins: %s" % waits)
    prog = t.to_pandas("progress")
    expect(str(prog.dtypes["iteration"]).startswith("int") or str(prog.dtypes["iteration"]).startswith("uint"),
           "progress iteration dtype %s" % prog.dtypes["iteration"])
except ImportError:
    print("pandas is not installed: to_pandas not checked")
# the seconds pal-dump prints, exactly
txt = subprocess.run([dump, "--type", "enter", "--head", "50", trace], stdout=subprocess.PIPE,
                     check=True).stdout.decode().splitlines()
cols = t.columns("enter")
expect(["%.9f" % x for x in cols["time"][:50]] == [l.split()[0] for l in txt], "times as pal-dump prints them")
expect(cols["region"].dtype == np.uint32, "raw region ids are uint32")
# errors
try:
    pal.open(trace + ".missing"); expect(False, "opening a missing file raised nothing")
except pal.Error as e:
    expect(e.status == "PAL_EIO" and "missing" in str(e), "missing file: %s %s" % (e.status, e))
try:
    t.columns("no_such_type"); expect(False, "unknown type raised nothing")
except KeyError as e:
    expect("no_such_type" in str(e), "KeyError names the type")
bogus = trace + ".bogus"
with open(bogus, "wb") as f:
    f.write(b"not a trace\n" * 100)
try:
    pal.open(bogus); expect(False, "a file that is no trace opened")
except pal.Error as e:
    expect(e.status in ("PAL_EFORMAT", "PAL_ENODICT"), "bogus file: %s" % e.status)
t.close()
try:
    t.counts(); expect(False, "a closed trace was read")
except ValueError:
    pass
# damage: a copy with bytes flipped in its middle reads around the damage
# as pal-dump does, and info() counts the damaged chunk
with open(trace, "rb") as f:
    data = bytearray(f.read())
for k in range(len(data) // 2, len(data) // 2 + 16):
    data[k] ^= 0xFF
damaged = trace + ".damaged"
with open(damaged, "wb") as f:
    f.write(data)
out = subprocess.run([dump, "--count", damaged], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
want = {l.split()[0]: int(l.split()[1]) for l in out.stdout.decode().splitlines()}
want_total = want.pop("total")
info = subprocess.run([dump, "--info", damaged], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
want_damaged = int([l.split()[1] for l in info.stdout.decode().splitlines() if l.startswith("damaged:")][0])
d = pal.open(damaged)
got = d.counts()
expect(out.returncode == 2 and want_damaged >= 1, "pal-dump reports the damage (status %d)" % out.returncode)
expect(got == want, "counts of the damaged trace %s, pal-dump %s" % (got, want))
expect(d.info()["damaged"] == want_damaged and d.info()["records"] == want_total,
       "info() of the damaged trace: %s damaged, %s records; pal-dump %d, %d"
       % (d.info()["damaged"], d.info()["records"], want_damaged, want_total))
expect(len(d.columns("enter")["time"]) == want.get("enter"), "enter rows of the damaged trace")
try:
    n = sum(1 for _ in pal.open(damaged, strict=True))
    expect(False, "strict mode read %d records past the damage" % n)
except pal.Error as e:
    expect(e.status == "PAL_EFORMAT", "strict mode: %s" % e.status)
sys.exit(1 if bad else 0)
PYEOF

# the example, as the README runs it: 4 workers x 200 iterations
"$PY" "$top_srcdir/examples/python/profile.py" "$trace" >"$tmp/profile" || { echo "FAIL: profile.py"; fail=1; }
awk '$1 == "main" && $2 == 1 {n++} $1 == "worker" && $2 == 4 {n++}
     ($1 == "iteration" || $1 == "compute" || $1 == "reduce") && $2 == 800 && $3 > 0 {n++}
     END {exit n != 5}' "$tmp/profile" || { echo "FAIL: profile.py calls per region:"; cat "$tmp/profile"; fail=1; }
exit $fail
