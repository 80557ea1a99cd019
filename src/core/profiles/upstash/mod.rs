//! `@upstash/ratelimit` (upstash/ratelimit-js): its three single-region algorithms, the Lua each
//! runs in Redis, and the client around them (the ephemeral cache and the timeout).
//!
//! Read from `src/single.ts` (the algorithms' client side), `src/lua-scripts/single.ts` (the
//! scripts), `src/ratelimit.ts` (`limit`, the timeout race), `src/cache.ts` (the ephemeral cache)
//! and the documentation's "Algorithms", "Features" and "Methods" pages. The version followed is
//! the main branch with dynamic limits (`rate ?? 1`, `reason` on every cache block) and pull
//! request #156 (merged): a token-bucket request asking for more tokens than are left is refused
//! without taking any.
//!
//! Time: `Date.now()` is whole milliseconds since the Unix epoch; the lab's time 0 is taken as
//! epoch 0, so `now_ms = floor(lab µs / 1000)` and every `reset` is milliseconds since the lab's
//! start. Windows are epoch-aligned: window `k` covers `[k × w, (k + 1) × w)` ms. Redis's clock is
//! taken to agree with the client's, and each script runs at the moment of its call.
//!
//! `fixedWindow(tokens, window)`: the key is `id:floor(now / w)`. The script INCRBYs first and
//! the client compares after: `success = count <= tokens`, `remaining = max(0, tokens - count)`,
//! `reset = (k + 1) × w`. A rejected call still adds its cost to the count (pull request #161,
//! still open, proposes undoing that).
//!
//! `slidingWindow(tokens, window)`: keys for the current and the previous window. The script
//! weighs the previous count with Lua doubles: `floor((1 - (now % w) / w) × previous)`. If
//! `weighted + current >= tokens` (checked only when the cost is positive) it answers -1 without
//! counting; otherwise it INCRBYs the current key by the cost and answers
//! `tokens - (current + cost + weighted)`, which is negative, so a rejection that was counted,
//! when the cost overshoots. `reset = (k + 1) × w`. The weighting is computed in doubles, as
//! the script's Lua does, so 10 previous requests 9 s into a 10 s window weigh
//! `floor(0.9999999999999998) = 0`, not 1.
//!
//! `tokenBucket(refillRate, interval, maxTokens)`: one hash per key holding `refilledAt` and
//! `tokens`; a missing key is a full bucket refilled now. When `now >= refilledAt + interval`,
//! `n = floor((now - refilledAt) / interval)` refills add `n × refillRate` (capped at
//! `maxTokens`) and `refilledAt` moves forward by `n` whole intervals, so refills come in steps,
//! phase-locked to the key's first request. A request of `cost > tokens` is refused with
//! `reset = refilledAt + interval` and nothing stored; otherwise the hash is written and, when
//! `ceil((maxTokens - remaining) / refillRate) × interval` is positive, the key gets that PEXPIRE.
//! A key that expires (Redis: when `now > expiry`) comes back as a full bucket with a new phase.
//! (The method's own documentation says "an interval of 10s and refillRate of 5 will cause a new
//! token to be added every 2 seconds"; the script adds all 5 at once every 10 s.)
//!
//! The client: `limit(id, { rate })` sends `incrementBy = rate ?? 1`. With the ephemeral cache
//! (on by default: `ephemeralCache` left undefined becomes `new Map()`), a refused call stores
//! `id → reset`, and later calls with a positive cost answer `{ success: false, remaining: 0,
//! reset, reason: "cacheBlock" }` without reaching Redis while `reset >= Date.now()`; so the
//! fixed window stops counting them. `timeout` (default 5000 ms; 0 turns it off) races Redis: when
//! the round trip `redis_latency` reaches it, the call resolves `{ success: true, limit: 0,
//! remaining: 0, reset: 0, reason: "timeout" }`. The script is not cancelled: it still runs and
//! counts, and when its late answer is a refusal the client still blocks the key in the cache,
//! `redis_latency` after the call. A round trip exactly equal to the timeout is counted as a
//! timeout (in JavaScript the two timers would race).
//!
//! Limits of the reproduction: costs and counts are exact integers; past 2^53 the library's
//! doubles would round them, and the profile does not follow them there. Refill rates are whole
//! numbers (the library accepts fractions). Dynamic limits, deny lists, analytics and the
//! multi-region variants are not modelled.

use std::collections::VecDeque;

use crate::core::config::{ConfigError, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{explanation, Explanation, Family, Hint, ProductRow, SnippetOf, Told};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time, MICROS_PER_MILLI};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// The library's default timeout: 5000 ms.
pub const DEFAULT_TIMEOUT: Span = Span::from_secs(5);

/// Which of the three algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpstashKind {
    FixedWindow,
    SlidingWindow,
    TokenBucket,
}

