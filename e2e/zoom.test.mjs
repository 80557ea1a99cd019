// Zoom and pan on the timelines (the wheel with Ctrl, keys, a drag, a pinch, the reset, a view=
// link), a lane per key, and the PNG export standing alone: what a person does, and what the
// page and the link say afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** The stretch shown, in milliseconds, as the timelines' section publishes it. */
async function shown(page) {
  const section = page.locator('section.timelines');
  return {
    from: Number(await section.getAttribute('data-view-from-ms')),
    to: Number(await section.getAttribute('data-view-to-ms')),
  };
}

async function layoutOf(page) {
  return JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-layout'));
}

/** The x (CSS pixels, in the canvas) of `seconds` in the stretch shown. */
function xOf(layout, seconds) {
  const frac = (seconds * 1e6 - layout.fromUs) / (layout.toUs - layout.fromUs);
  return layout.padX + frac * (layout.width - 2 * layout.padX);
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
  }
  await page.close();
});
