#!/usr/bin/env python3
"""bench_record_compare.py -- the recording cost of two builds of ECL side by
side, for a change to the recording path: table (a)'s ECL runs and floors
(bench_record's --child and --floor modes), interleaved.

    bench_record_compare.py BEFORE/bench/bench_record AFTER/bench/bench_record [REPS]

Per round (REPS, default 7), threads (1, 2) and kind (enter/leave: 6 M
events per thread, 4-field user record: 1.5 M), each build's ECL run (ECL's
default configuration, a fresh process timed open -> close, events read
back), the builds in alternating order, each run followed by a floor process
of the same wall time (rdtsc + 16-byte store, or rdtsc); the ratio is the
pair's. Prints min and median of ns/event and of the ratio. Then, per round,
threads, kind and build (same alternating order), the hot path alone:
bench_record --hot KIND THREADS (the fastest of 300 segments of 5,000 events
against the fastest of 300 floor segments, in cycle-counter ticks), min and
median of its ratio; a build whose bench_record lacks --hot prints n/a
there. Traces go to /dev/shm (BENCH_TMPDIR changes it) and are deleted."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def kv(out):
    d = {}
    for line in out.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            d[k] = v
    return d


def hot(exe, kind, threads, env, tmpdir, out):
    """bench_record --hot KIND THREADS of one build: appends (ecl, floor,
    ratio) in ticks per event, or nothing when this bench_record has no
    --hot."""
    tmp = tempfile.mkdtemp(dir=tmpdir)
    env = dict(env, ECL_DIR=tmp)
    run = subprocess.run([exe, "--hot", kind, str(threads)], env=env, capture_output=True,
                         text=True)
    shutil.rmtree(tmp)
    o = kv(run.stdout)
    if run.returncode == 0 and "ratio" in o:
        out.append((float(o["ecl_ticks"]), float(o["floor_ticks"]), float(o["ratio"])))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    builds = {"before": sys.argv[1], "after": sys.argv[2]}
    reps = int(sys.argv[3]) if len(sys.argv) == 4 else 7
    events = {"enter_leave": 6000000, "record": 1500000}
    floor = {"enter_leave": "rdtsc_store16", "record": "rdtsc"}
    tmpdir = os.environ.get("BENCH_TMPDIR", "/dev/shm")
    res = {}
    for rep in range(reps):
        for t in (1, 2):
            for kind in events:
                names = list(builds) if rep % 2 == 0 else list(reversed(list(builds)))
                for name in names:
                    exe = builds[name]
                    tmp = tempfile.mkdtemp(dir=tmpdir)
                    env = {k: v for k, v in os.environ.items() if not k.startswith("ECL_")}
                    env.update(ECL_DIR=tmp, ECL_PREFIX="bench")
                    run = subprocess.run([exe, "--child", kind, str(t), str(events[kind])],
                                         env=env, capture_output=True, text=True)
                    shutil.rmtree(tmp)
                    o = kv(run.stdout)
                    if run.returncode != 0 or "ns" not in o:
                        sys.exit("%s: %s failed: %s" % (name, kind, run.stderr.strip()))
                    f = kv(subprocess.run([exe, "--floor", floor[kind], str(t),
                                           "%.3f" % float(o["wall_ms"])],
                                          capture_output=True, text=True).stdout)
                    ns, fl = float(o["ns"]), float(f["floor"])
                    res.setdefault((kind, t, name), []).append((ns, fl, ns / fl))
                    hot(exe, kind, t, env, tmpdir, res.setdefault(("hot", kind, t, name), []))
    print("%d interleaved rounds; ns/event open -> close per thread; ratio = ECL / floor per pair"
          % reps)
    for kind in events:
        for t in (1, 2):
            for name in builds:
                v = res[(kind, t, name)]
                ns, fl, r = ([x[i] for x in v] for i in range(3))
                print("%-11s %d thr %-6s ns min %6.2f med %6.2f | floor med %6.2f | "
                      "ratio min %5.2f med %5.2f" % (kind, t, name, min(ns), statistics.median(ns),
                                                     statistics.median(fl), min(r),
                                                     statistics.median(r)))

    print("hot path alone (bench_record --hot): ticks/event, fastest of 300 segments;"
          " ratio = ECL / floor")
    for kind in events:
        for t in (1, 2):
            for name in builds:
                v = res.get(("hot", kind, t, name), [])
                if not v:
                    print("%-11s %d thr %-6s n/a (this bench_record has no --hot)"
                          % (kind, t, name))
                    continue
                e, fl, r = ([x[i] for x in v] for i in range(3))
                print("%-11s %d thr %-6s ticks min %6.2f med %6.2f | floor med %6.2f | "
                      "ratio min %5.2f med %5.2f" % (kind, t, name, min(e), statistics.median(e),
                                                     statistics.median(fl), min(r),
                                                     statistics.median(r)))


if __name__ == "__main__":
    main()