/// An algorithm with its parameters, as passed to `Ratelimit.fixedWindow(...)` and the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpstashAlgorithm {
    /// `Ratelimit.fixedWindow(tokens, window)`.
    FixedWindow { tokens: u64, window: Span },
    /// `Ratelimit.slidingWindow(tokens, window)`.
    SlidingWindow { tokens: u64, window: Span },
    /// `Ratelimit.tokenBucket(refillRate, interval, maxTokens)`.
    TokenBucket {
        refill_rate: u64,
        interval: Span,
        max_tokens: u64,
    },
}

impl UpstashAlgorithm {
    pub fn kind(&self) -> UpstashKind {
        match self {
            UpstashAlgorithm::FixedWindow { .. } => UpstashKind::FixedWindow,
            UpstashAlgorithm::SlidingWindow { .. } => UpstashKind::SlidingWindow,
            UpstashAlgorithm::TokenBucket { .. } => UpstashKind::TokenBucket,
        }
    }

    /// The `limit` the library reports: `tokens`, or `maxTokens` for the bucket.
    pub fn limit(&self) -> u64 {
        match *self {
            UpstashAlgorithm::FixedWindow { tokens, .. }
            | UpstashAlgorithm::SlidingWindow { tokens, .. } => tokens,
            UpstashAlgorithm::TokenBucket { max_tokens, .. } => max_tokens,
        }
    }

    /// The window, or the bucket's refill interval.
    fn period(&self) -> Span {
        match *self {
            UpstashAlgorithm::FixedWindow { window, .. }
            | UpstashAlgorithm::SlidingWindow { window, .. } => window,
            UpstashAlgorithm::TokenBucket { interval, .. } => interval,
        }
    }
}

/// The `Ratelimit` configuration the profile models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpstashParams {
    pub algorithm: UpstashAlgorithm,
    /// `timeout` (the library takes milliseconds; default 5000 ms; zero turns it off).
    pub timeout: Span,
    /// The round trip to Redis (not a library option: the network the lab imagines). Default 0.
    pub redis_latency: Span,
    /// `ephemeralCache`: on unless `false` is passed, as in the library.
    pub ephemeral_cache: bool,
}

impl UpstashParams {
    /// `new Ratelimit({ redis, limiter })` with the library's defaults: 5 s timeout, the
    /// ephemeral cache on, and an instant Redis.
    pub fn new(algorithm: UpstashAlgorithm) -> UpstashParams {
        UpstashParams {
            algorithm,
            timeout: DEFAULT_TIMEOUT,
            redis_latency: Span::ZERO,
            ephemeral_cache: true,
        }
    }

    pub fn fixed_window(tokens: u64, window: Span) -> UpstashParams {
        UpstashParams::new(UpstashAlgorithm::FixedWindow { tokens, window })
    }

    pub fn sliding_window(tokens: u64, window: Span) -> UpstashParams {
        UpstashParams::new(UpstashAlgorithm::SlidingWindow { tokens, window })
    }

    pub fn token_bucket(refill_rate: u64, interval: Span, max_tokens: u64) -> UpstashParams {
        UpstashParams::new(UpstashAlgorithm::TokenBucket {
            refill_rate,
            interval,
            max_tokens,
        })
    }

    /// The lab's "limit per window" in each algorithm's own terms, with the library's defaults:
    /// `fixedWindow(limit, window)`, `slidingWindow(limit, window)`, and
    /// `tokenBucket(limit, window, limit)` (a full bucket of `limit`, refilled by `limit` every
    /// `window`). The window is rounded down to whole milliseconds, at least 1 ms, since the
    /// library's durations are whole milliseconds.
    pub fn defaults_for(kind: UpstashKind, limit: u64, window: Span) -> UpstashParams {
        let window = Span::from_millis((window.micros() / MICROS_PER_MILLI).max(1));
        match kind {
            UpstashKind::FixedWindow => UpstashParams::fixed_window(limit, window),
            UpstashKind::SlidingWindow => UpstashParams::sliding_window(limit, window),
            UpstashKind::TokenBucket => UpstashParams::token_bucket(limit, window, limit),
        }
    }

    pub fn with_timeout(self, timeout: Span) -> UpstashParams {
        UpstashParams { timeout, ..self }
    }

    pub fn with_redis_latency(self, redis_latency: Span) -> UpstashParams {
        UpstashParams {
            redis_latency,
            ..self
        }
    }

    pub fn with_ephemeral_cache(self, ephemeral_cache: bool) -> UpstashParams {
        UpstashParams {
            ephemeral_cache,
            ..self
        }
    }

    /// True when every call that reaches Redis resolves by the timeout instead.
    fn times_out(&self) -> bool {
        self.timeout > Span::ZERO && self.redis_latency >= self.timeout
    }
}

