// What a person sees, from a phone's width to a wide screen's: nothing cut off. Each row's label
// (its name, the line under it and the bracket's count) fits its row, for every algorithm and
// product and the Durable Object, and long lists of messages wrap inside their panel instead of
// running past it. The line under a row's name reads as its promise, then what it did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR, timelineX } from './helpers.mjs';

const shared = useBrowser();
const EVERY_ROW =
  'algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket,nginx,governor,redis-cell,upstash-fixed,upstash-sliding,upstash-token,envoy,cf-binding&do=1';

const OTHER_PRODUCTS =
  'algos=fixed,x-time-rate,express-rate-limit,limits-fixed,limits-moving,limits-sliding,dotnet-fixed,dotnet-sliding,dotnet-token,guava';

/** Steps the playhead to the first request, so that every row also counts what its bracket holds. */
async function stepToFirstRequest(page) {
  await page.click('[data-testid="step"]');
  await page.locator('[data-testid="bracket-fixed"]').waitFor();
}

/** Row labels whose content is taller or wider than the label shows. */
const clippedLabels = (page) =>
  page.$$eval('.row-label', (labels) =>
    labels
      .filter((l) => l.scrollHeight > l.clientHeight + 1 || l.scrollWidth > l.clientWidth + 1)
      .map((l) => `${l.textContent.trim()} (${l.scrollWidth}x${l.scrollHeight} in ${l.clientWidth}x${l.clientHeight})`),
  );

