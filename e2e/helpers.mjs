// Shared set-up for the end-to-end tests: Debian's chromium driven by playwright-core, one
// browser per test file, and a page that records console errors, page errors and every request.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? 'e2e/artifacts';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    // No background traffic: this machine has no network, and the tests count every request.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Everything that went wrong, and every request to another origin, over the whole file. */
export const everyProblem = [];
export const everyForeignRequest = [];

/**
 * Opens a page that records what went wrong, at the given viewport. The first visit's tour is
 * taken as dismissed (it would sit over the page on every view without a query) unless `tour`.
 */
export async function openPage(browser, { width = 1280, height = 800, tour = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  if (!tour) {
    await context.addInitScript(() => {
      try {
        localStorage.setItem('ratelab-tour-dismissed', '1');
      } catch {
        // A frame without storage shows no tour anyway.
      }
    });
  }
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      problems.push(`console: ${msg.text()}`);
      everyProblem.push(`console: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => {
    problems.push(`page error: ${err.message}`);
    everyProblem.push(`page error: ${err.message}`);
  });
  page.on('request', (req) => {
    requests.push(req.url());
    everyForeignRequest.push(...foreignRequests([req.url()]));
  });
  return { page, problems, requests, context };
}

/**
 * Loads the app with a query string and waits until it has computed the state and built every
 * section: `data-ready` marks the first view, `data-complete` the sections below it.
 */
export async function gotoLab(page, query = '') {
  await page.goto(`${BASE_URL}${query ? `?${query}` : ''}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]', { timeout: 15000 });
}

/** The six algorithms' slugs, the rows every view has unless its link picks others (`algos=`). */
export const ALGORITHMS = ['fixed', 'sliding-log', 'sliding-counter', 'token-bucket', 'gcra', 'leaky-bucket'];

/** The integer data attributes of one algorithm's row. */
export async function rowFigures(page, slug) {
  const row = page.locator(`[data-testid="stats-${slug}"]`);
  const read = async (name) => Number(await row.getAttribute(`data-${name}`));
  return {
    allowed: await read('allowed'),
    rejected: await read('rejected'),
    maxInWindow: await read('max-in-window'),
  };
}

/** Requests that left the page's own origin. */
export function foreignRequests(requests) {
  const origin = new URL(BASE_URL).origin;
  return requests.filter(
    (url) => !url.startsWith(origin) && !url.startsWith(`blob:${origin}/`) && !url.startsWith('data:'),
  );
}

/** For each test file's `after`: no console error, no page error, no request elsewhere, ever. */
export function assertCleanRun(assert) {
  assert.deepEqual(everyProblem, [], 'no console or page error during the whole run');
  assert.deepEqual(everyForeignRequest, [], 'no request to any other origin during the whole run');
}

/**
 * One browser for a test file: launched before its tests, closed after them, and the whole run
 * checked for errors and requests elsewhere. Tests read `shared.browser`.
 */
export function useBrowser() {
  const shared = { browser: undefined };
  before(async () => {
    shared.browser = await launch();
  });
  after(async () => {
    await shared.browser?.close();
    assertCleanRun(assert);
  });
  return shared;
}

/** The Durable Object row's data attributes. */
export async function doRowFigures(page) {
  const row = page.locator('[data-testid="stats-do"]');
  const read = async (name) => Number(await row.getAttribute(`data-${name}`));
  return {
    allowed: await read('allowed'),
    rejected: await read('rejected'),
    degraded: await read('degraded'),
    p95: await read('p95-ms'),
    maxInWindow: await read('max-in-window'),
    late: await read('late'),
  };
}

/**
 * Starts noting every state the progress bar shows, as `what:permille`, as it shows it; read
 * them back with `progressSeen`.
 */
export async function watchProgress(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    new MutationObserver(() => {
      const bar = document.querySelector('[data-testid="progress"]');
      if (bar) window.progressSeen.push(`${bar.textContent}:${bar.querySelector('progress').value}`);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

/** The progress bar's states noted since `watchProgress`, in order. */
export async function progressSeen(page) {
  return page.evaluate(() => window.progressSeen);
}

/**
 * Serves the folder `root` on a port of its own, as the suite's server does (`--no-cors`: without
 * any CORS header, as `python3 -m http.server`). The caller stops it with `server.kill()`.
 */
export async function serveFolder(root, ...flags) {
  const portFile = join(mkdtempSync(join(tmpdir(), 'ratelab-serve-')), 'port');
  const server = spawn('python3', ['scripts/static_server.py', root, portFile, ...flags], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(existsSync(portFile) && readFileSync(portFile, 'utf8')); i++) await sleep(50);
  return { server, origin: `http://127.0.0.1:${readFileSync(portFile, 'utf8')}` };
}

/**
 * Opens "Use your own traffic". The first view's module has only its heading: opening it
 * brings the complete module in place of the first, which opens the panel (src/ui/workbench.rs).
 */
export async function openImport(page) {
  const panel = page.locator('[data-testid="import-panel"]');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  await page.locator('[data-testid="import-panel"][open] [data-testid="import-text"]').waitFor({ timeout: 15000 });
  await page.waitForSelector('body[data-complete="true"]');
}

/** The geometry the timelines' canvas publishes (`data-layout`: `layout::timeline::Layout`). */
export async function timelineLayout(page) {
  return JSON.parse(await page.locator('[data-testid="timeline-canvas"]').getAttribute('data-layout'));
}

/** The x (CSS pixels, in the canvas) of `seconds` in the stretch of time the timelines show. */
export function timelineX(layout, seconds) {
  const frac = (seconds * 1e6 - layout.fromUs) / (layout.toUs - layout.fromUs);
  return layout.padX + frac * (layout.width - 2 * layout.padX);
}

/** The colour of the timelines' canvas at (`x`, `y`) CSS pixels, as [r, g, b, a]. */
export async function timelinePixel(page, x, y) {
  return page.evaluate(([px, py]) => {
    const c = document.querySelector('[data-testid="timeline-canvas"]');
    const ratio = c.width / c.getBoundingClientRect().width;
    return Array.from(c.getContext('2d').getImageData(Math.round(px * ratio), Math.round(py * ratio), 1, 1).data);
  }, [x, y]);
}

/** An allowed mark's green and a rejected mark's orange, in either theme. */
export const isGreen = ([r, g, b]) => g > 120 && r < 100 && b < 170 && g > r + 50;
export const isOrange = ([r, g, b]) => r > 180 && g > 50 && g < 170 && b < 90;
