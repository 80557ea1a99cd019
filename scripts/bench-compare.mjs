// Two versions of the site, loaded in turn: the cold load of bench-load.mjs (the same phone
// profile, the same figures), one load of each version after the other, ROUNDS times per view.
// On a shared machine the same load varies by hundreds of milliseconds from one quarter hour to
// the next, so two versions measured at different times cannot be told apart; measured in turn,
// both meet the same machine. The order within a round alternates (A then B, then B then A), so
// neither always loads into a browser the other has just warmed.
// For each view it prints the medians of each version's parts and the median of the paired
// differences in ready (B minus A: below zero, B is sooner), and in the part after the module
// has arrived.
// With NETWORK=0 only the CPU is slowed (4x): the module arrives at once, so the loads are
// shorter and the network's spread is gone; what remains is the page's own part, for a change
// too small to show through the phone network's spread (ROUNDS=30 takes a few minutes).
// Run with: bash scripts/bench-compare.sh REV_A [REV_B]   (builds both, serves them, runs this)
// or, for two sites already served: A_URL=... B_URL=... node scripts/bench-compare.mjs
import { coldLoad, launchChromium, loadUncounted, median, VIEWS } from './bench-load.mjs';

const SITES = { A: process.env.A_URL, B: process.env.B_URL };
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const NETWORK = process.env.NETWORK !== '0';
const PARTS = ['total', 'network', 'compile', 'start', 'render', 'firstWords'];
// A part none of a version's loads recorded reads "none" (first words, when the browser had not
// yet reported that paint as the load was read).
const shown = (ms) => (Number.isNaN(ms) ? 'none' : ms.toFixed(0));

if (!SITES.A || !SITES.B) throw new Error('A_URL and B_URL name the two sites (each ending in /)');

const browser = await launchChromium();
console.log(
  `${ROUNDS} cold loads of each version in turn, per view (A ${SITES.A}, B ${SITES.B}), ` +
    `${NETWORK ? "the phone's network and CPU" : 'the CPU slowed only (NETWORK=0)'}; medians, ms`,
);
for (const view of VIEWS) {
  for (const version of ['A', 'B']) await loadUncounted(browser, view.query, SITES[version]);
  const loads = { A: [], B: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    for (const version of order) loads[version].push(await coldLoad(browser, view.query, SITES[version], { network: NETWORK }));
  }
  for (const version of ['A', 'B']) {
    const parts = PARTS.map((part) => `${part === 'total' ? 'ready' : part} ${shown(median(loads[version].map((l) => l[part])))}`);
    console.log(`${view.label.padEnd(24)} ${version}: ${parts.join(', ')}`);
  }
  const differences = loads.B.map((b, i) => b.total - loads.A[i].total);
  console.log(`${view.label.padEnd(24)} B - A: ready ${median(differences).toFixed(0)} (each round: ${differences.map((d) => d.toFixed(0)).join(', ')})`);
  // The page's own part, from the module received to ready (compile, start and render): the
  // network part's spread, which a change to the page's code does not move, is left out.
  const afterModule = (load) => load.total - load.network;
  const pageDifferences = loads.B.map((b, i) => afterModule(b) - afterModule(loads.A[i]));
  console.log(`${view.label.padEnd(24)} B - A: after the module ${median(pageDifferences).toFixed(0)} (A ${median(loads.A.map(afterModule)).toFixed(0)}, B ${median(loads.B.map(afterModule)).toFixed(0)})`);
}
await browser.close();
