import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
const events = [];
cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
await cdp.send('Tracing.start', { categories: 'devtools.timeline,blink.user_timing,disabled-by-default-devtools.timeline,blink,loading', transferMode: 'ReportEvents' });
await page.goto(process.env.BASE_URL, { waitUntil: 'commit' });
for (;;) { const { result } = await cdp.send('Runtime.evaluate', { expression: "document.body?.getAttribute('data-ready') === 'true'", returnByValue: true }); if (result.value) break; await new Promise(r => setTimeout(r, 100)); }
await cdp.send('Tracing.end'); await done;
const ready = events.find(e => e.name === 'ratelab:ready').ts; const mounted = events.find(e => e.name === 'ratelab:mounted').ts;
for (const e of events.filter(e => e.ph==='X' && e.dur > 3000 && e.ts >= mounted && e.ts <= ready).sort((a,b)=>a.ts-b.ts)) console.log(((e.ts-mounted)/1000).toFixed(0), e.name, (e.dur/1000).toFixed(1), JSON.stringify(e.args).slice(0, 300));
await browser.close();
