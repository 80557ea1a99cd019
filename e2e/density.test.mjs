// Marks true at any density: where a row's marks would overlap, the row draws bars whose areas
// are proportional to the counts of each outcome (src/layout/marks.rs), and where they are apart,
// one mark per request. Read from the canvas's own pixels: in every stretch a row draws as bars,
// the share of the drawn area in the refused colour is the share of refused requests there
// (within 5 points), zoomed out and in, in both themes; and from the plan the canvas publishes
// (`data-marks`), every request shown is one mark or is counted in one bar, as the table counts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, openImport, rowFigures, doRowFigures, timelineLayout, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** The outcome colours of `src/ui/draw.rs`'s palettes, exactly as painted. */
const PALETTES = {
  light: { allowed: [0, 158, 115], refused: [213, 94, 0], delayed: [0, 114, 178], degraded: [230, 159, 0] },
  dark: { allowed: [60, 207, 158], refused: [240, 138, 75], delayed: [86, 180, 233], degraded: [240, 190, 60] },
};

/** The plan the canvas publishes (`MarkColumns::to_json`). */
async function marks(page) {
  return JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-marks'));
}

/**
 * Pixels of each outcome colour, exactly, inside CSS x from `x0` to `x1` and y from `y0` to
 * `y1` of the timelines' canvas.
 */
async function colourArea(page, [x0, x1, y0, y1], palette) {
  return page.evaluate(([box, colours]) => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    const ratio = c.width / c.getBoundingClientRect().width;
    const [dx0, dx1] = [Math.max(0, Math.floor(box[0] * ratio)), Math.min(c.width, Math.ceil(box[1] * ratio))];
    const [dy0, dy1] = [Math.max(0, Math.floor(box[2] * ratio)), Math.min(c.height, Math.ceil(box[3] * ratio))];
    const d = c.getContext('2d').getImageData(dx0, dy0, dx1 - dx0, dy1 - dy0).data;
    const counts = Object.fromEntries(Object.keys(colours).map((k) => [k, 0]));
    for (let i = 0; i < d.length; i += 4) {
      for (const [name, [r, g, b]] of Object.entries(colours)) {
        if (d[i] === r && d[i + 1] === g && d[i + 2] === b) counts[name]++;
      }
    }
    return counts;
  }, [[x0, x1, y0, y1], palette]);
}

/**
 * Checks the rule on every cluster every row draws as bars: the refused colour's share of the
 * outcome colours' area against the cluster's share of refused requests. Returns how many
 * clusters were checked.
 */
async function checkShares(page, palette, what) {
  const layout = await timelineLayout(page);
  const plan = await marks(page);
  let checked = 0;
  for (const [r, row] of plan.rows.entries()) {
    const geometry = layout.rows[r];
    assert.equal(geometry.id, row.id);
    for (const [l, lane] of row.lanes.entries()) {
      const y = geometry.laneY[l];
      const reach = row.lanes.length > 1 ? 13 : 25;
      for (const [x0, x1, requests, refused] of lane.bars) {
        const area = await colourArea(page, [x0, x1, y - reach, y + reach], PALETTES[palette]);
        const drawn = area.allowed + area.refused + area.delayed + area.degraded;
        assert.ok(drawn > 0, `${what}: ${row.id}'s bars from ${x0} to ${x1} px are drawn`);
        const share = area.refused / drawn;
        const expected = refused / requests;
        assert.ok(
          Math.abs(share - expected) <= 0.05,
          `${what}: ${row.id} from ${x0} to ${x1} px draws ${(100 * share).toFixed(1)} % of its area refused for ${refused} of ${requests} requests refused (${(100 * expected).toFixed(1)} %)`,
        );
        checked++;
      }
    }
  }
  return checked;
}

/** Every request shown in `row` counted once: lone marks plus the requests in its bars. */
function shownIn(plan, id) {
  const row = plan.rows.find((r) => r.id === id);
  let marksCount = 0;
  let inBars = 0;
  let refused = 0;
  for (const lane of row.lanes) {
    marksCount += lane.marks.length;
    refused += lane.marks.filter(([, k]) => k === 'r' || k === 'c').length;
    for (const [, , n, r] of lane.bars) {
      inBars += n;
      refused += r;
    }
  }
  return { marks: marksCount, inBars, refused, total: marksCount + inBars };
}

/** 200,000 requests over 1,000 s: 180 a second, with ten 10-second bursts at 400 a second. */
function twoHundredThousand() {
  const times = [];
  for (let s = 0; s < 1000 && times.length < 200_000; s++) {
    const burst = s % 100 >= 40 && s % 100 < 50 && s < 1000;
    const perSecond = burst ? 400 : 180;
    for (let i = 0; i < perSecond && times.length < 200_000; i++) times.push((s + i / perSecond).toFixed(4));
  }
  while (times.length < 200_000) times.push('999.9999');
  return times;
}

