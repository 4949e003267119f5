// html-groups.mjs -- grouped rows and collective instances in the report's
// timeline (headless Chromium through playwright-core), on a run of many
// ranks (tests/views/many-ranks.awk): at load the rows are groups (blocks of
// ranks: fewer display rows than threads, every one painted); clicking a
// block's label opens it (more display rows, the new rows painted: its ranks
// and the rank group of a rank with two threads), opening that rank group
// shows its threads, clicking the label again closes the block; "expand
// all" shows every thread and every group, "collapse all" returns to the
// blocks; zoom still draws the open rows; a collective instance is drawn as
// one band and a click on it shows its operation, communicator, root,
// bytes, participants and wait spread. No JavaScript error, no network.
// Usage: node html-groups.mjs REPORT.html SCREENSHOT-PREFIX  (env: EXPECT_ROWS,
// EXPECT_COLLS: threads and collective instances of the run). Exit 0 / 1.
import { launch, openReport, fail, result } from './browser.mjs';

const [report, shot] = process.argv.slice(2);
const expectRows = parseInt(process.env.EXPECT_ROWS || '0', 10);
const expectColls = parseInt(process.env.EXPECT_COLLS || '0', 10);
const browser = await launch();
try {
  const { page, check } = await openReport(browser, report, { width: 1200, height: 1000 });
  const attr = async (n) => page.evaluate((n) => document.body.getAttribute(n), n);
  const num = async (n) => parseInt(await attr(n), 10);
  const disp = () => page.evaluate(() => window.palReport.display());
  const painted = (a, b) => page.evaluate(([a, b]) => window.palReport.paintedRows(a, b), [a, b]);
  const box = await page.locator('#tl').boundingBox();
  const sx = box.width / 1100;
  const clickLabel = async (r) => {
    const y = await page.evaluate((r) => window.palReport.dispY(r), r);
    await page.locator('#tl').click({ position: { x: 40 * sx, y: y * sx } });
  };

  const rows = await num('data-tl-rows');
  let d = await disp();
  console.log(`threads ${rows}, display rows at load ${d.length}, painted ${await num('data-tl-painted')}`);
  if (expectRows && rows !== expectRows) fail(`threads ${rows}, expected ${expectRows}`);
  if (!(d.length < rows && d.length <= 64)) fail(`${d.length} display rows at load for ${rows} threads: not grouped`);
  if (!d.every((x) => x.group && x.kind === 'block' && !x.open)) fail('the rows at load are not closed blocks');
  if (await num('data-tl-painted') !== d.length) fail(`painted ${await num('data-tl-painted')} of ${d.length} rows`);
  await page.screenshot({ path: shot + '-load.png' });

  // open the first block by a click on its label
  const n0 = d.length;
  await clickLabel(0);
  d = await disp();
  const added = d.length - n0;
  console.log(`block opened: ${n0} -> ${d.length} rows: ${d.slice(0, added + 1).map((x) => x.group || 'lane ' + x.lane).join(', ')}`);
  if (!(d[0].open && added > 0)) fail('a click on the label did not open the block');
  const p1 = await painted(1, 1 + added);
  if (p1 !== added) fail(`${p1} of the ${added} new rows painted`);
  // the rank with two threads is a group inside the block: open it
  const rg = d.findIndex((x) => x.kind === 'rank');
  if (rg < 0) fail('no rank group inside the block');
  else {
    await clickLabel(rg);
    const d2 = await disp();
    console.log(`rank group opened: ${d.length} -> ${d2.length} rows`);
    if (d2.length !== d.length + 2) fail(`opening a rank with 2 threads gave ${d2.length - d.length} rows more`);
    if (await painted(rg + 1, rg + 3) !== 2) fail('its thread rows are not painted');
    d = d2;
  }
  // zoom: the open rows are still drawn
  await page.click('#tl-in'); await page.click('#tl-in');
  const pz = await painted(0, d.length);
  console.log(`zoomed to ${await page.evaluate(() => window.palReport.view())}, painted ${pz} of ${d.length}`);
  if (pz !== d.length) fail(`after zooming ${pz} of ${d.length} rows painted`);
  await page.screenshot({ path: shot + '-open.png' });
  await page.click('#tl-reset');
  // a second click on the block's label closes it
  await clickLabel(0);
  if ((await disp()).length !== n0) fail(`closing the block left ${(await disp()).length} rows, expected ${n0}`);
  // keyboard: down to the second block, Enter opens it
  await page.locator('#tl').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  d = await disp();
  if (!(d.length > n0 && d[1].open)) fail('Enter did not open the selected block');
  await page.keyboard.press('Enter');
  // expand all, collapse all
  await page.click('#tl-expand');
  d = await disp();
  const groups = await page.evaluate(() => JSON.parse(document.getElementById('data').textContent).tl.groups.length);
  console.log(`expand all: ${d.length} rows (${rows} threads + ${groups} groups)`);
  if (d.length !== rows + groups) fail(`expand all gave ${d.length} rows, expected ${rows + groups}`);
  await page.click('#tl-collapse');
  if ((await disp()).length !== n0) fail('collapse all did not return to the blocks');

  // collective instances: drawn as bands; a click on one shows its fields
  const drawn = await num('data-tl-colls'), text = await page.textContent('#tl-colls');
  console.log(`collectives: ${drawn} drawn; ${text}`);
  if (expectColls && drawn !== expectColls) fail(`${drawn} collective instances drawn, expected ${expectColls}`);
  // what the generator wrote: bcast roots 0..5 (step % N), every instance
  // over the 100 ranks, allreduce bytes 100 x (8 sent + 8 received)
  const facts = await page.evaluate(() => {
    const R = window.palReport, T = JSON.parse(document.getElementById('data').textContent).tl;
    const of = (n) => R.colls.filter((c) => T.regions[c.region].n === n);
    return { roots: of('MPI_Bcast').map((c) => c.root).sort((a, b) => a - b).join(','),
      members: [...new Set(R.colls.map((c) => `${c.members}/${c.size} ${c.lo}-${c.hi}`))].join(' '),
      bytes: [...new Set(of('MPI_Allreduce').map((c) => c.bytes))].join(',') };
  });
  console.log(`instances: bcast roots ${facts.roots}; members ${facts.members}; allreduce bytes ${facts.bytes}`);
  if (facts.roots !== '0,1,2,3,4,5') fail(`bcast roots ${facts.roots}, expected 0,1,2,3,4,5`);
  if (facts.members !== '100/100 0-99') fail(`members ${facts.members}, expected 100/100 0-99`);
  if (facts.bytes !== '1600') fail(`allreduce bytes ${facts.bytes}, expected 1600`);
  const target = await page.evaluate(() => {
    const R = window.palReport, T = JSON.parse(document.getElementById('data').textContent).tl;
    const c = R.colls.find((c) => T.regions[c.region].n === 'MPI_Allreduce');
    if (!c) return null;
    const d = c.end - c.first;
    R.setView(c.first - d * 0.2, c.end + d * 0.2);
    const b = R.collBox(c);
    return { x: b.x + b.w / 2, y: b.y + b.h / 2, c };
  });
  if (!target) fail('no MPI_Allreduce instance kept');
  else {
    await page.locator('#tl').click({ position: { x: target.x * sx, y: target.y * sx } });
    const picked = await attr('data-tl-picked'), info = await page.textContent('#tl-info');
    console.log(`click on the instance: ${picked}: ${info.slice(0, 160)}`);
    if (picked !== 'collective') fail(`the click picked ${picked}, not the collective instance`);
    for (const k of ['MPI_Allreduce', 'communicator', 'participants', 'root', 'bytes', 'wait spread'])
      if (!info.includes(k)) fail(`the instance's fields lack ${k}`);
    if (!info.includes(`${target.c.members} of`) && !info.includes(`${target.c.members}, ranks 0\u2013`)) fail(`participants ${target.c.members} not shown`);
    await page.screenshot({ path: shot + '-coll.png' });
  }
  check();
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
}
process.exit(result.ok ? 0 : 1);
