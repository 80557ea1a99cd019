// "Compose traffic": segments in the link (`compose=`) make the traffic or add to a preset's; the
// panel shows each as a row of fields edited in place, adds and removes them (each a history
// entry), replaces the current traffic or adds to it, and takes the link's text with its messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, rowFigures } from './helpers.mjs';

const shared = useBrowser();
const total = async (page, slug) => {
  const f = await rowFigures(page, slug);
  return f.allowed + f.rejected;
};
const param = (page, name) => new URL(page.url()).searchParams.get(name);

const waitForCompose = (page, text) =>
  page.waitForFunction((t) => new URLSearchParams(location.search).get('compose') === t, text);
const lede = (page) => page.locator('[data-testid="lede"]').innerText();

/** Types `value` into the field `name` of the `row`th segment and confirms it with Enter. */
async function setField(page, row, name, value) {
  const field = page.locator('[data-testid="compose-segment"]').nth(row).locator(`[data-testid="compose-${name}"]`);
  if ((await field.evaluate((e) => e.tagName)) === 'SELECT') {
    await field.selectOption(value);
  } else {
    await field.fill(value);
    await field.press('Enter');
  }
}

async function openCompose(page) {
  const panel = page.locator('[data-testid="compose-panel"]');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  // In the first view's module, opening it brings the complete one in place, the section open.
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

    await items.nth(0).locator('[data-testid="compose-remove"]').click();
    await waitForCompose(page, '2/s@0-60');
    assert.equal(await total(page, 'fixed'), 120);

    await page.click('[data-testid="compose-add"]');
    await waitForCompose(page, '2/s@0-60;5@60');
    assert.equal(await total(page, 'fixed'), 125, 'a burst of the limit where the others end');
    await page.goBack();
    await waitForCompose(page, '2/s@0-60');
    assert.equal(await total(page, 'fixed'), 120, 'Back undoes the added burst');

    const text = page.locator('[data-testid="compose-text"]');
    await text.fill('10@5,key=tenant:b;x');
    await text.press('Enter');
    const refused = page.locator('[data-testid="compose-text-error"]');
    await refused.waitFor();
    assert.match(await refused.innerText(), /segment 2 \(x\): "x" is not a segment/);
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

test('a burst of 50 at 5 s is composed with the fields alone, and replaces the traffic', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'algos=fixed');
    assert.equal(await total(page, 'fixed'), 10, 'the default edge pattern');
    await openCompose(page);
    assert.equal(await page.locator('[data-testid="compose-mode-replace"]').isChecked(), true, 'replace is the default');

    await page.click('[data-testid="compose-add"]');
    await waitForCompose(page, '5@0');
    await setField(page, 0, 'count', '50');
    await setField(page, 0, 'at', '5');
    await waitForCompose(page, '50@5');
    assert.match(await lede(page), /The same 50 requests/);
    assert.ok(page.url().includes('pattern=clicks&compose='), page.url());
    assert.equal(await total(page, 'fixed'), 50, 'the preset\'s requests are not mixed in');
    const row = page.locator('[data-testid="compose-segment"]').first();
    assert.match(await row.innerText(), /50 at once at 5 s/);

    await setField(page, 0, 'count', '20');
    await waitForCompose(page, '20@5');
    assert.match(await lede(page), /The same 20 requests/, 'the traffic follows the edited count');

    await setField(page, 0, 'count', 'lots');
    const refused = row.locator('[data-testid="compose-count-error"]');
    await refused.waitFor();
    assert.match(await refused.innerText(), /"lots" should be a number of requests from 1 to 200000/);
    assert.equal(param(page, 'compose'), '20@5', 'a refused field changes nothing');
    assert.match(await lede(page), /The same 20 requests/);

    await setField(page, 0, 'over', '10');
    await setField(page, 0, 'spacing', 'poisson');
    await setField(page, 0, 'key', 'tenant:b');
    await setField(page, 0, 'region', 'syd');
    await setField(page, 0, 'route', 'GET /x');
    await setField(page, 0, 'cost', '2');
    await waitForCompose(page, '~2/s@5-15,key=tenant:b,region=syd,route=GET%20%2Fx,cost=2');
    assert.equal(await refused.count(), 0, 'the message goes once the segment changes');

    await row.locator('[data-testid="compose-remove"]').click();
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('compose'));
    assert.equal(await page.locator('[data-testid="compose-segment"]').count(), 0);
    assert.match(await lede(page), /The same 0 requests/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('"add to it" keeps the preset\'s requests, and the choice can change back', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&algos=fixed');
    assert.equal(await total(page, 'fixed'), 60);
    await openCompose(page);
    await page.check('[data-testid="compose-mode-add"]');
    await page.click('[data-testid="compose-add"]');
    await waitForCompose(page, '5@0');
    await setField(page, 0, 'count', '50');
    await waitForCompose(page, '50@0');
    assert.equal(param(page, 'pattern'), 'steady');
    assert.equal(await total(page, 'fixed'), 110, 'the preset\'s 60 and the segment\'s 50');
    assert.match(await page.locator('[data-testid="compose-now"]').innerText(), /added to .Steady, one a second./);

    await page.check('[data-testid="compose-mode-replace"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('pattern') === 'clicks');
    assert.equal(await total(page, 'fixed'), 50, 'the segment alone');
    await page.check('[data-testid="compose-mode-add"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('pattern') === 'steady');
    assert.equal(await total(page, 'fixed'), 110, 'the preset comes back');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the text form shows the same segments as the rows, and editing either updates the other', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=clicks&compose=50@5&algos=fixed');
    await openCompose(page);
    const text = page.locator('[data-testid="compose-text"]');
    assert.equal(await text.inputValue(), '50@5');
    await setField(page, 0, 'count', '30');
    await waitForCompose(page, '30@5');
    assert.equal(await text.inputValue(), '30@5', 'a row\'s edit shows in the text');

    await text.fill('10@1;2/s@0-60,key=tenant:b');
    await text.press('Enter');
    await waitForCompose(page, '10@1;2/s@0-60,key=tenant:b');
    const rows = page.locator('[data-testid="compose-segment"]');
    assert.equal(await rows.count(), 2);
    const value = (row, name) => rows.nth(row).locator(`[data-testid="compose-${name}"]`).inputValue();
    assert.deepEqual(
      [await value(0, 'count'), await value(0, 'at'), await value(0, 'over')],
      ['10', '1', '0'],
    );
    assert.deepEqual(
      [await value(1, 'count'), await value(1, 'at'), await value(1, 'over'), await value(1, 'spacing'), await value(1, 'key')],
      ['120', '0', '60', 'even', 'tenant:b'],
    );
    assert.equal(await total(page, 'fixed'), 130);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
