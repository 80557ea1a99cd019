//! Guava's `RateLimiter.create(permitsPerSecond)` asked with `tryAcquire()` (Guava's javadoc of
//! `com.google.common.util.concurrent.RateLimiter`). The rate is written as the double literal
//! Java reads back as the very double the row uses (`java_double`).
//!
//! `create` stores at most one second of unused permits (`SmoothBursty` with
//! `maxBurstSeconds = 1`); any other burst is package-private in Guava. When the row stores a
//! different number of seconds, the snippet is the nearest Guava's public API can write, and the
//! page gives the figures of that setting.

use crate::core::profiles::guava::java_double;
use crate::core::time::Span;

use crate::core::profiles::{quota_text, Nearest, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let g = s.products.guava.params(s.limit, s.window);
    let rate = if g.permits_per_second.is_finite() {
        java_double(g.permits_per_second)
    } else {
        "Double.POSITIVE_INFINITY".to_string()
    };
    let text = format!(
        "// Rate Limit Lab, Guava RateLimiter row (the lab's limit: {quota}).
import com.google.common.util.concurrent.RateLimiter;

public class Example {{
    public static void main(String[] args) {{
        // {rate} permits per second; up to one second of them stored.
        RateLimiter limiter = RateLimiter.create({rate});
        System.out.println(limiter.tryAcquire());
    }}
}}
",
        quota = quota_text(s),
    );
    let one_second = g.max_burst_seconds == 1.0;
    let nearest = (!one_second).then(|| {
        let mut products = s.products.clone();
        products.guava.burst = Some(Span::from_secs(1));
        Nearest {
            products,
            what: format!(
                "Guava's public RateLimiter.create stores at most one second of unused permits; the row stores {} s of them. The snippet is that nearest setting.",
                java_double(g.max_burst_seconds).trim_end_matches(".0")
            ),
            row_runs_it: false,
        }
    });
    Written { text, nearest }
}
