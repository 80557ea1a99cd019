// Export: every decision as CSV and the charts as a PNG, as files the browser downloads; the
// files' content is read back and checked against what the page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { useBrowser, openPage, gotoLab, rowFigures, watchProgress, progressSeen, SCREENSHOT_DIR, openImport } from './helpers.mjs';

const shared = useBrowser();

async function download(page, testid) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
  return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
}

test('the CSV holds one row per request and limiter, agreeing with the rows on the page', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'limit=2&window=10&trace=0,1,2,3,12@tenant:b&algos=fixed,token-bucket&do=1');
  const { name, bytes } = await download(page, 'export-csv');
  assert.equal(name, 'ratelab-decisions.csv');
  const lines = bytes.toString('utf8').trimEnd().split('\n');
  assert.equal(lines[0], 'time_s,key,limiter,outcome,status,headers');
  const rows = lines.slice(1).map((line) => line.split(','));
  // 5 requests × (2 algorithms + the Durable Object).
  assert.equal(rows.length, 15);
  for (const slug of ['fixed', 'token-bucket']) {
    const mine = rows.filter((r) => r[2] === slug);
    const figures = await rowFigures(page, slug);
    assert.equal(mine.filter((r) => r[3] === 'allowed').length, figures.allowed, slug);
    assert.equal(mine.filter((r) => r[3] === 'rejected').length, figures.rejected, slug);
    assert.ok(mine.filter((r) => r[3] === 'rejected').every((r) => r[4] === '429'), slug);
  }
  // The fixed window's third request at 2 s is over the limit of 2 and told to come back at 10 s.
  assert.match(lines.find((l) => l.startsWith('2,tenant:demo,fixed,')), /^2,tenant:demo,fixed,rejected,429,"Retry-After: 8; /);
  assert.ok(lines.some((l) => l.startsWith('12,tenant:b,do,allowed,200,')), 'the Durable Object row, with the key');
  await page.close();
});

test('a large run\'s CSV is written a slice at a time with the progress bar, and holds every row', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'limit=100&window=1&algos=fixed,gcra');
  // 60,000 requests, one every 2 ms: 120,000 rows, far more than one slice writes.
  const times = Array.from({ length: 60_000 }, (_, i) => (i / 500).toFixed(3));
  await openImport(page);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'times.txt', mimeType: 'text/plain', buffer: Buffer.from(times.join('\n')) });
  await page.waitForSelector('[data-testid="import-ok"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="progress"]'));
  await watchProgress(page);
  const { bytes } = await download(page, 'export-csv');
  const seen = await progressSeen(page);
  assert.ok(seen.some((s) => s.startsWith('Writing the CSV')), `the bar shows the CSV being written (${seen.slice(0, 3).join(' | ')})`);
  const lines = bytes.toString('utf8').trimEnd().split('\n');
  assert.equal(lines[0], 'time_s,key,limiter,outcome,status,headers');
  assert.equal(lines.length, 1 + 60_000 * 2);
  // Pieces follow one another in order: the last request's rows come last.
  assert.ok(lines.at(-1).startsWith('119.998,tenant:demo,gcra,'), lines.at(-1));
  const fixed = await rowFigures(page, 'fixed');
  assert.equal(lines.filter((l) => l.includes(',fixed,allowed,')).length, fixed.allowed);
  await page.waitForFunction(() => !document.querySelector('[data-testid="progress"]'));
  await page.close();
});

// The command line's CSV (`cargo run -- csv QUERY [--traffic FILE]`, native) for the same view.
function cliCsv(args) {
  return execFileSync('cargo', ['run', '--offline', '--quiet', '--', 'csv', ...args], { maxBuffer: 1 << 28 });
}

test('the page\'s CSV download is byte for byte what `ratelab csv` writes for the same view', async () => {
  const { page } = await openPage(shared.browser);
  const query = 'limit=2&window=10&trace=0,1,2,3,12@tenant:b,12.5*3@tenant:b&algos=fixed,token-bucket,leaky-bucket,nginx,redis-cell,governor&do=1';
  await gotoLab(page, query);
  const fromLink = await download(page, 'export-csv');
  assert.ok(fromLink.bytes.equals(cliCsv([query])), 'the view from a link');

  // Uploaded traffic: a CSV with keys, regions, routes and costs, as the import panel reads it.
  const traffic = 'time,key,region,route,cost\n0,tenant:a,fra,GET /,1\n0.5,=cmd(),syd,,\n1,tenant:a,,POST /login,3\n2,"quoted",,,\n600,k,,,17\n';
  const file = join(SCREENSHOT_DIR, 'cli-traffic.csv');
  await writeFile(file, traffic);
  const uploadQuery = 'limit=2&window=10&algos=fixed,gcra,upstash-token';
  await gotoLab(page, uploadQuery);
  await openImport(page);
  await page.setInputFiles('[data-testid="import-file"]', file);
  await page.waitForSelector('[data-testid="import-ok"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="progress"]'));
  // The five uploaded requests are the ones decided before the file is downloaded.
  await page.waitForFunction(() => {
    const row = document.querySelector('[data-testid="stats-fixed"]');
    return row && Number(row.dataset.allowed) + Number(row.dataset.rejected) === 5;
  });
  const uploaded = await download(page, 'export-csv');
  assert.ok(uploaded.bytes.equals(cliCsv([uploadQuery, '--traffic', file])), 'uploaded traffic');
  await page.close();
});

test('the PNG is the charts at device resolution, with the rows named, on the page background', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=edge&algos=fixed,sliding-log&do=1');
  const canvas = await page.$$eval('[data-testid="timeline-canvas"], [data-testid="latency-canvas"]', (cs) => {
    const shown = cs.filter((c) => c.getBoundingClientRect().height > 0);
    return { w: shown[0].width, h: shown.reduce((sum, c) => sum + c.height, 0), n: shown.length };
  });
  assert.equal(canvas.n, 2, 'the timelines and the Durable Object chart');
  // The first view's module reloads the page into the complete one, which downloads the picture.
  const { name, bytes } = await download(page, 'export-png');
  assert.equal(name, 'ratelab-timelines.png');
  await writeFile(join(SCREENSHOT_DIR, 'export-timelines.png'), bytes);
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  // The margins and the name column (16 + 190 + 16 CSS px at device scale 1) beside the
  // timelines, the Durable Object chart under them at their width, then the legend and the
  // caption (e2e/zoom.test.mjs reads those).
  assert.equal(width, canvas.w + 222);
  assert.ok(height > canvas.h, `${height} px for ${canvas.h} px of charts`);
  // Decode it in the page and check that the marks and the names were drawn, not a blank sheet.
  const inks = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const count = (x0, x1) => {
      const d = ctx.getImageData(x0, 0, x1 - x0, img.height).data;
      const bg = [d[0], d[1], d[2]];
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 60) n++;
      return n;
    };
    return { names: count(0, 206), chart: count(206, img.width) };
  }, bytes.toString('base64'));
  assert.ok(inks.names > 200, `the row names are written (${inks.names} inked pixels)`);
  assert.ok(inks.chart > 1000, `the marks are drawn (${inks.chart} inked pixels)`);
  await page.close();
});
