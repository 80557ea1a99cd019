// Browser figures, from headless Chromium: time until the page is ready, and how long a redraw
// of the timelines takes (the page records each as performance.measure('timeline-draw')).
// Run with: bash scripts/bench-browser.sh   (builds the site, serves it on 127.0.0.1, runs this)
import { launchChromium, median } from './bench-load.mjs';

const BASE = process.env.BASE_URL;
const browser = await launchChromium();

async function measure(label, query) {
  const ready = [];
  const redraws = [];
  // The first redraws after a load run before the browser has optimised the drawing code; the
  // slowest of the others says what a person sweeping the timeline meets after that.
  const warm = [];
  let requests = 0;
  for (let run = 0; run < 5; run++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${BASE}?${query}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    ready.push(await page.evaluate(() => performance.now()));
    requests = await page.evaluate(() => Number(document.querySelector('[data-testid="lede"]').innerText.match(/same (\d+) requests/)[1]));
    // Sweep the pointer across the timeline: each move redraws it with the window bracket.
    const box = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
    await page.evaluate(() => performance.clearMeasures('timeline-draw'));
    for (let i = 0; i < 20; i++) {
      await page.mouse.move(box.x + 20 + (i * (box.width - 40)) / 20, box.y + 20);
      await page.waitForTimeout(20);
    }
    const durations = await page.evaluate(() => performance.getEntriesByName('timeline-draw').map((e) => e.duration));
    redraws.push(...durations);
    warm.push(...durations.slice(2));
    await page.close();
  }
  console.log(
    `${label.padEnd(44)} ${String(requests).padStart(7)} requests   ready ${median(ready).toFixed(0).padStart(5)} ms   redraw median ${median(redraws).toFixed(1).padStart(6)} ms, max ${Math.max(...redraws).toFixed(1).padStart(6)} ms (${Math.max(...warm).toFixed(1)} ms after each load's first two)`,
  );
}

console.log('median of 5 page loads; redraws while the pointer sweeps the timeline (20 per load)');
await measure('window edge (default)', 'pattern=edge');
await measure('steady, with the Durable Object row', 'pattern=steady&do=1');
await measure('twice the rate at 1,000 per second', 'pattern=double&limit=1000&window=1');
await measure('twice the rate at 10,000 per second', 'pattern=double&limit=10000&window=1');

