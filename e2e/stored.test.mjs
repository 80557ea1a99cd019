// Traces too long for a link: a 200,000-line upload (with keys, more text than `localStorage`
// holds) is kept in the browser's IndexedDB under an id made from it, the page says where and how
// much, and the link `trace=stored:<id>` opens the same requests again after a reload, with a
// loading state first. A link whose trace is not here says so and shows a working default view;
// where IndexedDB is missing, the page says the trace is not kept and the address bar never names
// a kept trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, openImport, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** Requests a row decided, from the data attributes of its line in the table of figures. */
async function decided(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  return Number(await row.getAttribute('data-allowed')) + Number(await row.getAttribute('data-rejected'));
}

async function figures(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  return { allowed: await row.getAttribute('data-allowed'), rejected: await row.getAttribute('data-rejected') };
}

/** Waits until the fixed window's row has decided `count` requests. */
async function waitForRequests(page, count) {
  await page.waitForFunction((n) => {
    const row = document.querySelector('[data-testid="stats-fixed"]');
    return row && Number(row.getAttribute('data-allowed')) + Number(row.getAttribute('data-rejected')) === n
      && !document.querySelector('[data-testid="progress"]');
  }, count, { timeout: 60000 });
}

/** The lab's module files this page loaded: `first`, `complete` or both. */
async function modulesLoaded(page) {
  const names = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  return ['first', 'complete'].filter((kind) => names.some((n) => n.includes(`/ratelab-${kind}-`) && n.endsWith('_bg.wasm')));
}

/** The text this browser's IndexedDB keeps under `id`, read as any script of the site could. */
async function keptText(page, id) {
  return page.evaluate((key) => new Promise((resolve, reject) => {
    const open = indexedDB.open('ratelab');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const get = open.result.transaction('traces').objectStore('traces').get(key);
      get.onsuccess = () => { resolve(get.result ?? null); open.result.close(); };
      get.onerror = () => reject(get.error);
    };
  }), id);
}

/** Pastes `text` into the import box and uses it, as a paste does (the whole text at once). */
async function paste(page, text) {
  await page.locator('[data-testid="import-text"]').evaluate((area, t) => {
    area.value = t;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.click('[data-testid="import-use"]');
}

test('a 200,000-line upload is kept in IndexedDB, the page says where, and its link opens it again after a reload', async () => {
  const { page, context } = await openPage(shared.browser);
  await gotoLab(page, 'limit=100&window=1');
  await openImport(page);
  // 200,000 requests, one every 10 ms over 1,000 keys: about five million characters as a trace
  // list, past what `localStorage` holds for a site.
  const lines = ['time,key'];
  for (let i = 0; i < 200_000; i++) lines.push(`${(i / 100).toFixed(2)},customer-account-${i % 1000}`);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'large.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await page.waitForSelector('[data-testid="import-ok"]', { timeout: 60000 });
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /^Read 200000 requests \(CSV [^)]*\)\)\. Too many for a link: the page asks this browser to keep them/);
  await page.waitForFunction(() => /are kept in/.test(document.querySelector('[data-testid="trace-kept"]')?.textContent ?? ''), null, { timeout: 60000 });
  const said = await page.locator('[data-testid="trace-kept"]').innerText();
  const found = said.match(/^Your 200000 requests are kept in this browser's IndexedDB \(database "ratelab", store "traces", id ([0-9a-f]{16}): (\d+) bytes of text\)\. The link, trace=stored:\1, opens them again in this browser only/);
  assert.ok(found, said);
  const [, id, bytes] = found;
  assert.ok(Number(bytes) > 5_000_000, `${bytes} bytes: more than localStorage holds`);
  // What the sentence says is what the browser keeps.
  const kept = await keptText(page, id);
  assert.equal(kept?.length, Number(bytes));
  assert.ok(kept.startsWith('0@customer-account-0,0.01@customer-account-1,'), kept.slice(0, 60));
  await page.waitForURL(new RegExp(`\\?limit=100&window=1&trace=stored:${id}$`));
  await waitForRequests(page, 200_000);
  const before = { fixed: await figures(page, 'fixed'), log: await figures(page, 'sliding-log') };
  assert.equal(await decided(page, 'sliding-log'), 200_000);
  assert.deepEqual(await page.locator('[data-testid="notices"]').count(), 0, 'no warning');
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'stored-kept.png') });

  // Reloading the link: a loading state, then the same requests, from the complete module.
  await page.addInitScript(() => {
    window.progressSeen = [];
    new MutationObserver(() => {
      const bar = document.querySelector('[data-testid="progress"]');
      if (bar) window.progressSeen.push(bar.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await waitForRequests(page, 200_000);
  assert.deepEqual(await modulesLoaded(page), ['complete']);
  const seen = await page.evaluate(() => window.progressSeen);
  assert.ok(seen.some((s) => s.startsWith("Opening your trace from this browser's IndexedDB")), `loading state shown (${[...new Set(seen)].join(', ')})`);
  assert.deepEqual({ fixed: await figures(page, 'fixed'), log: await figures(page, 'sliding-log') }, before);
  assert.match(page.url(), new RegExp(`\\?limit=100&window=1&trace=stored:${id}$`));
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /The same 200000 requests/);
  assert.match(await page.locator('[data-testid="trace-kept"]').innerText(),
    new RegExp(`^Opened from this browser's IndexedDB \\(database "ratelab", store "traces", id ${id}\\): 200000 requests, ${bytes} bytes of text\\. The link opens them again in this browser only\\.`));
  assert.equal(await page.locator('[data-testid="notices"]').count(), 0);
  // A setting changed on the reopened trace keeps naming it.
  await page.locator('[data-testid="limit-number"]').fill('50');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForURL(new RegExp(`\\?limit=50&window=1&trace=stored:${id}$`));
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'stored-reopened.png') });
  await context.close();
});

