// Large traffic: a million-line file is read and run in slices with a progress bar while the
// page keeps answering (too long to keep, it names no link), and a trace too long for a link is
// kept in the browser's IndexedDB, comes back on reload, and is named as missing where it is not
// kept (e2e/stored.test.mjs has the 200,000-line case and a browser without IndexedDB).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, watchProgress, progressSeen, SCREENSHOT_DIR, openImport } from './helpers.mjs';

const shared = useBrowser();

async function figures(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  return { passed: Number(await row.getAttribute('data-allowed')), rejected: Number(await row.getAttribute('data-rejected')) };
}

test('a million-line file is read and run with a progress bar, and the page keeps answering', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'limit=100&window=1');
  // First, as opening the panel may load the rest of the lab (a reload).
  await openImport(page);
  // One request a millisecond for 1,000 s: ten times the limit of 100 a second.
  const lines = new Array(1_000_000);
  for (let i = 0; i < lines.length; i++) lines[i] = (i / 1000).toFixed(3);
  const buffer = Buffer.from(lines.join('\n'));
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.longTasks.push(Math.round(e.duration)))).observe({ type: 'longtask' });
  });
  await watchProgress(page);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'million.txt', mimeType: 'text/plain', buffer });
  await page.waitForSelector('[data-testid="progress"]', { timeout: 15000 });
  // While the bar is up, the page answers: a round trip through its main thread stays short.
  const trips = [];
  while (await page.locator('[data-testid="progress"]').count()) {
    const started = Date.now();
    await page.evaluate(() => document.querySelector('[data-testid="progress"]')?.textContent);
    trips.push(Date.now() - started);
  }
  const seen = await progressSeen(page);
  assert.ok(seen.some((s) => s.startsWith('Reading your traffic')), 'the bar shows the file being read');
  assert.ok(seen.some((s) => s.startsWith('Running the limiters')), 'then the limiters running');
  const values = seen.filter((s) => s.startsWith('Running')).map((s) => Number(s.split(':').pop()));
  assert.ok(values.length >= 3 && values.some((v) => v > 0 && v < 1000), `the bar moves (${values.join(', ')})`);
  assert.ok(trips.length >= 3, `the page answered ${trips.length} times while working`);
  trips.sort((a, b) => a - b);
  const median = trips[Math.floor(trips.length / 2)];
  assert.ok(median < 100, `median round trip ${median} ms while working (${trips.join(', ')})`);
  await page.waitForSelector('[data-testid="import-ok"]');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 1000000 requests .* Too many to keep: they last until the page is closed/);
  assert.match(await page.locator('[data-testid="notices"]').innerText(), /Your 1000000 requests make a link longer than 2000 characters, and more than the page keeps in this browser \(200000\)/);
  const fixed = await figures(page, 'fixed');
  assert.equal(fixed.passed + fixed.rejected, 1_000_000);
  // 100 per clock-aligned second, 1,000 seconds.
  assert.equal(fixed.passed, 100_000);
  // No link can open this trace again: the address bar keeps the view before it.
  assert.match(page.url(), /\?limit=100&window=1$/);
  const longTasks = await page.evaluate(() => window.longTasks);
  console.log(`long tasks during the import (ms): ${longTasks.join(', ')}`);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'million.png') });
  await page.close();
});

test('a large keyed file runs through the Durable Object a slice at a time, and every request reaches it', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'limit=100&window=1&do=1');
  await openImport(page);
  // 150,000 requests over 100 keys, one every 2 ms: each key sends 5 a second.
  const lines = ['time,key'];
  for (let i = 0; i < 150_000; i++) lines.push(`${(i / 500).toFixed(3)},tenant:${i % 100}`);
  await watchProgress(page);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'keyed.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await page.waitForSelector('[data-testid="import-ok"]', { timeout: 60000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="progress"]') && document.querySelector('[data-testid="lede"]').innerText.includes('same 150000 requests'), null, { timeout: 60000 });
  const seen = [...new Set((await progressSeen(page)).map((s) => s.split(':')[0]))];
  assert.ok(seen.some((s) => s.startsWith('Emulating the Durable Object')), `the bar shows the emulation (${seen.join(', ')})`);
  // Every key stays under its limit, so every request is let through, by the limiters and by the object.
  const durable = await figures(page, 'do');
  assert.equal(durable.passed + durable.rejected, 150_000);
  const fixed = await figures(page, 'fixed');
  assert.equal(fixed.passed, 150_000);
  await page.close();
});

test('a trace too long for a link is kept in IndexedDB, survives a reload, and is named as missing elsewhere', async () => {
  const { page, context } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=1');
  const csv = Array.from({ length: 20_000 }, (_, i) => `${(i / 100).toFixed(2)},tenant:${i % 3}`).join('\n');
  await openImport(page);
  assert.match(await page.locator('[data-testid="import-limits"]').innerText(), /Your requests go into the link while it stays within 2,000 characters/);
  // As a paste does: the whole text at once (Playwright's fill types it through the editor).
  await page.locator('[data-testid="import-text"]').evaluate((area, text) => {
    area.value = text;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, csv);
  await page.click('[data-testid="import-use"]');
  await page.waitForSelector('[data-testid="import-ok"]');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /asks this browser to keep them/);
  await page.waitForURL(/trace=stored:[0-9a-f]{16}$/);
  const link = page.url();
  const before = await figures(page, 'sliding-log');
  assert.equal(before.passed + before.rejected, 20_000);
  await page.reload();
  await page.waitForSelector('body[data-complete="true"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="stats-sliding-log"]')?.getAttribute('data-rejected') !== null
    && Number(document.querySelector('[data-testid="stats-sliding-log"]').getAttribute('data-allowed')) + Number(document.querySelector('[data-testid="stats-sliding-log"]').getAttribute('data-rejected')) === 20000);
  assert.deepEqual(await figures(page, 'sliding-log'), before);
  assert.equal(page.url(), link);
  // Another browser (a fresh context has no storage): the link cannot bring the trace.
  const other = await shared.browser.newContext();
  const elsewhere = await other.newPage();
  await elsewhere.goto(link);
  await elsewhere.waitForSelector('[data-testid="notices"]', { timeout: 15000 });
  assert.match(await elsewhere.locator('[data-testid="notices"]').innerText(), /kept in this browser \(trace=stored:[0-9a-f]{16}\), and it is not here/);
  // A link written before the ids (`trace=stored` alone) is named the same way.
  await gotoLab(elsewhere, 'trace=stored&limit=3&window=1');
  assert.match(await elsewhere.locator('[data-testid="notices"]').innerText(), /kept in this browser \(trace=stored\), and it is not here/);
  assert.doesNotMatch(elsewhere.url(), /trace=stored/);
  await other.close();
  await context.close();
});
