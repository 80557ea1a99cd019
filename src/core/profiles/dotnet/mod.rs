//! .NET's `System.Threading.RateLimiting` limiters (`FixedWindowRateLimiter`,
//! `SlidingWindowRateLimiter`, `TokenBucketRateLimiter`) with `AutoReplenishment = true`, behind
//! ASP.NET Core's rate-limiting middleware, decision for decision.
//!
//! Sources read (dotnet/runtime, `src/libraries/System.Threading.RateLimiting/src/System/
//! Threading/RateLimiting/`): `FixedWindowRateLimiter.cs` at commit 0aeb43fe165d, and the
//! matching .NET 8-10 generation of `SlidingWindowRateLimiter.cs` and `TokenBucketRateLimiter.cs`
//! (the versions with `AttemptAcquireCore`/`AcquireAsyncCore`, `GetStatistics`, the
//! `RequestRegistration.Disposer` and, for the token bucket, a `double _tokenCount` with
//! `_fillRate`), their `*Options.cs`, `Resources/Strings.resx`; the tests
//! `tests/FixedWindowRateLimiterTests.cs`, `TokenBucketRateLimiterTests.cs`; `System.Threading.
//! Timer` (`Timer.cs`: the `TimeSpan` constructor and `TimerQueue.FireNextTimers`); and
//! dotnet/aspnetcore `src/Middleware/RateLimiting/src/RateLimitingMiddleware.cs` (commit
//! b89c4a3af6d0) and `RateLimiterOptions.cs`. This is the behaviour of the released package
//! (System.Threading.RateLimiting 8.0 to 10.0). Two later pull requests on dotnet/runtime's main
//! branch change only the `RetryAfter` metadata and are NOT modelled: #124478 (Feb 2026) makes the
//! fixed window's `RetryAfter` the time to the next window, and #131225 (Jul 2026) gives the
//! sliding window a `RetryAfter` at all.
//!
//! # What the library does, and how the profile maps it
//!
//! - **Time.** The limiter is created at the lab's time 0. With `AutoReplenishment = true` the
//!   constructor starts `new Timer(Replenish, this, period, period)`, where `period` is `Window`
//!   (fixed), `Window.Ticks / SegmentsPerWindow` (sliding, integer division of 100 ns ticks) or
//!   `ReplenishmentPeriod` (token bucket). `Timer` takes a `TimeSpan` as whole milliseconds:
//!   `(long)period.TotalMilliseconds`, truncated, and refuses more than 4,294,967,294 ms. Its timer
//!   queue re-arms a periodic timer for `period - lateness`, so ticks do not drift: the profile
//!   ticks at exactly `k × period_ms` for k = 1, 2, ... (a real timer fires a little late, and on
//!   Windows on a ~15.6 ms clock; not modelled). A tick at the same instant as a request goes
//!   first. Lab microseconds become TimeSpan ticks as `µs × 10`, and a timer period is
//!   `ticks / 10,000` whole milliseconds. A period under 1 ms (a 0 ms `Timer`, which .NET fires at
//!   once and then every millisecond) is refused rather than modelled.
//! - **Ticks.** With `AutoReplenishment` the timer's `Replenish` never checks elapsed time (the
//!   elapsed-time guard is only for manual `TryReplenish`):
//!   fixed: if fewer than `PermitLimit` permits are left, they are set back to `PermitLimit`;
//!   token bucket: unless the bucket is full, `TokensPerPeriod` tokens are added, capped at
//!   `TokenLimit` (the bucket's `double` only ever holds whole numbers on the timer path);
//!   sliding: the segment index moves on by one and the permits acquired in the segment it lands
//!   on (`SegmentsPerWindow` ticks ago) come back; if that segment was empty nothing else happens.
//!   Each of them then serves the queue (below). The profile keeps the sliding window's segments
//!   as a list of (tick, permits) rather than an array, so it skips empty ticks in one step.
//! - **A request** is what the middleware does: `AttemptAcquire(context)` (one permit), and when
//!   that fails, `AcquireAsync(context)`. The failed attempt changes nothing but a statistics
//!   counter, so a request's fate is `AcquireAsync(permitCount)`'s: a cost above the limit throws
//!   `ArgumentOutOfRangeException` ("{n} permit(s) exceeds the permit limit of {limit}." / "token(s)
//!   ... token limit"); a cost of 0 succeeds at once when any permit is left; otherwise it leases
//!   when `available >= cost` and `available != 0` and either nothing is queued (the queued
//!   permit count is 0) or the order is `NewestFirst`. Failing that it is queued if
//!   `QueueLimit - queued >= cost`; if not, with `NewestFirst` and `cost <= QueueLimit` the oldest
//!   queued requests are failed until it fits, and otherwise it gets the failed lease.
//! - **The queue** is served on ticks: from the head (`OldestFirst`) or the tail (`NewestFirst`),
//!   as long as the next one fits; the first that does not stops the loop.
//! - **`RetryAfter`** (`MetadataName.RetryAfter`, a `TimeSpan`) on a failed lease: fixed,
//!   `Window × max((cost - available + queued) / PermitLimit, 1)`; token bucket,
//!   `ReplenishmentPeriod × max((cost - (int)tokens + queued) / TokensPerPeriod, 1)`, in C#'s
//!   unchecked `int` and `long` arithmetic (the profile wraps the same way); the sliding window's
//!   failed lease carries none. A request failed by a `NewestFirst` eviction carries none either.
//!   It uses the option's `TimeSpan`, not the whole-millisecond timer period.
//! - **Over HTTP** ([`http_response`]): the middleware sets `RejectionStatusCode`, 503 unless set,
//!   and calls `OnRejected` if the application gave one; it writes no `Retry-After` itself. A
//!   queued request waits and then runs: 200. The docs' `OnRejected` sample is
//!   [`http_response_with_docs_on_rejected`].
//!
//! # Queued requests and the lab's verdicts
//!
//! The lab decides each request in time order and records its verdict at once.
//! - `OldestFirst`: the verdict is final on arrival. A later request can never get ahead of a queued one (it is refused a
//!   lease while permits are queued, queues behind it, or is failed), and nothing is evicted, so
//!   the tick on which each queued request is released is fixed when it is queued. The profile
//!   keeps a projection: the tick and the permits left just after the last queued request's
//!   release; a new request is released on that tick if what is left fits it, else on the next
//!   tick that brings enough back (fixed: the next tick; token bucket: the tick count
//!   `ceil((cost - tokens) / TokensPerPeriod)` later; sliding: walking the segments still to be
//!   freed, including the ones queued requests will fill). Debug builds check the timer's real
//!   release against it.
//! - `NewestFirst`: a queued request's fate depends on requests that arrive after it: a later
//!   one may lease the permits first, be queued behind it and served before it, or evict it
//!   (the library then completes its wait with a failed lease). The profile keeps the library's
//!   state exactly and settles such verdicts late ([`Limiter::settles_late`]): on arrival the
//!   queued request gets `Delayed` until the tick that would release it if nothing else came
//!   (the earliest it can be served, an open verdict), and the decision that serves it on a
//!   tick, or evicts it, reports its final verdict as a [`Settlement`] naming its sequence
//!   number: `Delayed` until that tick, or `Rejected`. A request that evicts older ones names
//!   how many in `evicted`. Requests still queued when the trace ends wait, in the library, for
//!   the timer's next ticks; [`Limiter::settle_rest`] runs the timer on until the queue is
//!   empty (with nothing arriving every queued call is served in the end, as each one fits the
//!   limit), so the lab settles them as served on those ticks.
//!
//! Choices where .NET has nothing to say: a time earlier than one already seen is treated as that
//! later time; a cost above `int.MaxValue` is above every limit, so it is the same exception.

