//! `TokenBucketRateLimiterOptions` and the `TokenBucketRateLimiter` built from them (see the
//! module comment in `mod.rs` for the behaviour).

use crate::core::config::ConfigError;
use crate::core::time::Span;

use super::{check_count, span_ticks, DotnetLimiter, Kind, QueueProcessingOrder};

/// `TokenBucketRateLimiterOptions` with `AutoReplenishment = true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucketParams {
    /// `TokenLimit`: the bucket's size, and what it holds at the start.
    pub token_limit: u64,
    /// `ReplenishmentPeriod`: the timer's period.
    pub replenishment_period: Span,
    /// `TokensPerPeriod`: tokens added on each tick, capped at `TokenLimit`.
    pub tokens_per_period: u64,
    /// `QueueLimit` (0 = no queue).
    pub queue_limit: u64,
    /// `QueueProcessingOrder` (`OldestFirst` by default).
    pub queue_processing_order: QueueProcessingOrder,
}

impl TokenBucketParams {
    /// The lab's "`limit` per `window`": `TokenLimit = TokensPerPeriod = limit`,
    /// `ReplenishmentPeriod = window`, no queue. On the timer this refills the whole bucket on
    /// every tick: what a fixed window does, except that a tick on a full bucket does nothing.
    pub fn defaults_for(limit: u64, window: Span) -> TokenBucketParams {
        TokenBucketParams {
            token_limit: limit,
            replenishment_period: window,
            tokens_per_period: limit,
            queue_limit: 0,
            queue_processing_order: QueueProcessingOrder::OldestFirst,
        }
    }

    /// `new TokenBucketRateLimiter(options)` at the lab's time 0.
    pub fn build(self) -> Result<DotnetLimiter, ConfigError> {
        let limit = check_count(
            self.token_limit,
            false,
            "TokenLimit must be set to a value greater than 0.",
            "TokenLimit",
        )?;
        let per_period = check_count(
            self.tokens_per_period,
            false,
            "TokensPerPeriod must be set to a value greater than 0.",
            "TokensPerPeriod",
        )?;
        let queue = check_count(self.queue_limit, true, "", "QueueLimit")?;
        let ticks = span_ticks(
            self.replenishment_period,
            "ReplenishmentPeriod must be set to a value greater than TimeSpan.Zero.",
        )?;
        DotnetLimiter::build(
            Kind::Token { per_period },
            limit,
            queue,
            self.queue_processing_order,
            ticks,
            ticks,
        )
    }
}

/// `new TokenBucketRateLimiter(options)`.
pub fn new(params: TokenBucketParams) -> Result<DotnetLimiter, ConfigError> {
    params.build()
}
