"""check.py -- checks the Python module `pal` on one trace against pal-dump,
PAL's own command line, as the oracle (tests/python/*.sh run it).

  check.py PAL_DUMP [--dict DICT] [--expect-ranks N] [--type T]... PATH...

For the trace (a file, a run directory, or several per-rank files):
  - Trace.counts() equals `pal-dump --count`, type by type and in total;
  - iterating yields exactly the records of `pal-dump -f json`, record by
    record: type, time (s), process, stream, every field, ids resolved to
    the same names (Record.name, Record.as_dict(resolve=True));
  - for every record type present: Trace.columns() has one row per record,
    in the same order, with the values the iteration gave; numeric fields
    have the numpy dtype of their description (uint32 -> uint32, float64 ->
    float64), or float64 when an OPTIONAL field is missing somewhere;
  - Trace.to_pandas() has as many rows, the same columns, reference fields
    as categoricals of the resolved names;
  - --type T: that type must be present (so a check cannot pass on an empty
    trace); --expect-ranks N: info()["ranks"] == N.
Exits 1 with one line per difference (at most 20 per kind), 0 when all agree.
"""
import json
import math
import subprocess
import sys

import numpy as np
import pal

NUMPY_OF = {
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float32": np.float32, "float64": np.float64,
}

failures = []


def fail(msg):
    failures.append(msg)
    if len(failures) <= 40:
        print("FAIL: " + msg)


def dump(pal_dump, args, paths):
    out = subprocess.run([pal_dump] + args + paths, stdout=subprocess.PIPE, check=False)
    if out.returncode not in (0, 2):
        sys.exit("pal-dump %s failed (status %d)" % (" ".join(args), out.returncode))
    return out.stdout.decode("utf-8", "surrogateescape")


