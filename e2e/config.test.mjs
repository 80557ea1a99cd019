// "Bring the config you run": a pasted nginx.conf with two zones and express-rate-limit's options
// become their rows, with the config's own settings, on the page's traffic; the link keeps the
// settings; an unreadable line is named and changes nothing; a config dropped on the page is read
// as a config, not as traffic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, openPage, gotoLab, rowFigures, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

const fixture = (name) => readFileSync(new URL(`../tests/fixtures/configs/${name}`, import.meta.url), 'utf8');

/** One client, `count` requests `everyMs` apart from 0, as the link's `trace=`. */
function oneClient(count, everyMs) {
  return Array.from({ length: count }, (_, i) => String((i * everyMs) / 1000)).join(',');
}

/** Opens "Bring the config you run" (the complete module comes in place of the first if need be). */
async function openConfig(page) {
  const panel = page.locator('[data-testid="config-panel"]');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  await page.locator('[data-testid="config-panel"][open] [data-testid="config-text"]').waitFor({ timeout: 30000 });
  await page.waitForSelector('body[data-complete="true"]');
}

async function useConfig(page, text) {
  await openConfig(page);
  await page.fill('[data-testid="config-text"]', text);
  await page.click('[data-testid="config-use"]');
}

/** Waits until the row `slug` shows `count` decisions. */
async function waitForRow(page, slug, count) {
  await page.waitForFunction(
    ([s, n]) => {
      const row = document.querySelector(`[data-testid="stats-${s}"]`);
      return row && Number(row.dataset.allowed) + Number(row.dataset.rejected) === n;
    },
    [slug, count],
    { timeout: 30000 },
  );
}

test('an nginx.conf with two zones and express-rate-limit options become their rows, with the configs own settings', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  // 150 requests from one client, 10 ms apart.
  await gotoLab(page, `limit=3&window=7&algos=fixed&trace=${oneClient(150, 10)}`);

  await useConfig(page, fixture('two-zones.nginx.conf'));
  await waitForRow(page, 'nginx', 150);
  const read = await page.locator('[data-testid="config-read"]').innerText();
  assert.match(read, /nginx limit_req/);
  assert.match(read, /"api"/, 'the zone its location uses sets the row');
  assert.match(await page.locator('[data-testid="config-notes"]').innerText(), /login/, 'the other zone is named');
  // rate=10r/s burst=20 nodelay, whatever the lab's limit: the first request and the 22 the
  // burst holds, then one each time a whole request has leaked (every 100 ms) from 300 ms on.
  const nginx = await rowFigures(page, 'nginx');
  assert.deepEqual([nginx.allowed, nginx.rejected], [35, 115]);
  const nginxLabel = page.locator('.row-label[data-row="nginx"] .row-summary');
  assert.match(await nginxLabel.innerText(), /api: rate=10r\/s burst=20 nodelay/, "the row's line names the zone");
  assert.equal((await rowFigures(page, 'fixed')).allowed, 3, 'the rows already shown stay as they were');
  const params = new URL(page.url()).searchParams;
  assert.equal(params.get('nginx-rate'), '10r/s');
  assert.equal(params.get('nginx-burst'), '20');
  assert.equal(params.get('nginx-delay'), 'nodelay');
  assert.equal(params.get('nginx-status'), '429');
  assert.match(params.get('algos'), /nginx/);

  await useConfig(page, fixture('express-options.js'));
  await waitForRow(page, 'express-rate-limit', 150);
  assert.match(await page.locator('[data-testid="config-read"]').innerText(), /express-rate-limit/);
  // 100 per 15 minutes: the first 100 through, the other 50 refused.
  const express = await rowFigures(page, 'express-rate-limit');
  assert.deepEqual([express.allowed, express.rejected], [100, 50]);
  assert.equal((await rowFigures(page, 'nginx')).allowed, 35, 'the nginx row keeps its config');
  assert.match(await nginxLabel.innerText(), /api: rate=10r\/s/, 'and its line still names its zone');
  assert.match(await page.locator('.row-label[data-row="express-rate-limit"] .row-summary').innerText(), /apiLimiter/);
  await page.locator('[data-testid="config-panel"]').screenshot({ path: `${SCREENSHOT_DIR}/config-panel.png` });
  await page.locator('section.timelines').screenshot({ path: `${SCREENSHOT_DIR}/config-rows.png` });

  // The link carries the settings; the pasted text lasts only while the page is open.
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  await waitForRow(page, 'express-rate-limit', 150);
  assert.equal((await rowFigures(page, 'nginx')).allowed, 35);
  assert.equal((await rowFigures(page, 'express-rate-limit')).allowed, 100);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an unreadable config is named by its line and why, and nothing changes', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=3&window=7&algos=fixed');
  await openConfig(page);
  const before = page.url();
  await useConfig(page, 'http {\n    limit_req_zone $binary_remote_addr zone=one:10m;\n}\n');
  const error = await page.locator('[data-testid="config-error"]').innerText();
  assert.match(error, /line 2/);
  assert.match(error, /rate=/);
  assert.equal(page.url(), before, 'nothing changed');
  await useConfig(page, 'hello');
  assert.match(await page.locator('[data-testid="config-error"]').innerText(), /no config the lab reads/);
  assert.equal(await page.locator('[data-testid="stats-nginx"]').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a phone the panel fits the screen and reads a config as on a wide one', async () => {
  const { page, context, problems } = await openPage(shared.browser, { width: 390, height: 844 });
  await gotoLab(page, `limit=3&window=7&algos=fixed&trace=${oneClient(150, 10)}`);
  await useConfig(page, fixture('two-zones.nginx.conf'));
  await waitForRow(page, 'nginx', 150);
  assert.equal((await rowFigures(page, 'nginx')).allowed, 35);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `nothing wider than the screen (${overflow} px over)`);
  const box = await page.locator('[data-testid="config-text"]').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, 'the box fits the screen');
  await page.locator('[data-testid="config-panel"]').screenshot({ path: `${SCREENSHOT_DIR}/config-panel-phone.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a config dropped on the page is read as a config, not as traffic', async () => {
  const { page, context, problems } = await openPage(shared.browser);
  await gotoLab(page, `limit=3&window=7&algos=fixed&trace=${oneClient(150, 10)}`);
  await openConfig(page);
  const transfer = await page.evaluateHandle((t) => {
    const data = new DataTransfer();
    data.items.add(new File([t], 'nginx.conf', { type: 'text/plain' }));
    return data;
  }, fixture('two-zones.nginx.conf'));
  await page.dispatchEvent('[data-testid="timeline-canvas"]', 'drop', { dataTransfer: transfer });
  await waitForRow(page, 'nginx', 150);
  assert.equal((await rowFigures(page, 'nginx')).allowed, 35);
  assert.match(await page.locator('[data-testid="config-text"]').inputValue(), /limit_req_zone/, 'the box shows the file');
  assert.equal(await page.locator('[data-testid="import-ok"]').count(), 0, 'not read as traffic');
  assert.deepEqual(problems, []);
  await context.close();
});
