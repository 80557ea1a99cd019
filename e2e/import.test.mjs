// "Use your own traffic": pasted and uploaded requests are read by the core, replayed through
// every algorithm and the object, kept in the link; a bad line is named by its number and the
// page keeps the traffic it had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, gotoLab, rowFigures, openImport } from './helpers.mjs';

const shared = useBrowser();

async function paste(page, text) {
  await openImport(page);
  await page.fill('[data-testid="import-text"]', text);
  await page.click('[data-testid="import-use"]');
}

test('pasted times replace the traffic, run through every algorithm, and stay in the link', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await paste(page, '# the explainer edge\n8\n8.398\n8.796\n9.194\n9.592\n10\n10.398\n10.796\n11.194\n11.592\n');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 10 requests \(one time per line\)/);
  assert.equal((await rowFigures(page, 'fixed')).allowed, 10);
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 5);
  assert.equal((await rowFigures(page, 'token-bucket')).allowed, 6);
  await page.waitForURL(/trace=8,8\.398/);
  await page.goto(page.url());
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 5, 'a reload keeps the pasted traffic');
  assert.deepEqual(problems, []);
});

test('CSV lines bring their keys, each with its own limiter', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await paste(page, 'time,key\n0,tenant:a\n0,tenant:a\n0,tenant:b\n0.5,tenant:a\n');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 4 requests \(CSV/);
  const keys = await page.locator('[data-testid="send-key"] option').allInnerTexts();
  assert.deepEqual(keys.sort(), ['tenant:a', 'tenant:b']);
  assert.equal((await rowFigures(page, 'sliding-log')).allowed, 4, 'limit 5 per key: nobody is refused');
});

test('a bad line is named by its number, and the page keeps the traffic it had', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await paste(page, '1\n2\nthree\n4\n-5\n');
  const errors = await page.locator('[data-testid="import-errors"]').innerText();
  assert.match(errors, /line 3: "three" is not a number of seconds/);
  assert.match(errors, /line 5: "-5" is negative/);
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 60 requests/, 'still the steady traffic');
  assert.match(page.url(), /pattern=steady/);
  assert.deepEqual(problems, []);
});

test('an uploaded access log is read, keyed by address', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await openImport(page);
  const log = [
    '203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] "GET /login HTTP/1.1" 200 512',
    '203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] "GET /login HTTP/1.1" 200 512',
    '198.51.100.2 - - [10/Oct/2026:13:55:37 +0000] "GET / HTTP/1.1" 200 10',
  ].join('\n');
  await page.setInputFiles('[data-testid="import-file"]', { name: 'access.log', mimeType: 'text/plain', buffer: Buffer.from(log) });
  await page.waitForSelector('[data-testid="import-ok"]');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 3 requests \(access log/);
  const keys = await page.locator('[data-testid="send-key"] option').allInnerTexts();
  assert.deepEqual(keys.sort(), ['ip:198.51.100.2', 'ip:203.0.113.7']);
});

