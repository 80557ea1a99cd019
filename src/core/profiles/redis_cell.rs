//! redis-cell's `CL.THROTTLE key max_burst count period [quantity]`: GCRA as the redis-cell
//! module implements it (brandur/redis-cell, `redis-cell-impl/src/lib.rs`, and the reply built in
//! the module's command handler).
//!
//! - emission interval `T = period / count` (nanoseconds; the module divides in floating point
//!   and truncates, which equals integer division for every quotient an f64 holds exactly);
//! - delay variation tolerance `DVT = T × (max_burst + 1)`, and `limit = max_burst + 1`;
//! - `increment = T × quantity`; `tat` is the stored theoretical arrival time, or now;
//!   `new_tat = max(now, tat) + increment`; the request is limited when
//!   `now < new_tat - DVT`, and then `retry_after = new_tat - DVT - now` unless the request is
//!   larger than the whole tolerance (then -1), and `reset_after = tat - now`;
//!   otherwise `tat = new_tat` and `reset_after = new_tat - now`;
//! - `remaining = (DVT - reset_after) / T` in whole microseconds, truncated, when
//!   `DVT - reset_after > -T`, else 0;
//! - the reply is `[limited, limit, remaining, retry_after, reset_after]` with both times in
//!   whole seconds, a partial second (of at least a millisecond) rounded up, and `retry_after`
//!   `-1` when allowed. Quantity 0 consumes nothing (though, as in the module, it stores
//!   `max(now, tat)`, which changes no later decision).
//!
//! The surprise users report: `limit` is `max_burst + 1`, not `max_burst`, so
//! `CL.THROTTLE user123 15 30 60` lets 16 requests through at once.
//!
//! As a lab [`Limiter`], a request of `cost` is `CL.THROTTLE key max_burst count period cost`;
//! the [`Decision`] takes the internal result (nanoseconds, rounded up to the microsecond) and
//! the [`Product`] reply is the command's five integers, named as above.

use crate::core::config::{ConfigError, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::{Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time};

const NANOS_PER_MICRO: i128 = 1_000;
const NANOS_PER_SEC: i128 = 1_000_000_000;
const NANOS_PER_MILLI: i128 = 1_000_000;

/// Why the module would refuse the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThrottleError {
    /// `count` of 0 or a zero period: "Zero rates are not supported".
    ZeroRate,
}

/// The module's five-integer reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottleReply {
    /// 0 allowed, 1 limited.
    pub limited: i64,
    /// `max_burst + 1`.
    pub limit: i64,
    pub remaining: i64,
    /// Seconds until the request would be allowed; -1 when it was allowed (or never can be).
    pub retry_after: i64,
    /// Seconds until the limit is fully available again.
    pub reset_after: i64,
}

impl ThrottleReply {
    /// The reply the command builds from the internal result.
    pub fn from_result(r: &RateLimitResult) -> ThrottleReply {
        ThrottleReply {
            limited: i64::from(r.limited),
            limit: r.limit,
            remaining: r.remaining.max(0),
            retry_after: reply_seconds(r.retry_after_ns),
            reset_after: reply_seconds(r.reset_after_ns).max(0),
        }
    }
}

/// The internal result, before the reply rounds it to seconds (what redis-cell's tests check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitResult {
    pub limited: bool,
    pub limit: i64,
    pub remaining: i64,
    /// Nanoseconds; -1 s when not applicable.
    pub retry_after_ns: i128,
    /// Nanoseconds.
    pub reset_after_ns: i128,
}

/// The arguments of `CL.THROTTLE key max_burst count period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedisCellParams {
    pub max_burst: u64,
    /// Requests allowed per `period`.
    pub count: u64,
    pub period: Span,
}

impl RedisCellParams {
    /// The lab's "limit per window": `count = limit` per `period = window`, and
    /// `max_burst = limit - 1`, so that `limit` requests (not `limit + 1`) pass at once.
    pub fn defaults_for(limit: u64, window: Span) -> RedisCellParams {
        RedisCellParams { max_burst: limit.saturating_sub(1), count: limit, period: window }
    }
}

