// Plays a trace through Cloudflare's Rate Limiting binding as wrangler's local runtime
// (Miniflare, on workerd) runs it from a "Use these settings" wrangler.toml, and prints the
// verdict of each request (allowed or rejected), for scripts/check-snippets.sh to compare with
// the lab's cf-binding row.
//
// wrangler's getPlatformProxy reads the snippet's wrangler.toml as it is and gives its bindings
// to this process, offline. The binding reads workerd's clock and counts in windows that start at
// whole multiples of its period, so the trace is played in real time from the next period
// boundary (the lab's time 0 is one), each request `RATE_LIMITER.limit({ key })` in turn. The
// trace keeps every request 100 ms or more from any time at which a verdict would change
// (tests/snippets.rs checks that on the row), so a late request does not change them.
// Usage: node cf_run.mjs WRANGLER_CLI_JS WRANGLER_TOML TRACE_CSV
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const [cli, config, traceFile] = process.argv.slice(2);
const { getPlatformProxy } = await import(cli);
const period = 1000 * Number(/^\s*period = (\d+)$/m.exec(readFileSync(config, 'utf8'))[1]);
const trace = readFileSync(traceFile, 'utf8').trim().split('\n').map((l) => l.split(','));
const { env, dispose } = await getPlatformProxy({ configPath: config, persist: false });
try {
  await env.RATE_LIMITER.limit({ key: 'warm-up' }); // a key of its own: the runtime answers
  const start = Math.ceil((Date.now() + 200) / period) * period;
  for (const [at, key] of trace) {
    const due = start + Number(at);
    while (Date.now() < due) await sleep(due - Date.now());
    const { success } = await env.RATE_LIMITER.limit({ key });
    console.log(success ? 'allowed' : 'rejected');
  }
} finally {
  await dispose();
}
