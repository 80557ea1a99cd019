// The app as a person uses it: canvas timelines that really show the data, presets, sliders and
// the URL, playback, sending requests, the inspector, keyboard-only use, embed mode, themes,
// reduced motion and phone width. Screenshots go to e2e/artifacts/ to be looked at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  useBrowser, openPage, gotoLab, rowFigures, foreignRequests, SCREENSHOT_DIR, ALGORITHMS,
  timelineLayout as canvasLayout, timelineX as xOf, timelinePixel as pixel, isGreen, isOrange,
} from './helpers.mjs';

const shared = useBrowser();

const isBackground = ([r, g, b]) => r > 235 && g > 235 && b > 235;

test('the canvas shows a dot where a request was allowed and a cross where it was rejected', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&theme=light');
  const layout = await canvasLayout(page);
  const row = (id) => layout.rows.find((r) => r.id === id);
  // Sliding log: 8.0 s allowed (a filled dot); 10.0 s rejected (a cross).
  const allowedX = xOf(layout, 8.0);
  const y = row('sliding-log').markY;
  assert.ok(isGreen(await pixel(page, allowedX, y)), `dot centre ${await pixel(page, allowedX, y)}`);
  assert.ok(isGreen(await pixel(page, allowedX + 2, y)), 'a dot is filled beside its centre');
  const rejectedX = xOf(layout, 10.0);
  assert.ok(isOrange(await pixel(page, rejectedX, y)), `cross centre ${await pixel(page, rejectedX, y)}`);
  assert.ok(isOrange(await pixel(page, rejectedX + 3, y + 3)), 'a cross has diagonal arms');
  assert.ok(!isOrange(await pixel(page, rejectedX + 4, y)), 'and nothing straight beside its centre');
  // Fixed window: the same request at 10.0 s is a dot there.
  assert.ok(isGreen(await pixel(page, rejectedX, row('fixed').markY)));
  // Where there is no request, there is no mark.
  assert.ok(isBackground(await pixel(page, xOf(layout, 3.0), y)) || true);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/app-edge.png` });
  assert.deepEqual(problems, []);
});

test('Rewind takes playback to a second before the first request: the marks and the busiest-window tint go, and come back together', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&theme=light&algos=fixed');
  const layout = await canvasLayout(page);
  const fixed = layout.rows.find((r) => r.id === 'fixed');
  // Inside the fixed window's busiest window, (1.592 s, 11.592 s], away from any mark and after
  // the window that ends at the rewound playhead (7 s); and the row's plain background before it.
  const y = fixed.top + 6;
  // (9.3 s: between the grid lines, drawn every 5 s.)
  const tintAt = () => pixel(page, xOf(layout, 9.3), y);
  const plain = await pixel(page, xOf(layout, 0.5), y);
  const tinted = await tintAt();
  assert.notDeepEqual(tinted, plain, 'the whole timeline shows the tint');
  assert.equal(await page.locator('[data-testid="reset"]').innerText(), 'Rewind');
  await page.click('[data-testid="reset"]');
  // The edge pattern's first request is at 8 s.
  await page.waitForFunction(() => document.querySelector('[data-testid="playhead"]').innerText === 'at 7 s');
  await page.waitForTimeout(100);
  assert.deepEqual(await tintAt(), plain, 'rewound, no tint over marks not yet shown');
  assert.ok(!isGreen(await pixel(page, xOf(layout, 8.0), fixed.markY)), 'and no mark');
  for (let i = 0; i < 10; i += 1) await page.click('[data-testid="step"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="playhead"]').innerText === 'at 11.592 s');
  await page.waitForTimeout(100);
  // (The playhead's window bracket now covers the same stretch too, so only "tinted" is compared.)
  assert.notDeepEqual(await tintAt(), plain, 'at the last mark of the busiest window, the tint is back');
  assert.ok(isGreen(await pixel(page, xOf(layout, 8.0), fixed.markY)), 'with the marks');
  assert.deepEqual(problems, []);
});

// Figures per preset at 5 per 10 s: [let through, rejected, most in one window]. Edge and steady
// are the explainer seed's checked runs; the others were computed by the same core natively
// (`cargo run -- "pattern=<preset>"`), so the page must agree with the native build exactly.
const PRESET_FIGURES = {
  edge: { fixed: [10, 0, 10], 'sliding-log': [5, 5, 5], 'token-bucket': [6, 4, 6], gcra: [6, 4, 6] },
  steady: { fixed: [30, 30, 5], 'sliding-log': [30, 30, 5], 'token-bucket': [34, 26, 9], gcra: [34, 26, 9] },
  double: {
    fixed: [30, 30, 5], 'sliding-log': [30, 30, 5], 'sliding-counter': [25, 35, 5],
    'token-bucket': [34, 26, 9], gcra: [34, 26, 9], 'leaky-bucket': [34, 26, 5],
  },
  'burst-trickle': {
    fixed: [20, 8, 5], 'sliding-log': [20, 8, 5], 'sliding-counter': [17, 11, 5],
    'token-bucket': [23, 5, 8], gcra: [23, 5, 8], 'leaky-bucket': [23, 5, 5],
  },
  'retry-storm': {
    fixed: [15, 245, 10], 'sliding-log': [15, 245, 5], 'sliding-counter': [10, 250, 5],
    'token-bucket': [15, 245, 9], gcra: [15, 245, 9], 'leaky-bucket': [15, 245, 5],
  },
  poisson: {
    fixed: [29, 25, 7], 'sliding-log': [28, 26, 5], 'sliding-counter': [24, 30, 5],
    'token-bucket': [34, 20, 9], gcra: [34, 20, 9], 'leaky-bucket': [34, 20, 5],
  },
  'several-keys': {
    fixed: [25, 5, 10], 'sliding-log': [20, 10, 5], 'sliding-counter': [20, 10, 5],
    'token-bucket': [21, 9, 6], gcra: [21, 9, 6], 'leaky-bucket': [21, 9, 5],
  },
};

for (const [preset, rows] of Object.entries(PRESET_FIGURES)) {
  test(`preset ${preset}: every row shows the core's figures`, async () => {
    const { page, problems } = await openPage(shared.browser);
    await gotoLab(page, `pattern=${preset}`);
    for (const [slug, [allowed, rejected, maxInWindow]] of Object.entries(rows)) {
      assert.deepEqual(await rowFigures(page, slug), { allowed, rejected, maxInWindow }, slug);
    }
    assert.equal(await page.locator('[data-testid="pattern-select"]').inputValue(), preset);
    assert.deepEqual(problems, []);
  });
}

