//! Cloudflare: the Durable Object card: the object's binding (`[[durable_objects.bindings]]`) and its
//!   migration (`new_sqlite_classes`), as developers.cloudflare.com/durable-objects/ documents
//!   them, and the Worker's settings the lab models as `[vars]`: the limit, the window, the
//!   algorithm, how long the Worker waits for the object and what it does when the object does
//!   not answer in time. With the binding tier, the `[[ratelimits]]` entry too.

use crate::core::durable::config::Tier;
use crate::core::durable::DurableParams;
use crate::core::limiter::Settings;
use crate::core::profiles::quota_text;
use crate::core::time::{format_seconds, MICROS_PER_MILLI};

use crate::core::profiles::cf_binding::snippet::{ratelimits, HEADER};

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
        quota = quota_text(&s.row_settings()),
        limit = s.limit,
        window = format_seconds(s.window.micros()),
        algorithm = d.algorithm.slug(),
        fail = d.fail.slug(),
    )
}
