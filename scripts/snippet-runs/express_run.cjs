// Plays a trace through the Express app of a "Use these settings" snippet of express-rate-limit,
// and prints the verdict of each request (allowed or rejected), for scripts/check-snippets.sh to
// compare with the lab's express-rate-limit row.
//
// The app.js file is required as it is and served on 127.0.0.1; key `a` asks from 127.0.0.1 and
// key `b` from 127.0.0.2, so the default key generator (the client's address) keeps one count
// per key. The memory store reads the time only through `Date.now()` (its `setInterval` just
// moves clients between two maps, which never changes a verdict), so `Date.now` is replaced by
// a clock that reads what the trace sets. One request at a time: 200 is allowed, the snippet's
// `statusCode` rejected, anything else an error.
// Usage: node express_run.cjs APP_JS TRACE_CSV
const { readFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');

let now = 1_700_000_000_000;
Date.now = () => now;

const file = path.resolve(process.argv[2]);
const refused = Number(/\bstatusCode: (\d+)/.exec(readFileSync(file, 'utf8'))?.[1] ?? 429);
const trace = readFileSync(process.argv[3], 'utf8').trim().split('\n').map((l) => l.split(','));
const app = require(file);

function get(port, from) {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path: '/', localAddress: from, agent: false };
    const req = http.get(options, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
}

const server = app.listen(0, '127.0.0.1', async () => {
  const start = now;
  try {
    for (const [at, key] of trace) {
      now = start + Number(at);
      const status = await get(server.address().port, key === 'a' ? '127.0.0.1' : '127.0.0.2');
      if (status !== 200 && status !== refused) throw new Error(`status ${status}`);
      console.log(status === 200 ? 'allowed' : 'rejected');
    }
  } finally {
    server.close();
  }
});
