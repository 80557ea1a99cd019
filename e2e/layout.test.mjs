// What a person sees, from a phone's width to a wide screen's: nothing cut off. Each row's label
// (its name, the line under it and the bracket's count) fits its row, for every algorithm and
// product and the Durable Object, and long lists of messages wrap inside their panel instead of
// running past it. The line under a row's name reads as its promise, then what it did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR, timelineX, timelineLayout } from './helpers.mjs';

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
    // (With the whole story shown: a playhead would count the busiest window up from 1.)
    await gotoLab(page, 'pattern=edge&instances=64&limit=1000000&window=86400');
    assert.deepEqual(await clippedLabels(page), []);
    const fixed = page.locator('div[data-row="fixed"] .row-summary');
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
  const line = (row, part) => page.locator(`div[data-row="${row}"] .row-${part}`).textContent();
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

/** Every product the lab profiles, with the six algorithms: all twenty-three rows. */
const EVERY_PRODUCT = `${EVERY_ROW.replace('&do=1', '')},${OTHER_PRODUCTS.replace('algos=fixed,', '')}`;

/** Where the first timeline row lies on the page (CSS pixels from the page's top): its top and bottom. */
async function firstRowOnPage(page) {
  const layout = JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-layout'));
  const canvasTop = await page.locator('[data-testid="timeline-canvas"]').evaluate((c) => c.getBoundingClientRect().top + window.scrollY);
  const row = layout.rows[0];
  return { top: canvasTop + row.top, bottom: canvasTop + row.top + row.height };
}