use std::collections::VecDeque;

use crate::core::config::ConfigError;
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Settlement, Verdict};
use crate::core::http::HttpResponse;
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_MILLI};

use super::{Product, ProductReply};

pub mod fixed;
pub mod sliding;
pub mod token;

use crate::core::profiles::{
    explanation, Explanation, Family, Hint, ProductRow, RowSettings, SnippetOf,
};
pub use fixed::FixedWindowParams;
pub use sliding::SlidingWindowParams;
pub use token::TokenBucketParams;
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// TimeSpan ticks (100 ns) in one lab microsecond.
pub const TICKS_PER_MICRO: u64 = 10;
/// TimeSpan ticks in one millisecond.
pub const TICKS_PER_MILLI: u64 = 10_000;
/// The longest period `System.Threading.Timer` accepts, in milliseconds (`0xfffffffe`).
pub const MAX_TIMER_MS: u64 = 0xffff_fffe;
/// `int.MaxValue`: every count option and permit count is a C# `int`.
pub const INT_MAX: u64 = i32::MAX as u64;

/// `QueueProcessingOrder`: which queued `AcquireAsync` call a replenishment serves first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QueueProcessingOrder {
    /// The default.
    #[default]
    OldestFirst,
    NewestFirst,
}

impl QueueProcessingOrder {
    pub fn name(self) -> &'static str {
        match self {
            QueueProcessingOrder::OldestFirst => "OldestFirst",
            QueueProcessingOrder::NewestFirst => "NewestFirst",
        }
    }
}

/// Which of the three limiters, with what only it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Fixed,
    Sliding { segments: u64 },
    Token { per_period: u64 },
}

/// One queued `AcquireAsync` call.
#[derive(Clone, Copy, Debug)]
struct Queued {
    count: u64,
    /// The timer tick that releases it: exact for `OldestFirst`; for `NewestFirst`, the earliest
    /// it can be (nothing else consuming permits before it).
    release_tick: u64,
    /// Which decision queued it (this limiter's count of decisions before it), and when.
    seq: u64,
    arrival: Time,
    /// Sliding window, `OldestFirst`: its permits are already written into the segment of its
    /// release tick.
    recorded: bool,
}

