//! `FixedWindowRateLimiter` over `MemoryStorage.incr`: one counter, whose window starts at the
//! hit that finds it at 0 and ends `expiry` seconds later; refused hits are counted.

use crate::core::config::ConfigError;
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time};

use super::{reply, Clock, PyLimitsParams, WindowStats};

/// The key's counter: `storage[key]` and `expirations[key]`, set together by `incr`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Counter {
    count: u64,
    /// `time.time() + expiry` at the hit that found the counter at 0.
    expires: f64,
}

/// `FixedWindowRateLimiter(MemoryStorage())` for one item and one key.
#[derive(Clone, Debug)]
pub struct FixedWindowRateLimiter {
    params: PyLimitsParams,
    expiry: u64,
    clock: Clock,
    counter: Option<Counter>,
    latest: Time,
}

impl FixedWindowRateLimiter {
    pub fn new(params: PyLimitsParams) -> Result<FixedWindowRateLimiter, ConfigError> {
        let expiry = params.validate()?;
        Ok(FixedWindowRateLimiter {
            params,
            expiry,
            clock: Clock {
                epoch: params.epoch,
            },
            counter: None,
            latest: Time::ZERO,
        })
    }

    pub fn params(&self) -> &PyLimitsParams {
        &self.params
    }

    /// `storage.get(key)`'s view at the float `now`: the counter unless it has expired.
    fn live(&self, now: f64) -> Option<Counter> {
        self.counter.filter(|c| c.expires > now)
    }

    fn count_at(&self, now: f64) -> u64 {
        self.live(now).map_or(0, |c| c.count)
    }

    /// `limiter.hit(item, cost=cost)` at `now`.
    pub fn hit(&mut self, now: Time, cost: u64) -> bool {
        let now = now.max(self.latest);
        self.latest = now;
        let t = self.clock.read(now);
        let (before, expires) = match self.live(t) {
            Some(c) => (c.count, c.expires),
            None => (0, f64::NAN),
        };
        let count = before.saturating_add(cost);
        // `if self.storage[key] == amount:` holds exactly when the counter was at 0.
        let expires = if before == 0 {
            t + self.expiry as f64
        } else {
            expires
        };
        self.counter = Some(Counter { count, expires });
        count <= self.params.amount
    }

    /// `limiter.test(item, cost=cost)`: `storage.get(key) < amount - cost + 1`.
    pub fn test(&self, now: Time, cost: u64) -> bool {
        let t = self.clock.read(now.max(self.latest));
        i128::from(self.count_at(t)) < i128::from(self.params.amount) - i128::from(cost) + 1
    }

    /// `limiter.get_window_stats(item)`: `(expirations.get(key, now), max(0, amount - count))`.
    pub fn get_window_stats(&self, now: Time) -> WindowStats {
        let t = self.clock.read(now.max(self.latest));
        let live = self.live(t);
        WindowStats {
            reset_time: live.map_or(t, |c| c.expires),
            remaining: (i128::from(self.params.amount) - i128::from(live.map_or(0, |c| c.count)))
                .max(0),
        }
    }

    /// The first lab time at which the counter is gone (`expirations[key] <= time.time()`).
    fn expired_at(&self, now: Time, c: Counter) -> Option<Time> {
        self.clock.first_reading_at_least(now, c.expires)
    }

