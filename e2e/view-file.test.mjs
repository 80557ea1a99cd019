// View files: "Download this view" writes the view's query and its trace as one file, and "Open a
// view file" in another browser (a fresh context: no IndexedDB of the first) opens the same view
// as one history entry: the same figures, the same query fields, keys of any characters intact.
// A view file dropped anywhere on the page opens the same way; any other file dropped there goes
// to "Use your own traffic".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, openPage, gotoLab, openImport } from './helpers.mjs';

const shared = useBrowser();
const ROWS = ['fixed', 'token-bucket', 'gcra'];

/** Waits until the fixed window's row has decided `count` requests and no work is under way. */
async function waitForRequests(page, count) {
  await page.waitForFunction((n) => {
    const row = document.querySelector('[data-testid="stats-fixed"]');
    return row && Number(row.getAttribute('data-allowed')) + Number(row.getAttribute('data-rejected')) === n
      && !document.querySelector('[data-testid="progress"]');
  }, count, { timeout: 60000 });
}

/** Each row's let-through and refused counts. */
async function figures(page) {
  const out = {};
  for (const slug of ROWS) {
    const row = page.locator(`[data-testid="stats-${slug}"]`);
    out[slug] = [await row.getAttribute('data-allowed'), await row.getAttribute('data-rejected')];
  }
  return out;
}

/** The query fields a view file carries, from the address bar. */
function fields(url) {
  const params = new URL(url).searchParams;
  return { limit: params.get('limit'), window: params.get('window'), algos: params.get('algos') };
}

/**
 * Opens the view-file section. The first view's module has none: opening "Use your own traffic"
 * there brings the complete module in place, where the section follows the import panel.
 */