for (const theme of ['light', 'dark']) {
  test(`200,000 requests: every row's bars are refused in the share its requests were (${theme})`, async () => {
    const { page } = await openPage(shared.browser);
    await gotoLab(page, `limit=250&window=1&theme=${theme}`);
    await openImport(page);
    const times = twoHundredThousand();
    await page.setInputFiles('[data-testid="import-file"]', { name: 'busy.txt', mimeType: 'text/plain', buffer: Buffer.from(times.join('\n')) });
    await page.waitForSelector('[data-testid="import-ok"]', { timeout: 120000 });
    await page.waitForFunction((n) => {
      const published = document.querySelector('[data-testid="timeline-canvas"]')?.getAttribute('data-marks');
      if (document.querySelector('[data-testid="progress"]') || !published) return false;
      const [lane] = JSON.parse(published).rows[0].lanes;
      return lane.marks.length + lane.bars.reduce((sum, bar) => sum + bar[2], 0) === n;
    }, times.length, { timeout: 120000 });
    // Zoomed out: the whole trace.
    let plan = await marks(page);
    for (const row of plan.rows) {
      const figures = await rowFigures(page, row.id);
      const shown = shownIn(plan, row.id);
      assert.equal(shown.total, 200_000, `${row.id}: every request counted once`);
      assert.equal(shown.refused, figures.rejected, `${row.id}: the drawing refuses what the table does`);
    }
    const some = await rowFigures(page, 'sliding-log');
    assert.ok(some.rejected > 0 && some.rejected < 20_000, `the sliding log refuses a few (${some.rejected})`);
    const zoomedOut = await checkShares(page, theme, 'zoomed out');
    assert.ok(zoomedOut >= 6, `every row is drawn as bars (${zoomedOut})`);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `density-200k-${theme}.png`) });
    // Zoomed in on the first burst's edge: 38 s to 44 s.
    const url = new URL(page.url());
    url.searchParams.set('view', '38-44');
    await page.goto(url.toString());
    await page.waitForSelector('body[data-complete="true"]', { timeout: 60000 });
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid="timeline-canvas"]');
      return c && JSON.parse(c.getAttribute('data-layout') || '{}').fromUs === 38000000 && c.getAttribute('data-marks') && !document.querySelector('[data-testid="progress"]');
    }, null, { timeout: 120000 });
    plan = await marks(page);
    const zoomedIn = await checkShares(page, theme, 'zoomed in');
    assert.ok(zoomedIn >= 6, `zoomed in, every row is still bars (${zoomedIn})`);
    const logShown = shownIn(plan, 'sliding-log');
    assert.ok(logShown.refused > 0, 'the burst refuses inside the stretch shown');
    await page.screenshot({ path: join(SCREENSHOT_DIR, `density-200k-zoomed-${theme}.png`) });
    await page.close();
  });

  test(`fifty requests at one instant under nginx: one bar, its refusals in proportion, and a count (${theme})`, async () => {
    const { page } = await openPage(shared.browser);
    const burst = new Array(50).fill('1');
    const later = ['4', '7.5', '11', '14'];
    await gotoLab(page, `algos=nginx,fixed&nginx-rate=100r/m&nginx-burst=20&limit=100&window=60&theme=${theme}&trace=${[...burst, ...later].join(',')}`);
    for (const view of [null, '0-15', '0.5-1.5']) {
      if (view) {
        const url = new URL(page.url());
        url.searchParams.set('view', view);
        await gotoLab(page, url.search.slice(1));
      }
      const plan = await marks(page);
      const nginx = await rowFigures(page, 'nginx');
      assert.equal(nginx.allowed + nginx.rejected, 54);
      const shown = shownIn(plan, 'nginx');
      const lane = plan.rows.find((r) => r.id === 'nginx').lanes[0];
      const [bar] = lane.bars;
      assert.ok(bar, `${view}: the fifty at one instant are drawn as bars`);
      assert.equal(bar[2], 50);
      assert.equal(bar[3], 29, 'nginx lets 21 of them through (burst 20 and the first)');
      if (!view || view === '0-15') {
        assert.equal(shown.marks, 4, `${view}: the four later requests are marks of their own`);
        assert.equal(shown.refused, nginx.rejected);
      }
      assert.ok((await checkShares(page, theme, `50 at once, ${view ?? 'whole'}`)) >= 2);
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, `density-fifty-${theme}.png`) });
    await page.close();
  });
}

