// The standard's own checker: axe-core (npm) runs its WCAG 2.0 and 2.1 A and AA rules on the
// default page, the Durable Object lab open, the import panel open, an embed, a question with the
// list of questions, a product row's snippet open and the first visit's tour, in the light and the
// dark theme, and any violation fails the test with what axe says and where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useBrowser, openPage, gotoLab, SCREENSHOT_DIR, openImport } from './helpers.mjs';

const shared = useBrowser();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe's violations on the page as it is now, one line per element. */
async function violations(page) {
  // Through the DevTools protocol, as a test tool: the page's own policy allows no inline script.
  await page.evaluate(AXE);
  const result = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }), RULES);
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`));
}

const VIEWS = [
  { name: 'default page', query: '' },
  { name: 'Durable Object lab open', query: 'do=1', open: '[data-testid="durable-lab"]' },
  { name: 'import panel open', query: '', prepare: openImport },
  { name: 'embed', query: 'embed=1&pattern=steady' },
  { name: 'a question open, with the list of questions', query: 'q=window-edge', ready: '[data-testid="question-window-edge"]' },
  { name: 'a product row\'s settings to take away open', query: 'algos=nginx,cf-binding&limit=3&window=15', open: '[data-testid="snippet-cf-binding"]', ready: '[data-testid="snippet-text-cf-binding"]' },
];

for (const theme of ['light', 'dark']) {
  for (const view of VIEWS) {
    test(`axe finds no WCAG 2.1 A or AA violation: ${view.name}, ${theme} theme`, async () => {
      const { page, problems, context } = await openPage(shared.browser);
      try {
        await gotoLab(page, [view.query, `theme=${theme}`].filter(Boolean).join('&'));
        await page.waitForSelector('body[data-complete="true"]');
        if (view.prepare) await view.prepare(page);
        if (view.open) {
          await page.locator(view.open).evaluate((el) => {
            const details = el.matches('details') ? el : el.querySelector('details');
            if (details) details.open = true;
          });
          await page.locator(view.open).scrollIntoViewIfNeeded();
        }
        if (view.ready) await page.waitForSelector(view.ready);
        const found = await violations(page);
        if (found.length) {
          await page.screenshot({ path: `${SCREENSHOT_DIR}/axe-${theme}-${view.name.replaceAll(' ', '-')}.png`, fullPage: true });
        }
        assert.deepEqual(found, []);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
}

// The tour shows only on a first visit, a link without a query: the theme comes from the system.
for (const theme of ['light', 'dark']) {
  test(`axe finds no WCAG 2.1 A or AA violation: the first visit's tour, ${theme} theme`, async () => {
    const { page, problems, context } = await openPage(shared.browser, { tour: true });
    try {
      await page.emulateMedia({ colorScheme: theme });
      await gotoLab(page);
      await page.locator('[data-testid="tour"]').waitFor();
      const found = await violations(page);
      if (found.length) {
        await page.screenshot({ path: `${SCREENSHOT_DIR}/axe-${theme}-tour.png` });
      }
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