/// Why a reply did not come from Redis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpstashReason {
    /// "timeout": Redis did not answer within `timeout`; the call is let through.
    Timeout,
    /// "cacheBlock": the ephemeral cache refused the call without asking Redis.
    CacheBlock,
}

impl UpstashReason {
    pub fn word(self) -> &'static str {
        match self {
            UpstashReason::Timeout => "timeout",
            UpstashReason::CacheBlock => "cacheBlock",
        }
    }
}

/// The library's `RatelimitResponse` (without `pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpstashReply {
    pub success: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Milliseconds since the epoch (the lab's time 0).
    pub reset: u64,
    pub reason: Option<UpstashReason>,
}

impl UpstashReply {
    /// The reply as the inspector shows it, in the library's field order.
    pub fn to_product_reply(&self) -> ProductReply {
        let mut fields = vec![
            ("success", self.success.to_string()),
            ("limit", self.limit.to_string()),
            ("remaining", self.remaining.to_string()),
            ("reset", self.reset.to_string()),
        ];
        if let Some(reason) = self.reason {
            fields.push(("reason", reason.word().to_string()));
        }
        ProductReply { fields }
    }
}

/// The token bucket's hash in Redis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BucketKey {
    refilled_at: u64,
    tokens: u64,
    /// The PEXPIRE deadline in ms; the key is gone once `now > expires_at`. `None`: no TTL.
    expires_at: Option<u64>,
}

/// What Redis holds for the identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    /// The count of window `window` (older windows' keys are never read again).
    Fixed {
        window: u64,
        count: u64,
    },
    /// The counts of window `window` and of the one before it.
    Sliding {
        window: u64,
        current: u64,
        previous: u64,
    },
    Bucket(Option<BucketKey>),
}

/// A script's answer before the client turns it into a reply.
#[derive(Clone, Copy, Debug)]
struct ScriptAnswer {
    success: bool,
    remaining: u64,
    reset: u64,
}

/// One identifier under one `Ratelimit` instance: what Redis holds and what the instance's
/// ephemeral cache holds.
#[derive(Clone, Debug)]
pub struct Upstash {
    params: UpstashParams,
    /// The window or refill interval in ms.
    period_ms: u64,
    store: Store,
    /// The ephemeral cache's entry for the identifier: blocked while `now_ms <= reset`.
    blocked_until: Option<u64>,
    /// Refusals whose answer is still on its way back from Redis: (arrival, reset), in order.
    in_flight: VecDeque<(Time, u64)>,
    latest: Time,
}

impl Upstash {
    pub fn new(params: UpstashParams) -> Result<Upstash, ConfigError> {
        let period = params.algorithm.period();
        if period == Span::ZERO {
            return Err(ConfigError::ZeroWindow);
        }
        if !period.micros().is_multiple_of(MICROS_PER_MILLI) {
            return Err(ConfigError::Unsupported(
                "Upstash durations are whole milliseconds (\"<n> ms|s|m|h|d\"); this window has a fraction of one",
            ));
        }
        if period > MAX_WINDOW {
            return Err(ConfigError::TooLarge("window"));
        }
        if params.algorithm.limit() > MAX_COUNT {
            return Err(ConfigError::TooLarge("limit"));
        }
        let store = match params.algorithm {
            UpstashAlgorithm::FixedWindow { .. } => Store::Fixed {
                window: 0,
                count: 0,
            },
            UpstashAlgorithm::SlidingWindow { .. } => Store::Sliding {
                window: 0,
                current: 0,
                previous: 0,
            },
            UpstashAlgorithm::TokenBucket { refill_rate, .. } => {
                if refill_rate == 0 {
                    return Err(ConfigError::Unsupported(
                        "a refillRate of 0 makes the token bucket's PEXPIRE fail (ceil(x / 0) is not a number Redis accepts)",
                    ));
                }
                if refill_rate > MAX_COUNT {
                    return Err(ConfigError::TooLarge("refill rate"));
                }
                Store::Bucket(None)
            }
        };
        let period_ms = period.micros() / MICROS_PER_MILLI;
        Ok(Upstash {
            params,
            period_ms,
            store,
            blocked_until: None,
            in_flight: VecDeque::new(),
            latest: Time::ZERO,
        })
    }

    pub fn params(&self) -> &UpstashParams {
        &self.params
    }

    /// `ratelimit.limit(id, { rate })` at `now`.
    pub fn limit(&mut self, now: Time, rate: u64) -> UpstashReply {
        self.call(now, rate).0
    }

