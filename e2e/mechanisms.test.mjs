// Copies of a row, where a fixed window starts and whether refused requests count: each set on
// the page and in the link, read off the rows' figures, the rows' notes, the inspector and the
// CSV export, and each note's figures follow a change of setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { useBrowser, openPage, gotoLab, rowFigures } from './helpers.mjs';

const shared = useBrowser();
const param = (page, name) => new URL(page.url()).searchParams.get(name);

async function openCounting(page) {
  const panel = page.locator('[data-testid="counting-controls"]');
  if (await panel.evaluate((d) => d.open)) return;
  await panel.locator('summary').click();
  // In the first view's module, opening it brings the complete one in place, the section open.
  await page.locator('[data-testid="counting-controls"][open] [data-testid="spread"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
}

async function typeInto(page, testid, text) {
  const box = page.locator(`[data-testid="${testid}"]`);
  await box.fill(text);
  await box.press('Enter');
}

test('two copies in turn let all 60 of the steady run through, 10 in one window, and the notes and inspector say so', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&algos=fixed,sliding-log&instances=2&spread=round-robin');
    for (const slug of ['fixed', 'sliding-log']) {
      const figures = await rowFigures(page, slug);
      assert.equal(figures.allowed, 60, slug);
      assert.equal(figures.maxInWindow, 10, slug);
    }
    const note = page.locator('[data-testid="notes-sliding-log"]');
    assert.match(await note.innerText(), /Run as 2 copies, requests spread in turn.*let 10 through, 5 more than the limit of 5/);
    await page.click('[data-testid="step"]');
    await page.click('[data-testid="step"]');
    assert.match(await page.locator('[data-testid="inspector-title"]').innerText(), /Request 2 at 1 s \(.*; copy 2 of 2\)/);

    // Set on the page: four copies by key keep the one key on one copy, so the limit holds.
    await openCounting(page);
    await typeInto(page, 'instances-number', '4');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('instances') === '4');
    await page.selectOption('[data-testid="spread"]', 'key');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('spread') === 'key');
    const sticky = await rowFigures(page, 'sliding-log');
    assert.deepEqual([sticky.allowed, sticky.maxInWindow], [30, 5]);
    assert.match(await note.innerText(), /Run as 4 copies, requests spread by key.*let 5 through, within the limit of 5/);

    // One copy: the notes go, and the figures are the single limiter's again.
    await typeInto(page, 'instances-number', '1');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('instances'));
    assert.equal((await rowFigures(page, 'fixed')).allowed, 30);
    assert.equal(await note.count(), 0);

    // A refused value says why, as a link would.
    await typeInto(page, 'instances-number', '65');
    await page.waitForSelector('[data-testid="notice"]');
    assert.match(await page.locator('[data-testid="notice"]').first().innerText(), /1 to 64/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the CSV export names the copy that decided each request in a last column', async () => {
  const { page, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&algos=fixed&instances=3');
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
    const lines = (await readFile(await file.path())).toString('utf8').trimEnd().split('\n');
    assert.equal(lines[0], 'time_s,key,limiter,outcome,status,headers,copy');
    assert.deepEqual(lines.slice(1, 5).map((l) => l.split(',').at(-1)), ['1', '2', '3', '1']);
    assert.equal(lines.length, 61);
  } finally {
    await context.close();
  }
});

test('counting refused requests locks a client that never stops out: the sliding log lets 5 of the steady run through, not 30', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady&algos=fixed,sliding-log');
    assert.equal((await rowFigures(page, 'sliding-log')).allowed, 30);
    await openCounting(page);
    await page.check('[data-testid="count-refused"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('count-refused') === '1');
    assert.equal((await rowFigures(page, 'sliding-log')).allowed, 5);
    assert.equal((await rowFigures(page, 'fixed')).allowed, 30, 'no verdict of cost 1 changes on a fixed window');
    assert.match(await page.locator('[data-testid="notes-sliding-log"]').innerText(), /its 55 refusals.*5 got through/);
    assert.match(await page.locator('[data-testid="notes-fixed"]').innerText(), /its 30 refusals/);
    // The figures in the note follow the limit.
    await typeInto(page, 'limit-number', '6');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('limit') === '6');
    assert.match(await page.locator('[data-testid="notes-sliding-log"]').innerText(), /its 54 refusals.*6 got through/);
    await page.uncheck('[data-testid="count-refused"]');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('count-refused'));
    assert.equal(await page.locator('[data-testid="notes-sliding-log"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a fixed window that starts at the first request lets 5 of the edge run through, not 10', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'algos=fixed,sliding-log');
    assert.equal((await rowFigures(page, 'fixed')).allowed, 10);
    await openCounting(page);
    await page.selectOption('[data-testid="fixed-align"]', 'first');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('fixed-align') === 'first');
    const fixed = await rowFigures(page, 'fixed');
    assert.deepEqual([fixed.allowed, fixed.maxInWindow], [5, 5]);
    assert.match(await page.locator('[data-testid="notes-fixed"]').innerText(), /start at each key's first request/);
    assert.equal(await page.locator('[data-testid="notes-sliding-log"]').count(), 0);
    assert.equal(param(page, 'algos'), 'fixed,sliding-log');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a second limit: one after the other the edge run lets 4 through, only when both pass 5; the rows, notes, inspector and CSV name which limit refused', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'algos=sliding-log,fixed');
    await openCounting(page);
    await typeInto(page, 'also-input', '2/1');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('also') === '2/1');
    const row = page.locator('[data-testid="stats-sliding-log"]');
    const read = async () => [
      Number(await row.getAttribute('data-allowed')),
      Number(await row.getAttribute('data-refused-by-first')),
      Number(await row.getAttribute('data-refused-by-second')),
    ];
    assert.deepEqual(await read(), [4, 5, 1]);
    const note = page.locator('[data-testid="notes-sliding-log"]');
    assert.match(await note.innerText(), /A second limit of 2 per 1 s on the same key, checked after.*refused 1 request that the row's own limit let through; its own limit refused 5 requests/);

    // The third request (8.796 s) is the one the second limit refused.
    for (let i = 0; i < 3; i += 1) await page.click('[data-testid="step"]');
    assert.match(await page.locator('[data-testid="inspector"]').innerText(), /rejected by the second limit \(2 per 1 s\)/);

    await page.selectOption('[data-testid="spend"]', 'passed');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('spend') === 'passed');
    assert.deepEqual(await read(), [5, 3, 2]);
    assert.match(await note.innerText(), /both spending only when both let a request through: it refused 2 requests/);

    const [file] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
    const lines = (await readFile(await file.path())).toString('utf8').trimEnd().split('\n');
    assert.equal(lines[0], 'time_s,key,limiter,outcome,status,headers,refused_by');
    const causes = lines.slice(1).filter((l) => l.split(',')[2] === 'sliding-log').map((l) => l.split(',').at(-1));
    assert.deepEqual(causes.filter((c) => c === 'second').length, 2);
    assert.deepEqual(causes.filter((c) => c === 'first').length, 3);

    // Emptied, the second limit goes and the spend choice is disabled again.
    await typeInto(page, 'also-input', '');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('also'));
    assert.deepEqual(await read(), [5, 5, 0]);
    assert.equal(await page.locator('[data-testid="spend"]').isDisabled(), true);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