test('an uploaded file is copied in pieces without splitting a line or a character at their seams', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await openImport(page);
  // 40,000 lines of 11 and 12 UTF-16 units (the emoji is two) after a 21-unit comment: the seam
  // after the fourth 65,536-unit piece falls inside a line, between the emoji's two halves.
  const lines = [`# ${'x'.repeat(19)}`];
  for (let i = 0; i < 40000; i++) lines.push(`${(i / 100).toFixed(2).padStart(6, '0')},k\u{1F600}${i % 2 ? 'a' : 'bb'}`);
  assert.equal(lines.join('\n').charCodeAt(262143), 0xd83d, 'the seam splits the emoji');
  await page.setInputFiles('[data-testid="import-file"]', { name: 'seams.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await page.waitForSelector('[data-testid="import-ok"]', { timeout: 30000 });
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 40000 requests \(CSV/);
  const keys = await page.locator('[data-testid="send-key"] option').allInnerTexts();
  assert.deepEqual(keys.sort(), ['k\u{1F600}a', 'k\u{1F600}bb']);
});

test("a CSV's regions and routes reach the Durable Object: each request leaves from its own region, and a route can fail closed", async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'do=1&home=fra&from=fra&shards=1');
  await paste(page, 'time,key,region,route\n0,tenant:a,fra,GET /products\n0.5,tenant:a,syd,POST /login\n1,tenant:a,fra,POST /login\n');
  await page.waitForURL(/trace=0@tenant:a@fra@GET%20%2Fproducts,0.5@tenant:a@syd@POST%20%2Flogin,1@tenant:a@fra@POST%20%2Flogin/);
  const do1 = page.locator('[data-testid="stats-do"]');
  // The lab sends from Frankfurt, but the file says the second request reached Sydney: its
  // round trip to the Frankfurt object (about 290 ms) is past the Worker's 120 ms timeout, so it
  // alone is let through unmetered, and the slowest answer is the timeout.
  assert.equal(await do1.getAttribute('data-degraded'), '1', 'the request from Sydney times out');
  assert.equal(await do1.getAttribute('data-p95-ms'), '120');
  // Both routes are listed; the object is unreachable for the whole trace.
  assert.equal(await page.locator('[data-testid="closed-route-0"]').locator('..').innerText(), 'GET /products');
  assert.equal(await page.locator('[data-testid="closed-route-1"]').locator('..').innerText(), 'POST /login');
  await page.goto(page.url() + '&outage=0-5');
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal(await do1.getAttribute('data-degraded'), '3', 'fail open everywhere by default');
  await page.locator('[data-testid="closed-route-1"]').check();
  await page.waitForURL(/closed-routes=POST%20%2Flogin/);
  assert.equal(await do1.getAttribute('data-degraded'), '1', 'GET /products still fails open');
  assert.equal(await do1.getAttribute('data-failed-closed'), '2', 'both logins are refused with 503');
  await page.reload();
  await page.waitForSelector('body[data-complete="true"]');
  assert.equal(await page.locator('[data-testid="closed-route-1"]').isChecked(), true, 'the choice survives a reload');
  assert.equal(await do1.getAttribute('data-failed-closed'), '2');
  await page.close();
});

test('quoted CSV fields, as the export writes them, keep their commas and quotes', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page);
  await paste(page, 'time,key,region,route\n0.5,"tenant, inc",fra,"GET /a,b"\n1,"say ""hi"""\n');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 2 requests \(CSV/);
  const keys = await page.locator('[data-testid="send-key"] option').allInnerTexts();
  assert.deepEqual(keys.sort(), ['say "hi"', 'tenant, inc']);
  assert.deepEqual(problems, []);
});

test('unreadable lines can be skipped and counted instead of refusing the text', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await paste(page, '1\nabc\n2\n');
  assert.match(await page.locator('[data-testid="import-errors"]').innerText(), /line 2/);
  await page.check('[data-testid="import-skip"]');
  await page.click('[data-testid="import-use"]');
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 2 requests/);
  assert.match(await page.locator('[data-testid="import-notes"]').innerText(), /1 unreadable line skipped \(the first, line 2/);
  await page.waitForURL(/trace=1,2(&|$)/);
});

test('Unix-epoch times start at 0, and two whole numbers on a line warn of a decimal comma', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await paste(page, '1733050000\n1733050001.5\n');
  await page.locator('[data-testid="import-notes"]').waitFor();
  assert.match(await page.locator('[data-testid="import-notes"]').innerText(), /Unix-epoch seconds: they count from the first line \(1733050000 s after 1970\)/);
  await page.waitForURL(/trace=0,1\.5(&|$)/);
  await page.fill('[data-testid="import-text"]', '0,5\n1,5\n');
  await page.click('[data-testid="import-use"]');
  const note = page.locator('[data-testid="import-notes"]', { hasText: '"0,5"' });
  await note.waitFor();
  assert.match(await note.innerText(), /"0,5" was read as a time and a key; .*\(0\.5\)/);
});

test('after an upload, the box shows the text that was loaded', async () => {
  const { page } = await openPage(shared.browser);
  await gotoLab(page);
  await openImport(page);
  const text = 'time,key\n0,tenant:a\n0.5,tenant:b\n';
  await page.setInputFiles('[data-testid="import-file"]', { name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });
  await page.waitForSelector('[data-testid="import-ok"]');
  assert.equal(await page.locator('[data-testid="import-text"]').inputValue(), text);
});

/** The figures of every row, the page's own numbers for the traffic it shows. */
async function allFigures(page) {
  const rows = await page.locator('[data-testid^="stats-"][data-allowed]').evaluateAll((els) =>
    els.map((el) => `${el.dataset.testid}:${el.dataset.allowed}/${el.dataset.rejected}`));
  assert.ok(rows.length > 0, 'the page shows rows');
  return rows;
}

