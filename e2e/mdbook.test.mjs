// The lab inside a real documentation site: an mdBook book (mdbook from crates.io) with a chapter
// that embeds three views with the lab's own snippets, built here and served from an origin of
// its own. embed.js sizes each frame to its content, the frames follow the book's theme, and
// nothing logs an error. The lab comes from a server that sends no CORS header.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { useBrowser, openPage, gotoLab, serveFolder, BASE_URL, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

const lab = await serveFolder(process.env.SITE_DIR, '--no-cors');
after(() => lab.server.kill());
const labBase = `${lab.origin}${new URL(BASE_URL).pathname}`;

const VIEWS = [
  'pattern=edge&algos=fixed,sliding-log&caption=Twice+the+limit+across+a+window+edge',
  'pattern=burst-trickle&algos=token-bucket,gcra,leaky-bucket&controls=limit,window,play',
  'pattern=steady&do=1&algos=sliding-log&controls=',
];

/** The snippet the lab offers for a view, pointing at the lab's server. */
async function snippetFor(query) {
  const { page, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, query);
    await page.waitForSelector('body[data-complete="true"]');
    return (await page.locator('[data-testid="embed-snippet"]').inputValue()).replaceAll(BASE_URL, labBase);
  } finally {
    await context.close();
  }
}

/** Writes and builds the book; returns the folder mdbook wrote. */
async function buildBook() {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-mdbook-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'book.toml'), '[book]\ntitle = "Limits, explained"\n\n[output.html]\ndefault-theme = "light"\npreferred-dark-theme = "coal"\n');
  writeFileSync(join(dir, 'src', 'SUMMARY.md'), '# Summary\n\n- [Three limiters](embeds.md)\n');
  const snippets = [];
  for (const view of VIEWS) snippets.push(await snippetFor(view));
  // embed.js once per page is enough; the book keeps each snippet as the lab offers it.
  writeFileSync(
    join(dir, 'src', 'embeds.md'),
    `# Three limiters\n\nThe same requests, three views.\n\n${snippets.join('\n\nAnd the next one.\n\n')}\n\nThe end of the chapter.\n`,
  );
  execFileSync(process.env.MDBOOK ?? 'mdbook', ['build', dir], { stdio: 'pipe' });
  return join(dir, 'book');
}

test('an mdBook chapter embeds three views, each frame sized by embed.js and following the book\'s theme', async () => {
  const book = await serveFolder(await buildBook());
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  try {
    await page.goto(`${book.origin}/embeds.html`);
    const frames = page.locator('iframe[data-ratelab]');
    assert.equal(await frames.count(), 3);
    for (let i = 0; i < 3; i++) {
      await frames.nth(i).scrollIntoViewIfNeeded();
      const frame = await (await frames.nth(i).elementHandle()).contentFrame();
      await frame.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
      await page.waitForFunction((n) => document.querySelectorAll('iframe[data-ratelab]')[n].dataset.ratelabSized === 'true', i, { timeout: 10000 });
      const needed = await frame.evaluate(() => Math.ceil(document.querySelector('.page').getBoundingClientRect().bottom + scrollY));
      await page.waitForFunction(
        ([n, h]) => Math.abs(document.querySelectorAll('iframe[data-ratelab]')[n].getBoundingClientRect().height - h) <= 1,
        [i, needed],
        { timeout: 10000 },
      );
      assert.equal(await frame.evaluate(() => document.documentElement.getAttribute('data-theme')), 'light', 'the book is light');
    }
    const heights = await frames.evaluateAll((list) => list.map((f) => Math.round(f.getBoundingClientRect().height)));
    assert.ok(heights[1] !== heights[2], `each frame has its own height: ${heights}`);
    await frames.first().scrollIntoViewIfNeeded();
    await sleep(500); // an out-of-process frame paints again after the scroll
    await page.screenshot({ path: `${SCREENSHOT_DIR}/mdbook-light.png` });

    // The reader picks the book's dark theme with the book's own menu: every frame follows.
    await page.locator('#mdbook-theme-toggle').click();
    await page.locator('#mdbook-theme-coal').click();
    assert.ok(await page.evaluate(() => document.documentElement.classList.contains('coal')));
    for (let i = 0; i < 3; i++) {
      const frame = await (await frames.nth(i).elementHandle()).contentFrame();
      await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark', null, { timeout: 5000 });
    }
    await frames.nth(1).scrollIntoViewIfNeeded();
    await sleep(500);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/mdbook-coal.png` });
    assert.deepEqual(problems, []);
  } finally {
    book.server.kill();
    await context.close();
  }
});