    /// The call, its reply, and the decision the lab draws from it.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn call(&mut self, now: Time, cost: u64) -> (UpstashReply, Decision) {
        let now = now.max(self.latest);
        self.latest = now;
        self.land_answers(now);
        let now_ms = now.micros() / MICROS_PER_MILLI;
        let limit = self.params.algorithm.limit();
        let reply = match self.cache_block(now, cost) {
            Some(reset) => UpstashReply {
                success: false,
                limit,
                remaining: 0,
                reset,
                reason: Some(UpstashReason::CacheBlock),
            },
            None => {
                let answer = self.run_script(now_ms, cost);
                if !answer.success && self.params.ephemeral_cache {
                    self.send_block(now.plus(self.params.redis_latency), answer.reset);
                }
                if self.params.times_out() {
                    UpstashReply {
                        success: true,
                        limit: 0,
                        remaining: 0,
                        reset: 0,
                        reason: Some(UpstashReason::Timeout),
                    }
                } else {
                    UpstashReply {
                        success: answer.success,
                        limit,
                        remaining: answer.remaining,
                        reset: answer.reset,
                        reason: None,
                    }
                }
            }
        };
        let decision = Decision {
            verdict: if reply.success {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit,
            remaining: reply.remaining,
            reset_after: self.rest_at(now).since(now),
            retry_after: if reply.success {
                None
            } else {
                self.first_pass(now, cost).map(|at| at.since(now))
            },
        };
        (reply, decision)
    }

    /// Lets the refusals that have come back by `now` write the cache.
    fn land_answers(&mut self, now: Time) {
        while let Some(&(arrival, reset)) = self.in_flight.front() {
            if arrival > now {
                break;
            }
            self.blocked_until = Some(reset);
            self.in_flight.pop_front();
        }
    }

    /// A refusal's `blockUntil`, effective when its answer arrives.
    fn send_block(&mut self, arrival: Time, reset: u64) {
        // A later arrival with the same reset changes nothing the earlier one did not.
        if self.in_flight.back().is_some_and(|&(_, r)| r == reset) {
            return;
        }
        self.in_flight.push_back((arrival, reset));
    }

    /// The cache entry as it stands at `at`, counting answers arrived by then.
    fn cache_entry_at(&self, at: Time) -> Option<u64> {
        let arrived = self
            .in_flight
            .iter()
            .take_while(|&&(arrival, _)| arrival <= at)
            .last();
        arrived.map(|&(_, reset)| reset).or(self.blocked_until)
    }

    /// `cache.isBlocked(id)` for a call of `cost` at `at` (only positive costs look).
    fn cache_block(&self, at: Time, cost: u64) -> Option<u64> {
        if !self.params.ephemeral_cache || cost == 0 {
            return None;
        }
        let now_ms = at.micros() / MICROS_PER_MILLI;
        self.cache_entry_at(at).filter(|&reset| reset >= now_ms)
    }

    /// The algorithm's script at `now_ms` for `cost`, writing what it writes.
    fn run_script(&mut self, now_ms: u64, cost: u64) -> ScriptAnswer {
        let w = self.period_ms;
        let window = now_ms / w;
        let reset = window_end(window, w);
        match self.params.algorithm {
            UpstashAlgorithm::FixedWindow { tokens, .. } => {
                let count = self.fixed_count(window).saturating_add(cost);
                self.store = Store::Fixed { window, count };
                ScriptAnswer {
                    success: count <= tokens,
                    remaining: tokens.saturating_sub(count),
                    reset,
                }
            }
            UpstashAlgorithm::SlidingWindow { tokens, .. } => {
                let (current, previous) = self.sliding_counts(window);
                let weighted = lua_weighted_previous(previous, now_ms % w, w);
                let used = u128::from(weighted) + u128::from(current);
                if cost > 0 && used >= u128::from(tokens) {
                    return ScriptAnswer {
                        success: false,
                        remaining: 0,
                        reset,
                    };
                }
                let current = current.saturating_add(cost);
                self.store = Store::Sliding {
                    window,
                    current,
                    previous,
                };
                let after = u128::from(current) + u128::from(weighted);
                let success = after <= u128::from(tokens);
                ScriptAnswer {
                    success,
                    remaining: u64::try_from(u128::from(tokens).saturating_sub(after)).unwrap_or(0),
                    reset,
                }
            }
            UpstashAlgorithm::TokenBucket {
                refill_rate,
                max_tokens,
                ..
            } => {
                let key = self.live_bucket(now_ms);
                let (refilled_at, tokens) = refill(key, now_ms, w, refill_rate, max_tokens);
                let reset = refilled_at.saturating_add(w);
                if cost > 0 && tokens < cost {
                    return ScriptAnswer {
                        success: false,
                        remaining: 0,
                        reset,
                    };
                }
                let remaining = tokens - cost;
                let refills_to_full = (max_tokens - remaining).div_ceil(refill_rate);
                let expire_ms = u128::from(refills_to_full) * u128::from(w);
                let expires_at = if expire_ms > 0 {
                    Some(u64::try_from(u128::from(now_ms) + expire_ms).unwrap_or(u64::MAX))
                } else {
                    // HSET keeps an existing TTL; a new key written without PEXPIRE has none.
                    key.and_then(|k| k.expires_at)
                };
                self.store = Store::Bucket(Some(BucketKey {
                    refilled_at,
                    tokens: remaining,
                    expires_at,
                }));
                ScriptAnswer {
                    success: true,
                    remaining,
                    reset,
                }
            }
        }
    }

