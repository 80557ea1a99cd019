//! `FixedWindowRateLimiterOptions` and the `FixedWindowRateLimiter` built from them (see the
//! module comment in `mod.rs` for the behaviour).

use crate::core::config::ConfigError;
use crate::core::time::Span;

use super::{check_count, span_ticks, DotnetLimiter, Kind, QueueProcessingOrder};

/// `FixedWindowRateLimiterOptions` with `AutoReplenishment = true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedWindowParams {
    /// `PermitLimit`: permits per window, 1 to `int.MaxValue`.
    pub permit_limit: u64,
    /// `Window`: the timer's period.
    pub window: Span,
    /// `QueueLimit`: permits that may wait in `AcquireAsync`'s queue (0 = no queue).
    pub queue_limit: u64,
    /// `QueueProcessingOrder` (`OldestFirst` by default).
    pub queue_processing_order: QueueProcessingOrder,
}

impl FixedWindowParams {
    /// The lab's "`limit` per `window`": `PermitLimit = limit`, `Window = window`, no queue
    /// (`QueueLimit = 0`), `OldestFirst`.
    pub fn defaults_for(limit: u64, window: Span) -> FixedWindowParams {
        FixedWindowParams {
            permit_limit: limit,
            window,
            queue_limit: 0,
            queue_processing_order: QueueProcessingOrder::OldestFirst,
        }
    }

    /// `new FixedWindowRateLimiter(options)` at the lab's time 0.
    pub fn build(self) -> Result<DotnetLimiter, ConfigError> {
        let limit = check_count(
            self.permit_limit,
            false,
            "PermitLimit must be set to a value greater than 0.",
            "PermitLimit",
        )?;
        let queue = check_count(self.queue_limit, true, "", "QueueLimit")?;
        let ticks = span_ticks(
            self.window,
            "Window must be set to a value greater than TimeSpan.Zero.",
        )?;
        DotnetLimiter::build(
            Kind::Fixed,
            limit,
            queue,
            self.queue_processing_order,
            ticks,
            ticks,
        )
    }
}

/// `new FixedWindowRateLimiter(options)`.
pub fn new(params: FixedWindowParams) -> Result<DotnetLimiter, ConfigError> {
    params.build()
}