test('an uploaded binary file is refused with one line, and the box, the traffic and the view stay as they were', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await openImport(page);
  await page.fill('[data-testid="import-text"]', '1\n2\n');
  const before = await allFigures(page);
  const url = page.url();
  // A PNG's signature and header, then bytes of every value (NUL among them): about 19 KB of
  // mojibake if it were read as text.
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
    Buffer.from(Array.from({ length: 19000 }, (_, i) => (i * 7919) % 256)),
  ]);
  await page.setInputFiles('[data-testid="import-file"]', { name: 'chart.png', mimeType: 'image/png', buffer: png });
  const refused = page.locator('[data-testid="import-refused"]');
  await refused.waitFor();
  const message = await refused.innerText();
  assert.match(message, /^chart\.png: this looks like a binary file: a PNG image \(it starts with 89 50 4e 47\); the lab reads text/);
  assert.equal(message.split('\n').length, 1, 'one line');
  assert.equal(await page.locator('[data-testid="import-errors"]').count(), 0, 'no list of bad lines');
  assert.equal(await page.locator('[data-testid="import-text"]').inputValue(), '1\n2\n', 'the box is unchanged');
  assert.deepEqual(await allFigures(page), before, 'the rows show the same traffic');
  assert.match(await page.locator('[data-testid="lede"]').innerText(), /same 60 requests/, 'still the steady traffic');
  assert.equal(page.url(), url);

  // Bytes with a NUL and no known signature are refused the same way.
  await page.setInputFiles('[data-testid="import-file"]', { name: 'dump.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0x31, 0x0a, 0x00, 0x32, 0x0a]) });
  await page.locator('[data-testid="import-refused"]', { hasText: 'dump.bin: this looks like a binary file: byte 3 is 0 (NUL)' }).waitFor();
  assert.equal(await page.locator('[data-testid="import-text"]').inputValue(), '1\n2\n');
  assert.deepEqual(await allFigures(page), before);
  assert.deepEqual(problems, []);
});

test('an uploaded Latin-1 access log is read, and a long bad line is quoted to 80 characters', async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page);
  await openImport(page);
  const line = (s, agent) => Buffer.concat([
    Buffer.from(`203.0.113.7 - - [10/Oct/2026:13:55:${String(s).padStart(2, '0')} +0000] "GET / HTTP/1.1" 200 5 "-" "`),
    agent,
    Buffer.from('"\n'),
  ]);
  // A browser's user agent ending "café" in Latin-1: the é is the one byte 0xe9, not UTF-8.
  const cafe = Buffer.concat([
    Buffer.from('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 caf'),
    Buffer.from([0xe9]),
  ]);
  const log = Buffer.concat(Array.from({ length: 12 }, (_, s) => line(s, cafe)));
  await page.setInputFiles('[data-testid="import-file"]', { name: 'latin1.log', mimeType: 'text/plain', buffer: log });
  await page.locator('[data-testid="import-ok"]').waitFor();
  assert.match(await page.locator('[data-testid="import-ok"]').innerText(), /Read 12 requests \(access log/);

  await page.fill('[data-testid="import-text"]', `1\n${'9x'.repeat(100000)}\n`);
  await page.click('[data-testid="import-use"]');
  const errors = await page.locator('[data-testid="import-errors"]').innerText();
  assert.ok(errors.includes(`line 2: "${'9x'.repeat(40)}…" is not a number of seconds`), errors.slice(0, 300));
  assert.ok(errors.length < 400, `${errors.length} characters`);
  assert.deepEqual(problems, []);
});

test("the panel's message belongs to its view: Back to the traffic before the import does not claim the import", async () => {
  const { page, problems } = await openPage(shared.browser);
  await gotoLab(page, 'pattern=steady');
  await paste(page, '0\n0.5\n1\n');
  await page.waitForURL(/trace=0,0\.5,1(&|$)/);
  const ok = page.locator('[data-testid="import-ok"]');
  assert.match(await ok.innerText(), /Read 3 requests/);
  await page.goBack();
  await page.waitForURL(/pattern=steady/);
  await page.waitForFunction(() => /same 60 requests/.test(document.querySelector('[data-testid="lede"]')?.innerText ?? ''));
  assert.equal(await ok.count(), 0, 'the default traffic is not what was read');
  await page.goForward();
  await page.waitForURL(/trace=0,0\.5,1(&|$)/);
  await ok.waitFor();
  assert.match(await ok.innerText(), /Read 3 requests/, 'the imported view again, and what was said of it');
  assert.deepEqual(problems, []);
});
