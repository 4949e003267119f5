// html-mpi.mjs -- the report's timeline against pal-dump and pal-view, in
// headless Chromium (playwright-core); driven by html-mpi.sh, which passes
// the facts as JSON in EXPECT:
//   click: a click on the MPI_Isend slice of rank `rank` that ends at `end`
//     shows the same peer, tag, communicator, bytes and request as pal-dump
//     prints for that record, and its start and end to the nanosecond;
//   window: the window profile of [from, to] (selected as a drag does) has,
//     per region, the calls, inclusive and exclusive seconds that
//     `pal-view --from --to` prints for the same window;
//   opened: the same, for a report written with --from/--to, which opens
//     on that window;
//   msgs: at the whole-run zoom of a run with many messages no message
//     line is drawn, only per-pair counts; zoomed in, lines; the messages
//     control hides them (the picture changes) and shows them again;
//   heat: every cell of the threads x regions heat map has the calls,
//     inclusive and exclusive seconds of the CSV's region row (EXPECT.heat.csv);
//     hovering a cell shows them, clicking it shows that region on that
//     thread in the timeline;
//   depth (also: search, legend): filtering the legend by "ker" leaves
//     kernel alone among its family groups; searching "kern" selects the first kernel slice,
//     next the second (not earlier), previous the first again;
//   depth: on a thread's open call stack (a sub-row per depth), a click on
//     the sub-row of a slice at depth >= 2, at a time where its child is
//     open too, shows that slice (its own name and depth), not its child's
//     or its parent's; a click on the child's sub-row shows the child.
// Usage: node html-mpi.mjs REPORT.html   Exit 0 / 1.
import { launch, openReport, fail, result } from './browser.mjs';

