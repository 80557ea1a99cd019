// Questions people ask (`q=`) and the first visit's tour. Each of the twelve questions opens a
// view whose answer quotes that view's figures: every figure the answer marks equals the
// attribute the figures table carries for it, and changing a setting on the page changes the
// answer's figures with the table's. The list filters by product, opens a question in place and
// Back returns to it. The tour works by keyboard, is remembered once dismissed, and never shows
// with a query, in an embed, or in a frame without storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, serveFolder, BASE_URL, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

const QUESTIONS = [
  'burst-plus-one', 'nginx-page-burst', 'second-server', 'retry-after-429', 'refused-count', 'window-edge',
  'cost-over-burst', 'gcra-remaining-reset', 'which-limit', 'limiter-down', 'binding-more', 'hot-key',
];

/** The answer's text, and each figure it marks with the value the page's table carries for it. */
async function answerFigures(page) {
  return page.evaluate(() => {
    const answer = document.querySelector('[data-testid="answer"]');
    const figures = [...answer.querySelectorAll('[data-figure]')].map((el) => {
      const row = document.querySelector(`[data-testid="${el.dataset.figureOf}"]`);
      return { of: el.dataset.figureOf, name: el.dataset.figure, text: el.textContent, page: row?.getAttribute(`data-${el.dataset.figure}`) ?? null };
    });
    return { text: answer.textContent, figures };
  });
}

/** Every figure the answer quotes is the page's own; returns the answer. */
async function assertFiguresAreThePages(page, label) {
  const answer = await answerFigures(page);
  assert.ok(answer.figures.length >= 2, `${label}: ${answer.figures.length} figures in "${answer.text}"`);
  for (const f of answer.figures) {
    assert.equal(f.text, f.page, `${label}: ${f.of} data-${f.name} in "${answer.text}"`);
  }
  return answer;
}

/** Waits until the answer's text is no longer `before`. */
async function answerChanged(page, before) {
  await page.waitForFunction((old) => document.querySelector('[data-testid="answer"]').textContent !== old, before);
}

/** Opens the section of copies, a second limit, counting rules and clients. */
async function openCounting(page) {
  const counting = page.locator('[data-testid="counting-controls"]');
  if (!(await counting.evaluate((d) => d.open))) await counting.locator('summary').click();
}

/** The figure of `of` `name` in the answer (the first one). */
function figure(answer, of, name) {
  return answer.figures.find((f) => f.of === of && f.name === name)?.text;
}

