import { chromium } from 'playwright-core';
const BASE = process.env.BASE_URL;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const keys = process.env.KEYS === '1';
await page.goto(`${BASE}?limit=100&window=1${keys ? '&do=1' : ''}`);
await page.waitForSelector('body[data-ready="true"]');
await page.click('text=Use your own traffic');
const lines = new Array(1_000_000);
for (let i = 0; i < lines.length; i++) lines[i] = keys ? `${(i / 1000).toFixed(3)},tenant:${i % 10000}` : (i / 1000).toFixed(3);
const buffer = Buffer.from(lines.join('\n'));
await page.evaluate(() => { window.longTasks = []; new PerformanceObserver((l) => l.getEntries().forEach((e) => window.longTasks.push([e.startTime, e.duration]))).observe({ type: 'longtask' }); });
const client = await page.context().newCDPSession(page);
await client.send('Profiler.enable');
await client.send('Profiler.setSamplingInterval', { interval: 500 });
await page.setInputFiles('[data-testid="import-file"]', { name: 'm.txt', mimeType: 'text/plain', buffer });
await client.send('Profiler.start');
const t0 = await page.evaluate(() => performance.now());
const tStart = t0;
await page.waitForFunction(() => document.querySelector('[data-testid="lede"]').innerText.includes('same 1000000 requests'), null, { timeout: 120000 });
await page.waitForTimeout(1500);
const { profile } = await client.send('Profiler.stop');
const tasks = await page.evaluate(() => window.longTasks);
console.log('long tasks (start rel, dur):', tasks.map(([s, d]) => `${(s - t0).toFixed(0)}:${d.toFixed(0)}`).join(' '));
// Per long task: which functions had the most self samples inside it.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
let t = profile.startTime; const samples = [];
for (let i = 0; i < profile.samples.length; i++) { t += profile.timeDeltas[i]; samples.push([t / 1000, profile.samples[i]]); }
// performance.now() origin vs profiler clock: align by offset using first sample ~ t0 approx is unreliable; print per-task by relative order instead
const name = (id) => { const f = byId.get(id).callFrame; return f.functionName || `(${f.url.split('/').pop()}:${f.lineNumber})`; };
const agg = (list) => { const m = new Map(); for (const [, id] of list) { const k = name(id); m.set(k, (m.get(k) ?? 0) + 0.5); } return [...m].sort((a, b) => b[1] - a[1]).slice(0, 12); };
const incl = (list) => { const m = new Map(); for (const [, id] of list) { const seen = new Set(); let x = id; while (x !== undefined) { const k = name(x); if (!seen.has(k)) { m.set(k, (m.get(k) ?? 0) + 0.5); seen.add(k); } x = parent.get(x); } } return [...m].sort((a, b) => b[1] - a[1]).slice(0, 40); };
// Tasks from the samples themselves: runs of non-idle samples.
let run = []; const runs = [];
for (const smp of samples) { const k = name(smp[1]); if (k === '(idle)') { if (run.length) runs.push(run); run = []; } else run.push(smp); }
if (run.length) runs.push(run);
for (const r of runs) {
  const d = r[r.length - 1][0] - r[0][0];
  if (d < 40) continue;
  const m = new Map(); for (const [, id] of r) { const seen = new Set(); let x = id; while (x !== undefined) { const k = name(x).replace(/::h[0-9a-f]{16}$/, ''); if (k.startsWith('ratelab::') || k.startsWith('tachys') || k.startsWith('reactive_graph') || k.startsWith('alloc') || k.startsWith('core::') || k.startsWith('plotters')) { if (!seen.has(k)) { m.set(k, (m.get(k) ?? 0) + 0.5); seen.add(k); } } x = parent.get(x); } }
  if (d > 200) { const selfm = new Map(); for (const [, id] of r) { const k = name(id).replace(/::h[0-9a-f]{16}$/, ''); selfm.set(k, (selfm.get(k) ?? 0) + 0.5); } console.log('   self:', [...selfm].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v} ${k}`).join(' | ')); }
  console.log(`task ${d.toFixed(0)} ms:`, [...m].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${v} ${k}`).join(' | '));
}
console.log('self ms:', agg(samples.filter(([, id]) => name(id) !== '(idle)' && name(id) !== '(program)')));
console.log('inclusive ms:'); for (const [k, v] of incl(samples.filter(([, id]) => name(id) !== '(idle)'))) console.log('  ', v, k);
await browser.close();
