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
  // Three calls in, the table's row says what had happened by then; its data- attributes keep
  // the whole run's.
  for (let i = 0; i < 3; i += 1) await page.click('[data-testid="step"]');
  const cells = page.locator('[data-testid="stats-do"]');
  assert.equal(await cells.locator('td[data-label="Rejected"]').innerText(), '3');
  assert.match(await cells.locator('.verdict').innerText(), /^0 let through unmetered \(degraded\), 3 refused because the object did not answer, by [0-9.]+ m?s; p95 latency of the whole run \d+ ms\./);
  assert.deepEqual(await doRowFigures(page), row);
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

/** The Durable Object chart's labels and plot edges, as it writes them on its canvas. */
async function chartAxes(page) {
  return JSON.parse(await page.locator('[data-testid="latency-canvas"]').getAttribute('data-axes'));
}

/**
 * Pixels of the chart's canvas inside a rectangle (device pixels, which are CSS pixels here):
 * how many differ from the background (its top-left pixel), and how many are near `colour`.
 */
async function pixels(page, [x0, y0, x1, y1], colour = [0, 0, 0]) {
  return page.locator('[data-testid="latency-canvas"]').evaluate((c, [box, colour]) => {
    const [x0, y0, x1, y1] = box.map(Math.round);
    const ctx = c.getContext('2d');
    const bg = ctx.getImageData(0, 0, 1, 1).data;
    const d = ctx.getImageData(x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)).data;
    const far = (i, [r, g, b]) => Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b);
    let ink = 0;
    let near = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (far(i, bg) > 60) ink++;
      if (far(i, colour) < 60) near++;
    }
    return { ink, near };
  }, [[x0, y0, x1, y1], colour]);
}

test('the Durable Object chart labels its latency axis in ms, the timeout with its setting and each strip with its scale, and its legend names every mark', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&shards=1&timeout=250&theme=light');
  const axes = await chartAxes(page);
  assert.deepEqual(axes.latencyTicks, ['0', '100', '200', '300']);
  assert.equal(axes.timeoutLabel, 'timeout 250 ms');
  assert.deepEqual(axes.queueScale, ['0', '1']);
  assert.deepEqual(axes.storedScale, ['0', '1']);
  assert.deepEqual(axes.timeTicks, ['0', '10 s', '20 s', '30 s', '40 s', '50 s', '60 s']);
  // The labels are drawn: ink left of the plot where the axis's labels are, and above the
  // timeout line's right end where its label is.
  assert.ok((await pixels(page, [8, 20, axes.plotLeft - 20, 220])).ink > 100, 'the latency axis is written');
  const label = [axes.plotRight - 90, axes.timeoutY - 20, axes.plotRight, axes.timeoutY - 6];
  assert.ok((await pixels(page, label)).ink > 80, 'the timeout is labelled');
  // The label follows the setting.
  await page.locator('[data-testid="timeout-number"]').fill('300');
  await page.locator('[data-testid="timeout-number"]').press('Enter');
  await page.waitForURL(/timeout=300/);
  await page.waitForFunction(() => JSON.parse(document.querySelector('[data-testid="latency-canvas"]').dataset.axes).timeoutLabel === 'timeout 300 ms');
  const legend = await page.locator('[data-testid="do-legend"] li').allInnerTexts();
  for (const entry of [/allowed/, /rejected/, /fail open/, /fail closed/, /timeout/, /queue/, /stored keys/, /outage/, /slow period/, /eviction/]) {
    assert.ok(legend.some((l) => entry.test(l)), `the legend names ${entry}: ${legend.join(' | ')}`);
  }
  await page.locator('.latency').screenshot({ path: `${SCREENSHOT_DIR}/durable-chart-axes.png` });
  assert.deepEqual(problems, []);
});