/// What `AcquireAsync` did with one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// Leased at once.
    Leased,
    /// Queued; released on `tick`. `evicted` older calls were failed to make room.
    Queued { tick: u64, evicted: u64 },
    /// The failed lease; `retry_after_ticks` is its `RetryAfter` metadata, if any.
    Failed { retry_after_ticks: Option<i64> },
    /// `ArgumentOutOfRangeException`: more than the limit was asked.
    Exceeds,
}

/// One of .NET's replenishing limiters (one partition of a `PartitionedRateLimiter`), created at
/// the lab's time 0 with `AutoReplenishment = true`.
#[derive(Clone, Debug)]
pub struct DotnetLimiter {
    kind: Kind,
    /// `PermitLimit` or `TokenLimit`.
    limit: u64,
    queue_limit: u64,
    order: QueueProcessingOrder,
    /// `Window.Ticks` (fixed) or `ReplenishmentPeriod.Ticks` (token bucket): what `RetryAfter`
    /// multiplies; for the sliding window, `Window.Ticks`.
    option_ticks: u64,
    /// The `ReplenishmentPeriod` property in TimeSpan ticks (the sliding window's segment).
    period_ticks: u64,
    /// The timer's period in lab microseconds (whole milliseconds).
    period_us: u64,
    /// Permits (or tokens) available now.
    level: u64,
    /// Timer ticks already applied.
    ticks_done: u64,
    queue: VecDeque<Queued>,
    /// `_queueCount`: permits asked by the queued calls.
    queue_count: u64,
    /// Sliding window: (tick whose segment holds them, permits), oldest first, never 0 permits.
    segments: VecDeque<(u64, u64)>,
    /// `OldestFirst`: the tick and the permits left right after the last queued call's release.
    projection: (u64, u64),
    latest: Time,
    /// Decisions made so far: the next one's sequence number.
    decisions: u64,
    /// `NewestFirst`: the earlier calls the last decision served or failed, to be taken.
    settled: VecDeque<Settlement>,
}

/// The shared checks of the three constructors.
fn check_count(
    value: u64,
    zero_ok: bool,
    zero: &'static str,
    big: &'static str,
) -> Result<u64, ConfigError> {
    if value == 0 && !zero_ok {
        return Err(ConfigError::Unsupported(zero));
    }
    if value > INT_MAX {
        return Err(ConfigError::TooLarge(big));
    }
    Ok(value)
}

/// A lab span as TimeSpan ticks, refusing zero.
fn span_ticks(span: Span, zero: &'static str) -> Result<u64, ConfigError> {
    if span.micros() == 0 {
        return Err(ConfigError::Unsupported(zero));
    }
    Ok(span.micros().saturating_mul(TICKS_PER_MICRO))
}

/// The timer period `new Timer(.., period, period)` runs at, in lab microseconds.
fn timer_period_us(period_ticks: u64) -> Result<u64, ConfigError> {
    let ms = period_ticks / TICKS_PER_MILLI;
    if ms > MAX_TIMER_MS {
        return Err(ConfigError::Unsupported(
            "System.Threading.Timer refuses a period over 4294967294 ms (about 49.7 days): the \
             constructor throws ArgumentOutOfRangeException",
        ));
    }
    if ms == 0 {
        return Err(ConfigError::Unsupported(
            "the replenishment timer counts whole milliseconds, and a period under 1 ms (a 0 ms \
             Timer) is not modelled",
        ));
    }
    Ok(ms * MICROS_PER_MILLI)
}

impl DotnetLimiter {
    fn build(
        kind: Kind,
        limit: u64,
        queue_limit: u64,
        order: QueueProcessingOrder,
        option_ticks: u64,
        period_ticks: u64,
    ) -> Result<DotnetLimiter, ConfigError> {
        let period_us = timer_period_us(period_ticks)?;
        Ok(DotnetLimiter {
            kind,
            limit,
            queue_limit,
            order,
            option_ticks,
            period_ticks,
            period_us,
            level: limit,
            ticks_done: 0,
            queue: VecDeque::new(),
            queue_count: 0,
            segments: VecDeque::new(),
            projection: (0, limit),
            latest: Time::ZERO,
            decisions: 0,
            settled: VecDeque::new(),
        })
    }

