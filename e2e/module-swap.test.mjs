// A view that needs a larger module gets it without a reload (src/ui/module_swap.rs): the page
// the person is on stays (no navigation, nothing of what a script left on the window lost), the
// focus stays on the control they used, the scroll position stays, Back returns to the view
// before, and nothing of the module before still listens (one S sends one request, a resize
// reaches no retired observer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** The module running the page (`html[data-module]`, set once its start has run, web/loader.js). */
async function runningModule(page) {
  return page.evaluate(() => document.documentElement.getAttribute('data-module'));
}

/**
 * Marks the window and counts the page's loads from here on: a reload or a navigation would lose
 * the mark and count a load.
 */
async function watchForNavigation(page) {
  let loads = 0;
  page.on('load', () => loads++);
  await page.evaluate(() => { window.ratelabTestMark = 'kept'; });
  return async () => {
    assert.equal(loads, 0, 'no page load');
    assert.equal(await page.evaluate(() => window.ratelabTestMark), 'kept', 'the same page: no navigation');
    // One page: nothing of the module before is left on it.
    for (const part of ['timeline-canvas', 'stats-fixed', 'share-link', 'send']) {
      assert.equal(await page.locator(`[data-testid="${part}"]`).count(), 1, `one ${part}`);
    }
  };
}

/** The `data-testid` of the focused element, and whether it is a `<summary>`. */
async function focused(page) {
  return page.evaluate(() => {
    const active = document.activeElement;
    const marked = active && active.closest('[data-testid]');
    return { testid: marked ? marked.getAttribute('data-testid') : null, summary: active.tagName === 'SUMMARY' };
  });
}

/** Waits until the module `kind` has taken the page and built it whole. */
async function waitForModule(page, kind) {
  await page.waitForFunction((k) => document.documentElement.getAttribute('data-module') === k
    && document.body.getAttribute('data-complete') === 'true', kind, { timeout: 30000 });
}

/** Where `selector` is on screen (its top, CSS pixels from the viewport's top) and the scroll. */
async function onScreen(page, selector) {
  return page.evaluate((sel) => ({ top: Math.round(document.querySelector(sel).getBoundingClientRect().top), y: window.scrollY }), selector);
}

/** The number of requests in the view, as the lede says it. */
async function requestCount(page) {
  const match = /same (\d[\d,]*) requests?/.exec(await page.locator('[data-testid="lede"]').innerText());
  return match ? Number(match[1].replace(/,/g, '')) : NaN;
}

