// What a person waits for: from navigation to `body[data-ready="true"]` on a phone-class profile,
// in headless Chromium through the DevTools protocol: 9 Mbit/s down, 1.5 Mbit/s up, 150 ms round
// trip, the CPU slowed 4x, the cache disabled, a 390 px wide viewport. Each view is loaded cold
// (a new browser context) three times, after one load not counted (`loadUncounted`); the median
// is reported, with where its time went, read from the page's own performance marks and the
// resource timings:
//   network  navigation start -> the module (.wasm) fully received
//   compile  module received -> the app's code starts (`ratelab:start`): compiling and
//            instantiating what was not compiled while it streamed in
//   start    `ratelab:start` -> `ratelab:mounted`: the first run computed and the page built
//   render   `ratelab:mounted` -> `ratelab:ready`: the first frame's charts drawn
// and, apart, when the first words appear (`first-contentful-paint`: the header index.html shows
// while the module arrives).
// Run with: bash scripts/bench-browser.sh load   (builds the site, serves it gzip-compressed on
// 127.0.0.1 as static hosts do, runs this)
import { chromium } from 'playwright-core';

const BASE = process.env.BASE_URL;
const RUNS = Number(process.env.LOAD_RUNS ?? 3);

export const PHONE = {
  viewport: { width: 390, height: 844 },
  downloadBitsPerSecond: 9_000_000,
  uploadBitsPerSecond: 1_500_000,
  roundTripMs: 150,
  cpuSlowdown: 4,
};

export const VIEWS = [
  { label: 'default page', query: '', targetMs: 1000 },
  { label: 'embed=1&pattern=steady', query: 'embed=1&pattern=steady', targetMs: 900 },
  { label: 'do=1', query: 'do=1', targetMs: 1100 },
];

/**
 * A new browser context on the phone profile, with its page and a DevTools session on it. With
 * `network: false`, only the CPU is slowed: the module arrives at once, which leaves the
 * network's spread out when two versions' page parts are compared (bench-compare.mjs).
 */
export async function phoneContext(browser, { network = true } = {}) {
  const context = await browser.newContext({ viewport: PHONE.viewport });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (network) {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: PHONE.roundTripMs,
      downloadThroughput: PHONE.downloadBitsPerSecond / 8,
      uploadThroughput: PHONE.uploadBitsPerSecond / 8,
    });
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: PHONE.cpuSlowdown });
  return { context, page, cdp };
}

/**
 * Waits until `expression` is true in the page. Playwright's own waiting (waitForSelector) runs
 * its injected script in the page on every animation frame, which on a CPU slowed 4x costs tens
 * of milliseconds each time, inside the load being measured. A one-line check through the
 * protocol every 100 ms costs nothing: the page's own mark says when it was ready.
 */