    /// The class name, as .NET spells it.
    pub fn class_name(&self) -> &'static str {
        match self.kind {
            Kind::Fixed => "FixedWindowRateLimiter",
            Kind::Sliding { .. } => "SlidingWindowRateLimiter",
            Kind::Token { .. } => "TokenBucketRateLimiter",
        }
    }

    /// `PermitLimit` or `TokenLimit`.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The timer's period as it runs, in whole milliseconds.
    pub fn timer_period(&self) -> Span {
        Span(self.period_us)
    }

    /// The `ReplenishmentPeriod` property, in TimeSpan ticks.
    pub fn replenishment_period_ticks(&self) -> u64 {
        self.period_ticks
    }

    /// `GetStatistics().CurrentAvailablePermits` at `now`.
    pub fn available(&self, now: Time) -> u64 {
        self.at(now).level
    }

    /// `GetStatistics().CurrentQueuedCount` at `now`.
    pub fn queued(&self, now: Time) -> u64 {
        self.at(now).queue_count
    }

    fn at(&self, now: Time) -> DotnetLimiter {
        let mut copy = self.clone();
        copy.latest = now.max(self.latest);
        copy.advance(copy.latest);
        copy
    }

    fn tick_time(&self, tick: u64) -> Time {
        Time(tick.saturating_mul(self.period_us))
    }

    /// Applies every timer tick up to `now`.
    fn advance(&mut self, now: Time) {
        let target = now.micros() / self.period_us;
        while self.ticks_done < target {
            match self.kind {
                Kind::Fixed => {
                    if self.level >= self.limit {
                        // Full and nothing queued: every later tick returns at once.
                        self.ticks_done = target;
                        break;
                    }
                    self.ticks_done += 1;
                    self.level = self.limit;
                    self.serve_queue();
                }
                Kind::Token { per_period } => {
                    if self.level >= self.limit {
                        self.ticks_done = target;
                        break;
                    }
                    // Ticks until the next queued call fits, or until the bucket is full; the
                    // ticks in between only add tokens.
                    let need = match self.next_queued() {
                        Some(q) => q
                            .count
                            .saturating_sub(self.level)
                            .div_ceil(per_period)
                            .max(1),
                        None => (self.limit - self.level).div_ceil(per_period),
                    };
                    let k = need.min(target - self.ticks_done);
                    self.level = self
                        .level
                        .saturating_add(k.saturating_mul(per_period))
                        .min(self.limit);
                    self.ticks_done += k;
                    self.serve_queue();
                }
                Kind::Sliding { segments } => {
                    let Some(&(acquired, _)) = self.segments.front() else {
                        self.ticks_done = target;
                        break;
                    };
                    // Ticks landing on an empty segment return without touching the queue.
                    let event = acquired.saturating_add(segments);
                    if event > target {
                        self.ticks_done = target;
                        break;
                    }
                    self.ticks_done = event;
                    if let Some((_, freed)) = self.segments.pop_front() {
                        self.level += freed;
                    }
                    self.serve_queue();
                }
            }
        }
    }

    fn next_queued(&self) -> Option<&Queued> {
        match self.order {
            QueueProcessingOrder::OldestFirst => self.queue.front(),
            QueueProcessingOrder::NewestFirst => self.queue.back(),
        }
    }

    /// The queue loop of `ReplenishInternal`.
    fn serve_queue(&mut self) {
        while let Some(&q) = self.next_queued() {
            if self.level < q.count {
                break;
            }
            match self.order {
                QueueProcessingOrder::OldestFirst => {
                    debug_assert_eq!(q.release_tick, self.ticks_done, "projection drifted");
                    self.queue.pop_front();
                }
                QueueProcessingOrder::NewestFirst => {
                    debug_assert!(
                        q.release_tick <= self.ticks_done,
                        "served before the earliest tick it could be"
                    );
                    self.queue.pop_back();
                    let at = self.tick_time(self.ticks_done);
                    let by = at.since(q.arrival);
                    self.settled.push_back(Settlement {
                        seq: q.seq,
                        verdict: if by == Span::ZERO {
                            Verdict::Allowed
                        } else {
                            Verdict::Delayed { by }
                        },
                        at,
                    });
                }
            }
            self.level -= q.count;
            self.queue_count -= q.count;
            if !q.recorded {
                self.record(self.ticks_done, q.count);
            }
        }
    }

    /// Sliding window: `_requestsPerSegment[current] += count` for the segment of `tick`.
    fn record(&mut self, tick: u64, count: u64) {
        if !matches!(self.kind, Kind::Sliding { .. }) || count == 0 {
            return;
        }
        match self.segments.back_mut() {
            Some((t, c)) if *t == tick => *c += count,
            _ => self.segments.push_back((tick, count)),
        }
    }

    /// The tick that releases a call of `count` queued behind a state of `level` permits at
    /// `tick` (`same_tick`: the queue loop is still running on that tick), and what is left.
    fn release_after(&self, tick: u64, level: u64, count: u64, same_tick: bool) -> (u64, u64) {
        if same_tick && level >= count {
            return (tick, level - count);
        }
        match self.kind {
            Kind::Fixed => (tick.saturating_add(1), self.limit - count),
            Kind::Token { per_period } => {
                let k = count.saturating_sub(level).div_ceil(per_period).max(1);
                let filled = level
                    .saturating_add(k.saturating_mul(per_period))
                    .min(self.limit);
                (tick.saturating_add(k), filled - count)
            }
            Kind::Sliding { segments } => {
                let first = self
                    .segments
                    .partition_point(|&(t, _)| t.saturating_add(segments) <= tick);
                let mut level = level;
                for &(t, freed) in self.segments.range(first..) {
                    level += freed;
                    if level >= count {
                        return (t.saturating_add(segments), level - count);
                    }
                }
                debug_assert!(false, "the segments always hold what is not available");
                (u64::MAX, 0)
            }
        }
    }

    /// `AcquireAsync(cost)` at `now` (time already advanced) as decision `seq`, changing the
    /// state.
    fn acquire(&mut self, now: Time, cost: u64, seq: u64) -> Outcome {
        if cost > self.limit {
            return Outcome::Exceeds;
        }
        if cost == 0 && self.level > 0 {
            return Outcome::Leased;
        }
        let oldest_first = self.order == QueueProcessingOrder::OldestFirst;
        if self.level >= cost && self.level != 0 && (self.queue_count == 0 || !oldest_first) {
            self.level -= cost;
            self.record(self.ticks_done, cost);
            return Outcome::Leased;
        }
        let mut evicted = 0;
        if self.queue_limit - self.queue_count < cost {
            if !oldest_first && cost <= self.queue_limit {
                while self.queue_limit - self.queue_count < cost {
                    let Some(old) = self.queue.pop_front() else {
                        break;
                    };
                    self.queue_count -= old.count;
                    evicted += 1;
                    // The evicted call's wait completes now, with a failed lease.
                    self.settled.push_back(Settlement {
                        seq: old.seq,
                        verdict: Verdict::Rejected,
                        at: now,
                    });
                }
            } else {
                return Outcome::Failed {
                    retry_after_ticks: self.retry_after_ticks(cost),
                };
            }
        }
        let (tick, recorded) = if oldest_first {
            let (tick, left) = if self.queue.is_empty() {
                self.release_after(self.ticks_done, self.level, cost, false)
            } else {
                let (t, l) = self.projection;
                self.release_after(t, l, cost, true)
            };
            self.projection = (tick, left);
            self.record(tick, cost);
            (tick, true)
        } else {
            (
                self.release_after(self.ticks_done, self.level, cost, false)
                    .0,
                false,
            )
        };
        self.queue.push_back(Queued {
            count: cost,
            release_tick: tick,
            recorded,
            seq,
            arrival: now,
        });
        self.queue_count += cost;
        Outcome::Queued { tick, evicted }
    }

    /// `CreateFailedWindowLease` / `CreateFailedTokenLease`, in C#'s unchecked arithmetic; the
    /// sliding window's failed lease has no `RetryAfter`.
    fn retry_after_ticks(&self, cost: u64) -> Option<i64> {
        let int = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
        let per = match self.kind {
            Kind::Fixed => int(self.limit),
            Kind::Token { per_period } => int(per_period),
            Kind::Sliding { .. } => return None,
        };
        let amount = int(cost)
            .wrapping_sub(int(self.level))
            .wrapping_add(int(self.queue_count));
        let periods = (amount / per).max(1);
        let ticks = i64::try_from(self.option_ticks).unwrap_or(i64::MAX);
        Some(ticks.wrapping_mul(i64::from(periods)))
    }

    /// The time from `now` until the limiter holds nothing (all permits back, nothing queued).
    fn reset_after(&self, now: Time) -> Span {
        let whole_at = match self.kind {
            Kind::Fixed => {
                let last = self.queue.iter().map(|q| q.release_tick).max();
                match last {
                    Some(t) => Some(t.saturating_add(1)),
                    None if self.level < self.limit => Some(self.ticks_done.saturating_add(1)),
                    None => None,
                }
            }
            Kind::Token { per_period } => {
                let (t, left) = match self.order {
                    QueueProcessingOrder::OldestFirst if !self.queue.is_empty() => self.projection,
                    _ => {
                        let last = self.queue.iter().map(|q| q.release_tick).max();
                        match last {
                            Some(t) => (t, 0),
                            None => (self.ticks_done, self.level),
                        }
                    }
                };
                let k = (self.limit - left.min(self.limit)).div_ceil(per_period);
                (k > 0).then(|| t.saturating_add(k))
            }
            Kind::Sliding { segments } => {
                let last_segment = self.segments.back().map(|&(t, _)| t);
                let last_queued = self.queue.iter().map(|q| q.release_tick).max();
                last_segment
                    .max(last_queued)
                    .map(|t| t.saturating_add(segments))
            }
        };
        whole_at.map_or(Span::ZERO, |tick| self.tick_time(tick).since(now))
    }

    /// The lab's wait for a refused call: the `RetryAfter` metadata, rounded up to the
    /// microsecond; for the sliding window, which gives none, the time to the next tick that
    /// frees permits (the first moment anything can change).
    fn wait_for(&self, now: Time, outcome: Outcome) -> Option<Span> {
        match outcome {
            Outcome::Failed {
                retry_after_ticks: Some(ticks),
            } => u64::try_from(ticks)
                .ok()
                .map(|t| Span(t.div_ceil(TICKS_PER_MICRO))),
            Outcome::Failed {
                retry_after_ticks: None,
            } => {
                let Kind::Sliding { segments } = self.kind else {
                    return None;
                };
                self.segments
                    .front()
                    .map(|&(t, _)| self.tick_time(t.saturating_add(segments)).since(now))
            }
            _ => None,
        }
    }

    /// The decision for `cost` at `now`, with the outcome; changes the state.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn run(&mut self, now: Time, cost: u64) -> (Decision, Outcome) {
        let now = now.max(self.latest);
        self.latest = now;
        // What the decision before settled was for its caller to take by now.
        self.settled.clear();
        let seq = self.decisions;
        self.decisions = self.decisions.saturating_add(1);
        self.advance(now);
        let outcome = self.acquire(now, cost, seq);
        let verdict = match outcome {
            Outcome::Leased => Verdict::Allowed,
            Outcome::Queued { tick, .. } => Verdict::Delayed {
                by: self.tick_time(tick).since(now),
            },
            Outcome::Failed { .. } | Outcome::Exceeds => Verdict::Rejected,
        };
        let decision = Decision {
            verdict,
            limit: self.limit,
            remaining: self.level,
            reset_after: self.reset_after(now),
            retry_after: self.wait_for(now, outcome),
        };
        (decision, outcome)
    }

    /// Rewrites the decision a queued `NewestFirst` call got on arrival (and its reply) with the
    /// settlement that ended its wait: served on a tick (`completes_at`, `IsAcquired` True) or
    /// failed by a later call's eviction (`evicted_at`, `IsAcquired` False, no `RetryAfter`).
    pub fn settle_decision(
        &self,
        decision: &mut Decision,
        reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        decision.verdict = settlement.verdict;
        let served = settlement.verdict.passes();
        if !served {
            decision.retry_after = None;
        }
        let Some(reply) = reply else {
            return;
        };
        let after = reply
            .fields
            .iter()
            .position(|(name, _)| *name == "queued")
            .map_or(reply.fields.len(), |i| i + 1);
        let at = format!("{} s", format_seconds(settlement.at.micros()));
        let settled = if served {
            [("completes_at", at), ("IsAcquired", "True".to_string())]
        } else {
            [("evicted_at", at), ("IsAcquired", "False".to_string())]
        };
        reply.fields.splice(after..after, settled);
    }

    fn reply(&self, cost: u64, outcome: Outcome) -> ProductReply {
        let mut fields = vec![("call", format!("AcquireAsync({cost})"))];
        match outcome {
            Outcome::Exceeds => {
                let what = match self.kind {
                    Kind::Token { .. } => "token(s) exceeds the token limit",
                    _ => "permit(s) exceeds the permit limit",
                };
                fields.push(("exception", "ArgumentOutOfRangeException".to_string()));
                fields.push(("message", format!("{cost} {what} of {}.", self.limit)));
            }
            Outcome::Leased => fields.push(("IsAcquired", "True".to_string())),
            Outcome::Queued { tick, evicted } => {
                fields.push(("queued", "True".to_string()));
                // Under NewestFirst the wait ends later, served or failed: `settle_decision`
                // writes how once a settlement says.
                if self.order == QueueProcessingOrder::OldestFirst {
                    let at = self.tick_time(tick);
                    fields.push(("completes_at", format!("{} s", format_seconds(at.micros()))));
                    fields.push(("IsAcquired", "True".to_string()));
                }
                if evicted > 0 {
                    fields.push(("evicted", evicted.to_string()));
                }
            }
            Outcome::Failed { retry_after_ticks } => {
                fields.push(("IsAcquired", "False".to_string()));
                if let Some(ticks) = retry_after_ticks {
                    fields.push(("RetryAfter", timespan_text(ticks)));
                }
            }
        }
        fields.push(("CurrentAvailablePermits", self.level.to_string()));
        fields.push(("CurrentQueuedCount", self.queue_count.to_string()));
        ProductReply { fields }
    }
}

