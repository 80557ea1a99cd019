// The Durable Object lab: each of the seed's lessons as a one-click scenario, checked by its
// figures (not only that it loads), the lab's controls driving the URL, and dragging on the
// chart to schedule an outage. Screenshots of the lab at each scenario go to e2e/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, doRowFigures, rowFigures, openPage, gotoLab, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** Drags across the latency chart from one time to another (seconds on its axis). */
async function dragAcross(page, from, to) {
  const canvas = page.locator('[data-testid="latency-canvas"]');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  // Where the plot starts and ends (right of the latency axis's labels), as the chart says.
  const { plotLeft, plotRight, horizonUs } = JSON.parse(await canvas.getAttribute('data-axes'));
  const x = (seconds) => box.x + plotLeft + ((seconds * 1e6) / horizonUs) * (plotRight - plotLeft);
  await page.mouse.move(x(from), box.y + 50);
  await page.mouse.down();
  await page.mouse.move(x(to), box.y + 50, { steps: 5 });
  await page.mouse.up();
}

async function scenario(page, id) {
  await page.click(`[data-testid="scenario-${id}"]`);
  await page.waitForSelector('[data-testid="scenario-text"]');
  const text = await page.locator('[data-testid="scenario-text"]').innerText();
  await page.locator('[data-testid="durable-lab"]').screenshot({ path: `${SCREENSHOT_DIR}/lab-${id}.png` });
  return { text, row: await doRowFigures(page) };
}

test('the lab offers every scenario, and each shows its lesson in its figures', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page);

  let { text, row } = await scenario(page, 'far-object');
  assert.equal(row.degraded, 60, 'every call to Sao Paulo outlives the 120 ms timeout');
  assert.equal(row.late, 60, 'and the object still counted every one');
  assert.match(text, /195 ms round trip, more than the 120 ms timeout: 60 of 60/);
  assert.match(page.url(), /home=gru/);

  ({ text, row } = await scenario(page, 'hot-key'));
  assert.ok(row.p95 >= 120, `p95 ${row.p95} ms`);
  assert.ok(row.degraded > 10000, `${row.degraded} degraded`);
  assert.match(text, /its queue reached \d{4,}/);
  // Twice the allowed rate for six windows: a row that holds 20,000 a second refuses half.
  assert.match(text, / 240000 requests for one key, at 2 times the allowed rate/);
  assert.deepEqual(await rowFigures(page, 'fixed'), { allowed: 120000, rejected: 120000, maxInWindow: 20000 });

  ({ text, row } = await scenario(page, 'shard-by-key'));
  assert.equal(row.maxInWindow, 5, 'one tenant held to one shard: ceil(20 / 4) = 5 per window');
  assert.match(text, /4 shards of ceil\(20 \/ 4\) = 5/);
  assert.match(page.url(), /shards=seed/, "the sharding lessons use the seed's rule by prefix");
  ({ row } = await scenario(page, 'shard-by-request'));
  assert.ok(row.maxInWindow > 15 && row.maxInWindow <= 20, `spread per request: ${row.maxInWindow}`);
  assert.match(page.url(), /shard-by=request/);

  ({ text, row } = await scenario(page, 'eviction'));
  assert.equal(row.maxInWindow, 6, 'a free window after the eviction: 6 in a window of 5');
  await page.check('[data-testid="persist"]');
  await page.waitForURL((url) => !url.toString().includes('persist=0'));
  assert.equal((await doRowFigures(page)).maxInWindow, 5, 'persisted, the log comes back and the 6th is refused');

  ({ text } = await scenario(page, 'alarms'));
  const stored = Number(text.match(/at most (\d+) keys were stored at once, not 36/)[1]);
  assert.ok(stored > 0 && stored < 36, `stored keys stay bounded: ${stored}`);

  ({ text } = await scenario(page, 'cache'));
  const local = Number(text.match(/(\d+) of \d+ answers came from the Worker's own cache/)[1]);
  assert.ok(local > 100, `${local} answered without the hop`);

  // The await that breaks the limiter: the figures in its text are the row's own.
  ({ text, row } = await scenario(page, 'await-between'));
  assert.match(page.url(), /do-code=await-between/);
  const [, awaited, through, windowS, promised] = text
    .match(/awaits another service for (\d+) ms .* so (\d+) requests got through in one (\d+) s window that promised (\d+)\./)
    .map(Number);
  assert.deepEqual([awaited, windowS, promised], [20, 1, 10]);
  assert.equal(through, row.maxInWindow, 'the text quotes the row');
  assert.ok(row.maxInWindow > promised, `${row.maxInWindow} in one window against a limit of ${promised}`);
  assert.match(text, /Decide and write, then call out, or keep the check and the write in one storage transaction/);
  await gotoLab(page, new URL(page.url()).search.slice(1).replace('do-code=await-between', 'do-code=safe'));
  assert.equal((await doRowFigures(page)).maxInWindow, promised, "the seed's order never lets more than the limit through");

  ({ text, row } = await scenario(page, 'binding'));
  assert.equal(row.maxInWindow, 10, 'three locations, each its own window: 10 in a window of 5');
  assert.match(text, /from 3 locations/);
  assert.deepEqual(problems, []);
});