test('a lane per key draws each key\'s bursts as bars in proportion, on one scale for the row', async () => {
  const { page } = await openPage(shared.browser);
  // Key a: 30 at one instant; key b: 60 over 0.2 s; then a few apart. 20 per key per 10 s.
  const a = new Array(30).fill('2@tenant:a');
  const b = Array.from({ length: 60 }, (_, i) => `${(5 + i / 300).toFixed(4)}@tenant:b`);
  const apart = ['9@tenant:a', '12@tenant:b'];
  await gotoLab(page, `algos=fixed,sliding-log&limit=20&window=10&lanes=key&trace=${[...a, ...b, ...apart].join(',')}`);
  const plan = await marks(page);
  for (const row of plan.rows) {
    assert.equal(row.lanes.length, 2, `${row.id}: a lane per key`);
    const [laneA, laneB] = row.lanes;
    assert.deepEqual(laneA.bars.map((bar) => bar.slice(2)), [[30, 10]], `${row.id}: key a's thirty at one instant, ten refused`);
    assert.deepEqual(laneB.bars.map((bar) => bar.slice(2)), [[60, 40]], `${row.id}: key b's sixty, forty refused`);
    assert.equal(laneA.marks.length + laneB.marks.length, 2, `${row.id}: the two requests apart are marks`);
  }
  assert.ok((await checkShares(page, 'light', 'lanes')) >= 4);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'density-lanes.png') });
  await page.close();
});

test('requests a mark apart are each drawn as their own mark, none as bars', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, '');
  const plan = await marks(page);
  const layout = await timelineLayout(page);
  const figures = await rowFigures(page, 'fixed');
  for (const row of plan.rows) {
    const shown = shownIn(plan, row.id);
    assert.equal(shown.inBars, 0, `${row.id}: no bars`);
    assert.equal(shown.marks, figures.allowed + figures.rejected, `${row.id}: one mark per request`);
    const xs = row.lanes[0].marks.map(([x]) => x).sort((a, b) => a - b);
    for (let i = 1; i < xs.length; i++) assert.ok(xs[i] - xs[i - 1] >= 9, `${row.id}: marks ${xs[i - 1]} and ${xs[i]} px are a mark apart`);
  }
  assert.ok(layout.rows.length >= 6);
  await page.close();
});

/** The Durable Object chart's plan (`LatencyMarks::to_json`) and axes, as its canvas publishes them. */
async function latencyPlan(page) {
  const canvas = page.locator('[data-testid="latency-canvas"]');
  return { plan: JSON.parse(await canvas.getAttribute('data-marks')), axes: JSON.parse(await canvas.getAttribute('data-axes')) };
}

/** Pixels of each outcome colour, exactly, inside CSS boxes [x0, x1, y0, y1] of the chart's canvas. */
async function latencyArea(page, boxes, palette) {
  return page.evaluate(([boxes, colours]) => {
    const c = document.querySelector('[data-testid="latency-canvas"]');
    const ratio = c.width / c.getBoundingClientRect().width;
    const counts = Object.fromEntries(Object.keys(colours).map((k) => [k, 0]));
    for (const [x0, x1, y0, y1] of boxes) {
      const [dx0, dx1] = [Math.max(0, Math.floor(x0 * ratio)), Math.min(c.width, Math.ceil(x1 * ratio))];
      const [dy0, dy1] = [Math.max(0, Math.floor(y0 * ratio)), Math.min(c.height, Math.ceil(y1 * ratio))];
      if (dx1 <= dx0 || dy1 <= dy0) continue;
      const d = c.getContext('2d').getImageData(dx0, dy0, dx1 - dx0, dy1 - dy0).data;
      for (let i = 0; i < d.length; i += 4) {
        for (const [name, [r, g, b]] of Object.entries(colours)) {
          if (d[i] === r && d[i + 1] === g && d[i + 2] === b) counts[name]++;
        }
      }
    }
    return counts;
  }, [boxes, palette]);
}

/**
 * The rule on the Durable Object chart: over all its bars, and in each cluster drawn with enough
 * pixels to have a share, the refused colour's share of the outcome colours' area is the share of
 * refused answers, within 5 points. Returns the answers counted in bars and the refused among them.
 */
async function checkLatencyShares(page, theme, what) {
  const { plan } = await latencyPlan(page);
  const box = (band, [x0, x1]) => [x0, x1, band.y - plan.bandReach - 1, band.y + plan.bandReach + 1];
  const colours = PALETTES[theme];
  const drawnOf = (a) => a.allowed + a.refused + a.delayed + a.degraded;
  let requests = 0;
  let refused = 0;
  let checked = 0;
  const boxes = [];
  for (const band of plan.bands) {
    for (const bar of band.bars) {
      requests += bar[2];
      refused += bar[3];
      boxes.push(box(band, bar));
      const area = await latencyArea(page, [box(band, bar)], colours);
      if (drawnOf(area) < 150) continue;
      const share = area.refused / drawnOf(area);
      assert.ok(
        Math.abs(share - bar[3] / bar[2]) <= 0.05,
        `${what}: the band at ${band.y} px from ${bar[0]} to ${bar[1]} px draws ${(100 * share).toFixed(1)} % refused for ${bar[3]} of ${bar[2]}`,
      );
      checked++;
    }
  }
  const whole = await latencyArea(page, boxes, colours);
  const share = whole.refused / drawnOf(whole);
  assert.ok(drawnOf(whole) > 1000, `${what}: the bars are drawn (${drawnOf(whole)} px)`);
  assert.ok(
    Math.abs(share - refused / requests) <= 0.05,
    `${what}: the chart's bars draw ${(100 * share).toFixed(1)} % refused for ${refused} of ${requests} answers (${(100 * refused / requests).toFixed(1)} %)`,
  );
  return { requests, refused, checked };
}