for (const width of [375, 760, 1280]) {
  test(`at ${width} px every row's label fits its row, for every algorithm, product and the object`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width });
    try {
      await gotoLab(page, `${EVERY_ROW}&pattern=edge`);
      assert.equal(await page.locator('.row-label').count(), 15);
      assert.deepEqual(await clippedLabels(page), []);
      await stepToFirstRequest(page);
      assert.deepEqual(await clippedLabels(page), []);
      // The other products, whose names are the longest.
      await gotoLab(page, `${OTHER_PRODUCTS}&pattern=edge`);
      await stepToFirstRequest(page);
      assert.deepEqual(await clippedLabels(page), []);
      if (width === 375) await page.locator('.timelines').screenshot({ path: `${SCREENSHOT_DIR}/layout-phone-rows.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

/** Promises (the line under a row's name) shortened with an ellipsis. */
const shortenedPromises = (page) =>
  page.$$eval('.row-summary', (lines) => lines.filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => l.textContent));

test("at 1280 px a row's promise takes one line above the bracket's count, and only a very long one is shortened, whole in its title", async () => {
  const { page, problems, context } = await openPage(shared.browser, { width: 1280 });
  try {
    for (const query of ['pattern=edge', 'pattern=edge&instances=4&spread=key', 'pattern=double&limit=250&window=60']) {
      await gotoLab(page, query);
      await stepToFirstRequest(page);
      assert.deepEqual(await clippedLabels(page), [], query);
      assert.deepEqual(await shortenedPromises(page), [], query);
      const heights = await page.$$eval('.row-summary', (lines) => lines.map((l) => l.getBoundingClientRect().height));
      assert.ok(heights.every((h) => h < 20), `${query}: one line each, got ${heights}`);
    }
    await page.locator('.timelines').screenshot({ path: `${SCREENSHOT_DIR}/layout-row-labels.png` });
    // Sixty-four copies of a large limit over a long window: the one case past 26rem.
    await gotoLab(page, 'pattern=edge&instances=64&limit=1000000&window=86400');
    await stepToFirstRequest(page);
    assert.deepEqual(await clippedLabels(page), []);
    const fixed = page.locator('div[data-row="fixed"] > .row-summary');
    const whole = await fixed.getAttribute('title');
    assert.match(whole, /^limit 1000000 per \d+ s on each of 64 copies; busiest window \d+$/);
    assert.ok((await shortenedPromises(page)).includes(await fixed.textContent()), 'shortened on screen');
    assert.equal((await fixed.textContent()).replace(/^⚠ /, ''), whole);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('each row states its promise, then its busiest window, so the figure never reads as the limit', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  const line = (row, part) => page.locator(`div[data-row="${row}"] > .row-${part}`).textContent();
  try {
    await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log');
    assert.equal(await line('fixed', 'summary'), '⚠ limit 5 per 10 s; busiest window 10');
    assert.equal(await line('sliding-log', 'summary'), 'limit 5 per 10 s; busiest window 5');
    assert.equal(await line('fixed', 'short'), '⚠ busiest 10 / 5');
    await gotoLab(page, 'pattern=steady&limit=23&algos=sliding-log');
    assert.equal(await line('sliding-log', 'summary'), 'limit 23 per 10 s; busiest window 10');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('at 375 px a long list of link messages wraps inside its panel', async () => {
  const { page, problems, context } = await openPage(shared.browser, { width: 375 });
  try {
    const bad = 'x'.repeat(60);
    await gotoLab(page, `limit=${bad}&window=${bad}&pattern=${bad}&algos=${bad}&trace=1,2,${bad}`);
    const panel = page.locator('[data-testid="notices"]');
    assert.ok((await page.locator('[data-testid="notice"]').count()) >= 4);
    const fits = await panel.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return el.scrollWidth <= el.clientWidth + 1 && box.right <= document.documentElement.clientWidth + 1;
    });
    assert.ok(fits, 'the messages stay inside the panel and the page');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), 'no sideways scrolling');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/layout-phone-notices.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

for (const width of [375, 1280]) {
  test(`at ${width} px selecting a request leaves the chart where it was, under the pointer`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width });
    try {
      await gotoLab(page, 'pattern=edge&do=1');
      const canvas = page.locator('[data-testid="timeline-canvas"]');
      const layout = JSON.parse(await canvas.getAttribute('data-layout'));
      const row = layout.rows.find((r) => r.id === 'sliding-log');
      const x = timelineX(layout, 8);
      // Where the chart sits on the page (not in the viewport, which a click may scroll).
      const place = () => canvas.evaluate((c) => {
        const box = c.getBoundingClientRect();
        return [Math.round(box.left + scrollX), Math.round(box.top + scrollY)];
      });
      await canvas.scrollIntoViewIfNeeded();
      const before = await place();
      await canvas.click({ position: { x, y: row.markY } });
      await page.waitForSelector('[data-testid="inspector-title"]');
      assert.deepEqual(await place(), before, 'the chart did not move');
      // Selecting the next request (keyboard) and clearing it leave it in place too.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Escape');
      assert.deepEqual(await place(), before, 'nor did clearing the selection');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('the time axis writes every tick in one unit', async () => {
  const { page, problems, context } = await openPage(shared.browser, { width: 1280 });
  try {
    // A 150 s axis with a tick every 30 s: once "90 s, 2 min, 150 s".
    await gotoLab(page, 'window=75&pattern=steady&do=1');
    const ticks = await page.locator('.timelines .axis .tick').allInnerTexts();
    assert.ok(ticks.includes('120 s') && ticks.includes('150 s'), ticks.join(', '));
    assert.ok(ticks.every((t) => t === '0' || t.endsWith(' s')), ticks.join(', '));
    // Every axis on the page keeps to one unit; the Durable Object lab's chart writes its own on
    // its canvas, and lists its labels in `data-axes`.
    await page.locator('[data-testid="durable-lab"]').evaluate((el) => { const d = el.matches('details') ? el : el.querySelector('details'); if (d) d.open = true; });
    const axes = [];
    for (const axis of await page.locator('.axis').all()) axes.push(await axis.locator('.tick').allInnerTexts());
    axes.push(JSON.parse(await page.locator('[data-testid="latency-canvas"]').getAttribute('data-axes')).timeTicks);
    for (const ticks of axes) {
      const labels = ticks.filter((t) => t !== '0');
      const units = new Set(labels.map((t) => t.split(' ').pop()));
      assert.ok(labels.length > 0 && units.size <= 1, labels.join(', '));
    }
    await gotoLab(page, 'window=300&pattern=steady');
    const minutes = await page.locator('.timelines .axis .tick').allInnerTexts();
    assert.ok(minutes.every((t) => t === '0' || t.endsWith(' min')), minutes.join(', '));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
