// The Durable Object row (do=1), driven by its URL parameters: the figures on the page are the
// emulation's, for one object per key near its caller, a far object, a slow timeout, fail-closed
// routes, outages and sharding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, doRowFigures, rowFigures, openPage, gotoLab, foreignRequests, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

test('without do=1 there is no Durable Object row', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  assert.equal(await page.locator('[data-testid="stats-do"]').count(), 0);
});

test('a Frankfurt caller and a Sao Paulo object with a 120 ms timeout: every request degraded', async () => {
  const { page, problems, requests } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru');
  const row = await doRowFigures(page);
  assert.equal(row.degraded, 60);
  assert.equal(row.allowed, 60, 'fail open lets all 60 through unmetered');
  assert.equal(row.p95, 120, 'every call waits for the timeout');
  assert.equal(row.maxInWindow, 10, 'ten a window reach the application: twice the limit');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/durable-far-object.png`, fullPage: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(foreignRequests(requests), []);
});

test('the same call under fail=closed refuses everything', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&fail=closed');
  const row = await doRowFigures(page);
  assert.deepEqual([row.allowed, row.rejected, row.degraded], [0, 60, 0]);
});

test('a 300 ms timeout lets the far object answer: no degraded request', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&timeout=300&shards=1');
  const row = await doRowFigures(page);
  assert.equal(row.degraded, 0);
  assert.equal(row.allowed, 30, 'the sliding log decides, as in the explainer');
  assert.ok(row.p95 >= 195 && row.p95 <= 212, `p95 ${row.p95} ms`);
});

test('do=1 alone: one object per key, near the caller, allows exactly what the sliding log allows', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'do=1');
  const object = await doRowFigures(page);
  const log = await rowFigures(page, 'sliding-log');
  assert.deepEqual([object.allowed, object.rejected, object.maxInWindow], [log.allowed, log.rejected, log.maxInWindow]);
  assert.deepEqual([object.allowed, object.maxInWindow, object.degraded], [5, 5, 0]);
  assert.equal(await page.locator('.row-label[data-row="do"] .row-gauge').count(), 0, 'no sharding, nothing to say about it');
  assert.deepEqual(problems, []);
});

test("shards=seed brings back the seed's rule: one tenant key held to ceil(5 / 4) = 2 per window, and the row says why", async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'do=1&shards=seed');
  const seeded = await doRowFigures(page);
  assert.deepEqual([seeded.allowed, seeded.maxInWindow], [2, 2]);
  assert.equal(await page.locator('.row-label[data-row="do"] .row-gauge').innerText(), 'one of 4 shards: ceil(5 / 4) = 2');
  assert.match(
    await page.locator('[data-testid="stats-do"]').innerText(),
    /Sharded by key: all of a key's requests reach one shard, which allows ceil\(5 \/ 4\) = 2 per 10 s, not 5\./,
  );
  await page.screenshot({ path: `${SCREENSHOT_DIR}/durable-shards-seed.png`, fullPage: true });
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=seed');
  assert.equal((await doRowFigures(page)).allowed, 12);
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=4&shard-by=request');
  const spread = await doRowFigures(page);
  assert.ok(spread.allowed > 12, `spreading requests over the shards lets more through: ${spread.allowed}`);
});

test('an outage from 20 to 30 s degrades exactly the ten requests inside it, and survives a reload', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=1&outage=20-30');
  assert.equal((await doRowFigures(page)).degraded, 10);
  // The Durable Object fields stay in the URL when another setting changes, and survive a reload.
  await page.locator('[data-testid="limit-number"]').fill('4');
  await page.locator('[data-testid="limit-number"]').press('Enter');
  await page.waitForURL(/limit=4/);
  assert.match(page.url(), /outage=20-30/);
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal((await doRowFigures(page)).degraded, 10);
});

test('an outage, a slow period and an eviction can be typed as well as dragged, with a link\'s messages', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=1');
  assert.equal((await doRowFigures(page)).degraded, 0);
  const outage = page.locator('[data-testid="outage-number"]');
  await outage.focus();
  await page.keyboard.type('20-30');
  await page.keyboard.press('Enter');
  await page.waitForURL(/outage=20-30/);
  assert.equal((await doRowFigures(page)).degraded, 10, 'the same ten requests as the link\'s outage');
  assert.match(await page.locator('[data-testid="outage"]').innerText(), /20/);
  await page.locator('[data-testid="evict-at-number"]').fill('40');
  await page.locator('[data-testid="evict-at-number"]').press('Enter');
  await page.waitForURL(/evict-at=40/);
  await page.locator('[data-testid="slow-number"]').fill('9-3');
  await page.locator('[data-testid="slow-number"]').press('Enter');
  await page.locator('[data-testid="notice"]').first().waitFor();
  assert.match(await page.locator('[data-testid="notice"]').first().innerText(), /^slow=/);
  assert.ok(!page.url().includes('slow='), 'a refused period changes nothing');
  assert.deepEqual(problems, []);
});

test('bad Durable Object values each show a message and the row still runs', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=mars&timeout=abc&outage=9-3');
  const notices = await page.locator('[data-testid="notice"]').allInnerTexts();
  assert.equal(notices.length, 3);
  assert.match(notices.join(' '), /mars/);
  assert.equal(await page.locator('[data-testid="stats-do"]').count(), 1);
  assert.deepEqual(problems, []);
});

test('do-code=await-between lets more than the limit into one window, do-code=safe never does, and the link keeps it', async () => {
  const { page, problems } = await openPage(shared.browser);
  const lesson = 'limit=10&window=1&pattern=burst-trickle&do=1&shards=1';
  await gotoLab(page, `${lesson}&do-code=await-between`);
  const racing = await doRowFigures(page);
  assert.ok(racing.maxInWindow > 10, `${racing.maxInWindow} in one window against a limit of 10`);
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.match(page.url(), /do-code=await-between/);
  assert.equal((await doRowFigures(page)).maxInWindow, racing.maxInWindow);
  await gotoLab(page, `${lesson}&do-code=safe`);
  assert.equal((await doRowFigures(page)).maxInWindow, 10);
  // The default 5 per 10 s sends the burst 100 ms apart: a 20 ms await never overlaps two calls.
  await gotoLab(page, 'do=1&shards=1&pattern=burst-trickle&do-code=await-between');
  assert.equal((await doRowFigures(page)).maxInWindow, 5);
  assert.deepEqual(problems, []);
});
