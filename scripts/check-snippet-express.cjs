// Runs one express-rate-limit snippet (app.js, which exports its Express app): serves it on a
// free port and sends `limit + 1` requests from one client, which must get `limit` answers 200
// and then the snippet's `statusCode` (429 unless it sets one).
// Usage: node check-snippet-express.cjs APP_JS
const { readFileSync } = require('node:fs');
const path = require('node:path');

const file = path.resolve(process.argv[2]);
const text = readFileSync(file, 'utf8');
const limit = Number(/\blimit: (\d+)/.exec(text)?.[1]);
const refused = Number(/\bstatusCode: (\d+)/.exec(text)?.[1] ?? 429);
if (!Number.isInteger(limit)) throw new Error(`${file}: no limit in the options`);
const app = require(file);
const server = app.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const statuses = [];
  try {
    for (let i = 0; i <= limit; i += 1) statuses.push((await fetch(url)).status);
  } finally {
    server.close();
  }
  const want = [...Array(limit).fill(200), refused];
  if (statuses.join() !== want.join()) {
    console.error(`${file}: answers ${statuses.join()}, expected ${want.join()}`);
    process.exit(1);
  }
});
