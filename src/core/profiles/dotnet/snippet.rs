//! .NET's System.Threading.RateLimiting: `FixedWindowRateLimiter`, `SlidingWindowRateLimiter`
//! or `TokenBucketRateLimiter` with their options classes (`PermitLimit`, `Window`,
//! `SegmentsPerWindow`, `TokenLimit`, `ReplenishmentPeriod`, `TokensPerPeriod`, `QueueLimit`,
//! `QueueProcessingOrder`, `AutoReplenishment`), as learn.microsoft.com documents them, in a
//! C# program with top-level statements asking with `AcquireAsync`. Periods are written in
//! `TimeSpan` ticks (100 ns), which hold the lab's microseconds exactly.

use crate::core::profiles::dotnet::TICKS_PER_MICRO;
use crate::core::time::{format_seconds, Span};

use crate::core::profiles::{quota_text, RowSettings, Written};

/// Which of the three classes a row's snippet sets up.
pub(super) enum Class {
    Fixed,
    Sliding,
    Token,
}

/// The snippet of the row labelled `label`, which runs `class`.
pub(super) fn write(label: &str, class: Class, s: &RowSettings) -> Written {
    let p = &s.products;
    let (class, options) = match class {
        Class::Fixed => {
            let d = p.dotnet.fixed(s.limit, s.window);
            (
                "FixedWindowRateLimiter",
                format!(
                    "    PermitLimit = {},\n{}    QueueLimit = {},\n    QueueProcessingOrder = QueueProcessingOrder.{},\n",
                    d.permit_limit,
                    span_line("Window", d.window),
                    d.queue_limit,
                    d.queue_processing_order.name()
                ),
            )
        }
        Class::Sliding => {
            let d = p.dotnet.sliding(s.limit, s.window);
            (
                "SlidingWindowRateLimiter",
                format!(
                    "    PermitLimit = {},\n{}    SegmentsPerWindow = {},\n    QueueLimit = {},\n    QueueProcessingOrder = QueueProcessingOrder.{},\n",
                    d.permit_limit,
                    span_line("Window", d.window),
                    d.segments_per_window,
                    d.queue_limit,
                    d.queue_processing_order.name()
                ),
            )
        }
        Class::Token => {
            let d = p.dotnet.token(s.limit, s.window);
            (
                "TokenBucketRateLimiter",
                format!(
                    "    TokenLimit = {},\n{}    TokensPerPeriod = {},\n    QueueLimit = {},\n    QueueProcessingOrder = QueueProcessingOrder.{},\n",
                    d.token_limit,
                    span_line("ReplenishmentPeriod", d.replenishment_period),
                    d.tokens_per_period,
                    d.queue_limit,
                    d.queue_processing_order.name()
                ),
            )
        }
    };
    Written::exact(format!(
        "// Rate Limit Lab, {label} row (the lab's limit: {quota}).
using System;
using System.Threading.RateLimiting;

var limiter = new {class}(new {class}Options
{{
{options}    AutoReplenishment = true,
}});

using RateLimitLease lease = await limiter.AcquireAsync(1);
Console.WriteLine(lease.IsAcquired);
",
        label = label,
        quota = quota_text(s),
    ))
}

/// `    Window = TimeSpan.FromTicks(100000000), // 10 s`
fn span_line(name: &str, span: Span) -> String {
    format!(
        "    {name} = TimeSpan.FromTicks({}), // {} s\n",
        span.micros().saturating_mul(TICKS_PER_MICRO),
        format_seconds(span.micros())
    )
}