/// A `TimeSpan` as .NET's `ToString()` writes it: `[-][d.]hh:mm:ss[.fffffff]`.
pub fn timespan_text(ticks: i64) -> String {
    let sign = if ticks < 0 { "-" } else { "" };
    let t = ticks.unsigned_abs();
    let per_sec = 10_000_000u64;
    let (days, rest) = (t / (86_400 * per_sec), t % (86_400 * per_sec));
    let (h, m, s, f) = (
        rest / (3_600 * per_sec),
        rest / (60 * per_sec) % 60,
        rest / per_sec % 60,
        rest % per_sec,
    );
    let mut out = String::from(sign);
    if days > 0 {
        out.push_str(&format!("{days}."));
    }
    out.push_str(&format!("{h:02}:{m:02}:{s:02}"));
    if f > 0 {
        out.push_str(&format!(".{f:07}"));
    }
    out
}

impl Limiter for DotnetLimiter {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.run(now, cost).0
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let state = self.at(now);
        Gauge {
            level: state.level as f64,
            max: self.limit as f64,
            unit: match self.kind {
                Kind::Token { .. } => "tokens",
                _ => "permits",
            },
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let state = self.at(now);
        state.level == state.limit && state.queue.is_empty() && state.segments.is_empty()
    }

    fn settles_late(&self) -> bool {
        self.order == QueueProcessingOrder::NewestFirst
    }