export async function waitUntil(cdp, expression, what) {
  for (let waited = 0; ; waited += 100) {
    const { result } = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
    if (result.value) return;
    if (waited > 60000) throw new Error(`not ready after 60 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The priority Chromium gave each request of the page, by address, from the protocol's events
 * (the resource timings do not say it), for the loads that note what they fetched.
 */
export function notePriorities(cdp) {
  const priorities = new Map();
  cdp.on('Network.requestWillBeSent', ({ request }) => priorities.set(request.url, request.initialPriority));
  return priorities;
}

/**
 * One cold load of the site at `base` (its address, ending in `/`) with `query`, in a new context
 * (`network` as for phoneContext). Besides the figures, `fetched` lists the files the page had
 * received when it was ready, in the order it asked for them: what the floor of bench-ratio.mjs
 * fetches.
 */
export async function coldLoad(browser, query, base = BASE, { network = true } = {}) {
  const { context, page, cdp } = await phoneContext(browser, { network });
  const priorities = notePriorities(cdp);
  await page.goto(`${base}${query ? `?${query}` : ''}`, { waitUntil: 'commit' });
  await waitUntil(cdp, "document.body?.getAttribute('data-ready') === 'true'", query);
  const figures = await page.evaluate(() => {
    const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
    const bytes = performance
      .getEntriesByType('resource')
      .concat(performance.getEntriesByType('navigation'))
      .reduce((sum, e) => sum + (e.transferSize || 0), 0);
    return {
      ready: mark('ratelab:ready'),
      network: wasm ? wasm.responseEnd : NaN,
      start: mark('ratelab:start'),
      mounted: mark('ratelab:mounted'),
      firstWords: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      bytes,
    };
  });
  const fetched = await page.evaluate(fetchedFiles, figures.ready);
  await context.close();
  return {
    total: figures.ready,
    network: figures.network,
    compile: figures.start - figures.network,
    start: figures.mounted - figures.start,
    render: figures.ready - figures.mounted,
    firstWords: figures.firstWords,
    bytes: figures.bytes,
    fetched: fetched.map((file) => ({ ...file, priority: priorities.get(file.url) ?? '?' })),
  };
}

/**
 * Run in the page (`page.evaluate(fetchedFiles, until)`): the files received in full by `until`
 * (ms after navigation), in the order they were asked for, from the resource timings. The
 * document itself is not among them.
 */
export function fetchedFiles(until) {
  return performance
    .getEntriesByType('resource')
    .filter((e) => e.responseEnd <= until)
    .sort((a, b) => a.startTime - b.startTime)
    .map((e) => ({ url: e.name, sent: e.startTime, received: e.responseEnd, bytes: e.transferSize, kind: e.initiatorType }));
}

/**
 * One load of `query` that is not counted, before those that are: the local server compresses
 * each file on its first request (36 ms for the first view's module), which a static host has
 * done before anyone asks.
 */
export async function loadUncounted(browser, query, base = BASE) {
  await coldLoad(browser, query, base);
}

/**
 * The median of the numbers in `xs` (the middle one of an odd count, the upper middle of an even
 * one), leaving out what is not a number (a mark a load did not reach); NaN when none is.
 */
export function median(xs) {
  const numbers = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return numbers.length ? numbers[Math.floor(numbers.length / 2)] : NaN;
}

/** Headless Chromium as every browser benchmark launches it. */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

export async function measureLoads(browser) {
  console.log(
    `cold loads on a phone profile (${PHONE.downloadBitsPerSecond / 1e6} Mbit/s down, ${PHONE.uploadBitsPerSecond / 1e6} up, ` +
      `${PHONE.roundTripMs} ms round trip, CPU ${PHONE.cpuSlowdown}x slower, ${PHONE.viewport.width} px): median of ${RUNS}`,
  );
  const results = [];
  for (const view of VIEWS) {
    await loadUncounted(browser, view.query);
    const loads = [];
    for (let i = 0; i < RUNS; i++) loads.push(await coldLoad(browser, view.query));
    // The load whose total is the median, so its parts add up to the figure shown.
    const mid = [...loads].sort((a, b) => a.total - b.total)[Math.floor(loads.length / 2)];
    const met = mid.total <= view.targetMs ? 'met' : 'NOT met';
    console.log(
      `${view.label.padEnd(24)} ready ${mid.total.toFixed(0).padStart(5)} ms (target ${view.targetMs}, ${met})   ` +
        `network ${mid.network.toFixed(0)}, compile ${mid.compile.toFixed(0)}, start ${mid.start.toFixed(0)}, render ${mid.render.toFixed(0)} ms   ` +
        `first words ${mid.firstWords.toFixed(0)} ms   ` +
        `${(mid.bytes / 1024).toFixed(0)} KB transferred   all runs: ${loads.map((l) => l.total.toFixed(0)).join(', ')} ms`,
    );
    results.push({ view, median: mid, loads });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const browser = await launchChromium();
  await measureLoads(browser);
  await browser.close();
}
