// "Use these settings": each product row's configuration or code follows the page's settings
// (and stays open when they change), says what differs where the product cannot say them exactly
// (with the figures the row shows), and can be downloaded under its file name and copied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { useBrowser, openPage, gotoLab, rowFigures, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

const text = (page, slug) => page.locator(`[data-testid="snippet-text-${slug}"]`).textContent();

/** Opens a row's "Use these settings"; its text is worked out once it is open. */
async function open(page, ...slugs) {
  for (const slug of slugs) {
    await page.click(`[data-testid="snippet-${slug}"] summary`);
    await page.waitForSelector(`[data-testid="snippet-text-${slug}"]`);
  }
}

test('the nginx and governor snippets hold the limit on the page and follow it when it changes', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=nginx,governor,cf-binding&limit=7&window=1');
  assert.equal(await page.locator('[data-testid="snippet-text-nginx"]').count(), 0, 'worked out only when opened');
  await open(page, 'nginx', 'governor', 'cf-binding');
  assert.match(await text(page, 'nginx'), /limit_req_zone \$binary_remote_addr zone=ratelab:10m rate=7r\/s;/);
  assert.match(await text(page, 'nginx'), /limit_req zone=ratelab burst=6;/);
  assert.match(await text(page, 'governor'), /NonZeroU32::new\(7\)/);
  assert.equal(await page.locator('[data-testid="snippet-differs-nginx"]').count(), 0, '7r/s is exact');
  // 7 per second is no period the binding has: it says so.
  assert.match(await page.locator('[data-testid="snippet-differs-cf-binding"]').textContent(), /70 per 10 s/);
  await page.locator('[data-testid="limit-number"]').fill('9');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForURL(/limit=9/);
  await page.waitForFunction(() => /rate=9r\/s/.test(document.querySelector('[data-testid="snippet-text-nginx"]')?.textContent ?? ''));
  assert.match(await text(page, 'nginx'), /burst=8;/);
  assert.equal(await page.locator('[data-testid="snippet-nginx"]').getAttribute('open'), '', 'still open');
  assert.deepEqual(problems, []);
  await page.close();
});

test('for a window the binding cannot count in, the page names the nearest period and that row\'s figures', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=nginx,cf-binding&limit=3&window=15');
  await open(page, 'cf-binding');
  const said = await page.locator('[data-testid="snippet-differs-cf-binding"]').textContent();
  assert.match(said, /periods of 10 or 60 s: the nearest to 3 per 15 s is 12 per 60 s/);
  const figures = await rowFigures(page, 'cf-binding');
  // data-allowed is what the row let through, now or later.
  assert.ok(said.includes(`lets ${figures.allowed} of `), `${said} (row: ${figures.allowed})`);
  assert.ok(said.endsWith(`at most ${figures.maxInWindow} in any 15 s window.`), said);
  assert.match(await text(page, 'cf-binding'), /\[ratelimits\.simple\]\s+limit = 12\s+period = 60/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a snippet downloads under its file name with the text shown, and Copy answers either way', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  await gotoLab(page, 'algos=nginx,x-time-rate&limit=5&window=10');
  await open(page, 'nginx');
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid="snippet-download-nginx"]'),
  ]);
  assert.equal(file.suggestedFilename(), 'nginx.conf');
  assert.equal((await readFile(await file.path())).toString('utf8'), await text(page, 'nginx'));
  await open(page, 'x-time-rate');
  const [go] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid="snippet-download-x-time-rate"]'),
  ]);
  assert.equal(go.suggestedFilename(), 'main.go');
  // Without the permission the browser may refuse the write: the page says so, and does not fail.
  await page.click('[data-testid="snippet-copy-nginx"]');
  const message = page.locator('[data-testid="snippet-message-nginx"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="snippet-message-nginx"]')?.textContent !== '');
  assert.match(await message.textContent(), /^(Copied\.|This page may not write to the clipboard here)/);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('[data-testid="snippet-copy-x-time-rate"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="snippet-message-x-time-rate"]')?.textContent !== '');
  if ((await page.locator('[data-testid="snippet-message-x-time-rate"]').textContent()) === 'Copied.') {
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await text(page, 'x-time-rate'));
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the Durable Object card offers a wrangler.toml with the Worker\'s timeout and fail mode', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=nginx&do=1&timeout=300&fail=closed');
  await open(page, 'do');
  const toml = await text(page, 'do');
  assert.match(toml, /\[\[durable_objects\.bindings\]\]\nname = "LIMITER"\nclass_name = "RateLimiter"/);
  assert.match(toml, /TIMEOUT_MS = "300"\nFAIL_MODE = "closed"/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('on the first view\'s module, the Durable Object\'s "Use these settings" opens the complete module, the block open', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'do=1&timeout=300');
  await page.click('[data-testid="snippet-do"] summary');
  await page.locator('[data-testid="snippet-do"][open] [data-testid="snippet-text-do"]').waitFor({ timeout: 15000 });
  assert.match(await text(page, 'do'), /TIMEOUT_MS = "300"/);
  assert.match(page.url(), /timeout=300/, 'the view is kept');
  assert.deepEqual(problems, []);
  await page.close();
});