    fn take_settled(&mut self) -> Option<Settlement> {
        self.settled.pop_front()
    }

    fn settle_rest(&mut self) {
        self.settled.clear();
        if self.queue.is_empty() {
            return;
        }
        // The timer keeps ticking: every queued call fits the limit, so with nothing arriving
        // the ticks serve them all, and `advance` skips the idle ticks in between.
        self.latest = Time(u64::MAX);
        self.advance(self.latest);
        debug_assert!(self.queue.is_empty(), "the timer serves every queued call");
    }
}

impl Product for DotnetLimiter {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, outcome) = self.run(now, cost);
        (decision, self.reply(cost, outcome))
    }

    fn settle_decision(
        &self,
        decision: &mut Decision,
        reply: Option<&mut ProductReply>,
        settlement: Settlement,
    ) {
        DotnetLimiter::settle_decision(self, decision, reply, settlement);
    }
}

/// What a client of an ASP.NET Core app using the rate-limiting middleware receives, with no
/// `OnRejected` and `RejectionStatusCode` at its default: a refused request is
/// `503 Service Unavailable` with no `Retry-After` (the middleware never writes one); a permit
/// that exceeds the limit throws out of the middleware, which the server answers with
/// `500 Internal Server Error`; a leased or queued-then-leased request runs: 200.
pub fn http_response(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    if reply.get("exception").is_some() {
        return plain(500, "Internal Server Error", Vec::new());
    }
    if decision.allowed() {
        return plain(200, "OK", Vec::new());
    }
    plain(503, "Service Unavailable", Vec::new())
}

