//! governor (Rust): a `Quota` built with `Quota::with_period` (one cell per replenish interval,
//! in whole nanoseconds) and `allow_burst`, as documented on docs.rs/governor (0.10, `Quota`),
//! and a direct limiter asked with `check()`. The row's interval is already whole nanoseconds,
//! as `Quota::per_second` computes it, so the snippet is exact.

use crate::core::profiles::{quota_text, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let g = s.products.governor.params(s.limit, s.window);
    Written::exact(format!(
        "//! Rate Limit Lab, governor row (the lab's limit: {quota}).
//! Cargo.toml: governor = \"0.10\"
use std::num::NonZeroU32;
use std::time::Duration;

use governor::{{Quota, RateLimiter}};

fn main() {{
    // One cell back every {interval} ns, and a burst of {burst}.
    let burst = NonZeroU32::new({burst}).expect(\"the burst is above zero\");
    let quota = Quota::with_period(Duration::from_nanos({interval}))
        .expect(\"the period is above zero\")
        .allow_burst(burst);
    let limiter = RateLimiter::direct(quota);
    match limiter.check() {{
        Ok(()) => println!(\"allowed\"),
        Err(_) => println!(\"refused\"),
    }}
}}
",
        quota = quota_text(s),
        interval = g.replenish_1_per_ns,
        burst = g.burst,
    ))
}
