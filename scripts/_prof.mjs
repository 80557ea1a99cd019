import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const q = process.env.Q || '';
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
await cdp.send('Profiler.start');
await page.goto(process.env.BASE_URL + (q ? '?' + q : ''));
await page.waitForSelector('body[data-ready="true"]');
const { profile } = await cdp.send('Profiler.stop');
const marks = await page.evaluate(() => performance.getEntriesByType('mark').map(m => `${m.name} ${m.startTime.toFixed(0)}`).join(' | '));
console.log(marks);
// self time per function
const self = new Map(); const byId = new Map(profile.nodes.map(n => [n.id, n]));
const dt = profile.timeDeltas; const total = {};
for (let i = 0; i < profile.samples.length; i++) { const n = byId.get(profile.samples[i]); const k = n.callFrame.functionName || n.callFrame.url.split('/').pop() || '(anon)'; self.set(k, (self.get(k) || 0) + (dt[i] || 0)); }
const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
for (const [k, v] of top) console.log((v / 1000).toFixed(1).padStart(7), 'ms', k.slice(0, 140));
// inclusive time for ratelab functions: build parent map
const parent = new Map(); for (const n of profile.nodes) for (const c of (n.children || [])) parent.set(c, n.id);
const incl = new Map();
for (let i = 0; i < profile.samples.length; i++) { let id = profile.samples[i]; const seen = new Set(); while (id) { const n = byId.get(id); const k = n.callFrame.functionName; if (k && !seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) || 0) + (dt[i] || 0)); } id = parent.get(id); } }
console.log('--- inclusive, ratelab');
for (const [k, v] of [...incl.entries()].filter(([k]) => k.includes('ratelab')).sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((v / 1000).toFixed(1).padStart(7), 'ms', k.slice(0, 140));
await browser.close();
