// Embeds in someone else's page: the snippet the lab offers works on a host that sends no CORS
// header and loads the embed alone (no service worker copying the site for a docs page's
// reader), embed.js sizes the frame to the height the lab reports, a frame that cannot load says
// why, `controls=` and `caption=` choose what an embed shows, and the embed follows a theme
// message of the documented shape and nothing else.
//
// The framing page is served from an origin of its own, as documentation is; the lab comes from
// a server of this test's own that sends no Access-Control-Allow-Origin, as
// `python3 -m http.server` does.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { useBrowser, openPage, gotoLab, serveFolder, BASE_URL, SCREENSHOT_DIR } from './helpers.mjs';

const shared = useBrowser();

async function plainServer() {
  const { server, origin } = await serveFolder(process.env.SITE_DIR, '--no-cors');
  return { server, base: `${origin}${new URL(BASE_URL).pathname}` };
}

const plain = await plainServer();
after(() => plain.server.kill());

/** The snippet the full page offers for `query`, pointing at the plain server. */
async function offeredSnippet(query) {
  const { page, context } = await openPage(shared.browser);
  try {
    await gotoLab(page, query);
    await page.waitForSelector('body[data-complete="true"]');
    const snippet = await page.locator('[data-testid="embed-snippet"]').inputValue();
    return snippet.replaceAll(BASE_URL, plain.base);
  } finally {
    await context.close();
  }
}

/**
 * A documentation page with `body` as its content, at the given width, served from an origin of
 * its own (another port on this machine: a public name would be refused a loopback frame).
 */
async function docsPage(body, { width = 1280, height = 900 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-docs-'));
  writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>Guide</title><body style="margin:0">${body}</body>`);
  const docs = await serveFolder(dir);
  const context = await shared.browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  context.on('close', () => docs.server.kill());
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${docs.origin}/`);
  return { page, context, problems };
}

async function frameReady(page, selector = 'iframe') {
  const frame = await (await page.waitForSelector(selector)).contentFrame();
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return frame;
}

/** The height the lab's content needs inside its frame. */
const contentHeight = (frame) => frame.evaluate(() => Math.ceil(document.querySelector('.page').getBoundingClientRect().bottom + scrollY));

test('the offered snippet opens the lab on a host that sends no CORS header, and embed.js sizes the frame to it', async () => {
  const snippet = await offeredSnippet('pattern=steady&limit=3');
  assert.match(snippet, /sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"/);
  assert.match(snippet, /<script src="[^"]*\/embed\.js" defer><\/script>/);
  const { page, context, problems } = await docsPage(`<h1>Rate limits</h1>${snippet}<p id="after">After the lab.</p>`);
  const requested = [];
  page.on('request', (req) => requested.push(new URL(req.url()).pathname));
  try {
    const frame = await frameReady(page);
    assert.equal(await frame.locator('[data-testid="stats-sliding-log"]').getAttribute('data-allowed'), '18');
    // A reader of the docs gets the embed and nothing more: no service worker copying the site,
    // and no module but the one its view needs (the first view's).
    await frame.waitForSelector('body[data-complete="true"]');
    await sleep(1000);
    assert.equal(await frame.evaluate(() => navigator.serviceWorker.getRegistrations().then((r) => r.length)), 0);
    assert.deepEqual(requested.filter((p) => /ratelab-(durable|complete)-/.test(p)), []);
    await page.waitForSelector('iframe[data-ratelab-sized="true"]');
    const needed = await contentHeight(frame);
    await page.waitForFunction((h) => Math.abs(document.querySelector('iframe').getBoundingClientRect().height - h) <= 1, needed, { timeout: 10000 });
    const inner = await frame.evaluate(() => ({ scroll: document.documentElement.scrollHeight, view: innerHeight }));
    assert.ok(inner.scroll <= inner.view + 1, `no scrollbar inside the frame: ${JSON.stringify(inner)}`);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-sized.png`, fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('without the script, the suggested height fits the content at desktop and phone widths, an open question included', async () => {
  const long = 'A+caption+long+enough+to+wrap+'.repeat(6);
  for (const query of ['pattern=steady', 'pattern=several-keys&controls=preset,play,limit,window&caption=Three+keys', 'algos=fixed,gcra,nginx&do=1',
    `controls=preset,play,send,limit,window,algos,tuning,theme&caption=${long}`, 'controls=', 'q=window-edge', 'q=limiter-down']) {
    const snippet = (await offeredSnippet(query)).replace(/<script[^>]*><\/script>/, '');
    const suggested = Number(snippet.match(/height="(\d+)"/)[1]);
    for (const width of [1280, 390, 375]) {
      const { page, context, problems } = await docsPage(snippet, { width });
      try {
        const frame = await frameReady(page);
        await sleep(300);
        const needed = await contentHeight(frame);
        assert.ok(needed <= suggested, `${query} at ${width} px needs ${needed} px; the snippet gives ${suggested}`);
        // Sized for a phone, where everything wraps most: there it leaves little blank.
        if (width === 375) assert.ok(suggested - needed <= 120, `${query} at ${width} px: ${suggested} px for ${needed} px of content leaves too much blank`);
        if (width === 375) await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-phone.png`, fullPage: true });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  }
});

