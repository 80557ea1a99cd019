// Back and Forward walk what a person chose deliberately: a preset, a scenario and an import each
// leave the view before them in the browser's history, while dragging a slider changes the
// current entry in place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, openImport } from './helpers.mjs';

const shared = useBrowser();

const param = (page, name) => new URL(page.url()).searchParams.get(name);
const historyLength = (page) => page.evaluate(() => history.length);
/** Waits until the sliding log's row shows `allowed`, the page's own figure for the view. */
const shows = (page, allowed) =>
  page.waitForFunction((n) => document.querySelector('[data-testid="stats-sliding-log"]')?.dataset.allowed === String(n), allowed, { timeout: 10000 });

test('a preset is a history entry, a slider is not, and Back and Forward show each view again', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady');
    await shows(page, 30);
    const start = await historyLength(page);

    await page.selectOption('[data-testid="pattern-select"]', 'double');
    await page.waitForFunction(() => location.search.includes('pattern=double'));
    assert.equal(await historyLength(page), start + 1, 'the preset left the view before it in the history');

    await page.focus('[data-testid="limit-slider"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => location.search.includes('limit=7'));
    assert.equal(await historyLength(page), start + 1, 'the slider changed the entry in place');
    const double7 = (await page.locator('[data-testid="stats-sliding-log"]').getAttribute('data-allowed'));

    await page.goBack();
    await shows(page, 30);
    assert.equal(param(page, 'pattern'), 'steady');
    assert.equal(param(page, 'limit'), null);
    assert.equal(await page.locator('[data-testid="pattern-select"]').inputValue(), 'steady');

    await page.goForward();
    await shows(page, Number(double7));
    assert.equal(param(page, 'pattern'), 'double');
    assert.equal(param(page, 'limit'), '7');
    assert.equal(await page.locator('[data-testid="limit-value"]').textContent(), '7 requests');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('an import and a Durable Object scenario are history entries too', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady');
    await page.waitForSelector('body[data-complete="true"]');
    await openImport(page);
    await page.fill('[data-testid="import-text"]', '0\n0.5\n1\n1.5\n2\n2.5\n3');
    await page.click('[data-testid="import-use"]');
    await shows(page, 5);
    assert.equal(param(page, 'trace'), '0,0.5,1,1.5,2,2.5,3');

    await page.click('[data-testid="scenario-far-object"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('home') === 'gru');

    await page.goBack();
    await shows(page, 5);
    assert.equal(param(page, 'trace'), '0,0.5,1,1.5,2,2.5,3', 'Back from the scenario: the imported requests');
    await page.goBack();
    await shows(page, 30);
    assert.equal(param(page, 'pattern'), 'steady', 'Back from the import: the preset before it');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("Back and Forward show each view's own notices: a link's trace error and a refused typed value", async () => {
  const { page, problems, context } = await openPage(shared.browser);
  const notices = () => page.locator('[data-testid="notice"]').allInnerTexts();
  const noticesAre = (pattern) =>
    page.waitForFunction(
      (source) => {
        const texts = [...document.querySelectorAll('[data-testid="notice"]')].map((n) => n.textContent);
        return source === null ? texts.length === 0 : texts.length === 1 && new RegExp(source).test(texts[0]);
      },
      pattern === null ? null : pattern.source,
      { timeout: 10000 },
    );
  try {
    await gotoLab(page, 'pattern=steady&trace=0,1,x');
    await noticesAre(/^trace="0,1,x": .*showing the default pattern instead\.$/);

    // A new view: the trace error was about the view before it.
    await page.selectOption('[data-testid="pattern-select"]', 'double');
    await page.waitForFunction(() => location.search.includes('pattern=double'));
    await noticesAre(null);
    const limit = page.locator('[data-testid="limit-number"]');
    await limit.fill('0');
    await limit.press('Enter');
    await noticesAre(/^limit="0": .*; keeping the default, 5\.$/);

    await page.goBack();
    await noticesAre(/^trace="0,1,x"/);
    assert.equal((await notices()).length, 1, 'only its own');
    await page.goForward();
    await noticesAre(/^limit="0"/);
    await page.goBack();
    await noticesAre(/^trace="0,1,x"/);
    await page.click('.notices .dismiss');
    await noticesAre(null);
    await page.goForward();
    await noticesAre(/^limit="0"/);
    await page.goBack();
    await noticesAre(null);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