    /// The fixed window's count for `window`.
    fn fixed_count(&self, window: u64) -> u64 {
        match self.store {
            Store::Fixed { window: w, count } if w == window => count,
            _ => 0,
        }
    }

    /// The sliding window's (current, previous) raw counts for `window`.
    fn sliding_counts(&self, window: u64) -> (u64, u64) {
        match self.store {
            Store::Sliding {
                window: w,
                current,
                previous,
            } if w == window => (current, previous),
            Store::Sliding {
                window: w, current, ..
            } if w.checked_add(1) == Some(window) => (0, current),
            _ => (0, 0),
        }
    }

    /// The bucket's hash if Redis still holds it at `now_ms`.
    fn live_bucket(&self, now_ms: u64) -> Option<BucketKey> {
        match self.store {
            Store::Bucket(Some(key)) if key.expires_at.is_none_or(|x| now_ms <= x) => Some(key),
            _ => None,
        }
    }

    /// The first lab time at or after `now` at which the same call would succeed if nothing
    /// else happened; `None` if it never can.
    fn first_pass(&self, now: Time, cost: u64) -> Option<Time> {
        let now_ms = now.micros() / MICROS_PER_MILLI;
        let mut t = if self.params.times_out() {
            now_ms
        } else {
            self.script_first_pass(now_ms, cost)?
        };
        // The cache answers per millisecond; an entry only gives way to a later reset, so `t`
        // rises at every step until no entry blocks it (or it leaves the lab's clock).
        loop {
            if t > u64::MAX / MICROS_PER_MILLI {
                return None;
            }
            match self.cache_block(ms_time(t).max(now), cost) {
                Some(reset) => t = reset.checked_add(1)?,
                None => return Some(ms_time(t).max(now)),
            }
        }
    }

    /// The first millisecond from `now_ms` at which the script would let the call through.
    fn script_first_pass(&self, now_ms: u64, cost: u64) -> Option<u64> {
        let w = self.period_ms;
        let window = now_ms / w;
        match self.params.algorithm {
            UpstashAlgorithm::FixedWindow { tokens, .. } => {
                if cost > tokens {
                    None
                } else if self.fixed_count(window).saturating_add(cost) <= tokens {
                    Some(now_ms)
                } else {
                    Some(window_end(window, w))
                }
            }
            UpstashAlgorithm::SlidingWindow { tokens, .. } => {
                if cost > tokens {
                    return None;
                }
                // It passes when weighted(previous) + current + cost <= tokens; the weight only
                // falls as the window goes on, so search for the first millisecond it fits.
                let (current, previous) = self.sliding_counts(window);
                let start = window.saturating_mul(w);
                if let Some(budget) = tokens
                    .checked_sub(current)
                    .and_then(|r| r.checked_sub(cost))
                {
                    if let Some(e) = first_weight_within(previous, budget, now_ms % w, w) {
                        return Some(start + e);
                    }
                }
                if let Some(e) = first_weight_within(current, tokens - cost, 0, w) {
                    return Some(window_end(window, w).saturating_add(e));
                }
                Some(window_end(window.saturating_add(1), w))
            }
            UpstashAlgorithm::TokenBucket {
                refill_rate,
                max_tokens,
                ..
            } => {
                if cost > max_tokens {
                    return None;
                }
                let Some(key) = self.live_bucket(now_ms) else {
                    return Some(now_ms);
                };
                let (refilled_at, tokens) = refill(Some(key), now_ms, w, refill_rate, max_tokens);
                if tokens >= cost {
                    return Some(now_ms);
                }
                let refills = (cost - tokens).div_ceil(refill_rate);
                let refilled =
                    u64::try_from(u128::from(refilled_at) + u128::from(refills) * u128::from(w))
                        .unwrap_or(u64::MAX);
                let expired = key.expires_at.map_or(u64::MAX, |x| x.saturating_add(1));
                Some(refilled.min(expired))
            }
        }
    }

