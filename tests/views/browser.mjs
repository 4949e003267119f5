// browser.mjs -- what the browser tests share: headless Chromium (Debian's,
// or $CHROMIUM) started through playwright-core, offline, and a failure
// counter. Used by html-click.mjs and html-timeline.mjs.
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