for (const slug of QUESTIONS) {
  test(`q=${slug} opens its view, and its answer quotes that view's figures`, async () => {
    const { page, problems, context } = await openPage(shared.browser);
    try {
      await gotoLab(page, `q=${slug}`);
      const question = page.locator('[data-testid="question"]');
      await question.waitFor();
      assert.ok(await question.isVisible());
      assert.equal(await question.getAttribute('class'), 'question');
      await page.waitForFunction(() => document.querySelector('[data-testid="answer"]').textContent.length > 80);
      await assertFiguresAreThePages(page, slug);
      // The link stays the question alone while the view is the question's.
      assert.equal(new URL(page.url()).search, `?q=${slug}`);
      assert.equal(await page.locator(`[data-testid="question-${slug}"]`).getAttribute('aria-current'), 'true');
      await page.screenshot({ path: `${SCREENSHOT_DIR}/question-${slug}.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('the inspector shows the request an answer is about, with the replies it quotes', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'q=gcra-remaining-reset');
    await page.waitForSelector('[data-testid="reply-redis-cell"]');
    const answer = await assertFiguresAreThePages(page, 'gcra');
    assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /^Request 7 at 3/);
    const reply = await page.locator('[data-testid="reply-redis-cell"]').innerText();
    const remaining = reply.match(/remaining: (\d+)/)[1];
    const reset = reply.match(/reset_after: (\d+)/)[1];
    assert.ok(answer.text.includes(`CL.THROTTLE replied remaining ${remaining} and reset_after ${reset}`), answer.text);
    const gcra = await page.locator('.response', { hasText: 'GCRA' }).locator('pre').first().innerText();
    const [, r, t] = gcra.match(/RateLimit: "default";r=(\d+);t=(\d+)/);
    assert.ok(answer.text.includes(`it answered remaining ${r} and reset ${t} s`), answer.text);

    await gotoLab(page, 'q=which-limit');
    await page.waitForSelector('[data-testid="inspector-title"]');
    const which = await assertFiguresAreThePages(page, 'which-limit');
    assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /^Request 7 at 3 s \(203\.0\.113\.7:bob/);
    assert.match(await page.locator('[data-testid="inspector"]').innerText(), /by the second limit \(6 per 10 s\)/);
    assert.ok(which.text.includes('203.0.113.7:bob at 3 s'), which.text);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a setting changed on the page changes the figures the answer quotes, with the table', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    // The limit: the fixed window's busiest window follows it.
    await gotoLab(page, 'q=window-edge');
    let before = (await assertFiguresAreThePages(page, 'window-edge')).text;
    assert.equal(figure(await answerFigures(page), 'stats-fixed', 'max-in-window'), '10');
    await page.locator('[data-testid="limit-number"]').fill('3');
    await page.locator('[data-testid="limit-number"]').press('Enter');
    await answerChanged(page, before);
    let after = await assertFiguresAreThePages(page, 'window-edge at a limit of 3');
    assert.equal(figure(after, 'stats-fixed', 'max-in-window'), '6');
    assert.match(page.url(), /\?q=window-edge&limit=3$/);

    // Counting refused requests, off: the sliding log lets a persistent client through again.
    await gotoLab(page, 'q=refused-count');
    before = (await assertFiguresAreThePages(page, 'refused-count')).text;
    assert.equal(figure(await answerFigures(page), 'stats-sliding-log', 'allowed'), '5');
    await openCounting(page);
    await page.locator('[data-testid="count-refused"]').uncheck();
    await answerChanged(page, before);
    after = await assertFiguresAreThePages(page, 'refused-count without counting refusals');
    assert.equal(figure(after, 'stats-sliding-log', 'allowed'), '30');
    assert.match(after.text, /counts only what it lets through \(count-refused=0\)/);
    assert.match(page.url(), /\?q=refused-count&count-refused=$/);

    // Copies: a third server.
    await gotoLab(page, 'q=binding-more');
    before = (await assertFiguresAreThePages(page, 'binding-more')).text;
    await openCounting(page);
    await page.locator('[data-testid="instances-number"]').fill('3');
    await page.locator('[data-testid="instances-number"]').press('Enter');
    await answerChanged(page, before);
    after = await assertFiguresAreThePages(page, 'binding-more at 3 locations');
    assert.equal(figure(after, 'stats-cf-binding', 'max-in-window'), '30');
    assert.match(after.text, /reach 3 locations \(instances=3\)/);

    // The Durable Object's fail mode: failing closed instead of open.
    await gotoLab(page, 'q=limiter-down');
    before = (await assertFiguresAreThePages(page, 'limiter-down')).text;
    assert.ok(Number(figure(await answerFigures(page), 'stats-do', 'degraded')) > 0);
    await page.locator('[data-testid="fail"]').selectOption('closed');
    await answerChanged(page, before);
    after = await assertFiguresAreThePages(page, 'limiter-down failing closed');
    assert.ok(Number(figure(after, 'stats-do', 'failed-closed')) > 0, after.text);
    assert.match(after.text, /failed closed: \d+ requests were refused with 503/);

    // Obeying clients, with room for everyone who comes back.
    await gotoLab(page, 'q=retry-after-429');
    before = (await assertFiguresAreThePages(page, 'retry-after-429')).text;
    assert.equal(figure(await answerFigures(page), 'stats-fixed', 'wasted'), '5');
    await page.locator('[data-testid="limit-number"]').fill('10');
    await page.locator('[data-testid="limit-number"]').press('Enter');
    await answerChanged(page, before);
    after = await assertFiguresAreThePages(page, 'retry-after-429 at a limit of 10');
    assert.equal(figure(after, 'stats-fixed', 'wasted'), '0');

    // The hot key, sharded per request: the p95 comes down.
    await gotoLab(page, 'q=hot-key');
    before = (await assertFiguresAreThePages(page, 'hot-key')).text;
    const p95 = Number(figure(await answerFigures(page), 'stats-do', 'p95-ms'));
    await gotoLab(page, 'q=hot-key&shards=8&shard-by=request');
    after = await assertFiguresAreThePages(page, 'hot-key sharded');
    assert.ok(Number(figure(after, 'stats-do', 'p95-ms')) < p95, after.text);
    assert.notEqual(after.text, before);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the list filters by product, opens a question in place, and Back returns to it', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    // A view of the complete module, which has the list (the first module has its heading).
    await gotoLab(page, 'pattern=steady&algos=sliding-log,envoy');
    const list = page.locator('[data-testid="questions"]');
    await list.waitFor();
    assert.equal(await list.locator('a[data-testid^="question-"]').count(), 12);
    assert.equal(await page.locator('[data-testid="question-window-edge"]').getAttribute('href'), '?q=window-edge');
    assert.equal(await page.locator('[data-testid="questions-count"]').innerText(), '12 of 12 questions');
    assert.ok(!(await page.locator('[data-testid="question"]').isVisible()), 'no question open');

    await page.locator('[data-testid="questions-filter"]').selectOption('nginx');
    await page.waitForFunction(() => document.querySelector('[data-testid="questions-count"]').textContent === '2 of 12 questions');
    const shown = await list.locator('a[data-testid^="question-"]').evaluateAll((links) => links.map((a) => a.dataset.testid));
    assert.deepEqual(shown, ['question-nginx-page-burst', 'question-refused-count']);
    await page.locator('[data-testid="questions-filter"]').selectOption('cloudflare');
    await page.waitForFunction(() => document.querySelector('[data-testid="questions-count"]').textContent === '4 of 12 questions');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/questions-list.png`, fullPage: true });

    // Opened in place: the address changes, the question and its answer show, its heading has
    // the focus; Back returns to the view before and the focus to the link.
    await page.locator('[data-testid="question-binding-more"]').click();
    await page.waitForFunction(() => location.search === '?q=binding-more');
    await page.locator('[data-testid="question"]:not(.hidden)').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'question-title');
    await assertFiguresAreThePages(page, 'binding-more from the list');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/question-from-list.png` });
    await page.goBack();
    await page.waitForFunction(() => location.search === '?pattern=steady&algos=sliding-log,envoy');
    await page.locator('[data-testid="question"].hidden').waitFor({ state: 'attached' });
    await page.waitForFunction(() => document.activeElement?.id === 'question-link-binding-more');
    assert.ok(await page.locator('[data-testid="question-binding-more"]').isVisible());
    assert.equal(await page.locator('[data-testid="questions-filter"]').inputValue(), 'cloudflare', 'the list is as it was left');

    // The list stays reachable from a question, and a question can be closed.
    await page.locator('[data-testid="question-hot-key"]').click();
    await page.locator('[data-testid="question"]:not(.hidden)').waitFor();
    await page.locator('[data-testid="all-questions"]').click();
    await page.waitForFunction(() => location.hash === '#questions');
    await page.locator('[data-testid="question-close"]').click();
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('q'));
    await page.locator('[data-testid="question"].hidden').waitFor({ state: 'attached' });
    assert.match(page.url(), /do=1/, 'the view stays');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a question embeds: the answer above the timelines, no list and no tour', async () => {
  const { page, problems, context } = await openPage(shared.browser, { tour: true });
  try {
    await gotoLab(page, 'q=window-edge&embed=1');
    await page.locator('[data-testid="question"]').waitFor();
    await assertFiguresAreThePages(page, 'embedded window-edge');
    assert.equal(await page.locator('[data-testid="all-questions"]').count(), 0);
    assert.equal(await page.locator('[data-testid="questions"]').count(), 0);
    assert.equal(await page.locator('[data-testid="tour"]').count(), 0);
    const above = await page.evaluate(() => document.querySelector('[data-testid="question"]').getBoundingClientRect().bottom
      <= document.querySelector('[data-testid="timeline-canvas"]').getBoundingClientRect().top);
    assert.ok(above, 'the answer is above the timelines');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/question-embed.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('on the default page the list is a heading that opens the rest of the lab with it', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page);
    const heading = page.locator('details[data-testid="questions"]');
    await heading.waitFor();
    await heading.locator('summary').click();
    await page.locator('section[data-testid="questions"]').waitFor({ timeout: 20000 });
    await page.waitForSelector('body[data-complete="true"]');
    assert.equal(await page.locator('a[data-testid^="question-"]').count(), 12);
    await page.waitForFunction(() => document.activeElement?.id === 'questions-heading');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a first visit offers the tour, which works by keyboard and is remembered once closed', async () => {
  const { page, problems, context } = await openPage(shared.browser, { tour: true });
  try {
    await page.goto(BASE_URL);
    const tour = page.locator('[data-testid="tour"]');
    await tour.waitFor();
    assert.equal(await tour.getAttribute('role'), 'dialog');
    await page.waitForSelector('body[data-complete="true"]');
    // The focus is in it, on Next; Enter steps through, the page's part outlined for each.
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'tour-next');
    assert.match(await tour.innerText(), /1 of 5[\s\S]*Dots and crosses/);
    assert.ok(await page.locator('[data-testid="tour-back"]').isDisabled());
    await page.screenshot({ path: `${SCREENSHOT_DIR}/tour-1.png` });
    const titles = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelector('[data-testid="tour"] .tour-step')?.textContent.includes(`${n} of 5`), i + 2);
      titles.push(await page.locator('#tour-title').innerText());
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tour-next');
      assert.equal(await page.evaluate(() => document.body.dataset.tour), String(i + 1));
    }
    assert.deepEqual(titles, ['The busiest window', 'The inspector', 'The Durable Object', 'Questions people ask']);
    assert.equal(await page.locator('[data-testid="tour-next"]').innerText(), 'Done');
    assert.ok(await page.locator('.questions').isVisible(), 'the last step brings the questions into view');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/tour-5.png` });
    // Back, by Tab from the buttons.
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tour-back');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#tour-title')?.textContent === 'The Durable Object');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tour-back');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tour-skip');
    // Escape closes it: the focus goes back to the page, and the browser remembers.
    await page.keyboard.press('Escape');
    await tour.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
    assert.equal(await page.evaluate(() => document.body.dataset.tour), undefined);
    assert.equal(await page.evaluate(() => localStorage.getItem('ratelab-tour-dismissed')), '1');
    await page.reload();
    await page.waitForSelector('body[data-complete="true"]');
    assert.equal(await tour.count(), 0, 'not after it was dismissed');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Skip closes the tour for good, as Done does', async () => {
  for (const button of ['tour-skip', 'tour-next']) {
    const { page, problems, context } = await openPage(shared.browser, { tour: true });
    try {
      await page.goto(BASE_URL);
      await page.locator('[data-testid="tour"]').waitFor();
      if (button === 'tour-next') for (let i = 0; i < 4; i++) await page.locator('[data-testid="tour-next"]').click();
      await page.locator(`[data-testid="${button}"]`).click();
      await page.locator('[data-testid="tour"]').waitFor({ state: 'detached' });
      assert.equal(await page.evaluate(() => localStorage.getItem('ratelab-tour-dismissed')), '1');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('the tour is not offered with a query, in an embed, or in a frame without storage', async () => {
  for (const query of ['pattern=steady', 'embed=1', 'q=window-edge']) {
    const { page, problems, context } = await openPage(shared.browser, { tour: true });
    try {
      await gotoLab(page, query);
      assert.equal(await page.locator('[data-testid="tour"]').count(), 0, query);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
  // A frame sandboxed without allow-same-origin has no storage: no tour, and no error.
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-docs-'));
  writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>Guide</title><body><iframe src="${BASE_URL}" title="Rate Limit Lab" width="1000" height="700" sandbox="allow-scripts"></iframe></body>`);
  const docs = await serveFolder(dir);
  const context = await shared.browser.newContext({ viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(`${docs.origin}/`);
    const frame = await (await page.waitForSelector('iframe')).contentFrame();
    await frame.waitForSelector('body[data-complete="true"]', { timeout: 20000 });
    assert.equal(await frame.locator('[data-testid="tour"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    docs.server.kill();
  }
});