test('a frame sandboxed without allow-same-origin, on a host without CORS, says why instead of staying blank', async () => {
  const { page, context } = await docsPage(`<iframe src="${plain.base}?embed=1" title="Rate Limit Lab" width="100%" height="400" sandbox="allow-scripts"></iframe>`);
  try {
    const frame = await (await page.waitForSelector('iframe')).contentFrame();
    const why = frame.locator('#load-failed');
    await why.waitFor({ timeout: 15000 });
    assert.match(await why.textContent(), /could not load its files.*allow-same-origin.*Access-Control-Allow-Origin/s);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-blocked.png` });
  } finally {
    await context.close();
  }
});

test('controls= chooses the controls an embed shows, and caption= adds its caption', async () => {
  const { page, problems, context } = await openPage(shared.browser);
  const shown = (id) => page.locator(`[data-testid="${id}"]`).isVisible();
  try {
    await gotoLab(page, 'embed=1');
    assert.deepEqual(
      [await shown('pattern-select'), await shown('play'), await shown('limit-slider'), await shown('send'), await shown('theme')],
      [true, true, false, false, false],
      'the default embed: the traffic menu and playback',
    );
    assert.equal(await page.locator('[data-testid="title"]').textContent(), 'Rate Limit Lab', 'no caption: the lab\'s name');

    await gotoLab(page, 'embed=1&controls=window,limit,theme&caption=Five%20per%20ten%20seconds%3A%20<b>edge</b>');
    assert.deepEqual(
      [await shown('pattern-select'), await shown('play'), await shown('limit-slider'), await shown('window-slider'), await shown('theme')],
      [false, false, true, true, true],
    );
    assert.equal(await page.locator('[data-testid="title"]').textContent(), 'Five per ten seconds: <b>edge</b>', 'the caption is the title, as text, never markup');
    await page.locator('[data-testid="limit-number"]').fill('7');
    await page.locator('[data-testid="limit-number"]').press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('limit') === '7');
    assert.equal(new URL(page.url()).searchParams.get('controls'), 'limit,window,theme', 'the link keeps what the embed shows');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-controls.png` });

    await gotoLab(page, 'embed=1&controls=');
    assert.equal(await page.locator('.controls').isVisible(), false, 'no controls: no empty panel');
    assert.equal(await page.locator('[data-testid="timeline-canvas"]').first().isVisible(), true);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the embed follows a theme message of the documented shape from its parent, and ignores every other', async () => {
  const snippet = await offeredSnippet('pattern=steady');
  const { page, context, problems } = await docsPage(snippet);
  try {
    const frame = await frameReady(page);
    await page.waitForSelector('iframe[data-ratelab-sized="true"]');
    const theme = () => frame.evaluate(() => document.documentElement.getAttribute('data-theme'));
    assert.equal(await theme(), null);
    await page.evaluate(() => {
      const w = document.querySelector('iframe').contentWindow;
      for (const m of ['dark', { type: 'ratelab:theme', theme: 'dark' }, 'ratelab:theme:Dark', 'ratelab:theme:coal', 'ratelab:theme:dark ',
        'ratelab:theme=dark', 'ratelab:height:dark', ['ratelab:theme:dark'], null, 42]) {
        w.postMessage(m, '*');
      }
    });
    // A window other than the parent (here the frame itself) may not set it either.
    await frame.evaluate(() => postMessage('ratelab:theme:dark', '*'));
    await sleep(400);
    assert.equal(await theme(), null, 'no other shape, and no other sender, changes the theme');

    await page.evaluate(() => document.querySelector('iframe').contentWindow.postMessage('ratelab:theme:dark', '*'));
    await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark');
    await page.evaluate(() => window.RateLabEmbed.setTheme('light'));
    await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'light');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
