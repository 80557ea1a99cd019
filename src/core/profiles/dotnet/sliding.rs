//! `SlidingWindowRateLimiterOptions` and the `SlidingWindowRateLimiter` built from them (see
//! the module comment in `mod.rs` for the behaviour).

use crate::core::config::ConfigError;
use crate::core::time::Span;

use super::{check_count, span_ticks, DotnetLimiter, Kind, QueueProcessingOrder};

/// The `SegmentsPerWindow` of [`SlidingWindowParams::defaults_for`].
pub const DEFAULT_SEGMENTS_PER_WINDOW: u64 = 3;

/// `SlidingWindowRateLimiterOptions` with `AutoReplenishment = true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlidingWindowParams {
    /// `PermitLimit`: permits in any window.
    pub permit_limit: u64,
    /// `Window`.
    pub window: Span,
    /// `SegmentsPerWindow`: the timer runs every `Window.Ticks / SegmentsPerWindow`.
    pub segments_per_window: u64,
    /// `QueueLimit` (0 = no queue).
    pub queue_limit: u64,
    /// `QueueProcessingOrder` (`OldestFirst` by default).
    pub queue_processing_order: QueueProcessingOrder,
}

impl SlidingWindowParams {
    /// The lab's "`limit` per `window`": `PermitLimit = limit`, `Window = window`, no queue, and
    /// `SegmentsPerWindow = 3` (the options class has no default: 0 is refused; 3 is the split
    /// ASP.NET Core's rate-limiting article uses to explain the sliding window, a 30 s window in
    /// three 10 s segments).
    pub fn defaults_for(limit: u64, window: Span) -> SlidingWindowParams {
        SlidingWindowParams {
            permit_limit: limit,
            window,
            segments_per_window: DEFAULT_SEGMENTS_PER_WINDOW,
            queue_limit: 0,
            queue_processing_order: QueueProcessingOrder::OldestFirst,
        }
    }

    /// `new SlidingWindowRateLimiter(options)` at the lab's time 0.
    pub fn build(self) -> Result<DotnetLimiter, ConfigError> {
        let limit = check_count(
            self.permit_limit,
            false,
            "PermitLimit must be set to a value greater than 0.",
            "PermitLimit",
        )?;
        let segments = check_count(
            self.segments_per_window,
            false,
            "SegmentsPerWindow must be set to a value greater than 0.",
            "SegmentsPerWindow",
        )?;
        let queue = check_count(self.queue_limit, true, "", "QueueLimit")?;
        let ticks = span_ticks(
            self.window,
            "Window must be set to a value greater than TimeSpan.Zero.",
        )?;
        DotnetLimiter::build(
            Kind::Sliding { segments },
            limit,
            queue,
            self.queue_processing_order,
            ticks,
            ticks / segments,
        )
    }
}

/// `new SlidingWindowRateLimiter(options)`.
pub fn new(params: SlidingWindowParams) -> Result<DotnetLimiter, ConfigError> {
    params.build()
}
