//! Cloudflare's Rate Limiting binding row: a `[[ratelimits]]` entry with `name`,
//! `namespace_id` and `[ratelimits.simple]` `limit` and `period`, as developers.cloudflare.com/
//! workers/runtime-apis/bindings/rate-limit/ writes it. The period must be 10 or 60 s: when the
//! row follows the lab's limit and window and the window is neither, the row runs the nearest
//! (`CfBindingParams::defaults_for`: the nearer period, the limit scaled to it) and the page says
//! so. The Durable Object card's `wrangler.toml` (`core::snippets::cloudflare`) writes the same
//! `[[ratelimits]]` entry for its binding tier.

use crate::core::profiles::{quota_text, Nearest, RowSettings, Written};
use crate::core::time::MICROS_PER_SEC;

pub(crate) const HEADER: &str = "name = \"ratelab-limiter\"
main = \"src/index.ts\"
compatibility_date = \"2025-01-01\"
";

pub(crate) fn ratelimits(limit: u64, period: u64) -> String {
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

pub(super) fn write(s: &RowSettings) -> Written {
    let b = s.products.cf_binding.params(s.limit, s.window);
    let text = format!(
        "# Rate Limit Lab, Cloudflare binding row (the lab's limit: {quota}).
# In the Worker: const {{ success }} = await env.RATE_LIMITER.limit({{ key }});
{HEADER}
{ratelimits}",
        quota = quota_text(s),
        ratelimits = ratelimits(b.limit, b.period_secs),
    );
    let follows_lab =
        s.products.cf_binding.limit.is_none() && s.products.cf_binding.period.is_none();
    let exact = s.window.micros() == b.period_secs * MICROS_PER_SEC && b.limit == s.limit;
    let nearest = (follows_lab && !exact).then(|| {
        let mut products = s.products.clone();
        products.cf_binding.limit = Some(b.limit);
        products.cf_binding.period = Some(b.period_secs);
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
