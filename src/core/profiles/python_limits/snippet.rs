//! Python's limits: the rate string `limits.parse` reads ("5 per 10 second") and one of the
//! strategies with the memory storage (`FixedWindowRateLimiter`, `MovingWindowRateLimiter`,
//! `SlidingWindowCounterRateLimiter`, each over `MemoryStorage()`), asked with `hit`, as
//! limits.readthedocs.io documents them. The library's windows are whole seconds: when the row
//! follows a window with a fraction of a second, it runs the whole seconds below it
//! (`PyLimitsParams::defaults_for`), and the page says so.

use crate::core::time::{format_seconds, MICROS_PER_SEC};

use crate::core::profiles::{family_set, quota_text, Nearest, RowSettings, Written};

/// The snippet of the row labelled `label`, which runs the strategy class `strategy`.
pub(super) fn write(label: &str, strategy: &str, s: &RowSettings) -> Written {
    let l = s.products.python_limits.params(s.limit, s.window);
    let item = l.item_repr();
    let text = format!(
        "\"\"\"Rate Limit Lab, {label} row (the lab's limit: {quota}).\"\"\"
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import {strategy}

limit = parse(\"{item}\")
limiter = {strategy}(MemoryStorage())

if __name__ == \"__main__\":
    print(limiter.hit(limit, \"127.0.0.1\"))
",
        label = label,
        quota = quota_text(s),
    );
    let fraction = !s.window.micros().is_multiple_of(MICROS_PER_SEC);
    let nearest = (fraction && !family_set(s, &super::FAMILY)).then(|| {
        let mut products = s.products.clone();
        products.python_limits.amount = Some(l.amount);
        products.python_limits.multiples = Some(l.multiples.max(1));
        products.python_limits.per = Some(l.granularity);
        Nearest {
            products,
            what: format!(
                "limits counts its windows in whole seconds: the nearest to {} per {} s is \"{item}\".",
                s.limit,
                format_seconds(s.window.micros())
            ),
            row_runs_it: true,
        }
    });
    Written { text, nearest }
}
