// Clients that obey what they are told (`clients=obey`, `retries=`): the rows' retry figures, the
// notes quoting them, the inspector's list of a client's tries, the retries drawn on the
// timeline, the CSV's `try` column, and the figures following a change made on the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  useBrowser, openPage, gotoLab, rowFigures, SCREENSHOT_DIR, timelineX, timelinePixel as pixel, isGreen, isOrange,
} from './helpers.mjs';

const shared = useBrowser();
const param = (page, name) => new URL(page.url()).searchParams.get(name);

async function clientFigures(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  const read = (name) => row.getAttribute(`data-${name}`);
  return {
    retries: await read('retries'),
    wasted: await read('wasted'),
    gaveUp: await read('gave-up'),
    p95: await read('p95-wait-ms'),
  };
}

async function openCounting(page) {
  const panel = page.locator('[data-testid="counting-controls"]');
  if (await panel.evaluate((d) => d.open)) return;
  await panel.locator('summary').click();
  await page.locator('[data-testid="counting-controls"][open] [data-testid="clients"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
}

test('three clients told the same instant collide there, and the row, its notes and the inspector say so', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'trace=0,1,2&limit=1&window=10&algos=fixed,sliding-log&clients=obey&theme=light');
    assert.deepEqual(await clientFigures(page, 'fixed'), { retries: '3', wasted: '1', gaveUp: '0', p95: '18000' });
    assert.match(await page.locator('[data-testid="stats-fixed"]').innerText(), /3 retries, 1 wasted, 0 clients gave up/);
    const fixed = await rowFigures(page, 'fixed');
    assert.deepEqual([fixed.allowed, fixed.rejected, fixed.maxInWindow], [3, 3, 1]);
    const notes = await page.locator('[data-testid="notes-fixed"]').innerText();
    assert.match(notes, /Retry-After header, in whole seconds rounded up\) and tries again, up to 5 times/);
    assert.match(notes, /They sent 3 retries: 1 refused although the client had waited as told; 0 clients gave up; 95 % of the 3 clients served were served within 18 s/);
    assert.match(notes, /Up to 2 retries came back at the same instant \(10 s\)/);

    // The retries are drawn on their lane under the row (the whole timeline, before playback
    // moves): a dot at 20 s, a cross at 10 s.
    const layout = JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-layout'));
    const xOf = (s) => timelineX(layout, s);
    const lane = layout.rows.find((r) => r.id === 'fixed').markY + 15;
    assert.ok(isGreen(await pixel(page, xOf(20), lane)), `a retry let through at 20 s: ${await pixel(page, xOf(20), lane)}`);
    assert.ok(isOrange(await pixel(page, xOf(10) + 2, lane + 2)), `a retry refused at 10 s: ${await pixel(page, xOf(10) + 2, lane + 2)}`);
    assert.ok(layout.horizonUs >= 20e6, 'the axis reaches the last retry');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/clients-collide.png` });

    // The third request's client: refused at 2 s, told 8 s, refused again at 10 s, let through at 20 s.
    for (let i = 0; i < 3; i++) await page.click('[data-testid="step"]');
    assert.equal(
      await page.locator('[data-testid="tries-fixed"]').innerText(),
      'Its client: first try at 2 s: refused, told to wait 8 s; retry 1 at 10 s: refused, told to wait 10 s; retry 2 at 20 s: let through.',
    );
    // At 2 s the table counts the first tries decided by then, and no retry yet (the first comes
    // at 10 s); its data- attributes keep the totals.
    assert.equal(await page.locator('[data-testid="stats-fixed"] td[data-label="Let through"]').innerText(), '1');
    assert.equal(await page.locator('[data-testid="stats-fixed"] td[data-label="Rejected"]').innerText(), '2');
    assert.match(await page.locator('[data-testid="stats-fixed"] .verdict').innerText(), /; 0 retries so far, 0 wasted$/);
    assert.deepEqual(await clientFigures(page, 'fixed'), { retries: '3', wasted: '1', gaveUp: '0', p95: '18000' });

    // Fewer retries, set on the page: the figures and the notes follow.
    await openCounting(page);
    const retries = page.locator('[data-testid="retries-number"]');
    await retries.fill('1');
    await retries.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('retries') === '1');
    assert.deepEqual(await clientFigures(page, 'fixed'), { retries: '2', wasted: '1', gaveUp: '1', p95: '9000' });
    assert.match(await page.locator('[data-testid="notes-fixed"]').innerText(), /up to 1 times.*They sent 2 retries: 1 refused.*; 1 client gave up/s);

    // Clients that ignore their answers: the trace as it is, and no retry figures.
    await page.selectOption('[data-testid="clients"]', 'ignore');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('clients'));
    assert.equal(await page.locator('[data-testid="stats-fixed"]').getAttribute('data-retries'), null);
    assert.equal((await rowFigures(page, 'fixed')).allowed, 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('set on a first view, obeying clients load the complete module and the link keeps them', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'pattern=steady');
    await openCounting(page);
    await page.selectOption('[data-testid="clients"]', 'obey');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('clients') === 'obey');
    await page.waitForSelector('[data-testid="stats-fixed"][data-retries]');
    const fixed = await clientFigures(page, 'fixed');
    assert.deepEqual([fixed.retries, fixed.wasted, fixed.gaveUp, fixed.p95], ['175', '125', '5', '48000']);
    assert.equal(param(page, 'clients'), 'obey');
    await page.reload();
    await page.waitForSelector('[data-testid="stats-fixed"][data-retries="175"]', { timeout: 15000 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the CSV export lists every try, a row at a time, with its try number', async () => {
  const { page, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, 'trace=0,1,2&limit=1&window=10&algos=fixed&clients=obey');
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
    const lines = (await readFile(await file.path())).toString('utf8').trimEnd().split('\n');
    assert.equal(lines[0], 'time_s,key,limiter,outcome,status,headers,try');
    assert.deepEqual(
      lines.slice(1).map((l) => { const f = l.split(','); return [f[0], f[3], f.at(-1)].join(' '); }),
      ['0 allowed 0', '1 rejected 0', '2 rejected 0', '10 allowed 1', '10 rejected 1', '20 allowed 2'],
    );
  } finally {
    await context.close();
  }
});
