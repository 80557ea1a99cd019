//! Fixed window: cut time into slices of one window, aligned to the clock (slice `k` covers
//! `[k·window, (k+1)·window)`), and count the requests let through in the current slice.
//!
//! Semantics follow the explainer seed's `fixedWindow`: the count resets to zero when a new slice
//! starts, and a request passes while `count + cost <= limit`. It keeps one counter per key, and
//! its flaw is the seam: a full slice just before a boundary and another just after let through
//! `2 × limit` within a moment. Rejected requests are not counted.

use crate::core::config::Quota;
use crate::core::decision::{Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time};

#[derive(Clone, Debug)]
pub struct FixedWindow {
    quota: Quota,
    slice: u64,
    /// Where `slice` ends, so that `admit` finds the slice without dividing.
    slice_end: u64,
    count: u64,
    latest: Time,
}

impl FixedWindow {
    pub fn new(quota: Quota) -> FixedWindow {
        FixedWindow {
            quota,
            slice: 0,
            slice_end: quota.window().micros(),
            count: 0,
            latest: Time::ZERO,
        }
    }

    /// The slice `now` falls in, and how many passed in it so far.
    fn current(&self, now: Time) -> (u64, u64) {
        let slice = now.micros() / self.quota.window().micros();
        let count = if slice == self.slice { self.count } else { 0 };
        (slice, count)
    }

    fn end_of(&self, slice: u64) -> u64 {
        slice
            .saturating_add(1)
            .saturating_mul(self.quota.window().micros())
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, u64, u64) {
        let now = now.max(self.latest);
        let (slice, count) = self.current(now);
        let limit = self.quota.limit();
        let slice_end = self.end_of(slice);
        let until_next_slice = Span(slice_end.saturating_sub(now.micros()));
        let passes = count.saturating_add(cost) <= limit;
        let used = if passes { count + cost } else { count };
        let decision = Decision {
            verdict: if passes {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit,
            remaining: limit - used,
            reset_after: if used == 0 {
                Span::ZERO
            } else {
                until_next_slice
            },
            retry_after: match (passes, cost <= limit) {
                (true, _) => None,
                (false, true) => Some(until_next_slice),
                (false, false) => None,
            },
        };
        (decision, slice, used)
    }
}

impl Limiter for FixedWindow {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, slice, used) = self.assess(now, cost);
        self.latest = now.max(self.latest);
        if slice != self.slice {
            self.slice = slice;
            self.slice_end = self.end_of(slice);
        }
        self.count = used;
        decision
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        let now = now.max(self.latest);
        self.latest = now;
        if now.micros() >= self.slice_end {
            let slice = now.micros() / self.quota.window().micros();
            if slice != self.slice {
                self.slice = slice;
                self.slice_end = self.end_of(slice);
                self.count = 0;
            }
        }
        if self.count.saturating_add(cost) <= self.quota.limit() {
            self.count += cost;
            Verdict::Allowed
        } else {
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        self.assess(now, cost).0
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.current(now.max(self.latest)).1 == 0
    }

    fn gauge(&self, now: Time) -> Gauge {
        let (_, count) = self.current(now.max(self.latest));
        Gauge {
            level: count as f64,
            max: self.quota.limit() as f64,
            unit: "in this window",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five_per_ten() -> FixedWindow {
        FixedWindow::new(Quota::new(5, Span::from_secs(10)).unwrap())
    }

    #[test]
    fn lets_a_full_slice_through_on_each_side_of_the_seam() {
        let mut limiter = five_per_ten();
        let before: Vec<bool> = (0..6)
            .map(|i| {
                limiter
                    .decide(Time::from_millis(9_000 + i * 100), 1)
                    .allowed()
            })
            .collect();
        assert_eq!(before, [true, true, true, true, true, false]);
        let after: Vec<bool> = (0..5)
            .map(|i| {
                limiter
                    .decide(Time::from_millis(10_000 + i * 100), 1)
                    .allowed()
            })
            .collect();
        assert_eq!(after, [true; 5]);
    }

    #[test]
    fn a_rejection_says_to_come_back_when_the_slice_ends() {
        let mut limiter = five_per_ten();
        for _ in 0..5 {
            limiter.decide(Time::from_millis(3_800), 1);
        }
        let denied = limiter.decide(Time::from_millis(3_800), 1);
        assert_eq!(denied.verdict, Verdict::Rejected);
        assert_eq!(denied.retry_after, Some(Span::from_millis(6_200)));
        assert_eq!(denied.remaining, 0);
    }

    #[test]
    fn peeking_does_not_consume_quota() {
        let mut limiter = five_per_ten();
        for _ in 0..10 {
            assert_eq!(limiter.peek(Time::ZERO, 1).remaining, 4);
        }
        assert_eq!(limiter.decide(Time::ZERO, 1).remaining, 4);
    }

    #[test]
    fn a_request_costlier_than_the_limit_never_passes_and_has_no_retry_time() {
        let mut limiter = five_per_ten();
        let d = limiter.decide(Time::ZERO, 6);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    }
}