test('the lab controls drive the URL, and the URL drives the lab after a reload', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&shards=1');
  assert.equal((await doRowFigures(page)).degraded, 60);
  await page.locator('[data-testid="timeout-number"]').fill('300');
  await page.locator('[data-testid="timeout-number"]').press('Enter');
  await page.waitForURL(/timeout=300/);
  assert.equal((await doRowFigures(page)).degraded, 0);
  await page.selectOption('[data-testid="fail"]', 'closed');
  await page.waitForURL(/fail=closed/);
  await page.click('[data-testid="from-syd"]');
  await page.waitForURL(/from=fra,syd/);
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal(await page.locator('[data-testid="fail"]').inputValue(), 'closed');
  assert.equal(await page.locator('[data-testid="timeout-value"]').innerText(), '300 ms');
  // Sydney to Sao Paulo is 322 ms: past the 300 ms timeout, so Sydney's half fails closed.
  const row = await doRowFigures(page);
  assert.ok(row.rejected >= 30, `${row.rejected} refused: at least every Sydney request`);
  assert.equal(row.degraded, 0, 'fail closed lets nothing through unmetered');
});

test('dragging across the chart schedules an outage that degrades the requests inside it', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=1');
  assert.equal((await doRowFigures(page)).degraded, 0);
  await dragAcross(page, 20.05, 29.95);
  await page.waitForURL(/outage=/);
  assert.match(await page.locator('[data-testid="outage"]').innerText(), /Outage from 2\d(\.\d)? s to 29\.\d s/);
  const degraded = (await doRowFigures(page)).degraded;
  assert.ok(degraded >= 9 && degraded <= 10, `${degraded} degraded inside the outage`);
  await page.click('[data-testid="clear-outage"]');
  await page.waitForURL((url) => !url.toString().includes('outage='));
  assert.equal((await doRowFigures(page)).degraded, 0);
});

test('dragging can schedule a slow period or an eviction instead, and jitter moves the latencies', async () => {
  const { page } = await openPage(shared.browser);
  // Steady traffic from the object's own region: answers well inside the 120 ms timeout.
  await gotoLab(page, 'pattern=steady&do=1&from=iad&home=iad&shards=1&limit=100&window=10');
  assert.equal((await doRowFigures(page)).degraded, 0);
  // A slow period: each decision 250 ms longer, so every call inside it misses the 120 ms
  // timeout and is let through unmetered (fail open).
  await page.selectOption('[data-testid="drag-kind"]', 'slow');
  await dragAcross(page, 20.05, 29.95);
  await page.waitForURL(/slow=2\d(\.\d)?-29\.\d/);
  assert.match(await page.locator('[data-testid="outage"]').innerText(), /Slow from 2\d(\.\d)? s to 29\.\d s: every decision 250 ms longer/);
  const slowed = (await doRowFigures(page)).degraded;
  assert.ok(slowed >= 9 && slowed <= 10, `${slowed} degraded inside the slow period`);
  // An eviction at 40 s, with persistence off: the object forgets, and the request after it is
  // decided by a fresh object (the URL and the text say so; the figures are the simulation's).
  await page.selectOption('[data-testid="drag-kind"]', 'evict');
  await dragAcross(page, 40.05, 44);
  await page.waitForURL(/evict-at=40(\.\d)?/);
  assert.match(await page.locator('[data-testid="outage"]').innerText(), /Every object evicted at 40(\.\d)? s/);
  await page.click('[data-testid="clear-outage"]');
  await page.waitForURL((url) => !/slow=|evict-at=/.test(url.toString()));
  assert.equal((await doRowFigures(page)).degraded, 0);
  // Jitter: up to 100 ms extra on every hop pushes some answers past the timeout.
  const p95Before = (await doRowFigures(page)).p95;
  await page.locator('[data-testid="jitter-number"]').fill('100');
  await page.locator('[data-testid="jitter-number"]').press('Enter');
  await page.waitForURL(/jitter=100/);
  assert.equal(await page.locator('[data-testid="jitter-value"]').innerText(), 'up to 100 ms');
  const after = await doRowFigures(page);
  assert.ok(after.p95 > p95Before, `p95 ${p95Before} → ${after.p95} ms`);
  assert.ok(after.degraded > 0, 'some calls now miss the timeout');
  await page.close();
});
