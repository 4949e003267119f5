// html-timeline.mjs -- the report's interactive timeline in headless Chromium
// (playwright-core): the page opens without JavaScript errors or network
// requests; the timeline is drawn at load with as many non-blank rows as
// the trace has threads (EXPECT_ROWS); the wheel zooms (the visible range
// shrinks and the tick step gets finer); a click on a slice shows its fields
// (the region's name); dragging selects a window whose profile replaces the
// whole run's; reset restores the range; a table sorts on a header click;
// the animator opens on the whole run and plays.
// Usage: node html-timeline.mjs REPORT.html SCREENSHOT-PREFIX   Exit 0 / 1.
import { launch, openReport, fail, result } from './browser.mjs';

const [report, shot] = process.argv.slice(2);
const expectRows = parseInt(process.env.EXPECT_ROWS || '0', 10);
const browser = await launch();
try {
  const t0 = Date.now();
  const { page, check } = await openReport(browser, report, { width: 1200, height: 1000 });
  const paint = await page.evaluate(() => {
    const p = performance.getEntriesByType('paint').find((e) => e.name === 'first-paint');
    return p ? p.startTime : -1;
  });
  console.log(`load ${Date.now() - t0} ms, first paint ${paint.toFixed(0)} ms`);
  const attr = (n) => page.evaluate((n) => document.body.getAttribute(n), n);
  const rows = parseInt(await attr('data-tl-rows'), 10), painted = parseInt(await attr('data-tl-painted'), 10);
  console.log(`rows ${rows}, painted ${painted}`);
  if (expectRows && rows !== expectRows) fail(`timeline rows ${rows}, expected ${expectRows}`);
  if (painted !== rows || rows < 1) fail(`painted rows ${painted} of ${rows}`);
  const cursor = parseFloat(await attr('data-cursor'));
  const dur = await page.evaluate(() => window.palReport.view()[1]);
  if (!(Math.abs(cursor - dur) <= dur * 1e-9 + 1e-12)) fail(`the animator opens at ${cursor}, not on the whole run ${dur}`);
  await page.screenshot({ path: shot + '-load.png', fullPage: true });

  // zoom with the wheel in the middle of the timeline
  let box = await page.locator('#tl').boundingBox();
  const geo = await page.evaluate(() => ({ LM: window.palReport.LM, W: window.palReport.W, y: window.palReport.rowY(0) }));
  const sx = box.width / 1100;
  const step0 = parseFloat(await attr('data-tl-step'));
  await page.mouse.move(box.x + (geo.LM + geo.W / 2) * sx, box.y + geo.y * sx);
  for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -120);
  await page.waitForTimeout(100);
  const v = await page.evaluate(() => window.palReport.view());
  const step1 = parseFloat(await attr('data-tl-step'));
  console.log(`zoom: [0, ${dur}] -> [${v[0]}, ${v[1]}], tick step ${step0} -> ${step1}`);
  if (!(v[1] - v[0] < dur * 0.5)) fail('the wheel did not zoom in');
  if (!(step1 < step0)) fail('the ticks did not get finer');
  await page.screenshot({ path: shot + '-zoom.png' });
  await page.click('#tl-reset');

  // click the middle of the longest slice of row 0
  const target = await page.evaluate(() => {
    const R = window.palReport;
    let best = null;
    for (const s of R.slices) if (s[0] === 0 && (!best || s[4] - s[3] > best[4] - best[3] || (s[4] - s[3] === best[4] - best[3] && s[2] > best[2]))) best = s;
    if (!best) return null;
    // show it (a short slice of a long run: zoom to it), then the innermost
    // slice at its middle is what the click shows
    const d = best[4] - best[3];
    R.setView(best[3] - d * 0.1, best[4] + d * 0.1);
    const t = (best[3] + best[4]) / 2;
    let inner = best;
    for (const s of R.slices) if (s[0] === 0 && s[3] <= t && t <= s[4] && s[2] >= inner[2]) inner = s;
    const names = JSON.parse(document.getElementById('data').textContent).tl.regions;
    // an open call stack has a sub-row per depth: click the inner slice's
    return { x: R.timeX(t), y: R.sliceY ? R.sliceY(inner) : R.rowY(0), name: names[inner[1]].n };
  });
  if (!target) fail('no slice in row 0');
  else {
    console.log(`click at ${target.x.toFixed(0)},${target.y.toFixed(0)} on ${target.name}`);
    await page.locator('#tl').click({ position: { x: target.x * sx, y: target.y * sx } });
    const picked = await attr('data-tl-picked'), text = await page.textContent('#tl-info');
    console.log(`click: ${picked}: ${text.slice(0, 80)}`);
    if (picked !== 'slice' && picked !== 'marker') fail(`click picked ${picked}`);
    if (picked === 'slice' && !text.includes(target.name)) fail(`fields lack the region name ${target.name}`);
    if (picked === 'slice' && !/duration/.test(text)) fail('fields lack the duration');
  }

  // drag-select the second quarter: zooms to it and shows its profile
  await page.click('#tl-reset');
  const p0 = await attr('data-tl-profile');
  await page.locator('#tl').scrollIntoViewIfNeeded();
  box = await page.locator('#tl').boundingBox();
  const xa = box.x + (geo.LM + geo.W * 0.25) * sx, xb = box.x + (geo.LM + geo.W * 0.5) * sx, yy = box.y + geo.y * sx;
  await page.mouse.move(xa, yy); await page.mouse.down();
  await page.mouse.move((xa + xb) / 2, yy); await page.mouse.move(xb, yy); await page.mouse.up();
  const p1 = await attr('data-tl-profile');
  const w = await page.evaluate(() => window.palReport.view());
  console.log(`window profile ${p0} -> ${p1}`);
  if (p1 === p0) fail('the window profile did not change');
  if (!(Math.abs((w[1] - w[0]) - dur / 4) < dur * 0.02)) fail(`drag zoomed to [${w}], expected a quarter`);
  await page.screenshot({ path: shot + '-window.png' });
  await page.click('#tl-reset');
  const w2 = await page.evaluate(() => window.palReport.view());
  if (w2[0] !== 0 || Math.abs(w2[1] - dur) > dur * 1e-9) fail('reset did not restore the range');

  // sortable profile table
  const first = () => page.evaluate(() => document.querySelector('#profile-table tbody tr td').textContent);
  const before = await first();
  await page.click('#profile-table th:nth-child(4)');
  const a1 = await first();
  await page.click('#profile-table th:nth-child(4)');
  const a2 = await first();
  const nrows = await page.evaluate(() => document.querySelectorAll('#profile-table tbody tr').length);
  if (nrows > 1 && a1 === a2) fail(`sorting by total both ways gave the same first row (${a1}, was ${before})`);

  // the animator plays from the start
  await page.click('#play');
  await page.waitForTimeout(600);
  await page.click('#pause');
  const c1 = parseFloat(await attr('data-cursor'));
  if (!(c1 > 0 && c1 < dur)) fail(`animator cursor ${c1} after play`);
  check();
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
}
process.exit(result.ok ? 0 : 1);
