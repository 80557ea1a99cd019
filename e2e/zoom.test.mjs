// Zoom and pan on the timelines (the wheel with Ctrl, keys, a drag, a pinch, the reset, a view=
// link), a lane per key, and the PNG export standing alone: what a person does, and what the
// page and the link say afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  useBrowser, openPage, gotoLab, SCREENSHOT_DIR, timelineLayout as layoutOf, timelineX as xOf,
} from './helpers.mjs';

const shared = useBrowser();

/** The stretch shown, in milliseconds, as the timelines' section publishes it. */
async function shown(page) {
  const section = page.locator('section.timelines');
  return {
    from: Number(await section.getAttribute('data-view-from-ms')),
    to: Number(await section.getAttribute('data-view-to-ms')),
  };
}

/** Waits until the link says `view=` (or says none, for `null`). */
async function linkSays(page, view) {
  await page.waitForFunction((v) => new URLSearchParams(location.search).get('view') === v, view);
}

test('a wheel turn with Ctrl over a timeline zooms around the pointer, and the link keeps the stretch', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  assert.deepEqual(await shown(page), { from: 0, to: 20000 });
  assert.equal(await page.locator('[data-testid="zoom-reset"]').isVisible(), false, 'no reset before a zoom');
  const canvas = page.locator('[data-testid="timeline-canvas"]');
  const box = await canvas.boundingBox();
  const layout = await layoutOf(page);
  const x = xOf(layout, 10);
  await page.mouse.move(box.x + x, box.y + 40);
  const scrolled = await page.evaluate(() => scrollY);
  const entries = await page.evaluate(() => history.length);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -400);
  await page.keyboard.up('Control');
  await page.waitForFunction(() => Number(document.querySelector('section.timelines').dataset.viewToMs) < 20000);
  const zoomed = await shown(page);
  assert.ok(zoomed.to - zoomed.from < 12000, `zoomed in (${JSON.stringify(zoomed)})`);
  // 10 s stays under the pointer.
  const after = await layoutOf(page);
  assert.ok(Math.abs(xOf(after, 10) - x) < 2, `10 s at ${xOf(after, 10)} px, was ${x} px`);
  assert.equal(await page.evaluate(() => scrollY), scrolled, 'the page did not scroll');
  await page.waitForFunction(() => new URLSearchParams(location.search).has('view'));
  const view = new URLSearchParams(new URL(page.url()).search).get('view');
  const [from, to] = view.split('-').map(Number);
  assert.ok(Math.abs(from * 1000 - zoomed.from) < 20 && Math.abs(to * 1000 - zoomed.to) < 20, `${view} is ${JSON.stringify(zoomed)}`);
  // Replaced in place, as a slider does: no entry is added to the history.
  assert.equal(await page.evaluate(() => history.length), entries);
  // The axis follows: every tick is inside the stretch.
  const ticks = await page.locator('section.timelines .axis .tick').allTextContents();
  assert.ok(ticks.length >= 3, ticks.join(' '));
  for (const t of ticks) {
    const s = parseFloat(t);
    assert.ok(s * 1000 >= zoomed.from - 1 && s * 1000 <= zoomed.to + 1, `${t} inside ${JSON.stringify(zoomed)}`);
  }
  await page.locator('[data-testid="zoom-reset"]').click();
  assert.deepEqual(await shown(page), { from: 0, to: 20000 });
  await linkSays(page, null);
  assert.equal(await page.locator('[data-testid="zoom-reset"]').isVisible(), false);
  await page.close();
});

test('a plain wheel turn over a timeline scrolls the page and leaves the timeline as it is', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  const box = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
  await page.mouse.move(box.x + 300, box.y + 40);
  await page.mouse.wheel(0, 300);
  await page.waitForFunction(() => scrollY > 0);
  assert.deepEqual(await shown(page), { from: 0, to: 20000 });
  await page.close();
});

test('+ and - zoom around the selected request, the arrow keys keep it in view, and 0 shows the whole trace', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  const canvas = page.locator('[data-testid="timeline-canvas"]');
  await canvas.focus();
  // The third request, at 8.796 s.
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('+');
  let view = await shown(page);
  assert.equal(view.to - view.from, 10000, 'twice as close');
  assert.ok(view.from <= 8796 && 8796 <= view.to, JSON.stringify(view));
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  view = await shown(page);
  assert.equal(view.to - view.from, 2500);
  // The last request, at 11.592 s: the stretch moves to show it.
  await page.keyboard.press('End');
  view = await shown(page);
  assert.equal(view.to - view.from, 2500, 'moved, not zoomed');
  assert.ok(view.from < 11592 && 11592 < view.to, JSON.stringify(view));
  assert.match(await page.locator('[data-testid="live"]').textContent(), /11\.592/);
  await page.keyboard.press('-');
  view = await shown(page);
  assert.equal(view.to - view.from, 5000);
  await linkSays(page, `${view.from / 1000}-${view.to / 1000}`);
  await page.keyboard.press('0');
  assert.deepEqual(await shown(page), { from: 0, to: 20000 });
  await linkSays(page, null);
  await page.close();
});

