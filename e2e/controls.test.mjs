// Values a person sets are never thrown away: every slider's scale covers every value a link or a
// scenario can set (logarithmic: 5 and 20,000 both sit on the limit's), a press of an arrow key
// moves a value to its neighbour, and each slider has a number field beside it that takes a
// typed value with the same checks and messages as a link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, rowFigures, SCREENSHOT_DIR } from './helpers.mjs';

/** Opens the tuning panel and waits for its controls, which are built as it opens. */
async function openTuning(page) {
  await page.locator('.tuning summary', { hasText: 'Tune single algorithms' }).click();
  await page.locator('[data-testid="tune-token-bucket"]').waitFor();
}

const shared = useBrowser();
const param = (page, name) => Number(new URL(page.url()).searchParams.get(name));

async function pressOn(page, testid, key) {
  const before = page.url();
  await page.focus(`[data-testid="${testid}"]`);
  await page.keyboard.press(key);
  await page.waitForFunction((url) => location.href !== url, before);
}

test('after the hot-key scenario, one press of Left takes the limit of 20,000 to its neighbour, not to 99', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'do=1');
    await page.waitForSelector('body[data-complete="true"]');
    await page.click('[data-testid="scenario-hot-key"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('limit') === '20000');
    await pressOn(page, 'limit-slider', 'ArrowLeft');
    const limit = param(page, 'limit');
    assert.ok(limit >= 19500 && limit < 20000, `limit ${limit}`);
    assert.equal(await page.locator('[data-testid="limit-number"]').inputValue(), String(limit));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('at an hour and 1,000 requests, one press of Left takes the window to its neighbour, not to 119.9 s', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'window=3600&limit=1000');
    await pressOn(page, 'window-slider', 'ArrowLeft');
    const window = param(page, 'window');
    assert.ok(window >= 3500 && window < 3600, `window ${window}`);
    assert.equal(param(page, 'limit'), 1000, 'the limit was not moved, so it stays');
    await pressOn(page, 'limit-slider', 'ArrowRight');
    assert.ok(param(page, 'limit') > 1000 && param(page, 'limit') < 1030);
    assert.ok(param(page, 'window') === window, 'the window was not moved, so it stays');
    // A small limit moves by one at each press.
    await gotoLab(page, 'limit=5');
    await pressOn(page, 'limit-slider', 'ArrowLeft');
    assert.equal(param(page, 'limit'), 4);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a number typed beside a slider sets it, and a refused one says why as a link would', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady');
    const limit = page.locator('[data-testid="limit-number"]');
    await limit.fill('250');
    await limit.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('limit') === '250');
    assert.equal(await page.locator('[data-testid="limit-value"]').textContent(), '250 requests');
    const window = page.locator('[data-testid="window-number"]');
    await window.fill('0.25');
    await window.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('window') === '0.25');
    assert.equal(await page.locator('[data-testid="window-value"]').textContent(), '0.25 s');

    await limit.fill('0');
    await limit.press('Enter');
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    assert.match(await notice.textContent(), /^limit="0": the limit must be at least 1 request; keeping 250\.$/);
    assert.equal(param(page, 'limit'), 250, 'the refused value changed nothing');
    assert.equal(await limit.inputValue(), '250', 'the field shows the value in force again');
    await page.locator('.scaled').first().screenshot({ path: `${SCREENSHOT_DIR}/controls-number-field.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('with the limit at 100, a typed 0 is refused with the value kept, and the page keeps 100', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'limit=100');
    const limit = page.locator('[data-testid="limit-number"]');
    await limit.fill('0');
    await limit.press('Enter');
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    const text = await notice.textContent();
    assert.match(text, /keeping 100\.$/, text);
    assert.doesNotMatch(text, /default/, 'no default the page does not use');
    assert.equal(param(page, 'limit'), 100);
    assert.equal(await limit.inputValue(), '100');
    assert.equal(await page.locator('[data-testid="limit-value"]').textContent(), '100 requests');
    assert.match(await page.locator('[data-testid="lede"]').textContent(), /at most 100 requests per/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// Every other slider, with a link's values beyond its scale of old (capacity and bursts to 200,
// refill to 50 a second, timeout to a second, service to 5 ms, jitter to 100 ms, eviction to 300 s,
// shards to 16).
const BEYOND_THE_OLD_SCALES = [
  ['capacity', '5000'],
  ['refill', '1000'],
  ['burst', '3000'],
  ['leak-burst', '2000'],
  ['leak-delay', '1000'],
  ['timeout', '5000'],
  ['service', '50'],
  ['jitter', '500'],
  ['evict', '3600'],
  ['shards', '40'],
];

test('every slider holds a link value beyond its old range: one press of Left takes it to a neighbour, and its number box shows it', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    const query = BEYOND_THE_OLD_SCALES.map(([name, value]) => `${name}=${value}`).join('&');
    await gotoLab(page, `pattern=steady&do=1&${query}`);
    await openTuning(page);
    const moved = {};
    for (const [name, value] of BEYOND_THE_OLD_SCALES) {
      const given = Number(value);
      assert.equal(await page.locator(`[data-testid="${name}-number"]`).inputValue(), value, `${name} as linked`);
      await pressOn(page, `${name}-slider`, 'ArrowLeft');
      const now = param(page, name);
      assert.ok(now < given && now >= given * 0.95, `${name}: ${given} → ${now}`);
      const written = new URL(page.url()).searchParams.get(name);
      assert.equal(await page.locator(`[data-testid="${name}-number"]`).inputValue(), written, `${name}'s box`);
      moved[name] = written;
    }
    // Each press moved its own slider's value only.
    for (const [name] of BEYOND_THE_OLD_SCALES) {
      assert.equal(new URL(page.url()).searchParams.get(name), moved[name], `${name} kept`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("a number typed into any slider's box sets the value it shows, and zero and the words a link takes are typed too", async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&do=1');
    await openTuning(page);
    for (const [name, typed, shown] of [
      ['capacity', '7500', '7500 tokens'],
      ['refill', '250', '250 tokens/s'],
      ['burst', '4000', '4000 requests'],
      ['leak-burst', '3000', '3000 requests ahead of the rate'],
      ['leak-delay', '1200', '1200, the rest wait'],
      ['leak-delay', 'nodelay', 'all (nodelay)'],
      ['leak-burst', '0', '0 requests ahead of the rate'],
      ['timeout', '2500', '2500 ms'],
      ['service', '12.5', '12.5 ms (80 a second at best)'],
      ['jitter', '0', 'none'],
      ['jitter', '0.25', 'up to 0.25 ms'],
      ['evict', '7200', '7200 s'],
      ['shards', '48', '48'],
      ['shards', 'seed', "the seed's rule by prefix (ip: 1, global: 16, others 4)"],
    ]) {
      const box = page.locator(`[data-testid="${name}-number"]`);
      await box.fill(typed);
      await box.press('Enter');
      await page.waitForFunction(
        ([id, text]) => document.querySelector(`[data-testid="${id}-value"]`)?.textContent === text,
        [name, shown],
      );
      assert.equal(await box.inputValue(), typed, `${name}'s box keeps ${typed}`);
    }
    const timeout = page.locator('[data-testid="timeout-number"]');
    await timeout.fill('60001');
    await timeout.press('Enter');
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    assert.match(await notice.textContent(), /^timeout="60001": the timeout is in milliseconds, 1 to 60000/);
    assert.equal(await timeout.inputValue(), '2500', 'the refused value changed nothing');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("each shown product's parameters can be set on the page, with a link's checks, and emptied to follow the lab again", async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'algos=fixed,nginx,express-rate-limit&pattern=edge');
    await openTuning(page);
    // The fields of the products shown, and only theirs.
    assert.equal(await page.locator('[data-testid="fields-nginx"]').count(), 1);
    assert.equal(await page.locator('[data-testid="fields-express"]').count(), 1);
    assert.equal(await page.locator('[data-testid="fields-guava"]').count(), 0);
    const allowedBefore = Number(await page.locator('[data-testid="stats-nginx"]').getAttribute('data-allowed'));

    const burst = page.locator('[data-testid="nginx-burst-input"]');
    assert.equal(await burst.inputValue(), '', 'unset: it follows the lab');
    await burst.fill('0');
    await burst.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('nginx-burst') === '0');
    await page.waitForFunction(
      (before) => Number(document.querySelector('[data-testid="stats-nginx"]').dataset.allowed) < before,
      allowedBefore,
    );

    const rate = page.locator('[data-testid="nginx-rate-input"]');
    await rate.fill('10 per second');
    await rate.press('Enter');
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    assert.match(await notice.textContent(), /^nginx-rate="10 per second": .*write it as nginx does, e\.g\. 10r\/s or 30r\/m/);
    assert.equal(new URL(page.url()).searchParams.get('nginx-rate'), null, 'the refused value changed nothing');

    await burst.fill('');
    await burst.press('Enter');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('nginx-burst'));
    await page.waitForFunction(
      (before) => Number(document.querySelector('[data-testid="stats-nginx"]').dataset.allowed) === before,
      allowedBefore,
    );
    await page.locator('[data-testid="fields-nginx"]').screenshot({ path: `${SCREENSHOT_DIR}/controls-product-fields.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

for (const width of [390, 1280]) {
  test(`at ${width} px the two rows modelling nginx each say their own burst, and the tuning boxes name each parameter with the value in force`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, 'algos=leaky-bucket,nginx&limit=100&window=60&nginx-burst=20');
      const summary = (slug) => page.locator(`.row-label[data-row="${slug}"] .row-summary`).textContent();
      assert.match(await summary('leaky-bucket'), /limit 100 per 60 s, burst=99; busiest window \d+/);
      assert.match(await summary('nginx'), /limit 100 per 60 s, rate=100r\/m burst=20; busiest window \d+/);
      // Each row's own settings stay its own: the leaky bucket keeps its burst of 99.
      const leaky = await rowFigures(page, 'leaky-bucket');
      const nginx = await rowFigures(page, 'nginx');
      assert.ok(leaky.allowed > nginx.allowed, `burst 99 lets more through than burst 20: ${leaky.allowed} vs ${nginx.allowed}`);

      await openTuning(page);
      const fields = page.locator('[data-testid="fields-nginx"]');
      assert.match(await fields.textContent(), /Burst \(burst=\)/, 'the product\'s own word, not the link\'s');
      const inForce = (name) => page.locator(`[data-testid="${name}-in-force"]`).textContent();
      assert.equal(await inForce('nginx-burst'), 'in force: 20', 'set: the value typed');
      assert.equal(await inForce('nginx-rate'), 'in force: 100r/m, following the lab');
      // The lab's limit moves what follows it, and only that.
      await gotoLab(page, 'algos=leaky-bucket,nginx&limit=30&window=60&nginx-burst=20');
      await openTuning(page);
      assert.equal(await inForce('nginx-rate'), 'in force: 30r/m, following the lab');
      assert.equal(await inForce('nginx-burst'), 'in force: 20');
      await page.locator('[data-testid="fields-nginx"]').screenshot({ path: `${SCREENSHOT_DIR}/controls-product-fields-in-force-${width}.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('each algorithm\'s knobs sit under its name in the tuning panel', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, '');
    // Closed, as every view starts, the panel holds no controls yet: they are built when it opens.
    assert.equal(await page.locator('.tuning input').count(), 0, 'nothing built in the closed panel');
    await openTuning(page);
    const groups = {
      'tune-token-bucket': ['capacity-slider', 'refill-slider'],
      'tune-gcra': ['burst-slider'],
      'tune-leaky-bucket': ['leak-burst-slider', 'leak-delay-slider'],
    };
    for (const [group, sliders] of Object.entries(groups)) {
      const fieldset = page.locator(`[data-testid="${group}"]`);
      assert.ok(await fieldset.isVisible(), group);
      for (const slider of sliders) {
        assert.equal(await fieldset.locator(`[data-testid="${slider}"]`).count(), 1, `${slider} in ${group}`);
      }
    }
    assert.match(await page.locator('[data-testid="tune-gcra"] legend').innerText(), /GCRA/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
