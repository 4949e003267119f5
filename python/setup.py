"""setup.py -- builds the Python module `pal` (palmodule.c) with pip in any
Python >= 3.9 environment (venv, pyenv, conda) against the libpal that ECL's
`make install` installed, found by pkg-config (doc/pal.md, "Python"):

    pip install --no-build-isolation ./python      # uses this environment's
                                                   # setuptools and numpy; no network

PKG_CONFIG_PATH (or `eval "$(ecl-config --env)"`) finds an installation off
pkg-config's default path. The module is linked with a run path to libpal's
directory, so it needs no LD_LIBRARY_PATH. numpy, when this environment has
it, is built in (columns, to_pandas); without it the module still reads
records, and columns/to_pandas say that they need numpy.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup


def die(msg):
    sys.exit("python/setup.py: " + msg)


def pkgconfig(*args):
    exe = os.environ.get("PKG_CONFIG") or shutil.which("pkg-config")
    if not exe:
        die("pkg-config is needed to find libpal (Debian: pkg-config)")
    r = subprocess.run([exe, *args, "pal"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        die("pkg-config cannot find pal (libpal, installed by ECL's make install): "
            "set PKG_CONFIG_PATH to its lib/pkgconfig, or eval \"$(ecl-config --env)\"\n"
            + r.stderr.strip())
    return r.stdout.split()


version = pkgconfig("--modversion")[0]
cflags = pkgconfig("--cflags")
libs = pkgconfig("--libs")
libdir = pkgconfig("--variable=libdir")[0]

macros = [("PACKAGE_VERSION", '"%s"' % version)]
include_dirs = [f[2:] for f in cflags if f.startswith("-I")]
try:
    import numpy
    include_dirs.append(numpy.get_include())
except ImportError:
    print("python/setup.py: no numpy in this environment: Trace.columns and "
          "Trace.to_pandas will say that they need it", file=sys.stderr)
    macros.append(("PAL_PY_NO_NUMPY", "1"))

setup(
    name="ecl-pal",
    version=version,
    description="PAL, ECL's problem-oriented access library: read any described trace "
                "by field name (records, numpy columns, pandas DataFrames)",
    python_requires=">=3.9",
    ext_modules=[Extension(
        "pal", ["palmodule.c"],
        define_macros=macros,
        include_dirs=include_dirs,
        extra_compile_args=[f for f in cflags if not f.startswith("-I")],
        library_dirs=[f[2:] for f in libs if f.startswith("-L")],
        libraries=[f[2:] for f in libs if f.startswith("-l")],
        runtime_library_dirs=[libdir],
    )],
    extras_require={"columns": ["numpy"], "pandas": ["numpy", "pandas"]},
    zip_safe=False,
)