test('a link naming a trace this browser does not keep says so and shows a working default view', async () => {
  const { page, context } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=1');
  const defaults = { count: await decided(page, 'fixed'), fixed: await figures(page, 'fixed') };
  await gotoLab(page, 'trace=stored:0123456789abcdef&limit=3&window=1');
  await page.waitForSelector('[data-testid="notices"]');
  assert.match(await page.locator('[data-testid="notices"]').innerText(),
    /The link points at a trace kept in this browser \(trace=stored:0123456789abcdef\), and it is not here \(another browser, or this one's site data was cleared\); showing the default traffic\./);
  // The address bar keeps the rest of the view, and names no trace.
  await page.waitForURL(/\?limit=3&window=1$/);
  assert.equal(await page.locator('[data-testid="progress"]').count(), 0, 'no loading state left');
  assert.equal(await page.locator('[data-testid="trace-kept"]').count(), 0);
  assert.deepEqual({ count: await decided(page, 'fixed'), fixed: await figures(page, 'fixed') }, defaults);
  assert.match(await page.locator('[data-testid="lede"]').innerText(), new RegExp(`The same ${defaults.count} requests`));
  // The view works: a setting changes it and the link.
  await page.locator('[data-testid="limit-number"]').fill('4');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForURL(/\?limit=4&window=1$/);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'stored-missing.png') });
  // A link whose id is not one the page writes is named as a bad field, with the default traffic.
  await gotoLab(page, 'trace=stored:xyz&limit=3&window=1');
  // (The address is the person's own, as for any bad field: the page rewrites it at the next change.)
  assert.match(await page.locator('[data-testid="notices"]').innerText(), /trace="stored:xyz": after stored: comes the 16-character id/);
  assert.deepEqual({ count: await decided(page, 'fixed'), fixed: await figures(page, 'fixed') }, defaults);
  await context.close();
});

