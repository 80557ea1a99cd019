// Nothing leaves the browser and no input breaks the page: the Content-Security-Policy holds
// with no violation, no request goes to another origin, the embed works in an iframe sandboxed
// with allow-scripts only, and fifty malformed links each load with a message and no error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { useBrowser, openPage, gotoLab, rowFigures, BASE_URL, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** A page that also records every Content-Security-Policy violation. */
async function watchedPage() {
  const opened = await openPage(shared.browser);
  await opened.page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return opened;
}

test('the built page carries a strict Content-Security-Policy, and nothing violates it', async () => {
  const { page, requests } = await watchedPage();
  await gotoLab(page, 'pattern=edge&do=1');
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  assert.doesNotMatch(policy, /unsafe-inline/);
  // The stylesheet is inline (index.html), allowed by its hash alone, and it applies.
  assert.match(policy, /style-src 'sha256-[A-Za-z0-9+/=]+';/);
  assert.equal(await page.evaluate(() => document.querySelectorAll('style').length), 1);
  assert.match(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--size-tiny')), /0?\.75rem/);
  assert.deepEqual(requests.filter((u) => new URL(u, BASE_URL).pathname.endsWith('.css')), []);
  // Exercise the page: every preset, the lab, the inspector, playback.
  for (const preset of ['steady', 'double', 'several-keys', 'poisson']) {
    await page.selectOption('[data-testid="pattern-select"]', preset);
  }
  await page.click('[data-testid="scenario-hot-key"]');
  await page.click('[data-testid="step"]');
  await page.click('[data-testid="play"]');
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  const origin = new URL(BASE_URL).origin;
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:')), []);
});

test('the embed works inside an iframe sandboxed with allow-scripts only', async () => {
  const site = process.env.SITE_DIR;
  assert.ok(site, 'SITE_DIR is set by scripts/e2e.sh');
  writeFileSync(
    `${site}/sandbox-host.html`,
    '<!DOCTYPE html><meta charset="utf-8"><link rel="icon" href="data:,"><title>Docs page</title><h1>Docs</h1>' +
      '<iframe sandbox="allow-scripts" width="900" height="480" src="sub/path/ratelab/?pattern=edge&embed=1"></iframe>',
  );
  const { page, problems } = await openPage(shared.browser, { width: 1000, height: 700 });
  await page.goto(new URL('../../../sandbox-host.html', BASE_URL).toString());
  const frame = page.frameLocator('iframe');
  await frame.locator('body[data-complete="true"]').waitFor({ timeout: 15000 });
  assert.equal(await frame.locator('[data-testid="stats-fixed"]').getAttribute('data-allowed'), '10');
  assert.ok(await frame.locator('[data-testid="timeline-canvas"]').isVisible());
  // Its controls work inside the sandbox, and it never reached out of its frame.
  await frame.locator('[data-testid="step"]').click();
  assert.equal(await page.title(), 'Docs page');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-sandboxed.png` });
  assert.deepEqual(problems, []);
});

const MALFORMED = [
  'limit=0', 'limit=-1', 'limit=abc', 'limit=1e9', 'limit=99999999999999999999999', 'limit=', 'limit=5.5',
  'window=0', 'window=-3', 'window=abc', 'window=NaN', 'window=Infinity', 'window=1e3', 'window=0.0000001',
  'window=999999999', 'window=--1', `window=${'-'.repeat(5000)}1`, 'pattern=zigzag', 'pattern=', 'pattern=trace',
  'trace=', 'trace=,,,', 'trace=1,2,x', 'trace=-1', 'trace=NaN', 'trace=1@', 'trace=1@%00key', `trace=${'9,'.repeat(3000)}x`,
  'algos=', 'algos=bogus', 'algos=,,', 'do=2', 'do=1&from=mars', 'do=1&home=', 'do=1&timeout=0', 'do=1&timeout=-5',
  'do=1&fail=maybe', 'do=1&service=0', 'do=1&outage=30-20', 'do=1&outage=x', 'do=1&shards=0', 'do=1&shards=1000',
  'do=1&shard-by=x', 'do=1&placement=y', 'do=1&seed=-1', 'do=1&tier=binding&period=30', 'capacity=0&refill=-2',
  'leak-delay=99&leak-burst=x', 'theme=neon&embed=2', '%E0%A4%A=1&limit=%zz',
];

test(`${MALFORMED.length} malformed links each load with a message and no page error`, async () => {
  assert.equal(MALFORMED.length, 50);
  const { page, problems } = await openPage(shared.browser);
  for (const query of MALFORMED) {
    await gotoLab(page, query);
    const notices = await page.locator('[data-testid="notice"]').count();
    assert.ok(notices >= 1, `a message for ${query.slice(0, 60)}`);
    assert.ok((await rowFigures(page, 'sliding-log')).allowed >= 0, `the page works for ${query.slice(0, 60)}`);
    assert.equal(await page.locator('[data-testid="fatal-error"]').count(), 0);
  }
  assert.deepEqual(problems, []);
});

test('slider extremes load and compute: limit 1 and 1,000,000, window 1 ms and 1 day', async () => {
  const { page, problems } = await openPage(shared.browser);
  for (const [query, expectation] of [
    ['limit=1&pattern=steady', (f) => f.allowed === 6],
    ['limit=1000000&pattern=steady', (f) => f.allowed === 60],
    ['window=0.001&pattern=steady', (f) => f.allowed === 60],
    ['window=86400&pattern=steady', (f) => f.allowed === 5],
  ]) {
    await gotoLab(page, query);
    const figures = await rowFigures(page, 'sliding-log');
    assert.ok(expectation(figures), `${query}: ${JSON.stringify(figures)}`);
    assert.equal(await page.locator('[data-testid="notice"]').count(), 0, query);
  }
  assert.deepEqual(problems, []);
});
