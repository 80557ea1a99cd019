//! Token bucket: a bucket holds up to `capacity` tokens and gains tokens at a steady rate; each
//! request takes `cost` tokens, and a request that finds too few is rejected.
//!
//! Semantics follow the explainer seed's `tokenBucket` (and the per-user Durable Object seed):
//! the bucket starts full, refills lazily from the clock when a request arrives (no timer), is
//! capped at its capacity, and passes a request when it holds at least `cost` tokens. Defaults,
//! as in the explainer: capacity = limit and refill = limit per window.
//!
//! Tokens are kept exactly: with a refill of `amount` tokens per `per` microseconds, the level is
//! stored in units of 1/`per` token, so a refill of 0.5 per second never drifts. Its promise is
//! "this average rate, with bursts up to the capacity": in any span `t` it passes at most
//! `capacity + rate × t`, which can be close to twice the capacity inside one window.

use crate::core::config::{checked_mul_u64, div_ceil_u128, span_from_u128, ConfigError, Rate, MAX_COUNT};
use crate::core::decision::{Decision, Gauge, Limiter, Verdict};
use crate::core::time::Time;

#[derive(Clone, Debug)]
pub struct TokenBucket {
    capacity: u64,
    refill: Rate,
    /// A full bucket, `capacity × refill.per`, worked out once.
    full: u128,
    /// Tokens × `refill.per` microseconds.
    level: u128,
    last: Time,
}

impl TokenBucket {
    pub fn new(capacity: u64, refill: Rate) -> Result<TokenBucket, ConfigError> {
        if capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        if capacity > MAX_COUNT {
            return Err(ConfigError::TooLarge("capacity"));
        }
        let full = u128::from(capacity) * u128::from(refill.per().micros());
        Ok(TokenBucket { capacity, refill, full, level: full, last: Time::ZERO })
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn refill(&self) -> Rate {
        self.refill
    }

    fn unit(&self) -> u128 {
        u128::from(self.refill.per().micros())
    }

    fn full(&self) -> u128 {
        self.full
    }

    /// The level at `now` after the lazy refill, and the time it is measured at.
    fn level_at(&self, now: Time) -> (u128, Time) {
        let now = now.max(self.last);
        let gained = u128::from(now.since(self.last).micros()) * u128::from(self.refill.amount());
        (self.level.saturating_add(gained).min(self.full()), now)
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, u128, Time) {
        let (level, now) = self.level_at(now);
        let need = u128::from(cost) * self.unit();
        let passes = level >= need;
        let after = if passes { level - need } else { level };
        let rate = u128::from(self.refill.amount());
        let retry_after = if passes || cost > self.capacity {
            None
        } else {
            Some(span_from_u128(div_ceil_u128(need - level, rate)))
        };
        let decision = Decision {
            verdict: if passes { Verdict::Allowed } else { Verdict::Rejected },
            limit: self.capacity,
            remaining: u64::try_from(after / self.unit()).unwrap_or(self.capacity),
            reset_after: span_from_u128(div_ceil_u128(self.full() - after, rate)),
            retry_after,
        };
        (decision, after, now)
    }

    /// Tokens held at `now`, for display.
    pub fn tokens(&self, now: Time) -> f64 {
        self.level_at(now).0 as f64 / self.unit() as f64
    }
}

impl Limiter for TokenBucket {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, after, at) = self.assess(now, cost);
        self.level = after;
        self.last = at;
        decision
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        // A bucket whose full level fits below 2^64 (every real one) is decided in 64 bits:
        // saturated products are then still exact, since they exceed anything the bucket holds.
        if let Some(full) = u64::try_from(self.full).ok().filter(|&f| f < u64::MAX) {
            let now = now.max(self.last);
            let gained = checked_mul_u64(now.since(self.last).micros(), self.refill.amount()).unwrap_or(u64::MAX);
            self.last = now;
            let level = (self.level as u64).saturating_add(gained).min(full);
            let need = checked_mul_u64(cost, self.refill.per().micros()).unwrap_or(u64::MAX);
            let (level, verdict) = if need <= level { (level - need, Verdict::Allowed) } else { (level, Verdict::Rejected) };
            self.level = u128::from(level);
            return verdict;
        }
        let (level, at) = self.level_at(now);
        self.last = at;
        let need = u128::from(cost) * self.unit();
        if level >= need {
            self.level = level - need;
            Verdict::Allowed
        } else {
            self.level = level;
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        self.assess(now, cost).0
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.level_at(now).0 == self.full()
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge { level: self.tokens(now), max: self.capacity as f64, unit: "tokens" }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::Span;

    fn explainer_bucket() -> TokenBucket {
        TokenBucket::new(5, Rate::parse_per_second("0.5").unwrap()).unwrap()
    }

    #[test]
    fn starts_full_and_passes_its_capacity_at_once() {
        let mut bucket = explainer_bucket();
        let passed = (0..8).filter(|_| bucket.decide(Time::ZERO, 1).allowed()).count();
        assert_eq!(passed, 5);
    }

    #[test]
    fn refills_exactly_without_float_drift() {
        let mut bucket = explainer_bucket();
        for _ in 0..5 {
            bucket.decide(Time::ZERO, 1);
        }
        // 0.5 token a second: one whole token after exactly 2 s, not a microsecond before.
        assert!(!bucket.peek(Time(1_999_999), 1).allowed());
        assert!(bucket.decide(Time::from_secs(2), 1).allowed());
    }

    #[test]
    fn a_rejection_says_when_the_next_token_arrives() {
        let mut bucket = explainer_bucket();
        for _ in 0..5 {
            bucket.decide(Time::ZERO, 1);
        }
        let denied = bucket.decide(Time::from_millis(500), 1);
        assert_eq!(denied.retry_after, Some(Span::from_millis(1500)));
        assert_eq!(denied.reset_after, Span::from_millis(9500));
    }

    #[test]
    fn never_holds_more_than_its_capacity_after_a_long_idle() {
        let mut bucket = explainer_bucket();
        bucket.decide(Time::ZERO, 1);
        let passed = (0..10).filter(|_| bucket.decide(Time::from_secs(3600), 1).allowed()).count();
        assert_eq!(passed, 5);
    }

    #[test]
    fn a_zero_capacity_is_an_error() {
        assert_eq!(TokenBucket::new(0, Rate::parse_per_second("1").unwrap()).unwrap_err(), ConfigError::ZeroCapacity);
    }
}
