#!/bin/sh
# html-browser.sh -- the HTML report in a real browser (headless Chromium,
# loaded from a local file).
# 1. Always: with "#selftest" the page sets the speed control, clicks play,
#    waits 1.5 s and clicks pause; Chromium's --dump-dom gives the DOM, and the
#    test asserts that the time cursor moved and the animated utilization and
#    space-time views changed.
# 2. With playwright-core (PLAYWRIGHT_CORE_DIR, $top_builddir/node_modules
#    or the global npm root; `npm install playwright-core`): html-click.mjs
#    clicks the animator's buttons (play, pause, replay, step) and checks the
#    cursor, the views and that no network request was made; html-timeline.mjs
#    checks the interactive timeline (rows drawn at load, wheel zoom with finer
#    ticks, a click shows a slice's fields, drag selects a window and its
#    profile, reset, sortable tables). Without playwright-core: skipped (77)
#    after the self-test, saying why.
# A screenshot is kept in $VIEWS_ARTIFACTS (default: the build directory) as
# html-report.png and html-timeline-{load,zoom,window}.png. Skips (77) when Chromium is not installed (Debian:
# apt-get install chromium).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
prog="$top_builddir/tests/views/vwprog"
chromium=""
for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
done
if [ -z "$chromium" ]; then
    echo "SKIP: chromium not installed (apt-get install -y chromium)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-html.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ECL_DIR="$tmp" ECL_PREFIX=vw "$prog" || exit 99
trace=$(ls "$tmp"/vw.*.ecl | head -1)
"$pv" --html "$tmp/report.html" "$trace" || { echo "FAIL: pal-view --html"; exit 1; }
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
 --disable-component-update --disable-sync --virtual-time-budget=5000"
url="file://$tmp/report.html#selftest"
# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --user-data-dir="$tmp/profile" --dump-dom "$url" \
    >"$tmp/dom" 2>"$tmp/chromium.log"
body=$(grep -o '<body[^>]*>' "$tmp/dom" | head -1)
echo "$body"
art="${VIEWS_ARTIFACTS:-$top_builddir}"
# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --user-data-dir="$tmp/profile2" --window-size=1000,1400 \
    --screenshot="$art/html-report.png" "$url" >/dev/null 2>&1 ||
    echo "note: screenshot failed"
fail=0
case "$body" in *'data-moved="yes"'*) ;; *) echo "FAIL: the cursor did not move"; fail=1 ;; esac
case "$body" in *'data-changed="yes"'*) ;; *) echo "FAIL: the views did not change"; fail=1 ;; esac
if [ -z "$body" ]; then
    echo "FAIL: no DOM from chromium"; tail -5 "$tmp/chromium.log"
fi

pw=""
for d in "${PLAYWRIGHT_CORE_DIR:-}" "$top_builddir/node_modules/playwright-core" \
         "$(npm root -g 2>/dev/null)/playwright-core"; do
    [ -n "$d" ] && [ -f "$d/package.json" ] && { pw=$d; break; }
done
if [ -z "$pw" ] || ! command -v node >/dev/null 2>&1; then
    [ $fail = 0 ] || exit 1
    echo "SKIP: playwright-core or node not found: the timeline, clicks and zoom are not tested"
    echo "      (npm install --prefix \$top_builddir playwright-core; ./run does it)"
    exit 77
fi
mkdir -p "$tmp/js/node_modules"
ln -s "$(cd "$pw" && pwd)" "$tmp/js/node_modules/playwright-core"
cp "$top_srcdir/tests/views/browser.mjs" "$top_srcdir/tests/views/html-click.mjs" \
   "$top_srcdir/tests/views/html-timeline.mjs" "$tmp/js/"
CHROMIUM=$(command -v "$chromium") timeout 120 node "$tmp/js/html-click.mjs" \
    "$tmp/report.html" "$art/html-report.png" || fail=1
# the interactive timeline: one row per thread of vwprog (3)
CHROMIUM=$(command -v "$chromium") EXPECT_ROWS=3 timeout 120 node "$tmp/js/html-timeline.mjs" \
    "$tmp/report.html" "$art/html-timeline" || fail=1
exit $fail
