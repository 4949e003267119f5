"""config.py -- what configure asks the Python interpreter the module `pal`
is built for (configure.ac, "Python module"). One question per call:

  config.py flags            -isystem flags for Python.h and numpy's headers
                             (fails when either is missing)
  config.py suffix           the extension module file suffix (EXT_SUFFIX)
  config.py dir PREFIX       where modules go under PREFIX, as "${prefix}/...":
                             the first of this Python's scheme directories
                             that is on its sys.path (Debian:
                             /usr/local/lib/python3.X/dist-packages), else
                             posix_prefix's site-packages
  config.py onpath DIR       "yes" when DIR is on this Python's sys.path
  config.py version          the Python version
"""
import os.path
import platform
import sys
import sysconfig


def flags():
    import numpy
    inc = sysconfig.get_path("include")
    if not os.path.isfile(os.path.join(inc, "Python.h")):
        sys.exit("no Python.h in %s" % inc)
    return "-isystem %s -isystem %s" % (inc, numpy.get_include())


def moddir(prefix):
    prefix = prefix.rstrip("/") or "/"
    v = {"base": prefix, "platbase": prefix,
         "installed_base": prefix, "installed_platbase": prefix}
    cands = []
    default = sysconfig.get_path("platlib")
    if default.startswith(prefix + "/"):
        cands.append(default)
    for scheme in (sysconfig.get_default_scheme(), "posix_prefix", "deb_system"):
        if scheme in sysconfig.get_scheme_names():
            cands.append(sysconfig.get_path("platlib", scheme, v))
    on = [c for c in cands if c in sys.path]
    fallback = [c for c in cands if "site-packages" in c] or cands
    d = (on or fallback)[0]
    return "${prefix}" + d[len(prefix):] if d.startswith(prefix + "/") else d


def main(argv):
    what = argv[1] if len(argv) > 1 else ""
    if what == "flags":
        print(flags())
    elif what == "suffix":
        print(sysconfig.get_config_var("EXT_SUFFIX") or ".so")
    elif what == "dir" and len(argv) == 3:
        print(moddir(argv[2]))
    elif what == "onpath" and len(argv) == 3:
        print("yes" if argv[2].rstrip("/") in sys.path else "no")
    elif what == "version":
        print(platform.python_version())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
