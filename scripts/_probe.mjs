import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
for (const q of ['', 'do=1']) {
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 9e6/8, uploadThroughput: 1.5e6/8 });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await page.goto(process.env.BASE_URL + (q ? '?' + q : ''), { waitUntil: 'commit' });
await page.waitForSelector('body[data-ready="true"]');
const t = await page.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map(e => `${e.name.split('/').pop().slice(0,30).padEnd(30)} start ${e.startTime.toFixed(0)} reqStart ${e.requestStart.toFixed(0)} respStart ${e.responseStart.toFixed(0)} end ${e.responseEnd.toFixed(0)} size ${e.transferSize}`).concat(performance.getEntriesByType('mark').map(m => `${m.name} ${m.startTime.toFixed(0)}`), performance.getEntriesByType('paint').map(m => `${m.name} ${m.startTime.toFixed(0)}`)));
console.log(q, '\n' + t.join('\n'));
await context.close();
}
await browser.close();