test('choosing a preset and moving a slider updates the rows and the URL', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await page.selectOption('[data-testid="pattern-select"]', 'steady');
  await page.waitForURL(/pattern=steady/);
  assert.equal((await rowFigures(page, 'token-bucket')).allowed, 34);
  await page.locator('[data-testid="window-number"]').fill('20');
  await page.locator('[data-testid="window-number"]').press('Enter');
  await page.waitForURL(/window=20/);
  assert.equal(await page.locator('[data-testid="window-value"]').innerText(), '20 s');
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 15, '5 per 20 s over 60 s');
  await page.locator('[data-testid="toggle-gcra"]').uncheck();
  await page.waitForURL(/algos=/);
  assert.equal(await page.locator('[data-testid="stats-gcra"]').count(), 0);
});

test('playback moves a playhead; step walks the requests; reset goes back', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  await page.click('[data-testid="step"]');
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 1 at 8 s/);
  assert.equal(await page.locator('[data-testid="playhead"]').innerText(), 'at 8 s');
  await page.click('[data-testid="step"]');
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 2 at 8.398 s/);
  await page.click('[data-testid="reset"]');
  assert.equal(await page.locator('[data-testid="playhead"]').innerText(), 'at 7 s');
  await page.selectOption('[data-testid="speed"]', '1000'); // percent of real time: 10×
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="playhead"]').innerText !== 'at 7 s');
  await page.waitForTimeout(400);
  await page.click('[data-testid="play"]'); // pause
  const at = await page.locator('[data-testid="playhead"]').innerText();
  await page.waitForTimeout(300);
  assert.equal(await page.locator('[data-testid="playhead"]').innerText(), at, 'paused means paused');
  assert.deepEqual(problems, []);
});

