// Runs web/loader.js, as the page runs it, for each link given on standard input (a JSON list of
// {query, asked}) and prints the module each asked for (a JSON list: "first", "durable", "embed"
// or "complete"), read from the module file it fetched. Used by tests/site_modules.rs, which
// holds the loader to the rule in src/site.rs.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const loader = readFileSync(new URL('../web/loader.js', import.meta.url), 'utf8')
  // A script in a vm context has no module loader: the glue's import is only recorded.
  .replace(/\bimport\(/g, 'importGlue(');
const links = JSON.parse(readFileSync(0, 'utf8'));
const picks = links.map(({ query, asked }) => {
  let fetched = null;
  const pending = () => new Promise(() => {});
  const context = {
    location: { search: query ? `?${query}` : '', reload() {} },
    URLSearchParams,
    sessionStorage: {
      getItem: (key) => (asked && key === 'ratelab-complete' ? 'import' : null),
      setItem() {},
      removeItem() {},
    },
    document: { documentElement: { setAttribute() {} }, body: null },
    addEventListener() {},
    fetch(url) {
      fetched = url;
      return pending();
    },
    importGlue: pending,
    origin: 'http://localhost',
  };
  vm.runInNewContext(loader, context);
  const match = /__([A-Z]+)_WASM__/.exec(fetched ?? '');
  return match ? match[1].toLowerCase() : `no module fetched (${fetched})`;
});
process.stdout.write(JSON.stringify(picks));