/// The same app with the `OnRejected` of ASP.NET Core's rate-limiting documentation ("Limiter
/// with OnRejected, RetryAfter, and GlobalLimiter"): status 429, and when the lease carries
/// `RetryAfter`, `Retry-After: ((int)retryAfter.TotalSeconds)`, truncated toward zero.
pub fn http_response_with_docs_on_rejected(
    decision: &Decision,
    reply: &ProductReply,
) -> HttpResponse {
    if reply.get("exception").is_some() {
        return plain(500, "Internal Server Error", Vec::new());
    }
    if decision.allowed() {
        return plain(200, "OK", Vec::new());
    }
    let headers = reply
        .get("RetryAfter")
        .and_then(timespan_whole_seconds)
        .map(|s| vec![("Retry-After".to_string(), s.to_string())])
        .unwrap_or_default();
    plain(429, "Too Many Requests", headers)
}

/// `(int)TimeSpan.TotalSeconds` of a `TimeSpan` written by [`timespan_text`].
fn timespan_whole_seconds(text: &str) -> Option<i64> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    // [d.]hh:mm:ss[.fffffff]: the days end at the first '.' before any ':'.
    let (days, clock) = match body.split_once('.') {
        Some((d, rest)) if !d.contains(':') => (d.parse::<i64>().ok()?, rest),
        _ => (0, body),
    };
    let hms = clock.split('.').next()?;
    let mut parts = hms.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    let secs = ((days * 24 + h) * 60 + m) * 60 + s;
    Some(if negative { -secs } else { secs })
}

fn plain(status: u16, reason: &'static str, headers: Vec<(String, String)>) -> HttpResponse {
    HttpResponse {
        status,
        reason,
        headers,
    }
}

const FAMILY: Family = Family {
    prefix: "dotnet-",
    name: ".NET RateLimiting",
    fields: fields::FIELDS,
};

const TELLS: &str = "nothing: the middleware's 503 carries no wait";

const FILE_NAME: &str = "Program.cs";

fn explain(class_name: &str, options: String, queue: u64) -> Explanation {
    explanation(
        format!("System.Threading.RateLimiting's {class_name}, {options}: permits come back only when its own timer ticks (the first tick one period after the limiter is made), and AcquireAsync queues up to {queue} permits, oldest first; queued requests are drawn as delayed. ASP.NET Core's middleware refuses with 503 and no Retry-After unless told otherwise."),
        "A count (and a segment per slice, or the tokens) per limiter, plus the queue.",
        "ASP.NET Core services limiting in process; every period starts on the timer, not at a client's first request.",
    )
}

fn explain_dotnet_fixed(s: &RowSettings) -> Explanation {
    let d = s.products.dotnet.fixed(s.limit, s.window);
    explain(
        "FixedWindowRateLimiter",
        format!(
            "PermitLimit {}, Window {} s",
            d.permit_limit,
            format_seconds(d.window.micros())
        ),
        d.queue_limit,
    )
}

fn explain_dotnet_sliding(s: &RowSettings) -> Explanation {
    let d = s.products.dotnet.sliding(s.limit, s.window);
    explain(
        "SlidingWindowRateLimiter",
        format!(
            "PermitLimit {}, Window {} s in {} segments",
            d.permit_limit,
            format_seconds(d.window.micros()),
            d.segments_per_window
        ),
        d.queue_limit,
    )
}

