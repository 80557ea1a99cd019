//! Cloudflare: `wrangler.toml` files.
//!
//! - The Rate Limiting binding row: a `[[ratelimits]]` entry with `name`, `namespace_id` and
//!   `[ratelimits.simple]` `limit` and `period`, as developers.cloudflare.com/workers/
//!   runtime-apis/bindings/rate-limit/ writes it. The period must be 10 or 60 s: when the row
//!   follows the lab's limit and window and the window is neither, the row runs the nearest
//!   (`CfBindingParams::defaults_for`: the nearer period, the limit scaled to it) and the page
//!   says so.
//! - The Durable Object card: the object's binding (`[[durable_objects.bindings]]`) and its
//!   migration (`new_sqlite_classes`), as developers.cloudflare.com/durable-objects/ documents
//!   them, and the Worker's settings the lab models as `[vars]`: the limit, the window, the
//!   algorithm, how long the Worker waits for the object and what it does when the object does
//!   not answer in time. With the binding tier, the `[[ratelimits]]` entry too.

use crate::core::durable::config::Tier;
use crate::core::durable::DurableParams;
use crate::core::limiter::Settings;
use crate::core::time::{format_seconds, MICROS_PER_MILLI, MICROS_PER_SEC};

use super::{quota_text, Nearest, Written};

const HEADER: &str = "name = \"ratelab-limiter\"
main = \"src/index.ts\"
compatibility_date = \"2025-01-01\"
";

fn ratelimits(limit: u64, period: u64) -> String {
    format!(
        "[[ratelimits]]
name = \"RATE_LIMITER\"
# An integer of your choosing, unique in your Cloudflare account.
namespace_id = \"1001\"

  [ratelimits.simple]
  limit = {limit}
  period = {period}
"
    )
}

pub(super) fn binding(s: &Settings) -> Written {
    let b = s.products.cf_binding(s.limit, s.window);
    let text = format!(
        "# Rate Limit Lab, Cloudflare binding row (the lab's limit: {quota}).
# In the Worker: const {{ success }} = await env.RATE_LIMITER.limit({{ key }});
{HEADER}
{ratelimits}",
        quota = quota_text(s),
        ratelimits = ratelimits(b.limit, b.period_secs),
    );
    let follows_lab = s.products.cf_limit.is_none() && s.products.cf_period.is_none();
    let exact = s.window.micros() == b.period_secs * MICROS_PER_SEC && b.limit == s.limit;
    let nearest = (follows_lab && !exact).then(|| {
        let mut products = s.products.clone();
        products.cf_limit = Some(b.limit);
        products.cf_period = Some(b.period_secs);
        Nearest {
            products,
            what: format!(
                "The binding counts only in periods of 10 or 60 s: the nearest to {} is {} per {} s (limit = {}, period = {}), the same average or less, counted in {} s periods.",
                quota_text(s),
                b.limit,
                b.period_secs,
                b.limit,
                b.period_secs,
                b.period_secs
            ),
            row_runs_it: true,
        }
    });
    Written { text, nearest }
}

/// The Durable Object card's `wrangler.toml`.
pub fn durable_object(d: &DurableParams, s: &Settings) -> String {
    let timeout_ms = d.timeout.micros().div_ceil(MICROS_PER_MILLI);
    let binding = match d.tier {
        Tier::Binding { period_secs } => format!(
            "\n# The binding tier: the Worker asks the Rate Limiting binding instead of the object.\n{}",
            ratelimits(s.limit, period_secs)
        ),
        Tier::DurableObject => String::new(),
    };
    format!(
        "# Rate Limit Lab, Durable Object (the lab's limit: {quota}).
# The Worker reads the [vars] below: it asks the object named by the client's key, waits at
# most TIMEOUT_MS for its answer, and then fails open (lets the request through, marked
# degraded) or closed (answers 503).
{HEADER}
[[durable_objects.bindings]]
name = \"LIMITER\"
class_name = \"RateLimiter\"

[[migrations]]
tag = \"v1\"
new_sqlite_classes = [\"RateLimiter\"]

[vars]
LIMIT = \"{limit}\"
WINDOW_SECONDS = \"{window}\"
ALGORITHM = \"{algorithm}\"
TIMEOUT_MS = \"{timeout_ms}\"
FAIL_MODE = \"{fail}\"
{binding}",
        quota = quota_text(s),
        limit = s.limit,
        window = format_seconds(s.window.micros()),
        algorithm = d.algorithm.slug(),
        fail = d.fail.slug(),
    )
}
