#!/usr/bin/env python3
"""profile.py -- time per region of any trace PAL reads, with pandas.

  python3 profile.py TRACE [DICTIONARY]

TRACE is an ECL trace, a run (a directory of per-rank traces) or a foreign
trace with its DICTIONARY (e.g. a PICL trace and edl/formats/picl.edl). The
script knows no record names: it asks the description which record types
enter and leave regions (roles "enter" and "leave") and which field names the
region (role "region", an id resolved to its name) or which region a type
names by text (REGION IS "send"). Inclusive time per region is the sum of its
leave times minus the sum of its enter times, per process and thread, so
nesting needs no stack; regions whose enters and leaves do not pair up
(a trace cut short) are left out and said so.

From the build tree: PYTHONPATH=_build/python /usr/bin/python3 examples/python/profile.py trace.ecl
"""
import sys

import pandas as pd

import pal


def column_of(desc, role, default):
    """the field with a role, else the designation's column name"""
    for name, f in desc["fields"].items():
        if f["role"] == role:
            return name
    return default


def events(trace, role):
    """one DataFrame of every record with role: time, process, thread, region"""
    frames = []
    for tname in trace.types(role=role):
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


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    trace = pal.open(argv[1], dictionary=argv[2] if len(argv) == 3 else None)
    enter, leave = events(trace, "enter"), events(trace, "leave")
    if enter is None or leave is None:
        sys.exit("%s: the description has no enter and leave records with regions" % argv[1])
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
    per_region["calls"] = per_region["calls"].astype(int)
    per_region["mean_us"] = per_region["seconds"] / per_region["calls"] * 1e6
    per_region = per_region.sort_values("seconds", ascending=False)
    info = trace.info()
    print("%s: %d records, %s ranks, %d damaged chunks, %d records lost"
          % (argv[1], info["records"], info["ranks"] if info["ranks"] > 0 else "no",
             info["damaged"], info["lost"]))
    print("inclusive time per region (summed over processes and threads):")
    print(per_region.to_string(float_format=lambda x: "%.6f" % x))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