test('a view= link opens zoomed, a drag pans it, a pinch zooms it, and marks outside it are not drawn', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log&view=9-11');
  assert.deepEqual(await shown(page), { from: 9000, to: 11000 });
  assert.equal(await page.locator('[data-testid="zoom-reset"]').isVisible(), true);
  const ticks = await page.locator('section.timelines .axis .tick').allTextContents();
  assert.equal(ticks[0], '9 s');
  assert.equal(ticks.at(-1), '11 s');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/zoom-link.png` });
  const layout = await layoutOf(page);
  const canvas = page.locator('[data-testid="timeline-canvas"]');
  const box = await canvas.boundingBox();
  const y = layout.rows[0].markY;
  // The marks at 9.194 s and 10 s are drawn; nothing is drawn in the margin for those before.
  const inked = (x) => page.evaluate(({ x, y }) => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    const d = c.getContext('2d').getImageData(Math.round(x * devicePixelRatio), Math.round(y * devicePixelRatio), 1, 1).data;
    const bg = c.getContext('2d').getImageData(2, 2, 1, 1).data;
    return Math.abs(d[0] - bg[0]) + Math.abs(d[1] - bg[1]) + Math.abs(d[2] - bg[2]) > 60;
  }, { x, y });
  assert.ok(await inked(xOf(layout, 9.194)), 'the mark at 9.194 s');
  assert.ok(await inked(xOf(layout, 10)), 'the mark at 10 s');
  assert.ok(!(await inked(layout.padX / 2)), 'nothing piled in the margin');
  // A drag to the left shows later times: the time under the pointer follows it.
  const x0 = xOf(layout, 10);
  await page.mouse.move(box.x + x0, box.y + y);
  await page.mouse.down();
  await page.mouse.move(box.x + x0 - 100, box.y + y, { steps: 5 });
  await page.mouse.up();
  const dragged = await shown(page);
  assert.equal(dragged.to - dragged.from, 2000, 'a drag keeps the span');
  assert.ok(dragged.from > 9000, JSON.stringify(dragged));
  assert.ok(Math.abs(xOf(await layoutOf(page), 10) - (x0 - 100)) < 2, '10 s followed the pointer');
  assert.equal(await page.locator('[data-testid="inspector-title"]').count(), 0, 'the drag selected nothing');
  // A pinch: two fingers spreading apart keep the times under them.
  const spread = await page.evaluate(async () => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    const r = c.getBoundingClientRect();
    const fire = (type, id, x) => c.dispatchEvent(new PointerEvent(type, {
      pointerId: id, pointerType: 'touch', isPrimary: id === 1, bubbles: true, clientX: r.left + x, clientY: r.top + 20,
    }));
    fire('pointerdown', 1, 300);
    fire('pointerdown', 2, 500);
    fire('pointermove', 2, 700);
    fire('pointerup', 2, 700);
    fire('pointerup', 1, 300);
    await new Promise((done) => setTimeout(done, 100));
    const s = document.querySelector('section.timelines').dataset;
    return { from: Number(s.viewFromMs), to: Number(s.viewToMs) };
  });
  // Fingers 200 px apart moved to 400 px apart: half the span.
  assert.ok(Math.abs((spread.to - spread.from) - (dragged.to - dragged.from) / 2) < 5, `${JSON.stringify(spread)} from ${JSON.stringify(dragged)}`);
  await page.close();
});

test('several keys get a toggle that splits every row into a lane per key, labelled, and back', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge');
  assert.equal(await page.locator('[data-testid="lanes-toggle"]').isVisible(), false, 'one key: no lanes');
  await gotoLab(page, 'pattern=several-keys&algos=fixed,token-bucket,gcra');
  const toggle = page.locator('[data-testid="lanes-toggle"]');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await toggle.click();
  await page.waitForSelector('[data-testid="lane-label"]', { timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal(new URL(page.url()).searchParams.get('lanes'), 'key');
  const labels = await page.locator('[data-testid="lane-label"]').allTextContents();
  // Three rows of three keys, each lane labelled with its key.
  assert.deepEqual(labels, Array(3).fill(['tenant:a', 'tenant:b', 'ip:203.0.113.7']).flat());
  const layout = await layoutOf(page);
  assert.deepEqual(layout.rows.map((r) => r.laneY.length), [3, 3, 3]);
  assert.equal(await page.locator('[data-testid="lanes-toggle"]').getAttribute('aria-pressed'), 'true');
  await page.locator('[data-testid="lanes-toggle"]').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="lane-label"]'));
  assert.equal(new URL(page.url()).searchParams.get('lanes'), null);
  assert.deepEqual((await layoutOf(page)).rows.map((r) => r.laneY.length), [1, 1, 1]);
  for (const theme of ['light', 'dark']) {
    await gotoLab(page, `pattern=several-keys&algos=fixed,token-bucket,leaky-bucket&lanes=key&view=2-14&theme=${theme}`);
    await page.locator('section.timelines').screenshot({ path: `${SCREENSHOT_DIR}/lanes-${theme}.png` });
    // The picture carries the lanes too, each labelled.
    const bytes = await downloadPng(page);
    await writeFile(join(SCREENSHOT_DIR, `export-lanes-${theme}.png`), bytes);
    assert.ok(bytes.readUInt32BE(20) > (await layoutOf(page)).height, 'the lanes are in the picture');
  }
  await page.close();
});

for (const width of [320, 390, 768, 1280, 1920]) {
  test(`at ${width} px each key's name sits on its lane's line of marks, off the plot on a wide screen, and each lane is tinted over its own busiest window`, async () => {
    const { page, context } = await openPage(shared.browser, { width, height: 900 });
    try {
      await gotoLab(page, 'pattern=several-keys&algos=fixed,sliding-log&lanes=key&theme=light');
      await page.waitForSelector('[data-testid="lane-label"]');
      const layout = await layoutOf(page);
      const canvas = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
      const labels = await page.locator('[data-testid="lane-label"]').evaluateAll((spans) =>
        spans.map((s) => ({ text: s.textContent, ...JSON.parse(JSON.stringify(s.getBoundingClientRect())) })));
      assert.equal(labels.length, 2 * 3);
      for (const [i, label] of labels.entries()) {
        const lineY = canvas.y + layout.rows[Math.floor(i / 3)].laneY[i % 3];
        if (width > 760) {
          // Beside the plot, centred on the lane's line.
          assert.ok(label.right <= canvas.x + 1, `${label.text} left of the plot: ${label.right} <= ${canvas.x}`);
          assert.ok(Math.abs(label.top + label.height / 2 - lineY) <= 2, `${label.text} on its line: ${label.top + label.height / 2} vs ${lineY}`);
        } else {
          // A phone gives the plot the whole width: each lane keeps a 14 px line at its top for
          // its key's name, above its marks (15 px above the line) and their bars (12 px).
          assert.ok(Math.abs(label.top - (lineY - 29)) <= 1, `${label.text} on its lane's first line: ${label.top} vs ${lineY - 29}`);
          const text = await page.evaluate((i) => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelectorAll('[data-testid="lane-label"]')[i]);
            return range.getBoundingClientRect().bottom;
          }, i);
          assert.ok(text <= lineY - 12, `${label.text}'s letters end above its bars: ${text} vs ${lineY - 12}`);
        }
      }
      // The fixed window's tenant:a let ten through in one window (from about 1.6 s to 11.6 s);
      // tenant:b's busiest window ended at 8 s. At 9.1 s only tenant:a's lane is tinted.
      const fixed = layout.rows.find((r) => r.id === 'fixed');
      const x = xOf(layout, 9.1);
      const at = (lane) => page.evaluate(([px, py]) => {
        const c = document.querySelector('[data-testid="timeline-canvas"]');
        const ratio = c.width / c.getBoundingClientRect().width;
        return Array.from(c.getContext('2d').getImageData(Math.round(px * ratio), Math.round(py * ratio), 1, 1).data);
      }, [x, fixed.laneY[lane] - 10]);
      const plain = ([r, g, b]) => r > 235 && g > 235 && b > 235;
      assert.ok(!plain(await at(0)), `tenant:a's lane tinted: ${await at(0)}`);
      assert.ok(plain(await at(1)), `tenant:b's lane not: ${await at(1)}`);
      assert.ok(plain(await at(2)), `ip:203.0.113.7's lane not: ${await at(2)}`);
      await page.locator('section.timelines').screenshot({ path: `${SCREENSHOT_DIR}/lanes-${width}.png` });
    } finally {
      await context.close();
    }
  });
}

