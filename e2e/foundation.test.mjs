// The first page, end to end: the explainer seed's checked runs, the URL contract, bad values,
// and a clean run (no console error, no request to another origin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, rowFigures, foreignRequests, SCREENSHOT_DIR, BASE_URL, ALGORITHMS } from './helpers.mjs';

const shared = useBrowser();

test('the window-edge run comes out as the explainer reports it: fixed 10, sliding 5, bucket 6', async () => {
  const { page, problems, requests } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  assert.equal((await rowFigures(page, 'fixed')).allowed, 10);
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 5);
  assert.equal((await rowFigures(page, 'token-bucket')).allowed, 6);
  assert.equal((await rowFigures(page, 'fixed')).maxInWindow, 10, 'fixed window lets 10 into one 10 s window');
  assert.equal((await rowFigures(page, 'sliding-log')).maxInWindow, 5);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/foundation-edge.png`, fullPage: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(foreignRequests(requests), []);
});

test('one request a second for 60 s comes out as the explainer reports it: 30, 30, 34', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  assert.equal((await rowFigures(page, 'fixed')).allowed, 30);
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 30);
  assert.equal((await rowFigures(page, 'token-bucket')).allowed, 34);
  assert.equal((await rowFigures(page, 'fixed')).rejected, 30);
  assert.deepEqual(problems, []);
});

test('every algorithm has a row by default, and algos= picks rows', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  for (const slug of ALGORITHMS) {
    assert.equal(await page.locator(`[data-testid="stats-${slug}"]`).count(), 1, slug);
  }
  await gotoLab(page, 'algos=gcra,sliding-log');
  assert.equal(await page.locator('[data-testid^="stats-"]').count(), 2);
  assert.equal(await page.locator('[data-testid="stats-fixed"]').count(), 0);
});

test('a trace in the URL is run exactly', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'limit=2&window=1&trace=0,0.5,0.999,1,1.5');
  // Sliding log, 2 per 1 s: 0 and 0.5 pass; 0.999 is refused; at 1 the entry at 0 has just
  // expired (an entry exactly one window old no longer counts), and at 1.5 the one at 0.5 has.
  assert.deepEqual(await rowFigures(page, 'sliding-log'), { allowed: 4, rejected: 1, maxInWindow: 2 });
  // Fixed window, 2 per 1 s: [0, 1) lets 0 and 0.5 through; [1, 2) lets 1 and 1.5 through.
  assert.deepEqual(await rowFigures(page, 'fixed'), { allowed: 4, rejected: 1, maxInWindow: 2 });
});

for (const [query, field, words] of [
  ['limit=0', 'limit', 'at least 1'],
  ['window=abc', 'window', 'not a number'],
  ['trace=1,2,x', 'trace', 'item 3'],
  ['pattern=zigzag', 'pattern', 'not a known pattern'],
]) {
  test(`a bad ${field} (${query}) shows a specific message and the page works on the default`, async () => {
    const { page, problems } = await openPage(shared.browser);
    await gotoLab(page, query);
    const notice = page.locator('[data-testid="notice"]');
    assert.equal(await notice.count(), 1);
    assert.match(await notice.innerText(), new RegExp(words));
    assert.ok(await notice.isVisible());
    assert.equal((await rowFigures(page, 'sliding-log')).allowed, 5, 'the default edge run still shows');
    assert.deepEqual(problems, []);
  });
}

test('a slider writes the state into the URL, and reloading the URL gives the same state', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await page.locator('[data-testid="limit-number"]').fill('3');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForURL(/limit=3/);
  const url = page.url();
  assert.match(url, /pattern=steady/);
  const first = await rowFigures(page, 'sliding-log');
  assert.equal(first.allowed, 18, '3 per 10 s over 60 s');
  await page.goto(url);
  await page.waitForSelector('body[data-complete="true"]');
  assert.deepEqual(await rowFigures(page, 'sliding-log'), first);
  assert.equal(await page.locator('[data-testid="limit-value"]').innerText(), '3 requests');
  assert.ok(url.startsWith(BASE_URL), 'the URL stays under the sub-path');
});

test('the page is readable at phone width', async () => {
  const { page, problems } = await openPage(shared.browser, { width: 390, height: 844 });
  await gotoLab(page, 'pattern=edge');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/foundation-phone.png`, fullPage: true });
  assert.deepEqual(problems, []);
});

test('the first view is ready before the sections below it are built, and the load marks say where the time went', async () => {
  const { page, problems } = await openPage(shared.browser, { width: 390, height: 844 });
  await page.goto(`${BASE_URL}?pattern=edge`);
  await page.waitForSelector('body[data-ready="true"]');
  // What a person sees first: the controls, the timelines and the table of figures.
  for (const id of ['limit-slider', 'timeline-canvas', 'stats-sliding-log']) {
    assert.equal(await page.locator(`[data-testid="${id}"]`).count(), 1, `${id} is in the first view`);
  }
  await page.waitForSelector('body[data-complete="true"]');
  for (const id of ['import-panel', 'do-toggle', 'share-link']) {
    assert.equal(await page.locator(`[data-testid="${id}"]`).count(), 1, `${id} is built after the first view`);
  }
  const marks = await page.evaluate(() =>
    ['ratelab:start', 'ratelab:mounted', 'ratelab:ready'].map((name) => performance.getEntriesByName(name).length === 1 ? performance.getEntriesByName(name)[0].startTime : null),
  );
  assert.ok(marks.every((t) => t !== null), `each load mark is set once: ${marks}`);
  assert.ok(marks[0] <= marks[1] && marks[1] <= marks[2], `the marks are in order: ${marks}`);
  assert.deepEqual(problems, []);
});

/** Holds the page's WebAssembly module back; the returned function lets it through. */
async function holdModule(page) {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/_bg\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

test('the page shows its header while the module arrives, and the app replaces it', async () => {
  const { page, problems } = await openPage(shared.browser, { width: 390, height: 844 });
  // Hold the module back until the header has been seen.
  const release = await holdModule(page);
  await page.goto(`${BASE_URL}?pattern=edge`, { waitUntil: 'domcontentloaded' });
  const shell = page.locator('#shell h1');
  await shell.waitFor({ state: 'visible' });
  assert.equal(await shell.textContent(), 'Rate Limit Lab');
  assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, 'the app has not started');
  release();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#shell').count(), 0, 'the header shown while loading is gone');
  assert.equal(await page.locator('h1').count(), 1, 'one title: the app\'s');
  assert.deepEqual(problems, []);
});

test('an embed shows its header at the embed\'s sizes while the module arrives', async () => {
  const { page, problems } = await openPage(shared.browser, { width: 390, height: 600 });
  const release = await holdModule(page);
  await page.goto(`${BASE_URL}?pattern=steady&embed=1`, { waitUntil: 'domcontentloaded' });
  await page.locator('#shell h1').waitFor({ state: 'visible' });
  const size = (selector) => page.$eval(selector, (e) => getComputedStyle(e).fontSize);
  const whileLoading = await size('#shell h1');
  release();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(whileLoading, await size('[data-testid="title"]'), 'the same title size before and after');
  assert.deepEqual(problems, []);
});