def same_value(a, b):
    """a from Python (tuples for items), b from JSON (lists)"""
    if isinstance(a, (list, tuple)):
        return isinstance(b, list) and len(a) == len(b) and all(
            same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if b is None:                       # non-finite floats are null in JSON
            return not math.isfinite(a)
        return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def main(argv):
    args = argv[1:]
    pal_dump = args.pop(0)
    dictionary, ranks, want_types = None, None, []
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--dict":
            dictionary = args.pop(0)
        elif opt == "--expect-ranks":
            ranks = int(args.pop(0))
        elif opt == "--type":
            want_types.append(args.pop(0))
        else:
            sys.exit("unknown option " + opt)
    paths = args
    dargs = ["-d", dictionary] if dictionary else []

    # pal-dump --count: "type  N" lines, then "total  N"
    expect = {}
    for line in dump(pal_dump, dargs + ["--count"], paths).splitlines():
        name, n = line.split()
        expect[name] = int(n)
    total = expect.pop("total")
    for t in want_types:
        if not expect.get(t):
            fail("pal-dump finds no record of type %s: nothing to check" % t)

    trace = pal.open(paths[0] if len(paths) == 1 else paths, dictionary=dictionary)
    counts = trace.counts()
    if counts != expect:
        fail("counts() %s != pal-dump --count %s" % (counts, expect))
    if sum(counts.values()) != total:
        fail("counts() total %d != pal-dump's %d" % (sum(counts.values()), total))
    info = trace.info()
    if info["records"] != total:
        fail("info()['records'] %d != %d" % (info["records"], total))
    if info["damaged"] or info["lost"]:
        fail("damage or loss reported: %s" % info)
    if ranks is not None and info["ranks"] != ranks:
        fail("info()['ranks'] %d != %d" % (info["ranks"], ranks))

    # record by record against the JSON dump (names resolved in both)
    lines = dump(pal_dump, dargs + ["-f", "json"], paths).splitlines()
    by_type = {}
    key_fields = {}
    n = 0
    for rec, line in zip(trace, lines):
        j = json.loads(line)
        n += 1
        where = "record %d (%s)" % (n, j["type"])
        if rec.type != j["type"]:
            fail("%s: type %s" % (where, rec.type))
            continue
        jt = j["time"]
        if (jt is None) != math.isnan(rec.time) or (jt is not None and abs(rec.time - jt) > 6e-10):
            fail("%s: time %r, pal-dump %r" % (where, rec.time, jt))
        if (rec.process, rec.stream) != (j["process"], j["stream"]):
            fail("%s: process/stream %d/%d" % (where, rec.process, rec.stream))
        named = rec.as_dict(resolve=True)
        # pal-dump hides bind keys; the module keeps a key that has a role
        keys = key_fields.setdefault(rec.type, {f for f, d in trace.describe(rec.type)["fields"].items()
                                                if d["key"]})
        shown = {k: v for k, v in named.items() if v is not None and k not in keys}  # absent OPTIONAL
        if set(shown) != set(j["fields"]):
            fail("%s: fields %s, pal-dump %s" % (where, sorted(shown), sorted(j["fields"])))
        for k, v in shown.items():
            if not same_value(v, j["fields"].get(k)):
                fail("%s: field %s = %r, pal-dump %r" % (where, k, v, j["fields"].get(k)))
        for k in rec.keys():
            # attributes: the fields whose names are no Record attribute
            if not hasattr(pal.Record, k) and rec[k] is not getattr(rec, k):
                fail("%s: rec[%r] and rec.%s differ" % (where, k, k))
            if rec.name(k) is not None and rec.name(k) != j["fields"].get(k):
                fail("%s: name(%r) %r" % (where, k, rec.name(k)))
        by_type.setdefault(rec.type, []).append(rec)
    if n != len(lines) or n != total:
        fail("iteration gave %d records, pal-dump -f json %d, --count %d" % (n, len(lines), total))

    # columns and DataFrames per type, against the records
    for tname, recs in sorted(by_type.items()):
        fields = trace.fields(tname)
        cols = trace.columns(tname)
        named = trace.columns(tname, resolve=True)
        for k, a in cols.items():
            if len(a) != len(recs):
                fail("%s: column %s has %d rows, %d records" % (tname, k, len(a), len(recs)))
                continue
            for i, rec in enumerate(recs):
                v = (rec.time if k == "time" else
                     rec.process if k == "process" and k not in fields else
                     rec.stream if k == "stream" and k not in fields else rec[k])
                got = a[i]
                if v is None:
                    ok = got is None or (isinstance(got, float) and math.isnan(got))
                elif isinstance(v, float) and math.isnan(v):
                    ok = math.isnan(got)
                elif isinstance(v, list):
                    ok = list(got) == v
                else:
                    ok = got == v
                if not ok:
                    fail("%s: column %s row %d = %r, record %r" % (tname, k, i, got, v))
                    break
                if k in named and k in rec.keys() and rec.name(k) is not None and named[k][i] != rec.name(k):
                    fail("%s: resolved column %s row %d = %r, record %r"
                         % (tname, k, i, named[k][i], rec.name(k)))
                    break
            ftype = fields.get(k) if k in recs[0].keys() else None
            if ftype in NUMPY_OF:
                has_none = any(r[k] is None for r in recs)
                want = np.float64 if has_none and not ftype.startswith("float") else NUMPY_OF[ftype]
                if a.dtype != want:
                    fail("%s: column %s dtype %s, description %s" % (tname, k, a.dtype, ftype))
            elif ftype in ("string", "array") and a.dtype != object:
                fail("%s: column %s dtype %s for a %s" % (tname, k, a.dtype, ftype))
        if "time" in cols and cols["time"].dtype != np.float64:
            fail("%s: time dtype %s" % (tname, cols["time"].dtype))
        try:
            import pandas as pd
        except ImportError:
            continue
        df = trace.to_pandas(tname)
        if len(df) != len(recs) or list(df.columns) != list(cols):
            fail("%s: DataFrame %d rows %s, want %d rows %s"
                 % (tname, len(df), list(df.columns), len(recs), list(cols)))
            continue
        for k in df.columns:
            refs = [r.name(k) for r in recs[:1000]] if k in recs[0].keys() else []
            if any(x is not None for x in refs):
                if not isinstance(df[k].dtype, pd.CategoricalDtype):
                    fail("%s: reference column %s is %s, not categorical" % (tname, k, df[k].dtype))
                elif list(df[k][:len(refs)]) != refs:
                    fail("%s: DataFrame %s names differ from the records'" % (tname, k))
            elif df[k].dtype != cols[k].dtype:
                fail("%s: DataFrame %s dtype %s, columns() %s" % (tname, k, df[k].dtype, cols[k].dtype))
    trace.close()
    checked = sum(len(r) for r in by_type.values())
    print("checked %d records of %d types%s" % (checked, len(by_type),
          "" if failures else ", all equal to pal-dump's"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