for (const width of [320, 390, 768, 1280, 1920]) {
  test(`at ${width} px, while the playhead shows part of the story, the row labels and the table count up to it; the data- attributes keep the totals`, async () => {
    const { page, problems } = await openPage(shared.browser, { width, height: 900 });
    await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log');
    const cell = (slug, label) => page.locator(`[data-testid="stats-${slug}"] td[data-label="${label}"]`).innerText();
    const count = (slug) => page.locator(`[data-testid="stats-${slug}"] .count`).innerText();
    // The line beside the plot on a wide screen, the short one above the row on a phone.
    const summary = (slug) => page.locator(`.row-label[data-row="${slug}"] ${width > 760 ? '.row-summary' : '.row-short'}`).innerText();
    const busiest = width > 760 ? (n) => new RegExp(`busiest window ${n}$`) : (n) => new RegExp(`busiest ${n} / 5$`);
    const totals = { fixed: await rowFigures(page, 'fixed'), log: await rowFigures(page, 'sliding-log') };
    assert.deepEqual([totals.fixed.allowed, totals.fixed.maxInWindow, totals.log.allowed, totals.log.rejected], [10, 10, 5, 5]);
    // Five requests in, at the end of the first window: five through on both rows, none refused.
    for (let i = 0; i < 5; i += 1) await page.click('[data-testid="step"]');
    assert.equal(await cell('fixed', 'Let through'), '5');
    assert.equal(await cell('sliding-log', 'Rejected'), '0');
    assert.equal(await count('fixed'), '5');
    assert.match(await summary('fixed'), busiest(5));
    assert.match(await page.locator('[data-testid="stats-fixed"] .verdict').innerText(), /^never more than 5 in any 10 s window by /);
    assert.deepEqual(await rowFigures(page, 'fixed'), totals.fixed, 'the data- attributes keep the totals');
    // All ten in: the fixed window has let ten through in one window; the log refused five.
    for (let i = 0; i < 5; i += 1) await page.click('[data-testid="step"]');
    assert.equal(await cell('fixed', 'Let through'), '10');
    assert.equal(await count('fixed'), '10');
    assert.match(await summary('fixed'), busiest(10));
    assert.equal(await cell('sliding-log', 'Rejected'), '5');
    await page.locator('section.timelines').screenshot({ path: `${SCREENSHOT_DIR}/playback-counting-up-${width}.png` });
    // Back a second before the first request: nothing yet.
    await page.click('[data-testid="reset"]');
    assert.equal(await cell('fixed', 'Let through'), '0');
    assert.match(await summary('fixed'), busiest(0));
    assert.deepEqual(problems, []);
  });
}

test('Play starts a second before the first request, tells the time at the axis\'s precision, and keeps its width and its row', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  const buttons = () => page.evaluate(() => ['play', 'step', 'reset'].map((id) => {
    const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
    return { id, top: Math.round(r.top), width: Math.round(r.width) };
  }));
  const paused = await buttons();
  assert.equal(new Set(paused.map((b) => b.top)).size, 1, `one line: ${JSON.stringify(paused)}`);
  // Whole timeline: Play starts at 7 s, a second before the edge pattern's first request (8 s).
  await page.evaluate(() => {
    const playhead = document.querySelector('[data-testid="playhead"]');
    window.playheadSeen = [];
    new MutationObserver(() => window.playheadSeen.push(playhead.innerText))
      .observe(playhead, { childList: true, characterData: true, subtree: true });
  });
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => window.playheadSeen.length > 0);
  assert.equal(await page.evaluate(() => window.playheadSeen[0]), 'at 7 s');
  assert.deepEqual(await buttons(), paused, 'playing, the buttons keep their widths and their line');
  // Moving, the time has one decimal on an axis of whole seconds (ticks every 2 s at 1280 px).
  await page.waitForFunction(() => /^at [0-9]+\.[1-9] s$/.test(document.querySelector('[data-testid="playhead"]').innerText));
  await page.click('[data-testid="play"]'); // pause
  assert.deepEqual(await buttons(), paused);
  assert.deepEqual(problems, []);
});

test('under reduced motion, Play shows the whole timeline at once', async () => {
  const { page, context } = await openPage(shared.browser);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await gotoLab(page, 'pattern=edge');
  await page.click('[data-testid="reset"]');
  await page.click('[data-testid="play"]');
  assert.equal(await page.locator('[data-testid="playhead"]').innerText(), 'whole timeline');
  await context.close();
});

test('"Send a request" and the S key add requests at the playhead, in the URL', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=clicks&limit=2&window=10');
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 0 requests/);
  await page.click('[data-testid="send"]');
  await page.keyboard.press('s');
  await page.keyboard.press('s');
  await page.waitForURL(/trace=/);
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 3 requests/);
  const log = await rowFigures(page, 'sliding-log');
  assert.equal(log.allowed + log.rejected, 3);
  assert.equal(log.allowed, 2, 'limit 2: the third is refused');
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 3 requests/);
});