test('at 390 x 844 the timelines come first: the first row and its marks lie within the first screen, above every control', async () => {
  const { page, problems, context } = await openPage(shared.browser, { width: 390, height: 844 });
  try {
    await gotoLab(page);
    const row = await firstRowOnPage(page);
    assert.ok(row.bottom <= 844, `the first row ends at ${row.bottom} px`);
    const controlsTop = await page.locator('.controls').evaluate((c) => c.getBoundingClientRect().top + window.scrollY);
    assert.ok(controlsTop > row.bottom, `the controls (at ${controlsTop} px) come after the first row (${row.bottom} px)`);
    // The controls most used come right after the timelines, before the table and the rest.
    const below = await page.evaluate(() => ['.timelines', '.controls', 'table.stats', '[data-testid="import-panel"]']
      .map((s) => Math.round(document.querySelector(s).getBoundingClientRect().top)));
    assert.deepEqual([...below].sort((a, b) => a - b), below, `in that order: ${below}`);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/layout-phone-first-screen.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('at 1280 x 900 every control of the side column comes into view while the first timeline row stays on screen', async () => {
  const { page, problems, context } = await openPage(shared.browser, { width: 1280, height: 900 });
  try {
    await gotoLab(page, `${EVERY_PRODUCT}&pattern=edge&clients=obey`);
    await page.evaluate(() => document.querySelectorAll('.side details').forEach((d) => { d.open = true; }));
    await page.locator('[data-testid="retries-number"]').waitFor();
    const controls = page.locator('.side :is(input, select, button, summary):visible');
    const count = await controls.count();
    assert.ok(count > 40, `the side column's controls were found: ${count}`);
    const row = await firstRowOnPage(page);
    const unseen = [];
    for (let i = 0; i < count; i++) {
      const where = await controls.nth(i).evaluate((control) => {
        control.scrollIntoView({ block: 'nearest' });
        const r = control.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, y: window.scrollY, name: control.getAttribute('data-testid') || control.id || control.textContent.trim().slice(0, 30) };
      });
      // A pixel's fraction either way: the browser scrolls to the nearest whole pixel.
      const rowOnScreen = row.top - where.y >= -1 && row.bottom - where.y <= 901;
      if (where.top < -1 || where.bottom > 901 || !rowOnScreen) unseen.push(JSON.stringify(where));
    }
    assert.deepEqual(unseen, []);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/layout-side-scrolled.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/**
 * Text, fields and buttons that reach past the left or right edge of their card (the nearest
 * box around them with a border and rounded corners), or a page wider than the screen. What sits
 * in a box that scrolls sideways (the decision table, a config) is in view by scrolling it.
 */
const outsideTheirCard = (page) =>
  page.evaluate(() => {
    const FIELDS = ['INPUT', 'SELECT', 'BUTTON', 'TEXTAREA'];
    const isCard = (el) => {
      const style = getComputedStyle(el);
      return !FIELDS.includes(el.tagName) && parseFloat(style.borderTopWidth) > 0 && parseFloat(style.borderTopLeftRadius) >= 6;
    };
    const scrollsSideways = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const out = [];
    if (document.documentElement.scrollWidth > window.innerWidth + 1) {
      out.push(`the page is ${document.documentElement.scrollWidth} px wide in ${window.innerWidth}`);
    }
    const parts = '.page :is(input, select, button, textarea, label, legend, summary, p, li, h2, h3, span, code, output, pre)';
    for (const el of document.querySelectorAll(parts)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      let card = el.parentElement;
      let scroller = false;
      while (card && !isCard(card)) {
        scroller ||= scrollsSideways(card);
        card = card.parentElement;
      }
      if (!card || scroller) continue;
      // Text running past its own box (a line too long to wrap), where the box does not scroll.
      const style = getComputedStyle(el);
      if (style.display !== 'inline' && style.overflowX === 'visible' && el.scrollWidth > el.clientWidth + 1) {
        out.push(`${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}" holds ${el.scrollWidth} px of text in ${el.clientWidth}`);
      }
      const c = card.getBoundingClientRect();
      if (r.left < c.left - 1 || r.right > c.right + 1) {
        const name = el.getAttribute('data-testid') || el.id || el.textContent.trim().slice(0, 40);
        out.push(`${el.tagName.toLowerCase()} "${name}" at ${Math.round(r.left)}-${Math.round(r.right)} in ${card.className || card.tagName} at ${Math.round(c.left)}-${Math.round(c.right)}`);
      }
    }
    return [...new Set(out)];
  });

for (const width of [320, 390, 768, 1280, 1920]) {
  test(`at ${width} px, every section open and every product ticked, no text, select or field leaves its card, in both themes`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      for (const theme of ['light', 'dark']) {
        await gotoLab(page, `${EVERY_PRODUCT}&pattern=edge&clients=obey&instances=2&also=2/1&theme=${theme}`);
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
        await page.locator('[data-testid="retries-number"]').waitFor();
        await page.locator('[data-testid="import-panel"][open] [data-testid="import-text"]').waitFor();
        await page.locator('[data-testid="snippet-text-nginx"]').waitFor();
        assert.deepEqual(await outsideTheirCard(page), [], `${theme} theme`);
        if (width === 1280) await page.locator('.side').screenshot({ path: `${SCREENSHOT_DIR}/layout-side-${theme}.png` });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

for (const width of [761, 768, 900]) {
  test(`at ${width} px, with copies and every product, the labels leave the plot its width and the timelines are drawn`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, `${EVERY_PRODUCT}&pattern=edge&instances=2`);
      const plot = await page.locator('[data-testid="timeline-canvas"]').evaluate((c) => c.getBoundingClientRect().width);
      assert.ok(plot >= 190, `the plot is ${plot} px wide`);
      assert.equal(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-drawn'), 'true');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

for (const width of [320, 390]) {
  test(`at ${width} px the plot takes the screen's width and each row's label sits on one line above its marks`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 844 });
    try {
      await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log,token-bucket,nginx&do=1');
      const canvas = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
      assert.ok(canvas.width >= width - 60, `the plot is ${canvas.width} px of ${width}`);
      const layout = await timelineLayout(page);
      for (const row of layout.rows) {
        const text = await page.locator(`.row-label[data-row="${row.id}"] .row-text`).boundingBox();
        assert.ok(text.y >= canvas.y + row.top - 1 && text.y + text.height <= canvas.y + row.bodyTop + 1,
          `${row.id}: its label from ${text.y} to ${text.y + text.height} in its band ${canvas.y + row.top}-${canvas.y + row.bodyTop}`);
        assert.ok(canvas.y + row.markY - 4.5 >= canvas.y + row.bodyTop, `${row.id}: its marks under the band`);
      }
      const name = await page.locator('.row-label[data-row="nginx"] .row-name').boundingBox();
      const link = await page.locator('[data-testid="row-config-nginx"]').boundingBox();
      assert.ok(link && link.x >= name.x + name.width - 1 && link.x + link.width <= canvas.x + canvas.width + 1, 'the config\'s link on the name\'s line, on screen');
      if (width === 390) await page.locator('.timelines').screenshot({ path: `${SCREENSHOT_DIR}/layout-phone-labels-above.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

for (const width of [768, 1280, 1920]) {
  test(`at ${width} px the row labels sit beside the plot, each row's marks from its top, no band above it`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log,token-bucket,nginx&do=1');
      const canvas = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
      const layout = await timelineLayout(page);
      for (const row of layout.rows) {
        assert.equal(row.bodyTop, row.top, `${row.id}: no band`);
        const label = await page.locator(`.row-label[data-row="${row.id}"]`).boundingBox();
        assert.ok(label.x + label.width <= canvas.x + 1, `${row.id}: its label left of the plot`);
        assert.ok(Math.abs(label.y - (canvas.y + row.top)) <= 1, `${row.id}: its label level with its row`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
