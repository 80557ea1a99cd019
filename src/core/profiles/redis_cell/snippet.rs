//! redis-cell: the `CL.THROTTLE key max_burst count period [quantity]` call (brandur/redis-cell's
//! README), one per request. The module reads `period` as whole seconds. A row whose period has a
//! fraction of a second is written with the period and the count both multiplied by the smallest
//! whole number that makes the period whole seconds (the same emission interval `period / count`
//! and the same burst, so the same decisions) when that is at most [`MAX_SCALE`]; otherwise with
//! the nearest whole-second period (at least 1 s) and the count scaled to it (rounded, at least
//! 1), and the page gives that setting's figures.

use crate::core::config::MAX_COUNT;
use crate::core::time::{format_seconds, Span, MICROS_PER_SEC};

use crate::core::profiles::{quota_text, Nearest, RowSettings, Written};

/// The largest factor the period and count are multiplied by to make the period whole seconds.
const MAX_SCALE: u64 = 1_000;

pub(super) fn write(s: &RowSettings) -> Written {
    let c = s.products.redis_cell.params(s.limit, s.window);
    let period_us = c.period.micros();
    let (count, seconds, exact) = whole_seconds(c.count, period_us);
    let text = format!(
        "# Rate Limit Lab, redis-cell row (the lab's limit: {quota}).
# One call per request, in redis-cli or your Redis client; the key names the client.
# Arguments: key max_burst count period(s) quantity. It lets max_burst + 1 = {at_once} through at once.
CL.THROTTLE ratelab:127.0.0.1 {burst} {count} {seconds} 1
",
        quota = quota_text(s),
        at_once = c.max_burst.saturating_add(1),
        burst = c.max_burst,
    );
    let nearest = (!exact).then(|| {
        let mut products = s.products.clone();
        products.redis_cell.count = Some(count);
        products.redis_cell.period = Some(Span::from_secs(seconds));
        Nearest {
            products,
            what: format!(
                "CL.THROTTLE takes its period in whole seconds: the nearest to {} per {} s is {count} per {seconds} s.",
                c.count,
                format_seconds(period_us)
            ),
            row_runs_it: false,
        }
    });
    Written { text, nearest }
}

/// `(count, whole seconds, exact)` for `count` per `period_us`.
fn whole_seconds(count: u64, period_us: u64) -> (u64, u64, bool) {
    let factor = MICROS_PER_SEC / gcd(period_us, MICROS_PER_SEC);
    let scaled = (
        count.checked_mul(factor),
        period_us.checked_mul(factor).map(|us| us / MICROS_PER_SEC),
    );
    if let (true, (Some(count), Some(seconds))) = (factor <= MAX_SCALE, scaled) {
        if seconds > 0 && count <= MAX_COUNT {
            return (count, seconds, true);
        }
    }
    let seconds = ((period_us + MICROS_PER_SEC / 2) / MICROS_PER_SEC).max(1);
    let rounded = (u128::from(count) * u128::from(seconds * MICROS_PER_SEC)
        + u128::from(period_us / 2))
        / u128::from(period_us.max(1));
    (
        u64::try_from(rounded)
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_COUNT),
        seconds,
        false,
    )
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}