/** Clicks the PNG export and reads the file; the first view's module reloads the page into the
 * complete one, which downloads it. */
async function downloadPng(page) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), page.click('[data-testid="export-png"]')]);
  assert.equal(file.suggestedFilename(), 'ratelab-timelines.png');
  return readFile(await file.path());
}

/** What the PNG holds, decoded in the page: its size, its background, how many pixels differ
 * from the background in its top, its bottom and its names' column, and the centres of the
 * allowed marks (their colour) along the first row and across the Durable Object's chart. */
async function readPng(page, bytes, { rowY, chartTop, chartBottom, allowed }) {
  return page.evaluate(async ({ b64, rowY, chartTop, chartBottom, allowed }) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = (x, y) => ctx.getImageData(x, y, 1, 1).data;
    const bg = px(1, 1);
    const inked = (x0, y0, x1, y1) => {
      const d = ctx.getImageData(x0, y0, x1 - x0, y1 - y0).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 80) n++;
      return n;
    };
    const isAllowed = (d) => Math.abs(d[0] - allowed[0]) + Math.abs(d[1] - allowed[1]) + Math.abs(d[2] - allowed[2]) < 60;
    // Runs of allowed-coloured columns, as their centres.
    const centres = (columns) => {
      const out = [];
      let start = -1;
      for (let x = 0; x <= columns.length; x++) {
        if (columns[x] && start < 0) start = x;
        if (!columns[x] && start >= 0) {
          out.push((start + x - 1) / 2);
          start = -1;
        }
      }
      return out;
    };
    const rowColumns = [];
    const chartColumns = [];
    for (let x = 0; x < img.width; x++) {
      rowColumns.push(isAllowed(px(x, rowY)));
      let any = false;
      if (chartTop != null) for (let y = chartTop; y < chartBottom && !any; y += 1) any = isAllowed(px(x, y));
      chartColumns.push(any);
    }
    return {
      width: img.width,
      height: img.height,
      background: [bg[0], bg[1], bg[2]],
      title: inked(0, 0, img.width, 40),
      names: inked(0, 40, 200, 160),
      bottom: inked(0, img.height - 90, img.width, img.height),
      row: centres(rowColumns),
      chart: chartTop == null ? [] : centres(chartColumns),
    };
  }, { b64: bytes.toString('base64'), rowY, chartTop, chartBottom, allowed });
}

