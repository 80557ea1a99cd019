import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
async function one(url) {
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
await cdp.send('Tracing.start', { categories: 'devtools.timeline,blink.user_timing', transferMode: 'ReportEvents' });
await page.goto(url, { waitUntil: 'commit' });
for (;;) { const { result } = await cdp.send('Runtime.evaluate', { expression: "document.body?.getAttribute('data-ready') === 'true'", returnByValue: true }); if (result.value) break; await new Promise(r => setTimeout(r, 100)); }
await cdp.send('Tracing.end'); await done;
const m = await page.evaluate(() => ['ratelab:start','ratelab:mounted','ratelab:ready'].map(n => performance.getEntriesByName(n)[0].startTime));
const ready = events.find(e => e.name === 'ratelab:ready'); const tr = ready ? ready.ts : Infinity;
const sum = (name) => events.filter(e => e.ph === 'X' && e.name === name && e.ts <= tr).reduce((a, e) => a + e.dur, 0) / 1000;
await context.close();
return { ready: m[2], startmount: m[1]-m[0], mountready: m[2]-m[1], layout: sum('Layout'), style: sum('UpdateLayoutTree') };
}
const N = Number(process.env.N || 3);
for (let i = 0; i < N; i++) for (const v of (process.env.VARIANTS || 'A B').split(' ')) {
  const r = await one(process.env.BASE_URL + v + '/' + (process.env.Q ? '?' + process.env.Q : ''));
  console.log(v, Object.entries(r).map(([k, x]) => `${k} ${x.toFixed(0)}`).join('  '));
}
await browser.close();
