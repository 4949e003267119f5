#!/usr/bin/env python3
"""profile.py -- time per region and per call of any trace PAL reads, with pandas.

  python3 profile.py TRACE [DICTIONARY]

TRACE is an ECL trace, a run (a directory of per-rank traces), an OTF2
archive or a foreign trace with its DICTIONARY (e.g. a PICL trace and
edl/formats/picl.edl). The script knows no record names: it asks the
description which record types enter and leave regions (roles "enter" and
"leave") and which field names the region (role "region", an id resolved to
its name) or which region a type names by text (REGION IS "send"), and which
types are calls (role "call": an MPI call, an I/O call) with a field of role
"duration". Inclusive time per region is the sum of its leave times minus
the sum of its enter times, per process and thread, so nesting needs no
stack; regions whose enters and leaves do not pair up (a trace cut short)
are left out and said so. A call's time is its duration, and the call is
named by its type's region (MPI_Send).

Installed with ECL (make install) as DOCDIR/examples/python/profile.py;
from the build tree: PYTHONPATH=_build/python /usr/bin/python3 examples/python/profile.py trace.ecl
"""
import sys

try:
    import pandas as pd
except ImportError:
    sys.exit("profile.py needs pandas (pip install pandas, or Debian's python3-pandas)")

import pal

# seconds per unit of a duration field
SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def column_of(desc, role, default):
    """the field with a role, else the designation's column name"""
    for name, f in desc["fields"].items():
        if f["role"] == role:
            return name
    return default


def present(trace, role, counts):
    """the record types with role that the trace holds"""
    return [t for t in trace.types(role=role) if counts.get(t, 0) > 0]


def events(trace, role, counts):
    """one DataFrame of every record with role: time, process, thread, region"""
    frames = []
    for tname in present(trace, role, counts):
        desc = trace.describe(tname)
        df = trace.to_pandas(tname)
        if df.empty:
            continue
        region = desc["region"] or column_of(desc, "region", None)
        if region is None:
            continue                      # the description names no region
        frames.append(pd.DataFrame({
            "time": df["time"],
            "process": df[column_of(desc, "process", "process")],
            "thread": df[column_of(desc, "thread", "stream")],
            "region": desc["region"] or df[region].astype(str),
        }))
    return pd.concat(frames, ignore_index=True) if frames else None


def calls(trace, counts):
    """calls and seconds per region of the records with role "call" and a duration"""
    frames = []
    for tname in present(trace, "call", counts):
        desc = trace.describe(tname)
        dur = column_of(desc, "duration", None)
        if dur is None or not desc["region"]:
            continue
        unit = desc["fields"][dur]["unit"]
        if unit not in SECONDS:
            print("left out: %s (duration in %r, not a time unit)" % (tname, unit))
            continue
        df = trace.to_pandas(tname)
        frames.append(pd.DataFrame({"region": desc["region"], "calls": 1,
                                    "seconds": df[dur].astype(float) * SECONDS[unit]}))
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True).groupby("region").agg(
        calls=("calls", "sum"), seconds=("seconds", "sum"))


def regions(trace, counts):
    """calls and inclusive seconds per region entered and left"""
    enter, leave = events(trace, "enter", counts), events(trace, "leave", counts)
    if enter is None or leave is None:
        return None
    keys = ["process", "thread", "region"]
    e = enter.groupby(keys, observed=True)["time"].agg(["sum", "count"])
    l = leave.groupby(keys, observed=True)["time"].agg(["sum", "count"])
    both = e.join(l, lsuffix="_enter", rsuffix="_leave", how="outer").fillna(0)
    paired = both["count_enter"] == both["count_leave"]
    if not paired.all():
        print("left out (enters and leaves do not pair up):",
              ", ".join("%s on %s/%s" % (k[2], k[0], k[1]) for k in both.index[~paired]))
    both = both[paired]
    both["seconds"] = both["sum_leave"] - both["sum_enter"]
    per_region = both.groupby(level="region").agg(calls=("count_enter", "sum"),
                                                  seconds=("seconds", "sum"))
    per_region.index = per_region.index.astype(str)
    return per_region


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    trace = pal.open(argv[1], dictionary=argv[2] if len(argv) == 3 else None)
    counts = trace.counts()
    parts = [p for p in (regions(trace, counts), calls(trace, counts)) if p is not None]
    if not parts:
        sys.exit("%s: no regions (enter and leave records) and no calls with a duration"
                 % argv[1])
    per_region = pd.concat(parts).groupby(level=0).sum()
    per_region.index.name = "region"
    per_region["calls"] = per_region["calls"].astype(int)
    per_region["mean_us"] = per_region["seconds"] / per_region["calls"] * 1e6
    per_region = per_region.sort_values("seconds", ascending=False)
    info = trace.info()
    print("%s: %d records, %s ranks, %d damaged chunks, %d records lost"
          % (argv[1], info["records"], info["ranks"] if info["ranks"] > 0 else "no",
             info["damaged"], info["lost"]))
    print("inclusive time per region and call (summed over processes and threads):")
    print(per_region.to_string(float_format=lambda x: "%.6f" % x))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
