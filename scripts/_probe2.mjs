import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const v of (process.env.VARIANTS||'A B C D').split(' ')) {
 const r=[]; let last;
 for (let i=0;i<Number(process.env.N||5);i++){
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 9e6/8, uploadThroughput: 1.5e6/8 });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await page.goto(process.env.BASE_URL + v + '/' + (process.env.Q||''), { waitUntil: 'commit' });
await page.waitForSelector('body[data-ready="true"]');
last = await page.evaluate(() => [...performance.getEntriesByType('resource')].map(e => `${e.name.split('.').pop()} ${e.startTime.toFixed(0)}-${e.responseStart.toFixed(0)}-${e.responseEnd.toFixed(0)}`).concat(performance.getEntriesByType('mark').map(m => `${m.name} ${m.startTime.toFixed(0)}`)).join(' | '));
r.push(await page.evaluate(() => performance.getEntriesByName('ratelab:ready')[0].startTime));
await context.close();
 }
 console.log(v, 'median', median(r).toFixed(0), r.map(x=>x.toFixed(0)).join(','), '\n   ', last);
}
await browser.close();
