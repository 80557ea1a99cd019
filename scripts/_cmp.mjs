import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const q of ['', 'embed=1&pattern=steady', 'do=1']) {
  const r = {};
  for (let i = 0; i < 5; i++) for (const [name, base] of [['before', process.env.BASE_A], ['after', process.env.BASE_B]]) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 9e6/8, uploadThroughput: 1.5e6/8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(base + (q ? '?' + q : ''), { waitUntil: 'commit' });
    let t;
    for (;;) { const { result } = await cdp.send('Runtime.evaluate', { expression: "document.body?.getAttribute('data-ready') === 'true' ? performance.now() : 0", returnByValue: true }); if (result.value) { t = result.value; break; } await new Promise(r => setTimeout(r, 20)); }
    (r[name] ??= []).push(t);
    await context.close();
  }
  console.log(`${(q || 'default').padEnd(24)} before ${median(r.before).toFixed(0)} (${r.before.map(x => x.toFixed(0)).join(',')})   after ${median(r.after).toFixed(0)} (${r.after.map(x => x.toFixed(0)).join(',')})`);
}
await browser.close();
