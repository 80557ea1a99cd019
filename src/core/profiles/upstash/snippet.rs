//! Upstash (`@upstash/ratelimit`, TypeScript): `new Ratelimit({ redis, limiter, timeout,
//! ephemeralCache })` with `Ratelimit.fixedWindow(tokens, window)`,
//! `Ratelimit.slidingWindow(tokens, window)` or `Ratelimit.tokenBucket(refillRate, interval,
//! maxTokens)`, as upstash/ratelimit-js documents them. Durations are strings such as "10 s" or
//! "1500 ms"; the row's windows are already whole milliseconds (`UpstashParams::defaults_for`),
//! so the snippet is exact. The Redis round trip the lab can add is the network, not an option.

use crate::core::profiles::upstash::{UpstashAlgorithm, UpstashKind};
use crate::core::time::{Span, MICROS_PER_MILLI, MICROS_PER_SEC};

use crate::core::profiles::{quota_text, RowSettings, Written};

/// The snippet of the row labelled `label`, which runs `kind`.
pub(super) fn write(label: &str, kind: UpstashKind, s: &RowSettings) -> Written {
    let p = s.products.upstash.params(kind, s.limit, s.window);
    let limiter = match p.algorithm {
        UpstashAlgorithm::FixedWindow { tokens, window } => {
            format!("Ratelimit.fixedWindow({tokens}, \"{}\")", duration(window))
        }
        UpstashAlgorithm::SlidingWindow { tokens, window } => {
            format!(
                "Ratelimit.slidingWindow({tokens}, \"{}\")",
                duration(window)
            )
        }
        UpstashAlgorithm::TokenBucket {
            refill_rate,
            interval,
            max_tokens,
        } => format!(
            "Ratelimit.tokenBucket({refill_rate}, \"{}\", {max_tokens})",
            duration(interval)
        ),
    };
    let cache = if p.ephemeral_cache {
        "new Map()"
    } else {
        "false"
    };
    Written::exact(format!(
        "// Rate Limit Lab, {label} row (the lab's limit: {quota}).
import {{ Ratelimit }} from \"@upstash/ratelimit\";
import {{ Redis }} from \"@upstash/redis\";

export const ratelimit = new Ratelimit({{
  redis: Redis.fromEnv(),
  limiter: {limiter},
  // Milliseconds; past it the call is let through (0 turns the timeout off).
  timeout: {timeout},
  ephemeralCache: {cache},
}});

export async function allowed(client: string): Promise<boolean> {{
  const {{ success }} = await ratelimit.limit(client);
  return success;
}}
",
        label = label,
        quota = quota_text(s),
        timeout = p.timeout.micros() / MICROS_PER_MILLI,
    ))
}

/// A duration as the library's `Duration` type spells it: "10 s" when whole seconds, else
/// "1500 ms".
fn duration(span: Span) -> String {
    let us = span.micros();
    if us.is_multiple_of(MICROS_PER_SEC) {
        format!("{} s", us / MICROS_PER_SEC)
    } else {
        format!("{} ms", us / MICROS_PER_MILLI)
    }
}