// A file through "Use your own traffic": until the page shows the result, every task over 50 ms
// on the main thread meanwhile, and the redraws of its marks. The million-line files: one request
// a millisecond, then the performance issue's simulation case (10,000 keys, the six algorithms
// and the Durable Object's emulation). The 200,000-request file is drawn as bars in every row
// (e2e/density.test.mjs's trace: 180 a second, ten bursts at 400).
async function uploaded(label, query, lines) {
  const count = lines.length;
  const buffer = Buffer.from(lines.join('\n'));
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${BASE}?${query}`);
  await page.waitForSelector('body[data-ready="true"]');
  // The first view's module has only the panel's heading: opening it loads the complete one.
  await page.click('text=Use your own traffic');
  await page.locator('[data-testid="import-panel"][open] [data-testid="import-file"]').waitFor({ timeout: 30000 });
  await page.waitForSelector('body[data-complete="true"]');
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.longTasks.push(e.duration))).observe({ type: 'longtask' });
    performance.clearMeasures('timeline-draw');
  });
  // setInputFiles itself hands the file to the page in one long task of its own (the test
  // harness, not the app): the clock starts once the page holds the file.
  await page.setInputFiles('[data-testid="import-file"]', { name: 'traffic.txt', mimeType: 'text/plain', buffer });
  const start = await page.evaluate(() => performance.now());
  // The run is shown when the lede counts the file's requests; its first redraw follows.
  await page.waitForFunction((n) => document.querySelector('[data-testid="lede"]').innerText.includes(`same ${n} requests`), count, { timeout: 120000 });
  const done = await page.evaluate(() => performance.now());
  await page.waitForTimeout(1000);
  // Then the pointer sweeps the timeline, as for the presets above.
  await page.locator('[data-testid="timeline-canvas"]').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
  const first = await page.evaluate(() => Math.max(...performance.getEntriesByName('timeline-draw').map((e) => e.duration)));
  await page.evaluate(() => performance.clearMeasures('timeline-draw'));
  for (let i = 0; i < 20; i++) {
    await page.mouse.move(box.x + 20 + (i * (box.width - 40)) / 20, box.y + 20);
    await page.waitForTimeout(20);
  }
  const tasks = await page.evaluate(() => window.longTasks);
  const draws = await page.evaluate(() => performance.getEntriesByName('timeline-draw').map((e) => e.duration));
  console.log(
    `${label.padEnd(44)} ${String(count).padStart(7)} requests   shown ${(done - start).toFixed(0).padStart(5)} ms   tasks over 50 ms: ${tasks.slice(1).map((t) => t.toFixed(0)).join(', ') || 'none'}   first draw ${first.toFixed(0)} ms   redraw median ${median(draws).toFixed(1)} ms, max ${Math.max(...draws).toFixed(1)} ms`,
  );
  await page.close();
}
const lines = (n, line) => Array.from({ length: n }, (_, i) => line(i));
function twoHundredThousand() {
  const times = [];
  for (let s = 0; times.length < 200_000; s++) {
    const perSecond = s % 100 >= 40 && s % 100 < 50 ? 400 : 180;
    for (let i = 0; i < perSecond && times.length < 200_000; i++) times.push((s + i / perSecond).toFixed(4));
  }
  return times;
}
await uploaded('200,000 requests drawn as bars', 'limit=250&window=1', twoHundredThousand());
if (process.argv[2] !== 'redraw') {
await uploaded('a million-line file, read and run', 'limit=100&window=1', lines(1_000_000, (i) => (i / 1000).toFixed(3)));
await uploaded('the same over 10,000 keys, with the object', 'limit=100&window=1&do=1', lines(1_000_000, (i) => `${(i / 1000).toFixed(3)},tenant:${i % 10000}`));
// Every decision of 100,000 keyed requests through the six algorithms and the Durable Object as
// CSV (700,000 rows): from the click to the download, and every main-thread task over 50 ms.
{
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  await page.goto(`${BASE}?limit=100&window=1&do=1`);
  await page.waitForSelector('body[data-ready="true"]');
  // The first view's module has only the panel's heading: opening it loads the complete one.
  await page.click('text=Use your own traffic');
  await page.locator('[data-testid="import-panel"][open] [data-testid="import-file"]').waitFor({ timeout: 30000 });
  await page.waitForSelector('body[data-complete="true"]');
  const lines = Array.from({ length: 100_000 }, (_, i) => `${(i / 1000).toFixed(3)},tenant:${i % 1000}`);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'keyed.txt', mimeType: 'text/plain', buffer: Buffer.from(lines.join('\n')) });
  await page.waitForSelector('[data-testid="import-ok"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="progress"]'), null, { timeout: 60000 });
  await page.waitForTimeout(1000);
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.longTasks.push(e.duration))).observe({ type: 'longtask' });
  });
  const started = Date.now();
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), page.click('[data-testid="export-csv"]')]);
  const took = Date.now() - started;
  const bytes = (await import('node:fs')).statSync(await file.path()).size;
  const tasks = await page.evaluate(() => window.longTasks);
  console.log(`${'CSV of 100,000 keyed requests, six + object'.padEnd(44)}  700000 rows      written ${String(took).padStart(5)} ms   ${(bytes / 1e6).toFixed(0)} MB   tasks over 50 ms: ${tasks.map((t) => t.toFixed(0)).join(', ') || 'none'}`);
  await page.close();
}
}
await browser.close();