async function openViewFile(page) {
  if (!(await page.locator('[data-testid="view-file-panel"]').count())) await openImport(page);
  const panel = page.locator('[data-testid="view-file-panel"]');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  await page.locator('[data-testid="view-file-panel"][open] [data-testid="download-view"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
}

test('a 5,000-line trace with comma keys downloaded as a view file opens the same view in another browser', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=1&algos=fixed,token-bucket,gcra');
  await openImport(page);
  const keys = ['acme, inc', 'say "hi"', '50% & co', 'a+b=c;#d', '🦀 Zürich', '=cmd()', "'quoted"];
  const lines = ['time,key,region,route,cost'];
  for (let i = 0; i < 5_000; i++) {
    const key = `"${keys[i % keys.length].replaceAll('"', '""')} ${i % 5}"`;
    lines.push(`${(i * 0.250001).toFixed(6)},${key},${i % 3 === 0 ? 'syd' : ''},,${1 + (i % 2)}`);
  }
  await page.setInputFiles('[data-testid="import-file"]', { name: 'comma-keys.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await page.waitForURL(/trace=stored:[0-9a-f]{16}/, { timeout: 30000 });
  await waitForRequests(page, 5_000);
  const before = await figures(page);
  const query = fields(page.url());
  assert.deepEqual(query, { limit: '3', window: '1', algos: 'fixed,token-bucket,gcra' });

  await openViewFile(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-view"]')]);
  assert.equal(download.suggestedFilename(), 'ratelab-view.csv');
  const bytes = readFileSync(await download.path());
  const text = bytes.toString('utf8');
  const [first, header, row0] = text.split('\n');
  assert.match(first, /^# ratelab view: limit=3&window=1&algos=fixed,token-bucket,gcra/);
  assert.doesNotMatch(first, /trace=|pattern=|compose=/);
  assert.equal(header, 'time,key,region,route,cost');
  assert.equal(row0, '0,"acme, inc 0",syd,,1');
  assert.equal(text.trimEnd().split('\n').length, 5_002);
  assert.match(await page.locator('[data-testid="view-file-ok"]').innerText(), /5000 requests/);
  assert.deepEqual(problems, []);
  await context.close();

  // Another browser: nothing kept there; the file brings the whole view.
  const other = await openPage(shared.browser);
  await gotoLab(other.page, '');
  const defaultView = other.page.url();
  await openViewFile(other.page);
  const opened = other.page.url();
  await other.page.setInputFiles('[data-testid="open-view-file"]', { name: 'ratelab-view.csv', mimeType: 'text/csv', buffer: bytes });
  await other.page.waitForURL(/trace=stored:[0-9a-f]{16}/, { timeout: 30000 });
  await waitForRequests(other.page, 5_000);
  assert.deepEqual(await figures(other.page), before);
  assert.deepEqual(fields(other.page.url()), query);
  await other.page.waitForFunction(() => /are kept in/.test(document.querySelector('[data-testid="trace-kept"]')?.textContent ?? ''), null, { timeout: 30000 });
  assert.match(await other.page.locator('[data-testid="view-file-ok"]').innerText(), /Opened the view file: its settings and its 5000 requests/);
  const offered = await other.page.locator('[data-testid="send-key"] option').allTextContents();
  for (const key of ['acme, inc 0', 'say "hi" 1', '50% & co 2', 'a+b=c;#d 3', '🦀 Zürich 4', '=cmd() 0', "'quoted 1"]) {
    assert.ok(offered.includes(key), `${key} in ${offered.join(' | ')}`);
  }

  // One history entry: Back returns to the view before.
  await other.page.goBack();
  await other.page.waitForURL((url) => !url.href.includes('trace='), { timeout: 15000 });
  assert.ok(other.page.url() === opened || other.page.url() === defaultView, other.page.url());
  await waitForRequests(other.page, 10);
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

/** Drops a file named `name` holding `text` on the timelines: the drop is the page's, wherever it lands. */
async function dropFile(page, name, text) {
  const transfer = await page.evaluateHandle(([n, t]) => {
    const data = new DataTransfer();
    data.items.add(new File([t], n, { type: 'text/csv' }));
    return data;
  }, [name, text]);
  await page.dispatchEvent('[data-testid="timeline-canvas"]', 'drop', { dataTransfer: transfer });
}

test('a view file dropped on the page opens its view; a file of traffic dropped there is read as traffic', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=2&window=10');
  await openImport(page);
  await page.waitForSelector('[data-testid="view-file-panel"]');
  const drop = (name, text) => dropFile(page, name, text);
  await drop('view.csv', '# ratelab view: limit=1&window=5&algos=fixed,gcra\ntime,key,region,route,cost\n0,"acme, inc",,,1\n1,"acme, inc",,,1\n2,🦀,,,1\n');
  await page.waitForURL(/limit=1&window=5&trace=/, { timeout: 15000 });
  await waitForRequests(page, 3);
  const fixed = page.locator('[data-testid="stats-fixed"]');
  assert.deepEqual([await fixed.getAttribute('data-allowed'), await fixed.getAttribute('data-rejected')], ['2', '1']);
  await drop('plain.csv', '0,a\n1,b\n');
  // Traffic goes to "Use your own traffic", which reads it as if it had been chosen there.
  await waitForRequests(page, 2);
  await page.waitForSelector('[data-testid="import-ok"]');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 2 requests/);
  assert.equal(fields(page.url()).limit, '1', 'the view keeps its settings');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a file dropped on a page of the first or the Durable Object module is not lost: the complete module comes in place and takes it', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  const drop = (name, text) => dropFile(page, name, text);
  // The default page runs the first view's module, which reads no files.
  await gotoLab(page, 'limit=2&window=10');
  assert.equal(await page.locator('[data-testid="view-file-panel"]').count(), 0, 'the first module has no view files');
  // The complete module comes in place of the first, without a reload: the window keeps a mark.
  await page.evaluate(() => { window.ratelabTestMark = 'kept'; });
  await drop('view.csv', '# ratelab view: limit=1&window=5&algos=fixed,gcra\ntime,key,region,route,cost\n0,"acme, inc",,,1\n1,"acme, inc",,,1\n2,🦀,,,1\n');
  await page.waitForURL(/limit=1&window=5&trace=/, { timeout: 30000 });
  await waitForRequests(page, 3);
  assert.ok(await page.locator('[data-testid="view-file-panel"]').count(), 'the complete module took the file');
  assert.equal(await page.evaluate(() => window.ratelabTestMark), 'kept', 'no reload');
  assert.equal(await page.locator('[data-testid="stats-fixed"]').count(), 1, 'one page: the first module is gone');
  const fixed = page.locator('[data-testid="stats-fixed"]');
  assert.deepEqual([await fixed.getAttribute('data-allowed'), await fixed.getAttribute('data-rejected')], ['2', '1']);
  // The Durable Object's module: a file of traffic goes to "Use your own traffic" there.
  await gotoLab(page, 'do=1&shards=1');
  assert.equal(await page.locator('[data-testid="view-file-panel"]').count(), 0, 'the Durable Object module has no view files');
  await drop('plain.csv', '0,a\n1,b\n4,a\n');
  await page.waitForSelector('[data-testid="import-ok"]', { timeout: 30000 });
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 3 requests/);
  await waitForRequests(page, 3);
  assert.match(page.url(), /do=1/, 'the view keeps its settings');
  // Once taken, the file is gone: a reload does not take it again.
  await page.reload();
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal(await page.evaluate(() => window.ratelabDropped), undefined);
  assert.deepEqual(problems, []);
  await context.close();
});