/// One key's state under one `CL.THROTTLE` configuration.
#[derive(Clone, Debug)]
pub struct RedisCell {
    limit: i64,
    emission_ns: i128,
    tolerance_ns: i128,
    /// The stored theoretical arrival time, in nanoseconds; `None` when the key is absent.
    tat_ns: Option<i128>,
    /// The latest time the lab has decided at (earlier times are taken as this one).
    latest: Time,
}

impl RedisCell {
    /// `CL.THROTTLE key max_burst count period`.
    pub fn new(max_burst: u64, count: u64, period: Span) -> Result<RedisCell, ThrottleError> {
        let period_ns = i128::from(period.micros()) * NANOS_PER_MICRO;
        if count == 0 || period_ns == 0 {
            return Err(ThrottleError::ZeroRate);
        }
        let emission_ns = period_ns / i128::from(count);
        if emission_ns == 0 {
            return Err(ThrottleError::ZeroRate);
        }
        let limit = i64::try_from(max_burst).unwrap_or(i64::MAX - 1).saturating_add(1);
        Ok(RedisCell { limit, emission_ns, tolerance_ns: emission_ns * i128::from(limit), tat_ns: None, latest: Time::ZERO })
    }

    /// The command's configuration checked as the lab checks any other: the module's refusal
    /// of a zero rate becomes [`ConfigError::Unsupported`], and counts and periods beyond the
    /// lab's bounds are refused as too large.
    pub fn from_params(params: RedisCellParams) -> Result<RedisCell, ConfigError> {
        if params.max_burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("max_burst"));
        }
        if params.count > MAX_COUNT {
            return Err(ConfigError::TooLarge("count"));
        }
        if params.period > MAX_WINDOW {
            return Err(ConfigError::TooLarge("period"));
        }
        RedisCell::new(params.max_burst, params.count, params.period).map_err(|ThrottleError::ZeroRate| {
            ConfigError::Unsupported("redis-cell refuses this rate: \"Zero rates are not supported\" (count 0, or a period shorter than count nanoseconds)")
        })
    }

    /// The command at `now` for `quantity` (0 peeks).
    pub fn rate_limit(&mut self, now: Time, quantity: u64) -> RateLimitResult {
        let now_ns = i128::from(now.micros()) * NANOS_PER_MICRO;
        let increment = self.emission_ns * i128::from(quantity);
        let tat = self.tat_ns.unwrap_or(now_ns);
        let new_tat = tat.max(now_ns) + increment;
        let allow_at = new_tat - self.tolerance_ns;
        let diff = now_ns - allow_at;
        let (limited, ttl, retry_after_ns) = if diff < 0 {
            let retry = if increment <= self.tolerance_ns { -diff } else { -NANOS_PER_SEC };
            (true, tat - now_ns, retry)
        } else {
            // The module writes the new TAT even for quantity 0: a peek moves a stale TAT up to now.
            self.tat_ns = Some(new_tat);
            (false, new_tat - now_ns, -NANOS_PER_SEC)
        };
        let next = self.tolerance_ns - ttl;
        let remaining = if next > -self.emission_ns {
            // Whole microseconds over whole microseconds, truncated, as the module does.
            let (next_us, ei_us) = (next / NANOS_PER_MICRO, (self.emission_ns / NANOS_PER_MICRO).max(1));
            i64::try_from(next_us / ei_us).unwrap_or(i64::MAX)
        } else {
            0
        };
        RateLimitResult { limited, limit: self.limit, remaining, retry_after_ns, reset_after_ns: ttl }
    }

    /// The command's reply at `now` for `quantity`.
    pub fn throttle(&mut self, now: Time, quantity: u64) -> ThrottleReply {
        ThrottleReply::from_result(&self.rate_limit(now, quantity))
    }
}

/// Whole seconds, plus one when at least a millisecond is left over (the module's rounding).
fn reply_seconds(ns: i128) -> i64 {
    let whole = ns / NANOS_PER_SEC;
    let sub_millis = (ns % NANOS_PER_SEC) / NANOS_PER_MILLI;
    i64::try_from(whole + i128::from(sub_millis > 0)).unwrap_or(i64::MAX)
}

