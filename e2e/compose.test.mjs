// "Compose traffic": segments in the link (`compose=`) add requests to any traffic, a preset
// included; the panel lists them in words, adds and removes them (each a history entry), and
// takes the link's text with its messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, rowFigures } from './helpers.mjs';

const shared = useBrowser();
const total = async (page, slug) => {
  const f = await rowFigures(page, slug);
  return f.allowed + f.rejected;
};
const param = (page, name) => new URL(page.url()).searchParams.get(name);

async function openCompose(page) {
  const panel = page.locator('[data-testid="compose-panel"]');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  // In the first view's module, opening it reloads the page with the complete one, open.
  await page.locator('[data-testid="compose-panel"][open] [data-testid="compose-text"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
}

test('"150 at once, then 2 a second for a minute" is one short parameter', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=clicks&compose=150@0;2/s@0-60&algos=fixed,sliding-log');
    assert.equal(await total(page, 'fixed'), 270);
    assert.equal((await rowFigures(page, 'sliding-log')).allowed, 30, '5 per 10 s over a minute');
    assert.equal(await page.locator('[data-testid="notice"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a preset is the start: the steady run with a burst of 150 at 30 s', async () => {
  const { page, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&compose=150@30&algos=fixed');
    assert.equal(await total(page, 'fixed'), 210);
    await gotoLab(page, 'pattern=steady&compose=150@30,key=tenant:b&algos=fixed');
    const keys = await page.locator('[data-testid="send-key"] option').allInnerTexts();
    assert.ok(keys.includes('tenant:b'), keys.join());
  } finally {
    await context.close();
  }
});

test('the panel lists, adds, removes and reads segments; each deliberate change is a history entry', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=clicks&compose=150@0;2/s@0-60&algos=fixed');
    await openCompose(page);
    const items = page.locator('[data-testid="compose-segment"]');
    assert.equal(await items.count(), 2);
    assert.match(await items.nth(0).innerText(), /150 at once at 0 s, key tenant:demo/);
    assert.match(await items.nth(1).innerText(), /2 a second from 0 to 60 s \(120 requests\)/);

    await page.click('[data-testid="compose-remove-0"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('compose') === '2/s@0-60');
    assert.equal(await total(page, 'fixed'), 120);

    await page.click('[data-testid="compose-add-burst"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('compose') === '2/s@0-60;5@0');
    assert.equal(await total(page, 'fixed'), 125);
    await page.goBack();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('compose') === '2/s@0-60');
    assert.equal(await total(page, 'fixed'), 120, 'Back undoes the added burst');

    const text = page.locator('[data-testid="compose-text"]');
    await text.fill('10@5,key=tenant:b;x');
    await text.press('Enter');
    await page.locator('[data-testid="notice"]').waitFor();
    assert.match(await page.locator('[data-testid="notice"]').first().innerText(), /segment 2 \(x\): "x" is not a segment/);
    assert.equal(param(page, 'compose'), '2/s@0-60', 'a refused text changes nothing');
    await text.fill('10@5,key=tenant:b');
    await text.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('compose') === '10@5,key=tenant:b');
    assert.equal(await total(page, 'fixed'), 10);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
