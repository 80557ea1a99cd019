// What a person waits for when a view needs a larger module (src/ui/module_swap.rs): on the phone
// profile (bench-load.mjs), ticking a product on the default page, from the click to the
// complete module's page ready with the product's row and built whole (`html[data-module]` names
// the complete module, `body[data-complete]`). Beside it, in turn, what a reload into the same
// view costs in the same context: navigating to the link the swap wrote, to the same marks. Each
// swap starts from a page loaded cold in a new context; ROUNDS rounds (default 7), the swap first
// in even rounds and the reload first in odd ones, after one of each not counted (the server
// compresses each file on its first request). Prints each round and the medians, and the ratio
// swap / reload of the medians. A benchmark: it asserts nothing about time.
// Run with: bash scripts/bench-browser.sh swap   (builds the site, serves it gzip-compressed)
import { launchChromium, median, phoneContext, waitUntil } from './bench-load.mjs';

const BASE = process.env.BASE_URL;
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const START = 'pattern=edge';
const WHOLE = "document.documentElement.getAttribute('data-module') === 'complete' && document.body?.getAttribute('data-complete') === 'true' && !!document.querySelector('[data-testid=\"stats-nginx\"]')";

/** A cold first view, its products' list open, ready to tick nginx. */
async function firstView(browser) {
  const { context, page, cdp } = await phoneContext(browser);
  await page.goto(`${BASE}?${START}`, { waitUntil: 'commit' });
  await waitUntil(cdp, "document.body?.getAttribute('data-complete') === 'true'", START);
  await page.locator('[data-testid="products-toggle"]').click();
  await page.locator('[data-testid="toggle-nginx"]').waitFor();
  return { context, page, cdp };
}

/** Ticks nginx and times the page until the complete module has shown the view whole. */
async function swap(browser) {
  const { context, page, cdp } = await firstView(browser);
  await page.evaluate(() => {
    document.querySelector('[data-testid="toggle-nginx"]').addEventListener('click', () => {
      window.benchClicked = performance.now();
    }, { capture: true, once: true });
  });
  await page.locator('[data-testid="toggle-nginx"]').click();
  await waitUntil(cdp, WHOLE, 'the swap');
  const ms = await page.evaluate(() => performance.now() - window.benchClicked);
  const link = page.url();
  await context.close();
  return { ms, link };
}

/** Loads `link` in a context that has shown the first view, as a reload into it would. */
async function reload(browser, link) {
  const { context, page, cdp } = await firstView(browser);
  await page.goto(link, { waitUntil: 'commit' });
  await waitUntil(cdp, WHOLE, 'the reload');
  const ms = await page.evaluate(() => performance.now());
  await context.close();
  return { ms };
}

const browser = await launchChromium();
try {
  const { link } = await swap(browser);
  await reload(browser, link);
  const swaps = [];
  const reloads = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      swaps.push((await swap(browser)).ms);
      reloads.push((await reload(browser, link)).ms);
    } else {
      reloads.push((await reload(browser, link)).ms);
      swaps.push((await swap(browser)).ms);
    }
    console.log(`round ${round + 1}: swap ${swaps.at(-1).toFixed(0)} ms, reload ${reloads.at(-1).toFixed(0)} ms`);
  }
  const [s, r] = [median(swaps), median(reloads)];
  console.log(`ticking a product on the first view, phone profile, ${ROUNDS} rounds: swap median ${s.toFixed(0)} ms (${Math.min(...swaps).toFixed(0)}-${Math.max(...swaps).toFixed(0)}), reload median ${r.toFixed(0)} ms (${Math.min(...reloads).toFixed(0)}-${Math.max(...reloads).toFixed(0)}), swap / reload ${(s / r).toFixed(2)}`);
} finally {
  await browser.close();
}