/// Nanoseconds (never negative here) to a span, rounded up to the microsecond.
fn span_up(ns: i128) -> Span {
    let micros = u128::try_from(ns).unwrap_or(0).div_ceil(NANOS_PER_MICRO as u128);
    Span(u64::try_from(micros).unwrap_or(u64::MAX))
}

impl RedisCell {
    /// The decision for `cost` at `now` (earlier times taken as the latest seen), and the
    /// module's own result it came from.
    fn evaluate(&mut self, now: Time, cost: u64) -> (Decision, RateLimitResult) {
        let now = now.max(self.latest);
        self.latest = now;
        let r = self.rate_limit(now, cost);
        let decision = Decision {
            verdict: if r.limited { Verdict::Rejected } else { Verdict::Allowed },
            limit: u64::try_from(r.limit).unwrap_or(u64::MAX),
            // The module divides whole microseconds, so with an emission interval that is not a
            // whole number of them its `remaining` can exceed the limit; the reply keeps that
            // figure, the common HTTP response never promises more than the limit.
            remaining: u64::try_from(r.remaining.clamp(0, r.limit)).unwrap_or(0),
            reset_after: span_up(r.reset_after_ns),
            // The module's -1 s means "allowed" or "can never be allowed": no time to name.
            retry_after: (r.limited && r.retry_after_ns >= 0).then(|| span_up(r.retry_after_ns)),
        };
        (decision, r)
    }
}

impl Limiter for RedisCell {
    /// `CL.THROTTLE key max_burst count period cost`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.evaluate(now, cost).0
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        self.clone().evaluate(now, cost).0
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now_ns = i128::from(now.max(self.latest).micros()) * NANOS_PER_MICRO;
        let debt = self.tat_ns.map_or(0, |tat| (tat - now_ns).max(0));
        let level = (self.tolerance_ns - debt) as f64 / self.emission_ns as f64;
        Gauge { level: level.max(0.0), max: self.limit as f64, unit: "requests of burst left" }
    }

    /// A TAT at or before now decides exactly as an absent key.
    fn is_at_rest(&self, now: Time) -> bool {
        let now_ns = i128::from(now.max(self.latest).micros()) * NANOS_PER_MICRO;
        self.tat_ns.is_none_or(|tat| tat <= now_ns)
    }
}

impl Product for RedisCell {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, r) = self.evaluate(now, cost);
        let reply = ThrottleReply::from_result(&r);
        let fields = vec![
            ("limited", reply.limited.to_string()),
            ("limit", reply.limit.to_string()),
            ("remaining", reply.remaining.to_string()),
            ("retry_after", reply.retry_after.to_string()),
            ("reset_after", reply.reset_after.to_string()),
        ];
        (decision, ProductReply { fields })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_products_reply_is_the_commands_reply_for_the_same_calls() {
        let mut via_lab = RedisCell::new(4, 1, Span::from_secs(1)).unwrap();
        let mut via_command = via_lab.clone();
        for (ms, quantity) in [(0u64, 1u64), (0, 3), (0, 2), (300, 1), (2_500, 6), (2_500, 0), (9_000, 5)] {
            let now = Time::from_millis(ms);
            let (_, reply) = via_lab.decide_with_reply(now, quantity);
            let expected = via_command.throttle(now, quantity);
            let fields = [expected.limited, expected.limit, expected.remaining, expected.retry_after, expected.reset_after];
            let got: Vec<i64> = reply.fields.iter().map(|(_, v)| v.parse().unwrap()).collect();
            assert_eq!(got, fields, "at {ms} ms for {quantity}");
        }
    }

    #[test]
    fn nanoseconds_round_up_to_the_next_microsecond() {
        assert_eq!(span_up(1), Span(1));
        assert_eq!(span_up(1_000), Span(1));
        assert_eq!(span_up(1_001), Span(2));
        assert_eq!(span_up(-5), Span::ZERO);
    }
}
