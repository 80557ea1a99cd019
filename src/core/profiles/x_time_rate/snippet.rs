//! Go's golang.org/x/time/rate: `rate.NewLimiter(r, b)` asked with `Allow()` (pkg.go.dev/
//! golang.org/x/time/rate). `r` is written as the float64 literal Go reads back as the very
//! float the row uses (the shortest digits that round-trip, `go_float`), so the snippet is exact.

use crate::core::profiles::x_time_rate::{go_float, INF};

use crate::core::profiles::{quota_text, RowSettings, Written};

pub(super) fn write(s: &RowSettings) -> Written {
    let x = s.products.x_time_rate.params(s.limit, s.window);
    let limit = if x.limit >= INF {
        "rate.Inf".to_string()
    } else {
        format!("rate.Limit({})", go_float(x.limit))
    };
    Written::exact(format!(
        "// Rate Limit Lab, Go x/time/rate row (the lab's limit: {quota}).
package main

import (
\t\"fmt\"

\t\"golang.org/x/time/rate\"
)

func main() {{
\t// {per} events per second, and a burst of {burst}.
\tlimiter := rate.NewLimiter({limit}, {burst})
\tfmt.Println(limiter.Allow())
}}
",
        quota = quota_text(s),
        per = go_float(x.limit),
        burst = x.burst,
    ))
}