const [report] = process.argv.slice(2);
const E = JSON.parse(process.env.EXPECT);
const browser = await launch();
try {
  const { page, check } = await openReport(browser, report, { width: 1200, height: 1000 });
  const box = await page.locator('#tl').boundingBox();
  const sx = box.width / 1100;
  const fields = () => page.evaluate(() => {
    const o = {};
    for (const tr of document.querySelectorAll('#tl-info table.fields tr'))
      o[tr.querySelector('th').textContent] = tr.querySelector('td').textContent;
    return o;
  });
  if (E.click) {
    const c = E.click;
    const target = await page.evaluate((c) => {
      const R = window.palReport, D = JSON.parse(document.getElementById('data').textContent).tl;
      const s = R.slices.find((s) => D.rows[s[0]].p === c.rank && D.regions[s[1]].n === 'MPI_Isend' &&
                               Math.abs(s[4] - c.end) < 5e-10);
      if (!s) return null;
      const d = s[4] - s[3];
      R.setView(s[3] - d, s[4] + d);
      return { x: R.timeX((s[3] + s[4]) / 2), y: R.sliceY ? R.sliceY(s) : R.rowY(s[0]) };
    }, c);
    if (!target) fail(`no MPI_Isend slice of rank ${c.rank} ending at ${c.end}`);
    else {
      await page.locator('#tl').click({ position: { x: target.x * sx, y: target.y * sx } });
      const f = await fields();
      console.log('clicked MPI_Isend: ' + JSON.stringify(f));
      if (f.region !== 'MPI_Isend') fail(`the click shows ${f.region}, not MPI_Isend`);
      for (const k of ['peer', 'tag', 'communicator', 'bytes', 'request'])
        if (f[k] !== String(c[k])) fail(`${k}: the page shows ${f[k]}, pal-dump ${c[k]}`);
      if (f.start !== c.start + ' s') fail(`start: the page shows ${f.start}, pal-dump ${c.start} s`);
      if (f.end !== c.endText + ' s') fail(`end: the page shows ${f.end}, pal-dump ${c.endText} s`);
      // the matched partner: the receive on rank `peer`
      const btn = page.locator('#tl-partner-0');
      if (await btn.count() !== 1) fail('no jump to the partner');
      else {
        await btn.click();
        const g = await fields(), sec = (x) => parseFloat(x);
        console.log('jumped to the partner: ' + JSON.stringify(g));
        if (g.rank !== String(c.peer) || !(sec(g.start) <= c.recv + 1e-12 && c.recv <= sec(g.end) + 1e-12))
          fail(`the partner jump selects ${g.region} on rank ${g.rank} [${g.start}, ${g.end}], not the receive on rank ${c.peer} at ${c.recv}`);
      }
    }
  }
  if (E.depth) {
    const cases = await page.evaluate(() => {
      const R = window.palReport, D = JSON.parse(document.getElementById('data').textContent).tl;
      const S = R.slices;
      for (const p of S) {
        if (p[2] < 2) continue;
        const c = S.find((c) => c[0] === p[0] && c[2] === p[2] + 1 && c[3] >= p[3] && c[4] <= p[4] && c[4] > c[3]);
        const a = S.find((a) => a[0] === p[0] && a[2] === p[2] - 1 && a[3] <= p[3] && a[4] >= p[4]);
        if (!c || !a) continue;
        R.setStacks(true);
        const d = c[4] - c[3];
        R.setView(c[3] - d, c[4] + d);
        const t = (c[3] + c[4]) / 2, n = (s) => D.regions[s[1]].n;
        return [{ x: R.timeX(t), y: R.sliceY(p), name: n(p), depth: p[2], other: [n(c), n(a)] },
                { x: R.timeX(t), y: R.sliceY(c), name: n(c), depth: c[2], other: [n(p)] }];
      }
      return null;
    });
    if (!cases) fail('no slice at depth >= 2 with a child and a parent in the report');
    for (const k of cases || []) {
      await page.locator('#tl').click({ position: { x: k.x * sx, y: k.y * sx } });
      const f = await fields();
      console.log(`depth ${k.depth}: the click shows ${f.region} at depth ${f.depth} (want ${k.name}; not ${k.other})`);
      if (f.region !== k.name || f.depth !== String(k.depth))
        fail(`a click on the depth-${k.depth} sub-row shows ${f.region} (depth ${f.depth}), not ${k.name}`);
    }
  }
  if (E.msgs) {
    const st = async () => (await page.evaluate(() => document.body.getAttribute('data-tl-msgs'))).split(',');
    const png = () => page.evaluate(() => document.getElementById('tl').toDataURL());
    await page.evaluate(() => document.getElementById('tl-reset').click());
    const whole = await st();
    console.log('whole run: messages ' + whole);
    if (whole[0] !== 'pairs' || whole[1] !== '0' || !(parseInt(whole[2], 10) > 0))
      fail(`at the whole-run zoom the page draws ${whole[1]} message lines (mode ${whole[0]}), expected per-pair counts only`);
    const dur = await page.evaluate(() => window.palReport.view()[1]);
    await page.evaluate((d) => window.palReport.setView(d * 0.5, d * 0.505), dur);
    const zoom = await st(), on = await png();
    console.log('zoomed: messages ' + zoom);
    if (zoom[0] !== 'lines' || !(parseInt(zoom[1], 10) > 0)) fail(`zoomed in, no message lines (${zoom})`);
    await page.click('#tl-msgs');
    const off = await st(), offPng = await png();
    console.log('toggled: messages ' + off);
    if (off[0] !== 'off' || off[1] !== '0') fail(`the messages control did not hide them (${off})`);
    if (offPng === on) fail('hiding the messages did not change the picture');
    await page.click('#tl-msgs');
    if ((await png()) !== on) fail('showing the messages again did not restore the picture');
  }
  if (E.heat) {
    // every cell against the CSV's region rows (rank, thread, region)
    const cells = await page.evaluate(() => window.palReport.heatCells());
    const csv = {};
    for (const l of E.heat.csv.split('\n')) {
      const f = l.split(',');
      if (f[0] === 'region') csv[`${f[1]},${f[2]},${f[3]}`] = { calls: parseInt(f[5], 10), total: f[6], excl: f[7] };
    }
    const cols = new Set(cells.map((c) => c.region));
    let n = 0;
    for (const c of cells) {
      const w = csv[`${c.rank},${c.thread},${c.region}`];
      if (!w || w.calls !== c.calls || w.total !== c.total || w.excl !== c.excl) {
        if (n++ < 5) fail(`heat cell rank ${c.rank} thread ${c.thread} ${c.region}: ${c.calls} calls, ${c.total} s, ${c.excl} s; CSV ${JSON.stringify(w)}`);
      }
    }
    for (const k of Object.keys(csv)) {
      const [r, t, name] = k.split(',');
      if (cols.has(name) && !cells.find((c) => `${c.rank},${c.thread},${c.region}` === k)) fail(`CSV row ${k} has no heat cell`);
    }
    console.log(`heat map: ${cells.length} cells, ${cols.size} regions, equal to the CSV`);
    if (!cells.length) fail('an empty heat map');
    // hover and click a real cell: its values, then the timeline shows that region on that thread
    const last = cells.reduce((a, c) => (parseFloat(c.total) > parseFloat(a.total) ? c : a));
    const lane = await page.evaluate((c) => JSON.parse(document.getElementById('data').textContent).tl.rows.findIndex((r) => r.p === c.rank && r.t === c.thread), last);
    const col = await page.evaluate((c) => JSON.parse(document.getElementById('data').textContent).heat.cols.findIndex((g) => JSON.parse(document.getElementById('data').textContent).tl.regions[g].n === c.region), last);
    const xy = await page.evaluate(([l, c]) => window.palReport.heatXY(l, c), [lane, col]);
    const hb = await page.locator('#heatmap').boundingBox(), hs = hb.width / 1100;
    await page.locator('#heatmap').hover({ position: { x: xy[0] * hs, y: xy[1] * hs } });
    const shown = await page.textContent('#heat-info');
    if (shown !== last.text) fail(`hovering the cell shows "${shown}", not "${last.text}"`);
    await page.locator('#heatmap').click({ position: { x: xy[0] * hs, y: xy[1] * hs } });
    const f = await fields();
    console.log(`heat click -> timeline: ${f.region} on rank ${f.rank} thread ${f.thread}`);
    if (f.region !== last.region || f.rank !== String(last.rank) || f.thread !== String(last.thread))
      fail(`clicking the heat cell shows ${f.region} on rank ${f.rank}.${f.thread} in the timeline, not ${last.region} on ${last.rank}.${last.thread}`);
  }
  if (E.depth) {
    // search by name, next and previous
    const found = () => page.textContent('#tl-found');
    await page.fill('#tl-search', 'kern');
    await page.press('#tl-search', 'Enter');
    const a = await found(), fa = await fields();
    await page.click('#tl-next');
    const b = await found(), fb = await fields();
    await page.click('#tl-prev');
    const c = await found(), fc = await fields();
    console.log(`search "kern": ${a} (${fa.start}), next ${b} (${fb.start}), previous ${c} (${fc.start})`);
    // the legend: a collapsible group per colour family and a filter
    await page.fill('#lg-filter', 'ker');
    const lg = await page.evaluate(() => ({
      shown: Array.from(document.querySelectorAll('#tl-legend span.lg[data-n]')).filter((e) => e.style.display !== 'none').map((e) => e.textContent),
      groups: document.querySelectorAll('#tl-legend details summary').length,
      count: document.getElementById('lg-count').textContent }));
    console.log(`legend filter "ker": ${JSON.stringify(lg)}`);
    if (lg.shown.join() !== 'kernel' || lg.count !== '1 match' || lg.groups < 2) fail(`legend filter: ${JSON.stringify(lg)}`);
    const m = /^1 of (\d+)/.exec(a);
    if (!m || !(parseInt(m[1], 10) >= 2)) fail(`search found "${a}"`);
    if (fa.region !== 'kernel' || fb.region !== 'kernel' || !b.startsWith('2 of') || !c.startsWith('1 of') ||
        fc.start !== fa.start || !(parseFloat(fb.start) >= parseFloat(fa.start)))
      fail(`search next/previous: ${a} ${fa.region} ${fa.start}, ${b} ${fb.region} ${fb.start}, ${c} ${fc.start}`);
  }
  for (const w of [E.window, E.opened]) {
    if (!w) continue;
    const got = await page.evaluate((w) => {
      if (w === undefined) return null;
      if (!document.body.hasAttribute('data-opened')) document.body.setAttribute('data-opened', window.palReport.view().join(','));
      if (!w.opened) window.palReport.selectWindow(w.from, w.to);
      const o = {};
      for (const tr of document.querySelectorAll('#tl-profile-table tbody tr')) {
        const td = tr.querySelectorAll('td');
        o[td[0].textContent] = { calls: parseInt(td[2].textContent, 10), incl: parseFloat(td[3].textContent),
                                 excl: parseFloat(td[4].textContent) };
      }
      return { rows: o, note: document.querySelector('#tl-profile p').textContent, view: window.palReport.view() };
    }, Object.assign({ opened: w === E.opened }, w));
    if (w === E.opened && (Math.abs(got.view[0] - w.from) > 1e-12 || Math.abs(got.view[1] - w.to) > 1e-12))
      fail(`the report written with --from/--to opens on [${got.view}], not [${w.from}, ${w.to}]`);
    console.log(`window [${w.from}, ${w.to}]: ${got.note}`);
    for (const [name, want] of Object.entries(w.regions)) {
      const g = got.rows[name];
      if (!g) { fail(`window profile lacks ${name}`); continue; }
      if (g.calls !== want.calls) fail(`${name}: ${g.calls} calls in the window profile, pal-view --from/--to ${want.calls}`);
      if (Math.abs(g.incl - want.total) > 1e-9) fail(`${name}: ${g.incl} s in the window profile, pal-view --from/--to ${want.total}`);
      if (Math.abs(g.excl - want.excl) > 1e-9) fail(`${name}: ${g.excl} exclusive s in the window profile, pal-view --from/--to ${want.excl}`);
    }
    for (const name of Object.keys(got.rows))
      if (!(name in w.regions) && got.rows[name].calls) fail(`window profile has ${name}, pal-view --from/--to not`);
  }
  check();
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
}
process.exit(result.ok ? 0 : 1);