test('the PNG stands alone: title, named rows, axis, the Durable Object chart lined up with them, legend and caption, in both themes', async () => {
  const { page } = await openPage(shared.browser);
  const heights = {};
  for (const [theme, allowed] of [['light', [0, 158, 115]], ['dark', [60, 207, 158]]]) {
    await gotoLab(page, `pattern=edge&algos=fixed,sliding-log&do=1&view=5-15&theme=${theme}`);
    const timeline = await page.$eval('[data-testid="timeline-canvas"]', (c) => ({ w: c.width, h: c.height }));
    const layout = await layoutOf(page);
    const bytes = await downloadPng(page);
    await writeFile(join(SCREENSHOT_DIR, `export-${theme}.png`), bytes);
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    // Beside the charts, the margins and the names' column (16 + 190 + 16 CSS px at scale 1).
    assert.equal(bytes.readUInt32BE(16), timeline.w + 222);
    const height = bytes.readUInt32BE(20);
    // Under the timelines: their axis, the Durable Object's chart (330 px) and its axis, the
    // legend and the caption.
    assert.ok(height > 48 + timeline.h + 22 + 330 + 22 + 18 + 4 * 18, `${height} px tall`);
    heights[theme] = height;
    // The rows start 48 px down, the Durable Object's chart 10 px under the timelines' axis.
    const chartTop = 48 + layout.height + 22 + 10;
    const png = await readPng(page, bytes, { rowY: 48 + layout.rows[0].markY, chartTop, chartBottom: chartTop + 200, allowed });
    const dark = png.background.reduce((a, b) => a + b) < 200;
    assert.equal(dark, theme === 'dark', `the ${theme} theme's background (${png.background})`);
    assert.ok(png.title > 150, `the title is written (${png.title})`);
    assert.ok(png.names > 300, `the rows are named (${png.names})`);
    assert.ok(png.bottom > 800, `the caption and the link are written (${png.bottom})`);
    // The ten requests, allowed by the fixed window; the object allows some of them, each
    // exactly where the timelines have it.
    assert.equal(png.row.length, 10, `ten marks in the first row: ${png.row}`);
    assert.ok(png.chart.length >= 3, `the object's allowed answers: ${png.chart}`);
    for (const x of png.chart) assert.ok(png.row.some((r) => Math.abs(r - x) <= 2), `${x} lines up with one of ${png.row}`);
  }
  // The caption grows with what it says: the whole trace has no "Showing 5 s to 15 s" line.
  await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log&do=1&theme=light');
  const whole = await downloadPng(page);
  assert.equal(whole.readUInt32BE(20), heights.light - 18);
  await page.close();
});
