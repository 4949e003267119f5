#!/bin/sh
# tools-cli.sh -- every tool follows the one convention (doc/tools.md):
# --help and --version exit 0, a usage error exits 1; and every tool's output
# file (-o, --html, --svg) refuses a FIFO or a symbolic link in its place
# (exit 1, a message saying what it is) unless --through is given -- each
# writer (HTML, SVG, CSV, Chrome, OTF2, merge, edlc) with a link, a FIFO and
# a device node in its output path --, and never
# leaves a partial file when it cannot write. Done in a temporary directory,
# never on /dev.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
b=$top_builddir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-tools-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

dump=$b/pal/pal-dump view=$b/views/pal-view merge=$b/ecl/tools/ecl-merge edlc=$b/edl/edlc
run=$b/ecl/tools/ecl-run
for t in "$dump" "$view" "$merge" "$edlc" "$run"; do
    n=$(basename "$t")
    "$t" --help >/dev/null 2>&1 || bad "$n --help: exit status $?"
    "$t" --version >"$tmp/v" 2>&1 || bad "$n --version: exit status $?"
    grep -q "^$n" "$tmp/v" || bad "$n --version does not name the tool: $(cat "$tmp/v")"
    grep -q "[0-9][0-9]*\.[0-9][0-9]*\.[0-9]" "$tmp/v" && ! grep -q "@" "$tmp/v" ||
        bad "$n --version gives no version: $(cat "$tmp/v")"
    "$t" --no-such-option >/dev/null 2>&1
    st=$?
    [ $st -eq 1 ] || bad "$n with a bad option: exit status $st, expected 1"
done

# a trace to work on: two "ranks" of one run
ECL_DIR=$tmp/run ECL_BUFFER_SIZE=8K "$b/examples/threads/threads" 2 5 >/dev/null || exit 99
trace=$(ls "$tmp"/run/trace.*.ecl | head -n 1)

mkfifo "$tmp/fifo" || exit 99
echo "keep me" >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"

# refuses: exit 1, the kind named, the special file untouched
refuses() {
    what=$1 out=$2 kind=$3
    shift 3
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    st=$?
    [ $st -eq 1 ] || bad "$what into $out: exit status $st, expected 1"
    grep -q "$kind" "$tmp/err" || bad "$what into $out: message lacks '$kind': $(cat "$tmp/err")"
}
refuses ecl-merge fifo "a FIFO" "$merge" -q -o "$tmp/fifo" "$trace"
refuses ecl-merge link "a symbolic link" "$merge" -q -o "$tmp/link" "$trace"
refuses edlc fifo "a FIFO" "$edlc" -o "$tmp/fifo" "$top_srcdir/edl/formats/picl.edl"
refuses edlc link "a symbolic link" "$edlc" -o "$tmp/link" "$top_srcdir/edl/formats/picl.edl"
refuses pal-view fifo "a FIFO" "$view" --html "$tmp/fifo" "$trace"
refuses pal-view link "a symbolic link" "$view" --html "$tmp/link" "$trace"
[ -p "$tmp/fifo" ] || bad "the FIFO was replaced"
[ -L "$tmp/link" ] && [ "$(cat "$tmp/target")" = "keep me" ] || bad "the link or its target changed"

# every writer, each special file planted where it writes: a symbolic link
# (to a file that must keep its content), a FIFO, a device node (a copy of
# /dev/null made with mknod; left out where mknod is not allowed)
kinds="link fifo"
mknod "$tmp/devprobe" c 1 3 2>/dev/null && kinds="$kinds dev" ||
    echo "device nodes: not checked (mknod not allowed here)"
rm -f "$tmp/devprobe"
have_otf2=yes
"$view" --export otf2 -o "$tmp/otf2probe" "$trace" >/dev/null 2>&1 || have_otf2=no
rm -rf "$tmp/otf2probe"
n=0
plant() {       # plant KIND PATH
    case $1 in
    link) ln -s "$tmp/target" "$2" ;;
    fifo) mkfifo "$2" ;;
    dev) mknod "$2" c 1 3 ;;
    esac || exit 99
}
kindname() {
    case $1 in
    link) echo "a symbolic link" ;;
    fifo) echo "a FIFO" ;;
    dev) echo "a character device" ;;
    esac
}
for k in $kinds; do
    for w in html svg csv chrome otf2 otf2dir merge edlc; do
        n=$((n + 1))
        d=$tmp/w$n
        mkdir "$d"
        case $w in
        html) p=$d/r.html; set -- "$view" --html "$p" "$trace" ;;
        svg) p=$d/timeline.svg; set -- "$view" --svg "$d" "$trace" ;;
        csv) p=$d/x.csv; set -- "$view" --export csv -o "$p" "$trace" ;;
        chrome) p=$d/x.json; set -- "$view" --export chrome -o "$p" "$trace" ;;
        otf2) p=$d/traces.def; set -- "$view" --export otf2 -o "$d" "$trace" ;;
        otf2dir) p=$d/a; set -- "$view" --export otf2 -o "$p" "$trace" ;;
        merge) p=$d/m.ecl; set -- "$merge" -q -o "$p" "$trace" ;;
        edlc) p=$d/d.bin; set -- "$edlc" -o "$p" "$top_srcdir/edl/formats/picl.edl" ;;
        esac
        case $w in otf2*) [ $have_otf2 = yes ] || continue ;; esac
        plant $k "$p"
        refuses "$w" "$k" "$(kindname $k)" "$@"
        case $k in
        link) [ -L "$p" ] || bad "$w: the link was replaced" ;;
        fifo) [ -p "$p" ] || bad "$w: the FIFO was replaced" ;;
        dev) [ -c "$p" ] || bad "$w: the device node was replaced" ;;
        esac
        echo "keep me" | cmp -s - "$tmp/target" || bad "$w: the link's target changed"
        echo "keep me" >"$tmp/target"
        # --through writes into a link or a device as it is
        if [ $k != fifo ] && [ $w != otf2dir ]; then
            prog=$1
            shift
            "$prog" --through "$@" >/dev/null 2>"$tmp/err" ||
                bad "$w --through into $k: exit status $?: $(cat "$tmp/err")"
            if [ $k = link ]; then
                ! echo "keep me" | cmp -s - "$tmp/target" ||
                    bad "$w --through did not write into the link's target"
            fi
            echo "keep me" >"$tmp/target"
        fi
    done
done
[ $have_otf2 = yes ] || echo "OTF2 export: not checked (pal-view built without OTF2)"

# --through writes through the link (into its target)
"$edlc" --through -o "$tmp/link" "$top_srcdir/edl/formats/picl.edl" || bad "edlc --through: $?"
[ -L "$tmp/link" ] && [ "$(head -c 7 "$tmp/target")" = "EDLDICT" ] ||
    bad "edlc --through did not write into the link's target"
"$view" --through --html "$tmp/link" "$trace" || bad "pal-view --through: $?"
grep -q "<html" "$tmp/target" || bad "pal-view --through did not write into the link's target"

# nothing partial is left: an output in a directory that cannot take it
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    "$merge" -q -o "$tmp/ro/m.ecl" "$trace" >/dev/null 2>&1 && bad "wrote into a read-only directory"
fi
ls "$tmp"/*.tmp.* >/dev/null 2>&1 && bad "a temporary output was left behind: $(ls "$tmp"/*.tmp.*)"

[ $fail -eq 0 ] && echo "tools-cli: all checks passed"
exit $fail