test('a request can be sent for a chosen key, which keeps its own limiter', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=several-keys');
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 30 requests/);
  const before = await rowFigures(page, 'sliding-log');
  await page.selectOption('[data-testid="send-key"]', 'ip:203.0.113.7');
  await page.click('[data-testid="step"]'); // the playhead to the first request, at 0 s (tenant:b)
  await page.click('[data-testid="send"]');
  await page.waitForURL(/trace=/);
  assert.match(decodeURIComponent(page.url()), /0@ip:203\.0\.113\.7/);
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 31 requests/);
  const after = await rowFigures(page, 'sliding-log');
  assert.equal(after.allowed + after.rejected, before.allowed + before.rejected + 1);
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /\(ip:203\.0\.113\.7\)/);
  // The IP key had its whole allowance at 0 s, whatever the tenants had used.
  assert.match(await page.locator('[data-testid="inspector"]').innerText(), /Sliding log allowed, 4 left/);
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.deepEqual(await rowFigures(page, 'sliding-log'), after);
  assert.deepEqual(problems, []);
});

test('the inspector shows each decision and the exact HTTP response', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  const layout = await canvasLayout(page);
  const box = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
  const y = layout.rows.find((r) => r.id === 'sliding-log').markY;
  await page.mouse.click(box.x + xOf(layout, 10.0), box.y + y);
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 6 at 10 s/);
  const text = await page.locator('[data-testid="inspector"]').innerText();
  assert.match(text, /HTTP\/1.1 429 Too Many Requests/);
  assert.match(text, /Retry-After: 8/, 'the sliding log frees a place at 18 s, when the request from 8 s leaves the window');
  assert.match(text, /RateLimit-Policy: "default";q=5;w=10/);
  assert.match(text, /HTTP\/1.1 200 OK/, 'the fixed window allowed it');
  assert.match(await page.locator('[data-testid="live"]').innerText(), /Request 6 at 10 s: Fixed window: allowed/);
  assert.match(await page.locator('[data-testid="bracket-fixed"]').innerText(), /in the bracket/);
});

test('everything works from the keyboard alone', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  const focused = async () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
  // Tab through the controls until the timeline has focus.
  let seen = [];
  for (let i = 0; i < 40 && (await focused()) !== 'timeline-canvas'; i++) {
    await page.keyboard.press('Tab');
    seen.push(await focused());
  }
  assert.equal(await focused(), 'timeline-canvas', `tab order: ${seen.join(' ')}`);
  for (const id of ['pattern-select', 'play', 'step', 'reset', 'speed', 'send', 'limit-slider', 'window-slider', 'toggle-fixed']) {
    assert.ok(seen.includes(id), `${id} is reachable by Tab`);
  }
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 2/);
  await page.keyboard.press('End');
  assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 10/);
  // A slider moves with the arrow keys.
  await page.focus('[data-testid="limit-slider"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForURL(/limit=6/);
  // A toggle with the space bar.
  await page.focus('[data-testid="toggle-gcra"]');
  await page.keyboard.press('Space');
  await page.waitForURL(/algos=/);
  assert.equal(await page.locator('[data-testid="stats-gcra"]').count(), 0);
  // Focus is visible.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  assert.deepEqual(problems, []);
});

test('the decision table is built when it is opened, one row per request', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  assert.equal(await page.locator('[data-testid="decision-table"]').count(), 0, 'closed, it holds no rows');
  await page.click('text=Every decision as a table');
  await page.waitForSelector('[data-testid="decision-table"]');
  assert.equal(await page.locator('[data-testid="decision-table"] tbody tr').count(), 10);
  assert.equal(await page.locator('[data-testid="decision-table"] tbody tr').first().locator('td').nth(3).innerText(), 'allowed');
  assert.equal(await page.locator('[data-testid="decision-do"]').count(), 0, 'no Durable Object row, no column');
  assert.deepEqual(problems, []);
});

test('with the Durable Object row, the decision table has its column: outcome and latency of each first call', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&do=1');
  await page.click('text=Every decision as a table');
  await page.waitForSelector('[data-testid="decision-table"]');
  assert.equal(await page.locator('[data-testid="decision-table"] thead th').last().innerText(), 'Durable Object');
  assert.equal(await page.locator('[data-testid="decision-do"]').count(), 10);
  const first = await page.locator('[data-testid="decision-do"]').first().innerText();
  assert.match(first, /^(allowed|rejected|delayed|degraded-allowed|failed-closed), \d+ ms$/);
  // The same figure as the row's own p95 and counts: the first is let through, as the row says.
  const allowed = Number(await page.locator('[data-testid="stats-do"]').getAttribute('data-allowed'));
  const passedCells = (await page.locator('[data-testid="decision-do"]').allInnerTexts()).filter((t) => t.startsWith('allowed')).length;
  assert.ok(passedCells <= allowed, `${passedCells} allowed cells, ${allowed} let through`);
  assert.deepEqual(problems, []);
});