test('an IndexedDB that never answers is given up on after 10 s: the page says so and shows a working default view', async () => {
  const { page, context } = await openPage(shared.browser);
  // A database held elsewhere, or a browser that never answers: the request's handlers never fire.
  await context.addInitScript(() => {
    window.indexedDB.open = () => ({});
  });
  await gotoLab(page, 'limit=3&window=1');
  const defaults = await figures(page, 'fixed');
  const started = Date.now();
  await gotoLab(page, 'trace=stored:0123456789abcdef&limit=3&window=1');
  await page.waitForSelector('[data-testid="notices"]', { timeout: 30000 });
  assert.ok(Date.now() - started >= 9000, 'not before the time it waits');
  assert.match(await page.locator('[data-testid="notices"]').innerText(),
    /The link points at a trace kept in this browser \(trace=stored:0123456789abcdef\), and this browser would not give it back \(the browser's IndexedDB gave no answer within 10 s\); showing the default traffic\./);
  await page.waitForURL(/\?limit=3&window=1$/);
  assert.equal(await page.locator('[data-testid="progress"]').count(), 0, 'no loading state left');
  assert.deepEqual(await figures(page, 'fixed'), defaults);
  await context.close();
});

test('without IndexedDB a long trace is not kept, the page says so, and the address bar names no kept trace', async () => {
  const { page, context } = await openPage(shared.browser);
  await context.addInitScript(() => {
    delete window.indexedDB;
  });
  await gotoLab(page, 'limit=3&window=1');
  assert.equal(await page.evaluate(() => window.indexedDB), undefined);
  await openImport(page);
  const url = page.url();
  assert.match(url, /\?limit=3&window=1$/);
  const csv = Array.from({ length: 20_000 }, (_, i) => `${(i / 100).toFixed(2)},tenant:${i % 3}`).join('\n');
  await paste(page, csv);
  await page.waitForSelector('[data-testid="notices"]', { timeout: 30000 });
  assert.match(await page.locator('[data-testid="notices"]').innerText(),
    /Your 20000 requests make a link longer than 2000 characters, and this browser would not keep them \(this browser offers the page no IndexedDB here\): the trace lasts until the page is closed, and the address bar keeps the last view a link can open again\./);
  await waitForRequests(page, 20_000);
  assert.equal(await page.locator('[data-testid="trace-kept"]').count(), 0);
  assert.equal(page.url(), url, 'the address bar keeps the view before the import');
  // Nor does the share box offer a link to other traffic.
  assert.equal(await page.locator('[data-testid="share-link"]').inputValue(), '');
  assert.match(await page.locator('[data-testid="share-link"]').getAttribute('placeholder'), /No link opens this trace/);
  // A change made on the trace on screen does not put a link in the address bar either.
  await page.locator('[data-testid="limit-number"]').fill('4');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="lede"]').innerText.includes('at most 4 requests'));
  assert.equal(page.url(), url);
  assert.doesNotMatch(page.url(), /trace=/);
  // A trace short enough for a link goes in it, as always.
  await paste(page, '0\n0.5\n1');
  await page.waitForURL(/trace=0,0\.5,1/);
  assert.doesNotMatch(page.url(), /stored/);
  await context.close();
});

test('a link written before the ids opens the trace an earlier page kept in localStorage, then keeps it in IndexedDB', async () => {
  const { page, context } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=1');
  const list = Array.from({ length: 10_001 }, (_, i) => `${(i / 100).toFixed(2)}@tenant:${i % 3}`).join(',');
  await page.evaluate((text) => localStorage.setItem('ratelab-trace', text), list);
  await gotoLab(page, 'limit=3&window=1&trace=stored');
  await page.waitForURL(/\?limit=3&window=1&trace=stored:[0-9a-f]{16}$/, { timeout: 30000 });
  await waitForRequests(page, 10_001);
  const id = page.url().split('stored:')[1];
  // Kept as the page writes a trace list (`0` for `0.00`), the same requests.
  const kept = await keptText(page, id);
  assert.equal(kept.split(',').length, 10_001);
  assert.ok(kept.startsWith('0@tenant:0,0.01@tenant:1,0.02@tenant:2,'), kept.slice(0, 50));
  assert.equal(await page.evaluate(() => localStorage.getItem('ratelab-trace')), null, 'moved, not copied');
  assert.match(await page.locator('[data-testid="trace-kept"]').innerText(), new RegExp(`^Your 10001 requests are kept in this browser's IndexedDB .*id ${id}`));
  await context.close();
});

test('Back to a kept trace after a preset reads it back, and Forward shows the preset again', async () => {
  const { page, context } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=1');
  await openImport(page);
  await paste(page, Array.from({ length: 20_000 }, (_, i) => `${(i / 100).toFixed(2)},tenant:${i % 3}`).join('\n'));
  await page.waitForURL(/\?limit=3&window=1&trace=stored:[0-9a-f]{16}$/, { timeout: 30000 });
  const link = page.url();
  await waitForRequests(page, 20_000);
  const before = await figures(page, 'sliding-log');
  assert.equal(await page.locator('[data-testid="share-link"]').inputValue(), link);
  await page.selectOption('[data-testid="pattern-select"]', 'steady');
  await page.waitForURL(/\?limit=3&window=1&pattern=steady$/);
  assert.equal(await page.locator('[data-testid="trace-kept"]').count(), 0, 'the line goes with the trace');
  await page.goBack();
  await page.waitForURL(link);
  await waitForRequests(page, 20_000);
  assert.deepEqual(await figures(page, 'sliding-log'), before);
  assert.match(await page.locator('[data-testid="trace-kept"]').innerText(), /^Opened from this browser's IndexedDB/);
  await page.goForward();
  await page.waitForURL(/pattern=steady$/);
  await page.waitForFunction(() => !document.querySelector('[data-testid="lede"]').innerText.includes('20000'));
  await context.close();
});

test('a link longer than the page writes, by its characters, opens in the complete module, which keeps its trace and names it', async () => {
  const { page, context } = await openPage(shared.browser);
  // 400 times of four characters and their commas: 2,000 characters of trace=.
  const list = Array.from({ length: 400 }, (_, i) => (i / 100).toFixed(2)).join(',');
  await gotoLab(page, `limit=3&window=1&trace=${list}`);
  assert.deepEqual(await modulesLoaded(page), ['complete']);
  await page.waitForURL(/\?limit=3&window=1&trace=stored:[0-9a-f]{16}$/, { timeout: 30000 });
  await waitForRequests(page, 400);
  assert.match(await page.locator('[data-testid="trace-kept"]').innerText(), /^Your 400 requests are kept in this browser's IndexedDB/);
  // 300 of them make a link the page writes: the first view's module, the list left in the link.
  const short = list.split(',').slice(0, 300).join(',');
  await gotoLab(page, `limit=3&window=1&trace=${short}`);
  await waitForRequests(page, 300);
  assert.deepEqual(await modulesLoaded(page), ['first']);
  assert.equal(new URL(page.url()).searchParams.get('trace'), short);
  await context.close();
});

/** The six rows' figures, as the table of figures gives them. */
async function everyRow(page) {
  const rows = {};
  for (const slug of ['fixed', 'sliding-log', 'sliding-counter', 'token-bucket', 'gcra', 'leaky-bucket']) rows[slug] = await figures(page, slug);
  return rows;
}

/** The keys "Send a request for" offers: the trace's keys, as the page holds them. */
const offeredKeys = (page) => page.locator('[data-testid="send-key"] option').allTextContents();

/** Records the longest address the page writes into the address bar, from the page's start. */
function watchAddresses(context) {
  return context.addInitScript(() => {
    window.longestAddress = location.href.length;
    for (const name of ['pushState', 'replaceState']) {
      const original = history[name].bind(history);
      history[name] = (state, title, url) => {
        original(state, title, url);
        window.longestAddress = Math.max(window.longestAddress, location.href.length);
      };
    }
  });
}

test('pasted keys holding a comma, an emoji, %, &, +, = and # survive a reload and the link opened in another browser', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=2&window=10');
  await openImport(page);
  const keys = ['acme, inc', '🦀 50% & co', 'a+b=c;#d "q"'];
  await paste(page, [
    'time,key',
    '1733350000,"acme, inc"',
    '1733350000.5,"acme, inc"',
    '1733350001,🦀 50% & co',
    '1733350002,"a+b=c;#d ""q"""',
    '1733350003,"acme, inc"',
  ].join('\n'));
  await page.waitForURL(/trace=/);
  await waitForRequests(page, 5);
  const link = page.url();
  assert.ok(link.length <= 2000, `${link.length} characters`);
  assert.match(link, /trace=0@acme%2C%20inc,0\.5@acme%2C%20inc,1@%F0%9F%A6%80%2050%25%20%26%20co,/);
  assert.deepEqual((await offeredKeys(page)).sort(), [...keys].sort());
  const before = await everyRow(page);

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await waitForRequests(page, 5);
  assert.equal(page.url(), link);
  assert.equal(await page.locator('[data-testid="notices"]').count(), 0, 'no message about the link');
  assert.deepEqual(await everyRow(page), before);
  assert.deepEqual((await offeredKeys(page)).sort(), [...keys].sort());
  assert.deepEqual(problems, []);
  await context.close();

  // The same link in another browser: nothing kept there, the link carries it all.
  const other = await openPage(shared.browser);
  await other.page.goto(link);
  await other.page.waitForSelector('body[data-ready="true"]');
  await waitForRequests(other.page, 5);
  assert.equal(await other.page.locator('[data-testid="notices"]').count(), 0);
  assert.deepEqual(await everyRow(other.page), before);
  assert.deepEqual((await offeredKeys(other.page)).sort(), [...keys].sort());
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

test('5,000 lines with comma keys keep the address under 2,000 characters, name a kept trace and survive a reload', async () => {
  const { page, context } = await openPage(shared.browser);
  await watchAddresses(context);
  await gotoLab(page, 'limit=3&window=1');
  await openImport(page);
  const lines = ['time,key'];
  for (let i = 0; i < 5_000; i++) lines.push(`${(1733350000 + i * 0.25).toFixed(2)},"acme, inc ${i % 7}"`);
  await paste(page, lines.join('\n'));
  await page.waitForURL(/\?limit=3&window=1&trace=stored:[0-9a-f]{16}$/, { timeout: 30000 });
  await waitForRequests(page, 5_000);
  const link = page.url();
  assert.ok(await page.evaluate(() => window.longestAddress) <= 2000, 'no longer address written on the way');
  assert.match(await page.locator('[data-testid="trace-kept"]').innerText(), /^Your 5000 requests are kept in this browser's IndexedDB .*In the link itself they would pass 2000 characters\./);
  const id = link.split('stored:')[1];
  assert.ok((await keptText(page, id)).startsWith('0@acme%2C%20inc%200,0.25@acme%2C%20inc%201,'));
  const before = await everyRow(page);
  assert.equal((await offeredKeys(page)).length, 7);

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await waitForRequests(page, 5_000);
  assert.equal(page.url(), link);
  assert.ok(await page.evaluate(() => window.longestAddress) <= 2000);
  assert.equal(await page.locator('[data-testid="notices"]').count(), 0);
  assert.deepEqual(await everyRow(page), before);
  assert.ok((await offeredKeys(page)).includes('acme, inc 3'));
  await context.close();
});
