import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const q = process.env.Q || '';
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 9e6/8, uploadThroughput: 1.5e6/8 });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
const events = [];
cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8,blink.user_timing,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
await page.goto(process.env.BASE_URL + (q ? '?' + q : ''), { waitUntil: 'commit' });
for (;;) { const { result } = await cdp.send('Runtime.evaluate', { expression: "document.body?.getAttribute('data-ready') === 'true'", returnByValue: true }); if (result.value) break; await new Promise(r => setTimeout(r, 100)); }
await cdp.send('Tracing.end'); await done;
const marks = await page.evaluate(() => performance.getEntriesByType('mark').map(m => `${m.name} ${m.startTime.toFixed(0)}`).join(' | '));
console.log(marks);
const nav = events.find(e => e.name === 'navigationStart' || e.name==='NavigationStart' );
const t0 = nav ? nav.ts : Math.min(...events.filter(e=>e.ts>0).map(e => e.ts));
const ready = events.find(e => e.name === 'ratelab:ready'); const tr = ready ? ready.ts : Infinity;
const sum = new Map(); const list=[];
for (const e of events) { if (e.ph !== 'X' || !e.dur) continue; if (e.ts > tr) continue;
  if (['RunTask','ThreadControllerImpl::RunTask'].includes(e.name)) continue;
  sum.set(e.name, (sum.get(e.name) || 0) + e.dur); if (e.dur>5000 && e.ts-t0 > 700000) list.push(`${((e.ts-t0)/1000).toFixed(0)} ${e.name} ${(e.dur/1000).toFixed(1)}`); }
for (const [k, v] of [...sum.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(1).padStart(8), k);
console.log(list.join('\n'));
await browser.close();