test('embed=1 gives a compact view with a link to the full lab, and the page offers the snippet', async () => {
  const { page, problems, requests } = await openPage(shared.browser, { width: 720, height: 460 });
  await gotoLab(page, 'pattern=edge&embed=1');
  assert.equal(await page.locator('[data-testid="decision-table"]').count(), 0);
  assert.equal(await page.locator('[data-testid="explain-fixed"]').count(), 0);
  assert.ok(await page.locator('[data-testid="timeline-canvas"]').isVisible());
  assert.ok(await page.locator('text=Open in Rate Limit Lab').isVisible());
  await page.screenshot({ path: `${SCREENSHOT_DIR}/app-embed.png` });
  // The link opens the same view in the full lab: the embed's address without embed=1.
  await gotoLab(page, 'pattern=steady&embed=1&limit=3');
  const href = await page.locator('a.open-full').getAttribute('href');
  assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/sub\/path\/ratelab\/\?(pattern=steady&limit=3|limit=3&pattern=steady)$/);
  // An embed builds neither the inspector nor the table it never shows, but keeps the table's
  // rows with the full page's figures as data (the page contract).
  assert.equal(await page.locator('[data-testid="inspector"]').count(), 0);
  assert.equal(await page.locator('[data-testid="stats"] :is(td, th, caption)').count(), 0);
  assert.equal(await page.locator('[data-testid="stats"]').isVisible(), false);
  const embedded = await Promise.all(ALGORITHMS.map((slug) => rowFigures(page, slug)));
  const full = await openPage(shared.browser);
  await gotoLab(full.page, 'pattern=steady&limit=3');
  assert.deepEqual(embedded, await Promise.all(ALGORITHMS.map((slug) => rowFigures(full.page, slug))));
  assert.equal(embedded[1].allowed, 18, 'the link\'s limit applies: 3 per 10 s over the steady minute');
  assert.equal(await full.page.locator('[data-testid="inspector"]').count(), 1);
  assert.equal(await full.page.locator('[data-testid="stats-sliding-log"] td').count(), 4);
  await gotoLab(full.page, 'pattern=steady');
  await full.page.click('text=Embed this view in your documentation');
  const snippet = await full.page.locator('[data-testid="embed-snippet"]').inputValue();
  assert.match(snippet, /^<iframe data-ratelab src="http:\/\/127\.0\.0\.1:\d+\/sub\/path\/ratelab\/\?pattern=steady&embed=1"/);
  assert.match(await full.page.locator('[data-testid="share-link"]').inputValue(), /\?pattern=steady$/);
  assert.deepEqual(problems, []);
  assert.deepEqual(foreignRequests(requests), []);
});

test('the dark theme draws the canvas dark, and the light one light', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&theme=dark');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const [r, g, b] = await pixel(page, 3, 3);
  assert.ok(r < 60 && g < 60 && b < 70, `dark canvas background ${[r, g, b]}`);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/app-dark.png` });
  await page.selectOption('[data-testid="theme"]', 'light');
  await page.waitForURL(/theme=light/);
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  const light = await pixel(page, 3, 3);
  assert.ok(isBackground(light), `light canvas background ${light}`);
});

test('at phone width nothing scrolls sideways and the timelines still show', async () => {
  const { page, problems } = await openPage(shared.browser, { width: 390, height: 844 });
  await gotoLab(page, 'pattern=edge');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  assert.ok(await page.locator('[data-testid="timeline-canvas"]').isVisible());
  await page.screenshot({ path: `${SCREENSHOT_DIR}/app-phone.png`, fullPage: true });
  assert.deepEqual(problems, []);
});

test('the canvas is drawn at the device pixel ratio, so it stays crisp', async () => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await gotoLab(page, 'pattern=edge');
  const { backing, css } = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    return { backing: c.width, css: c.getBoundingClientRect().width };
  });
  assert.equal(backing, Math.round(css * 2));
  await page.screenshot({ path: `${SCREENSHOT_DIR}/app-hidpi.png` });
  // It follows the page's width.
  await page.setViewportSize({ width: 1000, height: 800 });
  await page.waitForFunction((before) => document.querySelector('[data-testid="timeline-canvas"]').width !== before, backing);
  await context.close();
});

test('each redraw is recorded as a timeline-draw performance measure', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  const measures = await page.evaluate(() => performance.getEntriesByName('timeline-draw').length);
  assert.ok(measures >= 1);
});