fn explain_dotnet_token(s: &RowSettings) -> Explanation {
    let d = s.products.dotnet.token(s.limit, s.window);
    explain(
        "TokenBucketRateLimiter",
        format!(
            "TokenLimit {}, {} tokens every {} s",
            d.token_limit,
            d.tokens_per_period,
            format_seconds(d.replenishment_period.micros())
        ),
        d.queue_limit,
    )
}

/// The .NET `FixedRateLimiter` row (`core::limiter::rows`).
pub const FIXED_ROW: ProductRow<DotnetLimiter> = ProductRow {
    slug: "dotnet-fixed",
    label: ".NET fixed window",
    family: FAMILY,
    build: |s| s.products.dotnet.fixed(s.limit, s.window).build(),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: explain_dotnet_fixed,
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| snippet::write(".NET fixed window", snippet::Class::Fixed, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The .NET `SlidingRateLimiter` row (`core::limiter::rows`).
pub const SLIDING_ROW: ProductRow<DotnetLimiter> = ProductRow {
    slug: "dotnet-sliding",
    label: ".NET sliding window",
    family: FAMILY,
    build: |s| s.products.dotnet.sliding(s.limit, s.window).build(),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: explain_dotnet_sliding,
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| snippet::write(".NET sliding window", snippet::Class::Sliding, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The .NET `TokenRateLimiter` row (`core::limiter::rows`).
pub const TOKEN_ROW: ProductRow<DotnetLimiter> = ProductRow {
    slug: "dotnet-token",
    label: ".NET token bucket",
    family: FAMILY,
    build: |s| s.products.dotnet.token(s.limit, s.window).build(),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: explain_dotnet_token,
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| snippet::write(".NET token bucket", snippet::Class::Token, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(limit: u64, window_ms: u64, queue: u64, order: QueueProcessingOrder) -> DotnetLimiter {
        FixedWindowParams {
            queue_limit: queue,
            queue_processing_order: order,
            ..FixedWindowParams::defaults_for(limit, Span::from_millis(window_ms))
        }
        .build()
        .unwrap()
    }

    #[test]
    fn timespans_are_written_as_dotnet_writes_them() {
        assert_eq!(timespan_text(200_000_000), "00:00:20");
        assert_eq!(timespan_text(400_000_000), "00:00:40");
        assert_eq!(timespan_text(33_333_333), "00:00:03.3333333");
        assert_eq!(timespan_text(864_000_000_000 + 10_000_000), "1.00:00:01");
        assert_eq!(timespan_text(-10_000_000), "-00:00:01");
        assert_eq!(timespan_whole_seconds("00:00:03.3333333"), Some(3));
        assert_eq!(timespan_whole_seconds("1.00:00:01"), Some(86_401));
        assert_eq!(timespan_whole_seconds("-00:00:01"), Some(-1));
    }

    #[test]
    fn the_timer_period_is_truncated_to_whole_milliseconds() {
        // 10 s in 3 segments: 33,333,333 ticks per segment, a 3,333 ms timer.
        let l = SlidingWindowParams {
            segments_per_window: 3,
            ..SlidingWindowParams::defaults_for(5, Span::from_secs(10))
        }
        .build()
        .unwrap();
        assert_eq!(l.replenishment_period_ticks(), 33_333_333);
        assert_eq!(l.timer_period(), Span::from_millis(3_333));
    }

    #[test]
    fn a_queued_request_under_oldest_first_is_released_on_the_projected_tick() {
        let mut l = fixed(2, 1_000, 3, QueueProcessingOrder::OldestFirst);
        assert_eq!(l.decide(Time::ZERO, 2).verdict, Verdict::Allowed);
        let d = l.decide(Time::from_millis(100), 2);
        assert_eq!(
            d.verdict,
            Verdict::Delayed {
                by: Span::from_millis(900)
            }
        );
        let d = l.decide(Time::from_millis(200), 1);
        assert_eq!(
            d.verdict,
            Verdict::Delayed {
                by: Span::from_millis(1_800)
            }
        );
        // At 1 s the first is served; the second (1 permit) waits for the 2 s tick.
        assert_eq!(l.queued(Time::from_millis(1_000)), 1);
        assert_eq!(l.queued(Time::from_millis(2_000)), 0);
        assert_eq!(l.available(Time::from_millis(2_000)), 1);
    }

    #[test]
    fn a_refused_call_changes_nothing() {
        let mut l = fixed(1, 1_000, 0, QueueProcessingOrder::OldestFirst);
        l.decide(Time::ZERO, 1);
        let before = format!("{:?}", l.at(Time::from_millis(10)));
        let d = l.decide(Time::from_millis(10), 1);
        assert_eq!(d.verdict, Verdict::Rejected);
        // Nothing but the count of decisions, which numbers them for settlements.
        let mut after = l.at(Time::from_millis(10));
        after.decisions -= 1;
        assert_eq!(format!("{after:?}"), before);
    }
}
