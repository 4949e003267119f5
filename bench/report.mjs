// report.mjs -- table (m): the HTML report of a LULESH-size run in headless
// Chromium (Debian's, or $CHROMIUM) through playwright-core, timed by the
// browser itself. bench/report.sh runs it:
//   node report.mjs REPORT.html REPS ITERATIONS
// Each run opens the report in a fresh page and reads, from the page's own
// clock (performance entries, in ms from the navigation's start):
//   paint   the browser's first contentful paint (the timeline canvas),
//   drawn   the report's mark when the timeline is drawn (pal-timeline-drawn),
//   painted its mark after the frame that showed it (pal-timeline-painted),
//   ready   the mark when everything is drawn (pal-report-ready);
// then zooms from the whole run to one iteration (the middle iteration's
// LagrangeLeapFrog and what precedes the next one) in 24 frames, one
// setView per requestAnimationFrame as a wheel zoom does, and takes per
// frame the time the redraw took (performance.now() around it) and the
// interval between frames. It prints one JSON line per run.
import { chromium } from 'playwright-core';

const [report, repsArg, itersArg] = process.argv.slice(2);
const reps = parseInt(repsArg || '7', 10), iters = parseInt(itersArg || '1000', 10);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
});
let status = 0;
for (let run = 0; run < reps; run++) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + report);
  await page.waitForFunction(() => document.body.getAttribute('data-tl-ready') === 'yes', null,
    { timeout: 120000 });
  const r = await page.evaluate(async (iters) => {
    const mark = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null; };
    const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
    const out = { paint: fcp ? fcp.startTime : null, drawn: mark('pal-timeline-drawn'),
      painted: mark('pal-timeline-painted'), ready: mark('pal-report-ready') };
    /* one iteration: between two consecutive LagrangeLeapFrog starts of
       the first row (the kept slices hold them); else the run / iters */
    const T = JSON.parse(document.getElementById('data').textContent).tl;
    const id = T.regions.findIndex((g) => g.n === 'LagrangeLeapFrog');
    const st = window.palReport.slices.filter((s) => s[1] === id && s[0] === 0).map((s) => s[3]).sort((a, b) => a - b);
    let a, b;
    if (st.length > 2) { const k = st.length >> 1; a = st[k]; b = st[k + 1]; }
    else { b = T.dur / 2 + T.dur / iters / 2; a = b - T.dur / iters; }
    out.iteration = [a, b]; out.keptIterations = st.length;
    const [v0, v1] = window.palReport.view(), N = 24, draws = [], gaps = [];
    await new Promise((done) => {
      let i = 0, prev = null;
      function step(ts) {
        if (prev !== null) gaps.push(ts - prev);
        prev = ts;
        i++;
        const f = i / N, span = (v1 - v0) * Math.pow((b - a) / (v1 - v0), f);
        const c0 = (v0 + v1) / 2, c = c0 + ((a + b) / 2 - c0) * f;   /* pan towards it */
        const t0 = performance.now();
        window.palReport.setView(c - span / 2, c + span / 2);
        draws.push(performance.now() - t0);
        if (i < N) requestAnimationFrame(step); else requestAnimationFrame((t2) => { gaps.push(t2 - prev); done(); });
      }
      requestAnimationFrame(step);
    });
    const [w0, w1] = window.palReport.view();
    out.view = [w0, w1];
    out.drawMax = Math.max(...draws); out.drawMedian = draws.slice().sort((x, y) => x - y)[draws.length >> 1];
    out.frameMax = Math.max(...gaps); out.frameMedian = gaps.slice().sort((x, y) => x - y)[gaps.length >> 1];
    out.gaps = gaps.map((x) => Math.round(x)); out.draws = draws.map((x) => Math.round(x));
    out.range = document.getElementById('tl-range').textContent;
    return out;
  }, iters);
  if (errors.length) { r.errors = errors; status = 1; }
  console.log(JSON.stringify(r));
  await context.close();
}
await browser.close();
process.exit(status);