    /// When the identifier is forgotten: Redis holds nothing that changes a decision and the
    /// cache blocks nothing.
    fn rest_at(&self, now: Time) -> Time {
        let now_ms = now.micros() / MICROS_PER_MILLI;
        let w = self.period_ms;
        let window = now_ms / w;
        let store_ms = match self.store {
            Store::Fixed { .. } if self.fixed_count(window) > 0 => window_end(window, w),
            Store::Fixed { .. } => 0,
            Store::Sliding { .. } => match self.sliding_counts(window) {
                (current, _) if current > 0 => window_end(window.saturating_add(1), w),
                (_, previous) if previous > 0 => window_end(window, w),
                _ => 0,
            },
            // A live key, even a full one, keeps its refill phase until it expires.
            Store::Bucket(_) => match self.live_bucket(now_ms) {
                Some(key) => key.expires_at.map_or(u64::MAX, |x| x.saturating_add(1)),
                None => 0,
            },
        };
        let mut at = ms_time(store_ms);
        if let Some(reset) = self.blocked_until {
            at = at.max(ms_time(reset.saturating_add(1)));
        }
        for &(arrival, reset) in &self.in_flight {
            at = at.max(arrival).max(ms_time(reset.saturating_add(1)));
        }
        at.max(now)
    }
}

/// The end of window `window` (the start of the next), in ms.
fn window_end(window: u64, w: u64) -> u64 {
    window.saturating_add(1).saturating_mul(w)
}

/// The first lab time of millisecond `ms`, saturating.
fn ms_time(ms: u64) -> Time {
    Time(ms.saturating_mul(MICROS_PER_MILLI))
}

/// The token bucket's refill step: the key's (or a fresh bucket's) `refilledAt` and tokens after
/// whole intervals are added.
fn refill(key: Option<BucketKey>, now_ms: u64, interval: u64, rate: u64, max: u64) -> (u64, u64) {
    let Some(key) = key else { return (now_ms, max) };
    let (mut refilled_at, mut tokens) = (key.refilled_at, key.tokens);
    if now_ms >= refilled_at.saturating_add(interval) {
        let refills = (now_ms - refilled_at) / interval;
        let gained = u128::from(refills) * u128::from(rate);
        tokens = u64::try_from((u128::from(tokens) + gained).min(u128::from(max))).unwrap_or(max);
        refilled_at += refills * interval;
    }
    (refilled_at, tokens)
}