for (const theme of ['light', 'dark']) {
  test(`the Durable Object chart draws 6,000 crowded answers as bars refused in the share they were (${theme})`, async () => {
    const { page, problems } = await openPage(shared.browser);
    // Twice the limit for 6 s at one object: half refused, with an outage that fails open.
    const query = `limit=500&window=1&pattern=double&do=1&from=iad&home=iad&shards=1&outage=2-3&theme=${theme}`;
    for (const view of [null, '3.2-3.6']) {
      await gotoLab(page, view ? `${query}&view=${view}` : query);
      await page.waitForFunction(() => document.querySelector('[data-testid="latency-canvas"]')?.getAttribute('data-marks'));
      const { plan, axes } = await latencyPlan(page);
      const figures = await doRowFigures(page);
      const { requests, refused, checked } = await checkLatencyShares(page, theme, view ?? 'whole');
      const lone = plan.lone.length;
      if (!view) {
        // Every answer is counted once, as a mark or in a bar, and refused as the table says.
        assert.equal(lone + requests, figures.allowed + figures.rejected);
        assert.equal(refused + plan.lone.filter(([, , k]) => k === 'r' || k === 'c').length, figures.rejected);
        assert.ok(figures.rejected > 1000 && figures.degraded > 200, `a mix: ${JSON.stringify(figures)}`);
      } else {
        assert.ok(requests > 100, `zoomed in, still crowded (${requests})`);
        assert.equal(axes.fromUs, 3_200_000);
      }
      assert.ok(checked >= 1, `${view ?? 'whole'}: clusters checked one by one (${checked})`);
      await page.locator('.latency').screenshot({ path: join(SCREENSHOT_DIR, `density-durable-${view ? 'zoomed-' : ''}${theme}.png`) });
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('answers a mark apart on the Durable Object chart are each their own mark, none in bars', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady&do=1&from=fra&home=gru&shards=1&timeout=300');
  const { plan } = await latencyPlan(page);
  const figures = await doRowFigures(page);
  assert.equal(plan.bands.length, 0);
  assert.equal(plan.lone.length, figures.allowed + figures.rejected);
  assert.equal(plan.lone.length, 60);
  await page.close();
});

test('retries of obeying clients told the same instant are drawn as bars under the row, refused in the share they were', async () => {
  const { page, problems } = await openPage(shared.browser);
  // 200 clients in 2 s against 10 per 10 s: the refused ones are all told the next window's start.
  const trace = Array.from({ length: 200 }, (_, i) => (i / 100).toFixed(2)).join(',');
  await gotoLab(page, `algos=fixed,sliding-log&limit=10&window=10&clients=obey&theme=light&trace=${trace}`);
  await page.waitForFunction(() => document.querySelector('[data-testid="timeline-canvas"]')?.getAttribute('data-retries'));
  const layout = await timelineLayout(page);
  const published = JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-retries'));
  let checked = 0;
  for (const row of published.rows) {
    const geometry = layout.rows.find((r) => r.id === row.id);
    const figures = await page.locator(`[data-testid="stats-${row.id}"]`).getAttribute('data-retries');
    const [lane] = row.lanes;
    const inBars = lane.bars.reduce((sum, bar) => sum + bar[2], 0);
    assert.equal(lane.marks + inBars, Number(figures), `${row.id}: every retry drawn once, as a mark or in a bar`);
    const y = geometry.laneY[0] + published.lane;
    for (const [x0, x1, requests, refused] of lane.bars) {
      const area = await colourArea(page, [x0, x1, y - published.reach - 1, y + published.reach + 1], PALETTES.light);
      const drawn = area.allowed + area.refused;
      if (drawn < 30) continue;
      const share = area.refused / drawn;
      assert.ok(
        Math.abs(share - refused / requests) <= 0.05,
        `${row.id}'s retries from ${x0} to ${x1} px draw ${(100 * share).toFixed(1)} % refused for ${refused} of ${requests}`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 2, `retry bars checked (${checked})`);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'density-retries.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
