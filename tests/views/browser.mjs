// browser.mjs -- what the browser tests share: headless Chromium (Debian's,
// or $CHROMIUM) started through playwright-core, offline, and a failure
// counter, and a report page opened with its errors and requests watched.
// Used by html-click.mjs, html-timeline.mjs and html-groups.mjs.
import { chromium } from 'playwright-core';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
}

export const result = { ok: true };
export function fail(m) { console.log('FAIL: ' + m); result.ok = false; }

// A page of the report, loaded and drawn (<body data-tl-ready>), with the
// JavaScript errors and the network requests it made collected; check()
// fails the test on any of them.
export async function openReport(browser, report, viewport) {
  const page = await browser.newPage({ viewport });
  const errors = [], requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) requests.push(r.url()); });
  await page.goto('file://' + report);
  await page.waitForFunction(() => document.body.getAttribute('data-tl-ready') === 'yes', null, { timeout: 30000 });
  const check = () => {
    if (errors.length) fail('JavaScript errors: ' + errors.join(' | '));
    if (requests.length) fail('network requests: ' + requests.join(' '));
  };
  return { page, check };
}
