// A Durable Object scenario over a person's own traffic: the traffic stays (the lede counts the
// same requests), the scenario's note says so and quotes figures of that run, and one click
// gives the scenario with its own traffic. From the first view, whose module hands over to the
// lab's, the traffic travels in the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, openImport, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

const param = (page, name) => new URL(page.url()).searchParams.get(name);
/** Waits until the lede counts `n` requests. */
const ledeCounts = (page, n) =>
  page.waitForFunction(
    (n) => document.querySelector('[data-testid="lede"]')?.textContent.includes(`The same ${n} requests`),
    n,
    { timeout: 15000 },
  );

test('after an upload, the far-away object runs the uploaded requests, says so, and one click gives its steady preset', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page);
    await openImport(page);
    const times = Array.from({ length: 80 }, (_, i) => (i * 0.25).toString()).join('\n');
    await page.setInputFiles('[data-testid="import-file"]', { name: 'mine.txt', mimeType: 'text/plain', buffer: Buffer.from(times) });
    await ledeCounts(page, 80);

    await page.click('[data-testid="scenario-far-object"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('home') === 'gru');
    await ledeCounts(page, 80);
    assert.ok(param(page, 'trace')?.startsWith('0,0.25,0.5'), 'the link carries the uploaded requests');
    assert.equal(param(page, 'pattern'), null, 'not the steady preset');
    const kept = page.locator('[data-testid="scenario-kept-traffic"]');
    await kept.waitFor();
    assert.match(await kept.innerText(), /Your traffic stays: these figures are your 80 requests/);
    const text = await page.locator('[data-testid="scenario-text"]').innerText();
    assert.match(text, /195 ms round trip, more than the 120 ms timeout: 80 of 80 requests went through unmetered/, text);
    await page.locator('[data-testid="durable-lab"]').screenshot({ path: `${SCREENSHOT_DIR}/scenario-kept-traffic.png` });

    await page.click('[data-testid="scenario-own-traffic"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('pattern') === 'steady');
    await ledeCounts(page, 60);
    assert.equal(param(page, 'trace'), null);
    assert.equal(param(page, 'home'), 'gru');
    await kept.waitFor({ state: 'detached' });
    assert.match(await page.locator('[data-testid="scenario-text"]').innerText(), /60 of 60 requests went through unmetered/);

    await page.goBack();
    await ledeCounts(page, 80);
    await kept.waitFor();
    assert.equal(param(page, 'home'), 'gru', 'Back: the scenario over the uploaded requests');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("from the first view, a scenario brings the lab in place with the link's own trace", async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'trace=0,1,2,3,4,5,6,7,8,9');
    await ledeCounts(page, 10);
    await page.click('[data-testid="scenario-far-object"]');
    await page.locator('[data-testid="scenario-kept-traffic"]').waitFor({ timeout: 15000 });
    await ledeCounts(page, 10);
    assert.equal(param(page, 'trace'), '0,1,2,3,4,5,6,7,8,9');
    assert.match(await page.locator('[data-testid="scenario-text"]').innerText(), /10 of 10 requests went through unmetered/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
