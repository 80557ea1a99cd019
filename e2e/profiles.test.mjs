// Library profiles on the page: each product gets its own row with the figures its
// documentation gives, the inspector shows the product's own reply beside the HTTP response, and
// the products' parameters live in the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR, rowFigures } from './helpers.mjs';

const shared = useBrowser();

const PRODUCTS = ['nginx', 'governor', 'redis-cell', 'upstash-fixed', 'upstash-sliding', 'upstash-token', 'envoy', 'cf-binding'];
// Twenty requests at once; nginx as in its docs (rate=1r/s burst=5) and redis-cell as in its
// README (CL.THROTTLE user123 15 30 60); every other product follows limit=5 per 10 s.
const BURST = Array(20).fill('0').join(',');
const QUERY = `limit=5&window=10&trace=${BURST}&algos=${PRODUCTS.join(',')}&nginx-rate=1r/s&nginx-burst=5&cell-burst=15&cell-count=30&cell-period=60`;

async function figures(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  const read = async (name) => Number(await row.getAttribute(`data-${name}`));
  return { passed: await read('allowed'), delayed: await read('delayed'), rejected: await read('rejected') };
}

test('each product gets its own row with the figures its documentation gives', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, QUERY);
  // nginx docs: with burst=5 and no nodelay, the first is served, five wait in the queue
  // (released one a second), the rest get 503.
  assert.deepEqual(await figures(page, 'nginx'), { passed: 6, delayed: 5, rejected: 14 });
  // redis-cell's limit is max_burst + 1: sixteen of twenty pass at once.
  assert.deepEqual(await figures(page, 'redis-cell'), { passed: 16, delayed: 0, rejected: 4 });
  // governor lets its whole burst (5) through at start.
  assert.deepEqual(await figures(page, 'governor'), { passed: 5, delayed: 0, rejected: 15 });
  for (const slug of ['upstash-fixed', 'upstash-sliding', 'upstash-token', 'envoy', 'cf-binding']) {
    assert.deepEqual(await figures(page, slug), { passed: 5, delayed: 0, rejected: 15 }, slug);
  }
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'profiles.png'), fullPage: true });
  await page.close();
});

test("the inspector shows each product's own reply under the response the product sends", async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, `${QUERY.replace(`algos=${PRODUCTS.join(',')}`, 'algos=fixed,nginx,redis-cell,upstash-fixed,cf-binding')}`);
  await page.click('[data-testid="step"]');
  const reply = async (slug) => page.locator(`[data-testid="reply-${slug}"]`).innerText();
  // The response block holding a product's reply: its status, and the response text above it.
  const response = async (slug) => {
    const block = page.locator('.response', { has: page.locator(`[data-testid="reply-${slug}"]`) });
    return { status: await block.getAttribute('data-status'), text: (await block.locator('pre').first().innerText()).trim() };
  };
  // redis-cell's README: CL.THROTTLE user123 15 30 60 1 answers 0, 16, 15, -1, 2; then the key,
  // kept by Redis for the ttl in whole milliseconds.
  assert.equal(
    await reply('redis-cell'),
    'redis-cell CL.THROTTLE replies:\nlimited: 0\nlimit: 16\nremaining: 15\nretry_after: -1\nreset_after: 2\nkey in Redis: TAT stored with PX 2000, gone from 2.001 s',
  );
  // ... and the README's header names for the five integers.
  assert.deepEqual(await response('redis-cell'), {
    status: '200',
    text: 'HTTP/1.1 200 OK\nX-RateLimit-Limit: 16\nX-RateLimit-Remaining: 15\nX-RateLimit-Reset: 2',
  });
  assert.match(await reply('cf-binding'), /^Cloudflare binding replies:\nsuccess: true$/);
  assert.match(await reply('upstash-fixed'), /success: true\nlimit: 5\nremaining: 4\nreset: 10000/);
  assert.match(await reply('nginx'), /status: 200\nlimit_req_status: PASSED/);
  assert.equal(await page.locator('[data-testid="reply-fixed"]').count(), 0, 'a textbook algorithm has no product reply');
  await page.click('[data-testid="step"]');
  // The second request of the burst waits one second in nginx's queue.
  assert.match(await reply('nginx'), /limit_req_status: DELAYED[\s\S]*delay_ms: 1000/);
  for (let i = 0; i < 5; i++) await page.click('[data-testid="step"]');
  // The seventh is beyond rate + burst: rejected with limit_req_status's default 503, and nginx
  // sends that status with its own text and no Retry-After.
  assert.match(await reply('nginx'), /status: 503\nlimit_req_status: REJECTED/);
  assert.deepEqual(await response('nginx'), { status: '503', text: 'HTTP/1.1 503 Service Temporarily Unavailable' });
  // The binding answers only success: the seed's Worker sends 429 with its period as
  // Retry-After. Upstash's example sends a bare 429.
  assert.deepEqual(await response('cf-binding'), { status: '429', text: 'HTTP/1.1 429 Too Many Requests\nRetry-After: 10' });
  assert.deepEqual(await response('upstash-fixed'), { status: '429', text: 'HTTP/1.1 429 Too Many Requests' });
  const fixed = page.locator('.response', { hasText: 'Fixed window' });
  assert.match(await fixed.locator('pre').first().innerText(), /^HTTP\/1.1 429 Too Many Requests\nRetry-After: 10\nCache-Control: no-store/);
  await page.close();
});

