#!/bin/sh
# views.sh -- table (k): pal-view on a large synthetic run (bench_merge --gen:
# 64 ranks, regions nested 3 deep, a counter, user records; 1 M records at
# BENCH_SCALE=1; BENCH_VIEWS_RANKS ranks instead of 64), merged into one
# trace. Times whole pal-view processes, BENCH_REPS runs interleaved
# round-robin, min and median: the text profile
# (reading alone), the HTML report (its size), the Chrome export (its size
# and records per second) and, when playwright-core and chromium are there,
# the report's first paint in headless Chromium (the browser's own timing),
# the timeline drawn and everything drawn (the page's performance marks);
# BENCH_VIEWS_SHOT=FILE.png keeps a screenshot of the first load.
#   sh bench/views.sh     (from the build directory, after make bench)
set -u
bin=${BENCH_BIN:-bench}
pv=${PAL_VIEW:-views/pal-view}
reps=${BENCH_REPS:-7}
scale=${BENCH_SCALE:-1}
ranks=${BENCH_VIEWS_RANKS:-64}
per=$(awk -v s="$scale" -v r=$ranks 'BEGIN {printf "%d", 1000000 * s / r}')
echo
echo "== (k) pal-view on $ranks ranks x $per records (merged trace), $reps runs, min / median =="
if [ ! -x "$pv" ] || [ ! -x "$bin/bench_merge" ]; then
    echo "n/a: $pv or $bin/bench_merge not built (make bench)"; exit 0
fi
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/bench-views.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trace=$("$bin/bench_merge" --gen "$tmp" $ranks "$per" 2>"$tmp/gen.err") || { echo "n/a: the trace could not be written"; exit 0; }
records=$(pal/pal-dump --count "$trace" | awk '$1 == "total" {print $2}')
echo "trace: $records records, $(wc -c <"$trace") bytes"
now() { date +%s.%N; }
: >"$tmp/t.profile"; : >"$tmp/t.html"; : >"$tmp/t.chrome"
i=0
while [ $i -lt "$reps" ]; do
    a=$(now); "$pv" "$trace" >/dev/null; b=$(now)
    echo "$a $b" | awk '{print $2 - $1}' >>"$tmp/t.profile"
    a=$(now); "$pv" --html "$tmp/r.html" "$trace"; b=$(now)
    echo "$a $b" | awk '{print $2 - $1}' >>"$tmp/t.html"
    a=$(now); "$pv" --export chrome -o "$tmp/c.json" "$trace"; b=$(now)
    echo "$a $b" | awk '{print $2 - $1}' >>"$tmp/t.chrome"
    i=$((i + 1))
done
mm() { sort -n "$1" | awk '{v[NR] = $1} END {printf "%8.3f %8.3f", v[1], v[int((NR + 1) / 2)]}'; }
rate() { sort -n "$1" | awk -v n="$records" '{v[NR] = $1} END {printf "%8.2f %8.2f", n / v[1] / 1e6, n / v[int((NR + 1) / 2)] / 1e6}'; }
printf "%-34s %8s %8s   %s\n" "pal-view" "min s" "median s" "output"
printf "%-34s %s   %s\n" "profile (text)" "$(mm "$tmp/t.profile")" "-"
printf "%-34s %s   %s bytes (target <= 5 MB)\n" "--html report" "$(mm "$tmp/t.html")" "$(wc -c <"$tmp/r.html")"
printf "%-34s %s   %s bytes\n" "--export chrome" "$(mm "$tmp/t.chrome")" "$(wc -c <"$tmp/c.json")"
printf "%-34s %s   (M records/s, max / median)\n" "chrome export rate" "$(rate "$tmp/t.chrome")"
# first paint, measured by the browser (performance 'first-paint')
. "$(dirname "$0")/browser.sh"
if ! browser_setup "$tmp/js"; then
    echo "first paint: n/a (needs node, playwright-core and chromium)"; exit 0
fi
cat >"$tmp/js/paint.mjs" <<'JS'
import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
const out = [];
for (let i = 0; i < parseInt(process.env.REPS, 10); i++) {
  const p = await b.newPage({ viewport: { width: 1200, height: 900 } });
  await p.goto('file://' + process.argv[2]);
  await p.waitForFunction(() => document.body.getAttribute('data-tl-ready') === 'yes', null, { timeout: 60000 });
  if (i === 0 && process.env.SHOT) await p.screenshot({ path: process.env.SHOT, fullPage: false });
  out.push(await p.evaluate(() => {
    const e = performance.getEntriesByType('paint').find((x) => x.name === 'first-paint');
    const m = performance.getEntriesByName('pal-timeline-drawn')[0];
    const r = performance.getEntriesByName('pal-report-ready')[0];
    return [e ? e.startTime : NaN, m ? m.startTime : NaN, r ? r.startTime : NaN];
  }));
  await p.close();
}
await b.close();
const mm = (k) => { const v = out.map((x) => x[k]).sort((a, b) => a - b);
  return `${(v[0] / 1000).toFixed(3)} ${(v[Math.floor((v.length - 1) / 2)] / 1000).toFixed(3)}`; };
console.log(mm(0) + ' ' + mm(1) + ' ' + mm(2));
JS
fp=$(CHROMIUM=$chromium REPS=$reps SHOT=${BENCH_VIEWS_SHOT:-} timeout 600 node "$tmp/js/paint.mjs" "$tmp/r.html" 2>/dev/null) || fp="n/a n/a n/a n/a n/a n/a"
set -- $fp
printf "%-34s %8s %8s   (target <= 1 s)\n" "report first paint, Chromium" "$1" "$2"
printf "%-34s %8s %8s   (the timeline drawn)\n" "report timeline drawn, Chromium" "$3" "$4"
printf "%-34s %8s %8s   (everything drawn: animator, tables)\n" "report ready, Chromium" "$5" "$6"