test('fail-open marks on the timeout line stay visible: drawn over it, in their own colour, the line kept out of them', async () => {
  for (const theme of ['light', 'dark']) {
    const { page, problems } = await openPage(shared.browser);
    // Every call outlives the 120 ms timeout: 60 fail-open answers, all on the timeout line.
    await gotoLab(page, `pattern=steady&do=1&from=fra&home=gru&shards=1&theme=${theme}`);
    const axes = await chartAxes(page);
    assert.equal(axes.failOpen, 60, 'one mark per answer, a second apart');
    const amber = theme === 'light' ? [230, 159, 0] : [240, 190, 60];
    const y = axes.timeoutY;
    for (let t = 0; t < 60; t++) {
      const x = axes.plotLeft + ((t * 1e6) / axes.horizonUs) * (axes.plotRight - axes.plotLeft);
      const ring = await pixels(page, [x - 6, y - 6, x + 7, y + 7], amber);
      assert.ok(ring.near >= 8, `the ring at ${t} s shows in its colour (${ring.near} px)`);
      const inside = await pixels(page, [x - 2, y - 2, x + 3, y + 3]);
      assert.equal(inside.ink, 0, `the timeout line does not run through the ring at ${t} s`);
    }
    await page.locator('.latency').screenshot({ path: `${SCREENSHOT_DIR}/durable-chart-fail-open-${theme}.png` });
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});

test('the readout reads the request under the pointer, and the keyboard walks the requests in the order sent', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&shards=1');
  const readout = page.locator('[data-testid="do-readout"]');
  assert.match(await readout.innerText(), /^Point at a mark/);
  const canvas = page.locator('[data-testid="latency-canvas"]');
  await canvas.scrollIntoViewIfNeeded();
  const axes = await chartAxes(page);
  const at = (seconds) => axes.plotLeft + ((seconds * 1e6) / axes.horizonUs) * (axes.plotRight - axes.plotLeft);
  await canvas.hover({ position: { x: at(20) + 2, y: axes.timeoutY + 1 } });
  await page.waitForFunction(() => /Request 21 of 60/.test(document.querySelector('[data-testid="do-readout"]').textContent));
  assert.match(
    await readout.innerText(),
    /^Request 21 of 60, key .+, from Frankfurt: sent at 20 s, answered after 120 ms, no answer within the timeout, let through unmetered \(fail open\); the object decided it after the Worker gave up\.$/,
  );
  const focus = [204, 121, 167];
  const ring = [at(20) - 12, axes.timeoutY - 12, at(20) + 12, axes.timeoutY + 12];
  assert.ok((await pixels(page, ring, focus)).near > 10, 'a ring marks the request read');
  // Away from every mark, the readout says how to read one.
  await canvas.hover({ position: { x: at(20), y: axes.timeoutY + 80 } });
  await page.waitForFunction(() => /^Point at a mark/.test(document.querySelector('[data-testid="do-readout"]').textContent));
  // By keyboard: the chart takes the focus, and the arrow keys walk from request to request.
  await canvas.focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await readout.innerText(), /^Request 1 of 60, .*sent at 0 s, answered after 120 ms/);
  await page.keyboard.press('ArrowRight');
  assert.match(await readout.innerText(), /^Request 2 of 60, .*sent at 1 s/);
  await page.keyboard.press('End');
  assert.match(await readout.innerText(), /^Request 60 of 60, .*sent at 59 s/);
  await page.keyboard.press('ArrowRight');
  assert.match(await readout.innerText(), /^Request 60 of 60/, 'the last stays the last');
  await page.keyboard.press('ArrowLeft');
  assert.match(await readout.innerText(), /^Request 59 of 60, .*sent at 58 s/);
  await page.locator('.latency').screenshot({ path: `${SCREENSHOT_DIR}/durable-chart-readout.png` });
  await page.keyboard.press('Escape');
  assert.match(await readout.innerText(), /^Point at a mark/);
  assert.equal((await pixels(page, [axes.plotLeft - 12, 0, axes.plotRight + 12, 400], focus)).near, 0, 'and no ring');
  assert.deepEqual(problems, []);
});

test('an outage is scheduled by keyboard as by dragging: Enter at one request, Enter at another; Delete removes it', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=1');
  const readout = page.locator('[data-testid="do-readout"]');
  const canvas = page.locator('[data-testid="latency-canvas"]');
  await canvas.focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  assert.match(await readout.innerText(), /sent at 20 s/);
  await page.keyboard.press('Enter');
  assert.match(await readout.innerText(), /^From 20 s: walk to where it ends and press Enter\. Request 21 of 60/);
  assert.ok(!page.url().includes('outage='), 'nothing scheduled before its end is chosen');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForURL(/outage=20-30/);
  assert.equal((await doRowFigures(page)).degraded, 10, 'the same ten requests as a link\'s outage=20-30');
  assert.match(await readout.innerText(), /^Request 31 of 60/, 'the drag is over');
  const said = page.locator('[data-testid="outage"]');
  assert.match(await said.innerText(), /^Outage from 20 s to 30 s/);
  assert.equal(await said.getAttribute('aria-live'), 'polite', 'the scheduled fault is read out as it changes');
  // Either way round, as a drag: from 35 s back to 25 s moves it.
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  await page.waitForURL(/outage=25-35/);
  await page.locator('.latency').screenshot({ path: `${SCREENSHOT_DIR}/durable-chart-keyboard-outage.png` });
  // Escape drops a drag under way; Delete removes the chosen fault.
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  assert.match(await readout.innerText(), /^Point at a mark/);
  await page.keyboard.press('Delete');
  await page.waitForURL((url) => !url.toString().includes('outage='));
  // An eviction, chosen in the menu, is a moment: one Enter schedules it.
  await page.selectOption('[data-testid="drag-kind"]', 'evict');
  await canvas.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.waitForURL(/evict-at=59(&|$)/);
  assert.match(await said.innerText(), /Every object evicted at 59 s/);
  assert.deepEqual(problems, []);
});