// CL.THROTTLE k 0 3 1 1 at 1,700,000,000.000900 s stores PX 333: Redis forgets the key at
// ...334.000, before its arrival time ...334.233, and the same call at ...334.100 is allowed.
test('redis-cell forgets a key when Redis does, and the inspector says so', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=redis-cell&cell-burst=0&cell-count=3&cell-period=1&trace=1700000000.0009,1700000000.3341');
  const row = page.locator('[data-testid="stats-redis-cell"]');
  assert.deepEqual([await row.getAttribute('data-allowed'), await row.getAttribute('data-rejected')], ['2', '0']);
  await page.click('[data-testid="step"]');
  await page.click('[data-testid="step"]');
  assert.equal(
    await page.locator('[data-testid="reply-redis-cell"]').innerText(),
    'redis-cell CL.THROTTLE replies:\nlimited: 0\nlimit: 1\nremaining: 0\nretry_after: -1\nreset_after: 1\n' +
      'key expired: gone from 1700000000.334 s (PX 333 set at 1700000000 s): the command found no key and started fresh\n' +
      'key in Redis: TAT stored with PX 333, gone from 1700000000.668 s',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

// CL.THROTTLE k 15 30 60 1 at t, then CL.THROTTLE k 15 30 60 17 at t + 600 s: the key expired
// 2 s after t, so the second call meets a fresh key, and 17 is more than the 16 it holds.
test('redis-cell answers a request for 17 on an idle key as the module does: 1, 16, 16, -1, 0', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=redis-cell&cell-burst=15&cell-count=30&cell-period=60&trace=0@k,600*17@k');
  assert.match(page.url(), /trace=0@k,600\*17@k|trace=0%40k%2C600\*17%40k/, 'the cost stays in the link');
  await page.click('[data-testid="step"]');
  await page.click('[data-testid="step"]');
  const reply = await page.locator('[data-testid="reply-redis-cell"]').innerText();
  assert.match(reply, /^redis-cell CL\.THROTTLE replies:\nlimited: 1\nlimit: 16\nremaining: 16\nretry_after: -1\nreset_after: 0\n/);
  assert.match(reply, /key expired: gone from 2\.001 s/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a product field the product refuses is named on the page, and the rest applies', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'algos=cf-binding,envoy&cf-period=30&cf-limit=7&envoy-interval=0.01');
  const notices = await page.locator('[data-testid="notices"]').innerText();
  assert.match(notices, /cf-period="30": 10 or 60/);
  assert.equal(await page.locator('[data-testid="stats-cf-binding"]').count(), 1);
  // Envoy refuses a fill interval under 50 ms: the page says so instead of breaking.
  assert.match(await page.locator('body').innerText(), /50 ms/);
  assert.deepEqual(problems, []);
  await page.close();
});

/** The lab's module files this page loaded: `first`, `durable` or `complete`. */
async function modulesLoaded(page) {
  const names = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  return ['first', 'durable', 'complete'].filter((kind) => names.some((n) => n.includes(`/ratelab-${kind}-`) && n.endsWith('_bg.wasm')));
}

test('the first view loads the module without the products, and a product row the complete one', async () => {
  const { page, problems } = await openPage(shared.browser);
  for (const query of ['', 'do=0', 'algos=fixed,gcra,leaky-bucket', 'embed=0']) {
    await gotoLab(page, query);
    assert.deepEqual(await modulesLoaded(page), ['first'], `?${query}`);
  }
  // An embed gets the module its view needs, as any view, and leaves out the full page.
  for (const query of ['pattern=steady&embed=1', 'embed=1&controls=limit,algos&algos=fixed,gcra']) {
    await gotoLab(page, query);
    assert.deepEqual(await modulesLoaded(page), ['first'], `?${query}`);
    assert.equal(await page.locator('[data-testid="stats-gcra"]').count(), 1, `?${query}: the rows`);
    assert.equal(await page.locator('[data-testid="inspector"]').count(), 0, `?${query}: no inspector`);
  }
  // An embed that needs another module gets that one, which has the full page and leaves it out.
  await gotoLab(page, 'embed=1&algos=fixed,nginx');
  assert.deepEqual(await modulesLoaded(page), ['complete'], 'an embed with a product row');
  assert.equal(await page.locator('[data-testid="stats-nginx"]').count(), 1, 'an embed with a product row');
  // The Durable Object's views get the first module's with the Durable Object lab.
  for (const query of ['do=1', 'do=1&embed=1&pattern=steady', 'do=1&from=fra&home=gru&timeout=250']) {
    await gotoLab(page, query);
    assert.deepEqual(await modulesLoaded(page), ['durable'], `?${query}`);
    assert.equal(await page.locator('[data-testid="stats-do"]').count(), 1, `?${query}: the Durable Object's row`);
  }
  await gotoLab(page, 'do=1&algos=fixed,nginx');
  assert.deepEqual(await modulesLoaded(page), ['complete'], 'a product row with the Durable Object');
  for (const product of ['nginx', 'governor', 'redis-cell', 'upstash-fixed', 'upstash-sliding', 'upstash-token', 'envoy',
    'cf-binding', 'x-time-rate', 'express-rate-limit', 'limits-fixed', 'limits-moving', 'limits-sliding', 'dotnet-fixed', 'dotnet-sliding', 'dotnet-token', 'guava']) {
    await gotoLab(page, `algos=fixed,${product}`);
    assert.deepEqual(await modulesLoaded(page), ['complete'], product);
    assert.equal(await page.locator(`[data-testid="stats-${product}"]`).count(), 1, product);
  }
  // A link that sets a rule (copies, a second limit, the counting rules) gets the complete one.
  for (const rule of ['instances=2', 'spread=key', 'also=2/1', 'fixed-align=first', 'count-refused=1']) {
    await gotoLab(page, rule);
    assert.deepEqual(await modulesLoaded(page), ['complete'], rule);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('opening the rules on a first view brings the complete module in place, the section open', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=7');
  assert.deepEqual(await modulesLoaded(page), ['first']);
  await page.locator('[data-testid="counting-controls"] summary').click();
  await page.locator('[data-testid="counting-controls"][open] [data-testid="spread"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
  assert.deepEqual(await modulesLoaded(page), ['first', 'complete']);
  assert.match(page.url(), /limit=7/, 'the view is kept');
  // The request to open it is used once: a reload of this view opens the first module again.
  await gotoLab(page, 'limit=7');
  assert.deepEqual(await modulesLoaded(page), ['first']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a scenario or the Durable Object row chosen on the first view brings the Durable Object lab in place', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'limit=7');
  assert.deepEqual(await modulesLoaded(page), ['first']);
  await page.locator('[data-testid="do-toggle"]').check();
  await page.waitForURL(/do=1/);
  await page.locator('[data-testid="latency-canvas"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
  assert.deepEqual(await modulesLoaded(page), ['first', 'durable']);
  assert.match(page.url(), /limit=7/, 'the rest of the view is kept');
  assert.equal(await page.locator('[data-testid="do-toggle"]').isChecked(), true);
  // A scenario chosen on the first view opens with its lesson, and Back returns to the view before it.
  await gotoLab(page, 'limit=7');
  await page.click('[data-testid="scenario-far-object"]');
  await page.waitForURL(/home=gru/);
  await page.locator('[data-testid="scenario-text"]').waitFor({ timeout: 15000 });
  assert.deepEqual(await modulesLoaded(page), ['first', 'durable']);
  assert.match(await page.locator('[data-testid="scenario-text"]').innerText(), /far-away object/i);
  await page.goBack();
  await page.waitForURL((url) => url.search.includes('limit=7') && !url.search.includes('do=1'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('ticking a product adds its row and puts it in the link', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&limit=7');
  assert.equal(await page.locator('[data-testid="stats-envoy"]').count(), 0, 'products are off by default');
  // Their list starts closed, its boxes built when it opens.
  assert.equal(await page.locator('[data-testid="toggle-envoy"]').count(), 0, 'no product box before the list opens');
  await page.locator('[data-testid="products-toggle"]').click();
  await page.locator('[data-testid="toggle-envoy"]').check();
  // The first view's module has no products: the page opens the same view with the complete one.
  await page.waitForURL(/algos=fixed,sliding-log,sliding-counter,token-bucket,gcra,leaky-bucket,envoy/);
  await page.locator('[data-testid="stats-envoy"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await modulesLoaded(page), ['first', 'complete']);
  assert.match(page.url(), /limit=7/, 'the rest of the view is kept');
  assert.equal(await page.locator('.products').evaluate((d) => d.open), true, 'a view with a product row opens the list');
  assert.equal(await page.locator('[data-testid="toggle-envoy"]').isChecked(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a product ticked in an embed brings the complete module in place, still an embed', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'embed=1&controls=algos,limit&pattern=edge&limit=7');
  assert.deepEqual(await modulesLoaded(page), ['first']);
  await page.locator('[data-testid="products-toggle"]').click();
  await page.locator('[data-testid="toggle-envoy"]').check();
  // The first module has no products: the page opens the same view with the complete one.
  await page.waitForURL(/envoy/);
  // An embed keeps the table's rows as data, hidden.
  await page.locator('[data-testid="stats-envoy"]').waitFor({ state: 'attached', timeout: 15000 });
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await modulesLoaded(page), ['first', 'complete']);
  assert.match(page.url(), /embed=1/, 'still an embed');
  assert.match(page.url(), /limit=7/, 'the rest of the view is kept');
  // The complete module leaves out what an embed never shows.
  assert.equal(await page.locator('[data-testid="inspector"]').count(), 0, 'no inspector');
  assert.equal(await page.locator('.page.embed').count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the added products decide their libraries\' own documented figures on the page', async () => {
  const { page, problems } = await openPage(shared.browser);
  const cases = [
    // rate_test.go TestLimiterBurst3 (golang/time v0.13): NewLimiter(10, 3) at t0: AllowN 2, 2, 1, 1.
    ['x-time-rate', 'xtime-rate=10&xtime-burst=3&trace=0*2,0*2,0,0', { allowed: 2, rejected: 2 }],
    // express-rate-limit 8.6's middleware test: limit 2, windowMs 50: 200, 200, 429, then 200 after 60 ms.
    ['express-rate-limit', 'express-limit=2&express-window=0.05&trace=0,0.001,0.002,0.062', { allowed: 3, rejected: 1 }],
    // limits 5.8's strategies docs: 100 per minute, 40 in the previous window and 80 in this one:
    // refused 30 s into the window, allowed at 40 s.
    ['limits-sliding', 'limits-amount=100&limits-per=minute&trace=0*40,90*80,90,100', { allowed: 3, rejected: 1 }],
    // The fixed window counts from the key's first hit; the moving window still holds a hit one
    // window old.
    ['limits-fixed', 'limits-amount=2&limits-per=second&trace=0,0.1,0.2,0.3,1.0', { allowed: 3, rejected: 2 }],
    ['limits-moving', 'limits-amount=2&limits-per=second&trace=0,0.1,0.2,0.3,1.0,1.1', { allowed: 3, rejected: 3 }],
    // RateLimiterTest.testOneSecondBurst (Guava): create(5.0), rested: 1, 1, 3, 1 pass, the next waits.
    ['guava', 'guava-rate=5&guava-burst=1&trace=2,2,2*3,2,2', { allowed: 4, rejected: 1 }],
    // FixedWindowRateLimiter, PermitLimit 2, Window 10 s, QueueLimit 1: the third waits for the
    // timer's first tick at 10 s, the fourth fails.
    ['dotnet-fixed', 'dotnet-limit=2&dotnet-window=10&dotnet-queue=1&trace=0,1,2,3', { allowed: 3, rejected: 1 }],
  ];
  for (const [slug, query, want] of cases) {
    await gotoLab(page, `algos=${slug}&${query}`);
    const got = await rowFigures(page, slug);
    assert.deepEqual({ allowed: got.allowed, rejected: got.rejected }, want, `${slug}: ${query}`);
  }
  // The queued .NET request is a delayed mark: served at the tick, 8 s after it came.
  await gotoLab(page, 'algos=dotnet-fixed&dotnet-limit=2&dotnet-window=10&dotnet-queue=1&trace=0,1,2,3');
  assert.equal(await page.locator('[data-testid="stats-dotnet-fixed"]').getAttribute('data-delayed'), '1');
  // The queue's order: oldest first, the third call finds the queue full; newest first, it evicts
  // the second and is served on the 1 s tick in its place.
  for (const [order, words] of [['oldest', ['allowed', 'delayed', 'rejected']], ['newest', ['allowed', 'rejected', 'delayed']]]) {
    await gotoLab(page, `algos=dotnet-fixed&dotnet-limit=1&dotnet-window=1&dotnet-queue=1&dotnet-order=${order}&trace=0,0.1,0.2`);
    await page.click('.decision-details summary');
    const cells = page.locator('[data-testid="decision-table"] tbody tr td:nth-child(4)');
    await cells.first().waitFor();
    assert.deepEqual(await cells.allTextContents(), words, order);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
