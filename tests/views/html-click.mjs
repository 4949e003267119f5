// html-click.mjs -- drive the pal-view HTML report in headless Chromium with
// playwright-core: load it from a local file, click play, wait, click pause,
// and check that the time cursor moved and the animated views changed; then
// step and replay. Usage: node html-click.mjs REPORT.html SCREENSHOT.png
// Exit 0 pass, 1 fail.
import { launch, fail, result } from './browser.mjs';

const [report, shot] = process.argv.slice(2);
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await page.goto('file://' + report);
  await page.waitForFunction(() => document.body.getAttribute('data-tl-ready') === 'yes', null, { timeout: 30000 });
  const cursor = () => page.evaluate(() => parseFloat(document.body.getAttribute('data-cursor')));
  const pixels = () => page.evaluate(() => [document.getElementById('util').toDataURL(),
                                          document.getElementById('stl').toDataURL()]);
  const t0 = await cursor();
  const dur = await page.evaluate(() => window.palReport.view()[1]);
  if (!(Math.abs(t0 - dur) <= dur * 1e-9)) fail(`the animator opens at ${t0}, not on the whole run`);
  const p0 = await pixels();
  await page.fill('#speed', '1');
  await page.dispatchEvent('#speed', 'input');
  await page.click('#play');
  await page.waitForTimeout(600);
  await page.click('#pause');
  const t1 = await cursor();
  const p1 = await pixels();
  console.log(`cursor ${t0} -> ${t1}`);
  if (!(t1 > 0 && t1 < t0)) fail('play did not restart the run and move the cursor');
  if (p1[0] === p0[0]) fail('the utilization view did not change');
  if (p1[1] === p0[1]) fail('the space-time view did not change');
  await page.waitForTimeout(300);
  if ((await cursor()) !== t1) fail('the cursor moved while paused');
  await page.click('#replay');
  await page.waitForTimeout(50);
  await page.click('#pause');
  const t2 = await cursor();
  if (!(t2 < t1)) fail(`replay did not restart (${t2} >= ${t1})`);
  await page.click('#step');
  if (!((await cursor()) > t2)) fail('step did not advance');
  if (requests.length) fail('network requests: ' + requests.join(' '));
  await page.screenshot({ path: shot, fullPage: false });
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
}
process.exit(result.ok ? 0 : 1);
