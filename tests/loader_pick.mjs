// Runs web/loader.js, as the page runs it, for each link given on standard input (a JSON list of
// {query, asked}: `asked`, a running module then asks for the complete one to open a section) and
// prints the module it last asked for (a JSON list: "first", "durable" or "complete"), read from
// the module file it fetched. Used by tests/site_modules.rs, which
// holds the loader to the rule in src/site.rs.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

// The rule's names, as the site's build writes them in (`site::loader_tables`), from the file
// named by the first argument.
const tables = readFileSync(process.argv[2], 'utf8');
const loader = readFileSync(new URL('../web/loader.js', import.meta.url), 'utf8')
  .replace('/*__LOADER_TABLES__*/', () => tables)
  // A script in a vm context has no module loader: the glue's import is only recorded.
  .replace(/\bimport\(/g, 'importGlue(');
const links = JSON.parse(readFileSync(0, 'utf8'));
const picks = links.map(({ query, asked }) => {
  let fetched = null;
  const pending = () => new Promise(() => {});
  const context = {
    location: { search: query ? `?${query}` : '', reload() {} },
    URLSearchParams,
    document: { documentElement: { setAttribute() {} }, body: null },
    addEventListener() {},
    fetch(url) {
      fetched = url;
      return pending();
    },
    importGlue: pending,
    origin: 'http://localhost',
  };
  context.window = context;
  vm.runInNewContext(loader, context);
  // A module asked to open a section of the complete one calls the loader again.
  if (asked) context.ratelabSwitch('import');
  const match = /__([A-Z]+)_WASM__/.exec(fetched ?? '');
  return match ? match[1].toLowerCase() : `no module fetched (${fetched})`;
});
process.stdout.write(JSON.stringify(picks));
