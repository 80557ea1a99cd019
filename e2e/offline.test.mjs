// A page once opened works offline: the service worker keeps the site's own files, so with the
// server gone a reload, and a link to another view, still open the lab and compute it. The site
// is served here by a server of this test's own, which the test stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, openPage, rowFigures, serveFolder, BASE_URL, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

/** Serves the built site as the suite's server does, on a port of its own. */
async function ownServer() {
  const { server, origin } = await serveFolder(process.env.SITE_DIR);
  return { server, url: `${origin}${new URL(BASE_URL).pathname}` };
}

async function ready(page) {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
}

test('with the server gone, a reload and a link to another view still open and compute the lab', async () => {
  const { server, url } = await ownServer();
  // Not `openPage`: this page's origin is this test's own server, not the suite's.
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => requests.push(req.url()));
  try {
    await page.goto(`${url}?pattern=steady`);
    await ready(page);
    const online = await rowFigures(page, 'sliding-log');
    assert.deepEqual(online, { allowed: 30, rejected: 30, maxInWindow: 5 }, '5 per 10 s over 60 s, one a second');
    // The worker takes over the page once it has kept every file.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15000 });
    server.kill();
    await new Promise((resolve) => server.once('exit', resolve));

    await page.reload();
    await ready(page);
    assert.deepEqual(await rowFigures(page, 'sliding-log'), online, 'the same view, offline');
    await page.goto(`${url}?pattern=steady&limit=3`);
    await ready(page);
    assert.deepEqual(await rowFigures(page, 'sliding-log'), { allowed: 18, rejected: 42, maxInWindow: 3 }, 'another view, computed offline');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/offline.png` });
    assert.ok(requests.every((u) => u.startsWith(new URL(url).origin) || u.startsWith('data:')), 'nothing from another origin');
    assert.deepEqual(problems, []);
  } finally {
    server.kill();
    await context.close();
  }
});

test('the page links its web app manifest, and the policy still allows nothing from elsewhere', async () => {
  const { page } = await openPage(shared.browser);
  await page.goto(BASE_URL);
  await ready(page);
  const manifest = await page.locator('link[rel="manifest"]').getAttribute('href');
  const body = await page.evaluate(async (href) => (await fetch(href)).json(), manifest);
  assert.equal(body.name, 'Rate Limit Lab');
  assert.equal(body.start_url, './');
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /manifest-src 'self'/);
  assert.match(policy, /worker-src 'self'/);
  assert.doesNotMatch(policy, /\*|https?:|unsafe-inline/);
});

test('hosts that read _headers get the same policy as a header, and the Pages workflow builds with the README command', async () => {
  const { page } = await openPage(shared.browser);
  await page.goto(BASE_URL);
  await ready(page);
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  const site = join(process.env.SITE_DIR, new URL(BASE_URL).pathname);
  const headers = readFileSync(join(site, '_headers'), 'utf8');
  assert.ok(headers.includes(`Content-Security-Policy: ${policy}`), headers);
  assert.match(headers, /\/\*\.wasm\n {2}Content-Type: application\/wasm/);
  const workflow = readFileSync('.github/workflows/pages.yml', 'utf8');
  const readme = readFileSync('README.md', 'utf8');
  assert.ok(readme.includes('bash scripts/build-site.sh'), 'the README names the build command');
  assert.match(workflow, /run: bash scripts\/build-site\.sh dist/);
  assert.match(workflow, /upload-pages-artifact@v3\n\s+with:\n\s+path: dist/);
});