    fn call(&mut self, now: Time, cost: u64) -> (Decision, WindowStats, bool) {
        let hit = self.hit(now, cost);
        let now = self.latest;
        let stats = self.get_window_stats(now);
        let t = self.clock.read(now);
        let until_gone = match self.live(t) {
            Some(c) if c.count > 0 => self
                .expired_at(now, c)
                .map_or(Span(u64::MAX), |at| at.since(now)),
            _ => Span::ZERO,
        };
        let decision = Decision {
            verdict: if hit {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit: self.params.amount,
            remaining: stats.remaining_count(),
            reset_after: until_gone,
            // A fresh window takes the cost alone: it passes then unless it is above `amount`.
            retry_after: if hit || cost > self.params.amount {
                None
            } else {
                Some(until_gone)
            },
        };
        (decision, stats, hit)
    }
}

impl Limiter for FixedWindowRateLimiter {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.call(now, cost).0
    }

    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        if self.hit(now, cost) {
            Verdict::Allowed
        } else {
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let t = self.clock.read(now.max(self.latest));
        Gauge {
            level: self.count_at(t) as f64,
            max: self.params.amount as f64,
            unit: "counted in this window",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let t = self.clock.read(now.max(self.latest));
        self.count_at(t) == 0
    }
}

impl Product for FixedWindowRateLimiter {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, stats, hit) = self.call(now, cost);
        (decision, reply(hit, &stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::python_limits::Granularity;

    fn limiter(amount: u64, expiry_secs: u64) -> FixedWindowRateLimiter {
        FixedWindowRateLimiter::new(
            PyLimitsParams::new(amount, expiry_secs, Granularity::Second).with_epoch(1_000_000),
        )
        .unwrap()
    }

    #[test]
    fn a_refused_hit_is_still_counted_and_never_rolled_back() {
        let mut l = limiter(2, 10);
        assert!(l.hit(Time::ZERO, 1));
        assert!(l.hit(Time::ZERO, 1));
        assert!(!l.hit(Time::from_secs(1), 1));
        assert_eq!(l.counter.map(|c| c.count), Some(3));
        assert!(!l.test(Time::from_secs(1), 0), "3 < 2 - 0 + 1 is false");
    }

    #[test]
    fn the_window_starts_at_the_first_hit_and_is_not_extended() {
        let mut l = limiter(1, 10);
        assert!(l.hit(Time::from_secs(5), 1));
        assert!(!l.hit(Time::from_secs(14), 1));
        assert!(!l.hit(Time(14_999_999), 1));
        assert!(l.hit(Time::from_secs(15), 1), "expired at exactly 5 + 10 s");
    }

    #[test]
    fn a_hit_of_cost_zero_on_an_empty_counter_starts_a_window() {
        let mut l = limiter(1, 10);
        assert!(l.hit(Time::ZERO, 0));
        assert_eq!(l.get_window_stats(Time::ZERO).reset_time, 1_000_010.0);
        // The next positive hit finds the counter at 0 and starts the window again.
        assert!(l.hit(Time::from_secs(3), 1));
        assert_eq!(l.get_window_stats(Time::ZERO).reset_time, 1_000_013.0);
    }

    #[test]
    fn a_cost_above_the_amount_is_counted_and_can_never_pass() {
        let mut l = limiter(2, 10);
        let d = l.decide(Time::ZERO, 3);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert_eq!(d.reset_after, Span::from_secs(10));
        assert!(!l.hit(Time::from_secs(1), 1), "the window already holds 3");
    }

    #[test]
    fn a_refused_hit_is_told_to_wait_for_the_end_of_the_window() {
        let mut l = limiter(1, 10);
        assert!(l.hit(Time::from_millis(2_500), 1));
        let d = l.decide(Time::from_secs(4), 1);
        assert_eq!(d.retry_after, Some(Span::from_millis(8_500)));
        assert_eq!(d.remaining, 0);
        assert!(l.peek(Time::from_millis(12_500), 1).allowed());
        assert!(!l.peek(Time(12_499_999), 1).allowed());
    }

    #[test]
    fn stats_of_an_empty_key_name_now_and_the_whole_amount() {
        let l = limiter(10, 2);
        let s = l.get_window_stats(Time::from_secs(3));
        assert_eq!((s.reset_time, s.remaining), (1_000_003.0, 10));
    }

    #[test]
    fn admit_changes_the_state_as_decide_does() {
        let mut a = limiter(2, 10);
        let mut b = limiter(2, 10);
        for (t, cost) in [(0, 1), (1, 2), (3, 1), (11, 1), (12, 5)] {
            let now = Time::from_secs(t);
            assert_eq!(a.admit(now, cost), b.decide(now, cost).verdict);
        }
        assert_eq!(a.counter, b.counter);
    }
}
