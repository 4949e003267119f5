"""bench_python.py -- table (j): how fast the Python module `pal` reads a
native trace into numpy columns and pandas, against PAL's C iteration of the
same trace in the same runs (bench/README.md, "(j)").

The 10 M-record enter/leave trace of table (c) is written once, by
bench_read's child mode (`bench_read --ecl-run enter_leave 1 N 0`, ECL's
default compression). Then BENCH_REPS runs (default 7), each of every row in
turn (interleaved), every one timed from open to close:

  pal-dump --count        the C tool, a whole process (subprocess wall time)
  Trace.counts()          PAL's C iteration inside the module (every record,
                          one counter per type; no Python object per record)
  Trace.columns('enter')  every record decoded, the enter records' time,
                          process, stream and region stored into numpy arrays
  Trace.columns('enter', resolve=True)  region ids resolved to names
  Trace.to_pandas('enter')              a DataFrame, region categorical
  iterate 1 M records     `for rec in trace` (a Python object per record)

Records/s counts the records PAL read in the pass (info()["records"]),
rows/s the rows stored. The ratios columns / pal-dump --count and columns /
counts() are taken per run, then their min and median shown. Target:
columns >= 10 M records/s. Prints a table; never fails on time.

Usage (make bench runs it through bench/run.sh):
  PYTHONPATH=python python3 bench/bench_python.py     (from the build directory)
Environment: BENCH_BIN (bench programs), PAL_DUMP, BENCH_SCALE, BENCH_REPS,
BENCH_TMPDIR, BENCH_KEEP_TRACES.
"""
import itertools
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pal


def line_of(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def tmp_base():
    if os.environ.get("BENCH_TMPDIR"):
        return os.environ["BENCH_TMPDIR"]
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize >= 4 << 30:
            return "/dev/shm"
    except OSError:
        pass
    return os.environ.get("TMPDIR", "/tmp")


def header(base):
    print("\n== (j) Python: a trace into numpy columns and pandas -- bench_python.py ==")
    print("machine: %s, %d cores | kernel clocksource: %s | load (1 min): %s | date: %s"
          % (cpu_model(), os.cpu_count() or 0,
             line_of("/sys/devices/system/clocksource/clocksource0/current_clocksource")
             or "unknown", (line_of("/proc/loadavg").split() or ["?"])[0],
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("traces written under %s (BENCH_TMPDIR changes it)" % base)
    print("python %s, numpy %s, module pal %s (%s)"
          % (platform.python_version(), __import__("numpy").__version__, pal.__version__,
             pal.__file__))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    bindir = os.environ.get("BENCH_BIN", "bench")
    pal_dump = os.environ.get("PAL_DUMP", os.path.join(bindir, "..", "pal", "pal-dump"))
    scale = float(os.environ.get("BENCH_SCALE", "1"))
    reps = max(int(os.environ.get("BENCH_REPS", "7")), 1)
    n = max(int(10_000_000 * scale), 1000)
    base = tmp_base()
    header(base)
    writer = os.path.join(bindir, "bench_read")
    if not os.access(writer, os.X_OK) or not os.access(pal_dump, os.X_OK):
        print("n/a: %s or %s is missing (run make bench in the build directory)"
              % (writer, pal_dump))
        return 0
    tmp = tempfile.mkdtemp(prefix="bench-python.", dir=base)
    try:
        env = dict(os.environ, ECL_DIR=tmp, ECL_PREFIX="bench", ECL_VERBOSE="1")
        env.pop("ECL_COMPRESS", None)
        out = subprocess.run([writer, "--ecl-run", "enter_leave", "1", str(n), "0"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        kv = dict(l.split("=", 1) for l in out.stdout.decode().splitlines() if "=" in l)
        trace = kv.get("trace", "")
        if out.returncode != 0 or not os.path.isfile(trace):
            print("n/a: writing the trace failed (bench_read --ecl-run, status %d)"
                  % out.returncode)
            return 1
        size = os.path.getsize(trace)
        print("trace: %d enter/leave events (BENCH_SCALE=%g), %.1f MB, ECL's default "
              "compression; %d runs, interleaved\n" % (n, scale, size / 1e6, reps))

        def dump_count():
            r = subprocess.run([pal_dump, "--count", trace], stdout=subprocess.PIPE, check=True)
            return int(r.stdout.split()[-1]), None

        def counts():
            with pal.open(trace) as t:
                c = t.counts()
                return t.info()["records"], sum(c.values())

        def columns(resolve=False):
            with pal.open(trace) as t:
                c = t.columns("enter", resolve=resolve)
                return t.info()["records"], len(c["time"])

        def to_df():
            with pal.open(trace) as t:
                df = t.to_pandas("enter")
                return t.info()["records"], len(df)

        def iterate():
            with pal.open(trace) as t:
                k = sum(1 for _ in itertools.islice(t, 1_000_000))
                return k, k

        rows = [("pal-dump --count (process)", dump_count),
                ("Trace.counts() (C iteration)", counts),
                ("Trace.columns('enter')", columns),
                ("columns('enter', resolve=True)", lambda: columns(True)),
                ("Trace.to_pandas('enter')", to_df),
                ("iterate: first 1 M records", iterate)]
        try:
            import pandas  # noqa: F401
        except ImportError:
            rows = [r for r in rows if r[1] is not to_df]
            print("to_pandas: n/a (pandas is not installed: apt-get install python3-pandas)")
        secs = {name: [] for name, _ in rows}
        recs = {name: 0 for name, _ in rows}
        nrows = {name: 0 for name, _ in rows}
        for _ in range(reps):
            for name, fn in rows:
                s, (r, k) = timed(fn)
                secs[name].append(s)
                recs[name], nrows[name] = r, k
        # the ratios, per run
        col = secs["Trace.columns('enter')"]
        vs_dump = [c / d for c, d in zip(col, secs["pal-dump --count (process)"])]
        vs_iter = [c / d for c, d in zip(col, secs["Trace.counts() (C iteration)"])]

        print("%-32s %10s %10s %9s %9s %12s %12s" % ("", "records", "rows", "min s",
                                                    "median s", "M rec/s max", "M rec/s med"))
        for name, _ in rows:
            lo, med = min(secs[name]), statistics.median(secs[name])
            print("%-32s %10d %10s %9.3f %9.3f %12.1f %12.1f"
                  % (name, recs[name], nrows[name] if nrows[name] is not None else "-", lo, med,
                     recs[name] / lo / 1e6, recs[name] / med / 1e6))
        print("\ncolumns('enter') / pal-dump --count, per run: min %.2f, median %.2f"
              % (min(vs_dump), statistics.median(vs_dump)))
        print("columns('enter') / Trace.counts(), per run:   min %.2f, median %.2f"
              % (min(vs_iter), statistics.median(vs_iter)))
        rate = recs["Trace.columns('enter')"] / statistics.median(col) / 1e6
        print("target: columns >= 10 M records/s -- median %.1f M records/s" % rate)
    finally:
        if os.environ.get("BENCH_KEEP_TRACES"):
            print("trace kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
