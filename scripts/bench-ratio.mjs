// A load budget a shared host can judge: each view's cold load on the phone profile
// (bench-load.mjs) against the network's floor for the same files, as a ratio measured in one
// run. On a shared machine a load's time moves by a third from one hour to the next, and a budget
// in milliseconds is met or missed with it; the floor moves with the same host, so the ratio
// page / floor says what the page's own work adds to what the network alone takes.
// The floor is a near-empty page of the same origin (bench-floor.html, written beside the site
// in a copy of it that is served in its place) whose inline script fetches the files the page
// had received when it was ready: the same addresses, so the same bytes, all asked for at once
// in the page's order and at its priorities, read to the last byte, neither compiled nor run.
// Its own document stands in for the page's.
// For each view: one load of the page and one of the floor not counted (the server compresses
// each file on its first request, which a static host has done before anyone asks), then ROUNDS
// rounds (default 7) of one load of each, the page first in even rounds and the floor first in
// odd ones, so that neither always meets the machine the other has just left. Each floor fetches
// the files of the page load before it, which now and then differ by the icon. It prints the
// files, each round's ratio, and the medians, with when each one's first request left.
// Run with: bash scripts/bench-browser.sh ratio   (builds the site, serves a copy of it with the
// floor, runs this)
import { coldLoad, fetchedFiles, launchChromium, median, notePriorities, phoneContext, PHONE, VIEWS, waitUntil } from './bench-load.mjs';

const BASE = process.env.BASE_URL;
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const FLOOR = new URL('floor.html', BASE).href;

/**
 * One cold load of the floor for `files` (a page load's `fetched`), in a new context on the phone
 * profile. A file the page asked for at a low priority (its deferred script) is fetched at a low
 * one (`fetch`'s `priority`), the others at a high one, as the page's loader fetches the module.
 */
async function floorLoad(browser, files) {
  const asked = files.map((file) => [file.url, /low/i.test(file.priority) ? 'low' : 'high']);
  const { context, page, cdp } = await phoneContext(browser);
  const priorities = notePriorities(cdp);
  await page.goto(`${FLOOR}#${encodeURIComponent(JSON.stringify(asked))}`, { waitUntil: 'commit' });
  await waitUntil(cdp, "document.documentElement.hasAttribute('data-fetched')", 'the floor');
  const total = await page.evaluate(() => performance.getEntriesByName('floor:fetched')[0].startTime);
  const fetched = await page.evaluate(fetchedFiles, total);
  await context.close();
  return { total, fetched: fetched.map((file) => ({ ...file, priority: priorities.get(file.url) ?? '?' })) };
}

const name = (url) => url.slice(url.lastIndexOf('/') + 1);
const seconds = (ms) => (ms / 1000).toFixed(2);
const describe = (load) => load.fetched.map((f) => `${name(f.url)} ${f.bytes} B, ${f.priority}, sent at ${f.sent.toFixed(0)} ms`).join('; ');

/**
 * What `load` received that `other` did not (+), and the other way round (-), by name and bytes;
 * empty when they are the same. The browser asks for the icon a few hundred milliseconds after
 * the module, so it is among some page loads' files when ready and not others'.
 */
function differenceFrom(other, load) {
  const files = (l) => l.fetched.map((file) => `${name(file.url)} ${file.bytes} B`);
  const [before, after] = [files(other), files(load)];
  const added = after.filter((f) => !before.includes(f)).map((f) => `+${f}`);
  const missing = before.filter((f) => !after.includes(f)).map((f) => `-${f}`);
  return [...added, ...missing].join(', ');
}

const browser = await launchChromium();
console.log(
  `page / floor on a phone profile (${PHONE.downloadBitsPerSecond / 1e6} Mbit/s down, ${PHONE.roundTripMs} ms round trip, ` +
    `CPU ${PHONE.cpuSlowdown}x slower): ${ROUNDS} rounds of one cold load of each per view`,
);
const rows = [];
for (const view of VIEWS) {
  const first = await coldLoad(browser, view.query);
  const firstFloor = await floorLoad(browser, first.fetched);
  console.log(`${view.label}\n  the page had received when ready: ${describe(first)}\n  the floor fetched: ${describe(firstFloor)}`);
  // The floor fetches what the page load before it had received: in even rounds the same
  // round's, in odd ones the previous round's.
  const loads = { page: [], floor: [] };
  let latest = first;
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? ['page', 'floor'] : ['floor', 'page']) {
      if (which === 'page') loads.page.push((latest = await coldLoad(browser, view.query)));
      else loads.floor.push(await floorLoad(browser, latest.fetched));
    }
  }
  const differences = loads.page.map((load, i) => differenceFrom(loads.floor[i], load)).filter((d) => d);
  if (differences.length) {
    console.log(`  ${differences.length} of ${ROUNDS} rounds' page had other files than their floor: ${differences.join('; ')}`);
  }
  const ratios = loads.page.map((load, i) => load.total / loads.floor[i].total);
  const row = {
    view: view.label,
    page: median(loads.page.map((l) => l.total)),
    floor: median(loads.floor.map((l) => l.total)),
    ratio: median(ratios),
  };
  // The floor asks for its files as soon as its script runs; the page when its loader runs.
  const firstSent = (which) => median(loads[which].map((load) => load.fetched[0]?.sent ?? NaN)).toFixed(0);
  console.log(
    `  page ${seconds(row.page)} s, floor ${seconds(row.floor)} s (medians), page / floor ${row.ratio.toFixed(2)} (median of the rounds: ` +
      `${ratios.map((r) => r.toFixed(2)).join(', ')}); first request sent at ${firstSent('page')} ms (page), ${firstSent('floor')} ms (floor)`,
  );
  rows.push(row);
}
await browser.close();
console.log('\n| view | page | floor | page / floor |\n|---|---|---|---|');
for (const row of rows) console.log(`| ${row.view} | ${seconds(row.page)} s | ${seconds(row.floor)} s | ${row.ratio.toFixed(2)} |`);