test('ticking a product by keyboard brings the complete module in place: focus, scroll and page kept', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=clicks&limit=2&window=10');
  assert.equal(await runningModule(page), 'first');
  const unchanged = await watchForNavigation(page);
  await page.locator('[data-testid="products-toggle"]').click();
  const toggle = page.locator('[data-testid="toggle-nginx"]');
  await toggle.evaluate((box) => box.scrollIntoView({ block: 'center' }));
  const before = await onScreen(page, '[data-testid="toggle-nginx"]');
  assert.ok(before.y > 0, 'the page is scrolled');
  assert.ok(before.top > 0 && before.top < 780, `the toggle is on screen: ${before.top}`);
  await toggle.focus();
  await page.keyboard.press('Space');
  await waitForModule(page, 'complete');
  await page.locator('[data-testid="stats-nginx"]').waitFor();
  await unchanged();
  assert.match(page.url(), /algos=[^&]*nginx/);
  assert.deepEqual(await focused(page), { testid: 'toggle-nginx', summary: false });
  assert.equal(await page.locator('[data-testid="toggle-nginx"]').isChecked(), true);
  // The control stays where it was on screen, the new row above it taken into the scroll.
  const after = await onScreen(page, '[data-testid="toggle-nginx"]');
  assert.ok(Math.abs(after.top - before.top) <= 1, `the toggle stays in place: ${JSON.stringify([before, after])}`);
  assert.equal(await page.evaluate(() => document.body.getAttribute('aria-busy')), null);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'module-swap-product.png') });

  // One S sends one request: the first module's shortcut is gone with it.
  await page.locator('h1').click();
  const sent = await requestCount(page);
  await page.keyboard.press('s');
  await page.waitForFunction((n) => /same (\d+) request/.exec(document.querySelector('[data-testid="lede"]').innerText)?.[1] == n + 1, sent);
  await page.waitForURL(/trace=/);
  assert.equal(await requestCount(page), sent + 1, 'one request for one key press');
  // A resize reaches the complete module's observers only: a retired one would touch a disposed
  // page and fail in the console.
  await page.setViewportSize({ width: 700, height: 800 });
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    return c && c.getBoundingClientRect().width < 700;
  });
  await page.click('[data-testid="send"]');
  await page.waitForFunction((n) => /same (\d+) request/.exec(document.querySelector('[data-testid="lede"]').innerText)?.[1] == n + 2, sent);
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [section, opened, onSummary] of [
  ['import-panel', '[data-testid="import-panel"][open] [data-testid="import-text"]', true],
  ['compose-panel', '[data-testid="compose-panel"][open]', true],
  ['counting-controls', '[data-testid="counting-controls"][open] [data-testid="spread"]', true],
  // The complete module's questions are a section, not a heading to open: the focus goes to
  // the section's heading.
  ['questions', 'section[data-testid="questions"]', false],
]) {
  test(`opening ${section} on the first view brings the complete module with the section open, focus and scroll kept`, async () => {
    const { page, problems } = await openPage(shared.browser);
    await gotoLab(page, 'limit=7');
    assert.equal(await runningModule(page), 'first');
    const unchanged = await watchForNavigation(page);
    const summary = page.locator(`[data-testid="${section}"] > summary`);
    await summary.evaluate((s) => s.scrollIntoView({ block: 'center' }));
    const before = await onScreen(page, `[data-testid="${section}"]`);
    await summary.focus();
    await page.keyboard.press('Enter');
    await waitForModule(page, 'complete');
    await page.locator(opened).first().waitFor();
    await unchanged();
    assert.match(page.url(), /limit=7/, 'the view is kept');
    assert.deepEqual(await focused(page), { testid: section, summary: onSummary });
    const after = await onScreen(page, `[data-testid="${section}"]`);
    assert.ok(Math.abs(after.top - before.top) <= 1, `the section stays in place: ${JSON.stringify([before, after])}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("opening the Durable Object's settings on its module brings the complete one, the block open", async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'do=1&limit=7');
  assert.equal(await runningModule(page), 'durable');
  const unchanged = await watchForNavigation(page);
  const summary = page.locator('[data-testid="snippet-do"] > summary');
  await summary.evaluate((s) => s.scrollIntoView({ block: 'center' }));
  const before = await onScreen(page, '[data-testid="snippet-do"]');
  await summary.focus();
  await page.keyboard.press('Enter');
  await waitForModule(page, 'complete');
  await page.locator('[data-testid="snippet-do"][open]').waitFor();
  await unchanged();
  assert.deepEqual(await focused(page), { testid: 'snippet-do', summary: true });
  const after = await onScreen(page, '[data-testid="snippet-do"]');
  assert.ok(Math.abs(after.top - before.top) <= 1, `the block stays in place: ${JSON.stringify([before, after])}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Back after a swap returns to the view before it, in the same page', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=7');
  const unchanged = await watchForNavigation(page);
  // A scenario is a deliberate change: the view before it stays in the history.
  await page.click('[data-testid="scenario-far-object"]');
  await waitForModule(page, 'durable');
  await page.locator('[data-testid="scenario-text"]').waitFor();
  assert.match(page.url(), /home=gru/);
  await page.goBack();
  await page.waitForURL((url) => url.search.includes('limit=7') && !url.search.includes('do=1'));
  // The view before has no Durable Object row.
  await page.waitForFunction(() => !document.querySelector('[data-testid="stats-do"]'));
  await unchanged();
  await page.goForward();
  await page.locator('[data-testid="stats-do"]').waitFor();
  await unchanged();
  assert.deepEqual(problems, []);
  await page.close();
});