/// The first elapsed millisecond `e` in `[from, w)` with `lua_weighted_previous(previous, e, w)
/// <= budget`, if any (the weight never rises with `e`).
fn first_weight_within(previous: u64, budget: u64, from: u64, w: u64) -> Option<u64> {
    let fits = |e: u64| lua_weighted_previous(previous, e, w) <= budget;
    if from >= w || !fits(w - 1) {
        return None;
    }
    let (mut lo, mut hi) = (from, w - 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// `math.floor((1 - (now % window) / window) * previous)` as Redis's Lua computes it: in
/// doubles, Lua's only numbers, each operation rounded to the nearest. `elapsed` is reduced
/// modulo `window` as the script's `now % window` does, so either `now` or the time into the
/// window may be passed. Below 2^53 (any window the profile accepts, at most a year of
/// milliseconds) the remainder and the window are the doubles the script holds.
pub fn lua_weighted_previous(previous: u64, elapsed: u64, window: u64) -> u64 {
    if window == 0 {
        return 0;
    }
    let percentage_in_current = (elapsed % window) as f64 / window as f64;
    ((1.0 - percentage_in_current) * previous as f64).floor() as u64
}

impl Limiter for Upstash {
    /// `ratelimit.limit(id, { rate: cost })`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.call(now, cost).1
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now_ms = now.max(self.latest).micros() / MICROS_PER_MILLI;
        let w = self.period_ms;
        let window = now_ms / w;
        let max = self.params.algorithm.limit() as f64;
        match self.params.algorithm {
            UpstashAlgorithm::FixedWindow { .. } => Gauge {
                level: self.fixed_count(window) as f64,
                max,
                unit: "counted in this window",
            },
            UpstashAlgorithm::SlidingWindow { .. } => {
                let (current, previous) = self.sliding_counts(window);
                let level = lua_weighted_previous(previous, now_ms % w, w) as f64 + current as f64;
                Gauge {
                    level,
                    max,
                    unit: "weighted count",
                }
            }
            UpstashAlgorithm::TokenBucket {
                refill_rate,
                max_tokens,
                ..
            } => {
                let (_, tokens) =
                    refill(self.live_bucket(now_ms), now_ms, w, refill_rate, max_tokens);
                Gauge {
                    level: tokens as f64,
                    max,
                    unit: "tokens",
                }
            }
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let now = now.max(self.latest);
        self.rest_at(now) <= now
    }
}

impl Product for Upstash {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (reply, decision) = self.call(now, cost);
        (decision, reply.to_product_reply())
    }
}

const FAMILY: Family = Family {
    prefix: "upstash-",
    name: "Upstash",
    fields: fields::FIELDS,
};

const TELLS: &str = "the time until the reply's reset, as the library's examples wait";

/// The reply's `reset` (milliseconds on the lab's clock), the time the library's own examples
/// wait until (`reset - Date.now()`); a timeout's reply carries `reset: 0`: no hint.
const RESET_HINT: Hint =
    Hint::Finer(
        |now, _, reply| match reply.get("reset").and_then(|s| s.parse::<u64>().ok()) {
            Some(reset_ms) if reset_ms > 0 => {
                Told::Wait(Time(reset_ms.saturating_mul(1_000)).since(now))
            }
            _ => Told::Nothing,
        },
    );

fn explain(label: &str) -> Explanation {
    explanation(
        format!("Upstash's ratelimit-js, as {label}: epoch-aligned windows in Redis, a 5 s timeout that fails open, and an ephemeral cache that refuses a blocked key locally until its reset."),
        "One or two Redis keys per client and window; the cache holds a reset time per blocked key.",
        "Serverless functions without a long-lived process; the fixed window counts refused calls too, the sliding one does not.",
    )
}

/// The Upstash `FixedWindow` row (`core::limiter::rows`).
pub const FIXED_ROW: ProductRow<Upstash> = ProductRow {
    slug: "upstash-fixed",
    label: "Upstash fixedWindow",
    family: FAMILY,
    build: |s| {
        Upstash::new(
            s.products
                .upstash
                .params(UpstashKind::FixedWindow, s.limit, s.window),
        )
    },
    response: |_, decision, _| super::response::verdict_only(decision),
    hint: RESET_HINT,
    tells: TELLS,
    explain: |_| explain("Upstash fixedWindow"),
    snippet: SnippetOf::Written {
        file_name: "ratelimit.ts",
        write: |s| snippet::write("Upstash fixedWindow", UpstashKind::FixedWindow, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The Upstash `SlidingWindow` row (`core::limiter::rows`).
pub const SLIDING_ROW: ProductRow<Upstash> = ProductRow {
    slug: "upstash-sliding",
    label: "Upstash slidingWindow",
    family: FAMILY,
    build: |s| {
        Upstash::new(
            s.products
                .upstash
                .params(UpstashKind::SlidingWindow, s.limit, s.window),
        )
    },
    response: |_, decision, _| super::response::verdict_only(decision),
    hint: RESET_HINT,
    tells: TELLS,
    explain: |_| explain("Upstash slidingWindow"),
    snippet: SnippetOf::Written {
        file_name: "ratelimit.ts",
        write: |s| snippet::write("Upstash slidingWindow", UpstashKind::SlidingWindow, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The Upstash `TokenBucket` row (`core::limiter::rows`).
pub const TOKEN_ROW: ProductRow<Upstash> = ProductRow {
    slug: "upstash-token",
    label: "Upstash tokenBucket",
    family: FAMILY,
    build: |s| {
        Upstash::new(
            s.products
                .upstash
                .params(UpstashKind::TokenBucket, s.limit, s.window),
        )
    },
    response: |_, decision, _| super::response::verdict_only(decision),
    hint: RESET_HINT,
    tells: TELLS,
    explain: |_| explain("Upstash tokenBucket"),
    snippet: SnippetOf::Written {
        file_name: "ratelimit.ts",
        write: |s| snippet::write("Upstash tokenBucket", UpstashKind::TokenBucket, s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The script's expression with each double operation (the division, the subtraction, the
    /// product) rounded to the nearest double, ties to even, by exact integer arithmetic: a
    /// statement of IEEE 754 that owes nothing to the processor's floating point.
    fn exact_doubles(previous: u64, elapsed: u64, window: u64) -> u64 {
        if previous == 0 || window == 0 {
            return 0;
        }
        let elapsed = elapsed % window;
        let percentage = if elapsed == 0 {
            Double::ZERO
        } else {
            Double::quotient(u128::from(elapsed), u128::from(window))
        };
        let weight = percentage.one_minus();
        let weighted = weight.times(Double::round(u128::from(previous), 0, false));
        u64::try_from(weighted.floor()).unwrap_or(u64::MAX)
    }

    /// A non-negative double held exactly: `m × 2^e` with `m < 2^53`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Double {
        m: u128,
        e: i32,
    }

    impl Double {
        const ZERO: Double = Double { m: 0, e: 0 };
        const SIGNIFICAND_BITS: u32 = 53;

        /// The double nearest to `n × 2^e` (ties to even); `sticky` says a nonzero part below
        /// `n`'s last bit was cut off, and callers pass it only with `n` at least 54 bits long.
        fn round(n: u128, e: i32, sticky: bool) -> Double {
            let len = bit_length(n);
            if len <= Double::SIGNIFICAND_BITS {
                return Double { m: n, e };
            }
            let shift = len - Double::SIGNIFICAND_BITS;
            let kept = n >> shift;
            let rest = n & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
            let (mut m, mut e) = (kept + u128::from(up), e + shift as i32);
            if m == 1u128 << Double::SIGNIFICAND_BITS {
                m >>= 1;
                e += 1;
            }
            Double { m, e }
        }

        /// `a / b` rounded to the nearest double, for `0 < a` and `0 < b < 2^64`.
        fn quotient(a: u128, b: u128) -> Double {
            // Scale so the integer quotient has at least 55 bits; the remainder is the sticky
            // bit.
            let k = (55 + bit_length(b)).saturating_sub(bit_length(a));
            let scaled = a << k;
            Double::round(scaled / b, -(k as i32), !scaled.is_multiple_of(b))
        }

        /// `1 - self` rounded, for `self < 1`.
        fn one_minus(self) -> Double {
            if self.m == 0 {
                return Double { m: 1, e: 0 };
            }
            // self = m / 2^k with k = -e > 0; 1 - self = (2^k - m) / 2^k exactly.
            let k = self.e.unsigned_abs();
            Double::round((1u128 << k) - self.m, self.e, false)
        }

        /// `self × other` rounded.
        fn times(self, other: Double) -> Double {
            Double::round(self.m * other.m, self.e + other.e, false)
        }

        /// `math.floor(self)`.
        fn floor(self) -> u128 {
            if self.e >= 0 {
                self.m
                    .checked_shl(self.e.unsigned_abs())
                    .unwrap_or(u128::MAX)
            } else {
                self.m.checked_shr(self.e.unsigned_abs()).unwrap_or(0)
            }
        }
    }

    fn bit_length(n: u128) -> u32 {
        128 - n.leading_zeros()
    }

    #[test]
    fn the_weighting_is_the_exactly_rounded_double_arithmetic_bit_for_bit() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let windows = [
            1u64,
            2,
            3,
            5,
            7,
            10,
            1000,
            1001,
            9_999,
            10_000,
            60_000,
            86_400_000,
            31_622_400_000,
        ];
        for &w in &windows {
            for _ in 0..2_000 {
                let e = next() % w;
                let p = match next() % 4 {
                    0 => next() % 20,
                    1 => next() % 1_000_000_001,
                    2 => next() % (1 << 53),
                    _ => next(),
                };
                assert_eq!(
                    lua_weighted_previous(p, e, w),
                    exact_doubles(p, e, w),
                    "p={p} e={e} w={w}"
                );
            }
        }
        // Every millisecond of the usual windows, for the counts a window commonly holds.
        for w in [1_000u64, 10_000, 60_000] {
            for e in 0..w {
                for p in [1u64, 2, 3, 7, 10, 49, 50, 99, 100, 1_000, 999_999_999] {
                    assert_eq!(
                        lua_weighted_previous(p, e, w),
                        exact_doubles(p, e, w),
                        "p={p} e={e} w={w}"
                    );
                }
            }
        }
        for w in 1..120u64 {
            for e in 0..w {
                for p in 0..40u64 {
                    assert_eq!(
                        lua_weighted_previous(p, e, w),
                        exact_doubles(p, e, w),
                        "p={p} e={e} w={w}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_doubles_round_ten_previous_requests_at_nine_tenths_down_to_zero() {
        // (1 - 0.9) × 10 is 0.9999999999999998 in doubles.
        assert_eq!(lua_weighted_previous(10, 9_000, 10_000), 0);
        assert_eq!(
            10 * (10_000 - 9_000) / 10_000,
            1,
            "the exact weight would be 1"
        );
    }

    #[test]
    fn a_fresh_bucket_is_full_and_refilled_now() {
        assert_eq!(refill(None, 1234, 1000, 5, 10), (1234, 10));
        let key = BucketKey {
            refilled_at: 0,
            tokens: 2,
            expires_at: None,
        };
        assert_eq!(
            refill(Some(key), 2_500, 1000, 5, 10),
            (2000, 10),
            "two whole intervals, capped"
        );
        assert_eq!(
            refill(Some(key), 999, 1000, 5, 10),
            (0, 2),
            "no partial refill"
        );
    }

    #[test]
    fn windows_that_are_not_whole_milliseconds_are_refused() {
        let err = Upstash::new(UpstashParams::fixed_window(5, Span(1_500))).unwrap_err();
        assert!(matches!(err, ConfigError::Unsupported(_)));
        assert_eq!(
            Upstash::new(UpstashParams::fixed_window(5, Span::ZERO)).unwrap_err(),
            ConfigError::ZeroWindow
        );
        assert!(matches!(
            Upstash::new(UpstashParams::token_bucket(0, Span::from_secs(1), 5)),
            Err(ConfigError::Unsupported(_))
        ));
    }
}