for (const width of [1280, 390]) {
  test(`at ${width} px the inspector leads to a row's "Use these settings", open across the whole width, every line of the config readable`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, 'algos=fixed,nginx,governor&limit=100&window=60');
      await page.click('[data-testid="step"]'); // the first request, in the inspector
      const link = page.locator('[data-testid="use-settings-nginx"]');
      await link.waitFor();
      assert.equal(await page.locator('[data-testid="use-settings-fixed"]').count(), 0, 'none for a row without a snippet');
      await link.click();
      await page.waitForSelector('[data-testid="snippet-text-nginx"]');
      assert.equal(await page.locator('[data-testid="snippet-nginx"]').getAttribute('open'), '');
      assert.equal(await page.evaluate(() => document.activeElement.closest('[data-testid]')?.getAttribute('data-testid')), 'snippet-nginx');
      const where = await page.locator('[data-testid="snippet-nginx"]').evaluate((block) => {
        const r = block.getBoundingClientRect();
        const card = block.closest('.explain').getBoundingClientRect();
        const grid = block.closest('.explain-grid').getBoundingClientRect();
        const pre = block.querySelector('pre');
        return { top: r.top, card: card.width, grid: grid.width, scroll: pre.scrollWidth, client: pre.clientWidth };
      });
      assert.ok(where.top >= 0 && where.top < 900, `on screen: ${where.top}`);
      assert.ok(where.card >= where.grid - 1, `the card takes the whole row: ${where.card} of ${where.grid}`);
      assert.ok(where.scroll <= where.client + 1, `no line cut off: ${where.scroll} in ${where.client}`);
      assert.match(await text(page, 'nginx'), /rate=100r\/m/);
      await page.locator('[data-testid="explain-nginx"]').screenshot({ path: `${SCREENSHOT_DIR}/snippet-nginx-${width}.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

for (const width of [320, 390, 768, 1280, 1920]) {
  test(`at ${width} px a product row's own label leads to its "Use these settings", open and focused`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, 'algos=fixed,nginx&limit=100&window=60');
      assert.equal(await page.locator('[data-testid="row-config-fixed"]').count(), 0, 'none for a row without a snippet');
      const link = page.locator('[data-testid="row-config-nginx"]');
      assert.equal(await link.textContent(), 'nginx.conf ↓');
      const box = await link.boundingBox();
      const label = await page.locator('.row-label[data-row="nginx"]').boundingBox();
      assert.ok(box && box.width > 0 && box.y >= label.y && box.y + box.height <= label.y + label.height + 1,
        `inside the row's label: ${JSON.stringify(box)} in ${JSON.stringify(label)}`);
      await link.click();
      await page.waitForSelector('[data-testid="snippet-text-nginx"]');
      assert.equal(await page.locator('[data-testid="snippet-nginx"]').getAttribute('open'), '');
      assert.equal(await page.evaluate(() => document.activeElement.closest('[data-testid]')?.getAttribute('data-testid')), 'snippet-nginx');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
