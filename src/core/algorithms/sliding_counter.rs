//! Sliding-window counter: the weighted two-bucket approximation of a sliding log.
//!
//! Semantics follow the sliding-window Durable Object seed ("Step 2"): keep a count for the
//! current clock-aligned bucket and for the previous one, and estimate the trailing window as
//! `previous × (1 - elapsed / window) + current`, where `elapsed` is how far `now` is into the
//! current bucket. A request passes when `estimate + cost <= limit`; only passed requests are
//! counted, like the sliding log. The comparison is done in integers scaled by the window, so the
//! estimate is exact, never a float.
//!
//! With `count_refused`, refused requests are counted too, as a counter incremented by every hit
//! (Python `limits`' storage, Upstash's sliding window) is: a client that keeps knocking then
//! keeps its own estimate above the limit.
//!
//! The bound it keeps (checked by a property test): in any window, at most `2 × limit - 1`
//! requests pass. A window spans at most two buckets, each holding at most `limit`; and a request
//! late in the second bucket still sees most of the first one through its weight, so the two can
//! never both be full. It meets `limit` exactly on steady traffic, and needs two integers per key
//! whatever the limit, which is why it suits large limits.

use crate::core::config::{span_from_u128, Quota};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time};

#[derive(Clone, Debug)]
pub struct SlidingCounter {
    quota: Quota,
    count_refused: bool,
    bucket: u64,
    /// Where `bucket` starts (`bucket × window`), so that `admit` finds the bucket without dividing.
    start: u64,
    current: u64,
    previous: u64,
    latest: Time,
}

/// The two counts as seen from one moment.
#[derive(Clone, Copy, Debug)]
struct View {
    bucket: u64,
    current: u64,
    previous: u64,
    /// Microseconds into the current bucket.
    elapsed: u64,
}

impl SlidingCounter {
    /// Counts only what passed (the seed's counter).
    pub fn new(quota: Quota) -> SlidingCounter {
        SlidingCounter::with_options(quota, false)
    }

    /// True when refused requests are counted too (`count_refused`).
    pub fn counts_refused(&self) -> bool {
        self.count_refused
    }

    pub fn with_options(quota: Quota, count_refused: bool) -> SlidingCounter {
        SlidingCounter {
            quota,
            count_refused,
            bucket: 0,
            start: 0,
            current: 0,
            previous: 0,
            latest: Time::ZERO,
        }
    }

    fn view(&self, now: Time) -> View {
        let w = self.quota.window().micros();
        let bucket = now.micros() / w;
        let elapsed = now.micros() % w;
        let (current, previous) = if bucket == self.bucket {
            (self.current, self.previous)
        } else if Some(bucket) == self.bucket.checked_add(1) {
            (0, self.current)
        } else {
            (0, 0)
        };
        View {
            bucket,
            current,
            previous,
            elapsed,
        }
    }

    /// The estimate times the window: `previous × (window - elapsed) + current × window`.
    fn scaled_estimate(&self, v: &View) -> u128 {
        let w = u128::from(self.quota.window().micros());
        u128::from(v.previous) * (w - u128::from(v.elapsed)) + u128::from(v.current) * w
    }

    /// How long after `v`'s moment a request of `cost` first fits; `None` if it never can.
    fn wait_for(&self, v: &View, cost: u64) -> Option<Span> {
        let limit = u128::from(self.quota.limit());
        let cost = u128::from(cost);
        if cost > limit {
            return None;
        }
        let w = u128::from(self.quota.window().micros());
        let (prev, cur, elapsed) = (
            u128::from(v.previous),
            u128::from(v.current),
            u128::from(v.elapsed),
        );
        if cur + cost <= limit {
            // Wait within this bucket until prev × (w - e') <= (limit - cur - cost) × w.
            let room = (limit - cur - cost) * w;
            // prev > 0 here, otherwise the request would already fit.
            // The smallest e' with prev × (w - e') <= room is w - floor(room / prev).
            let e_needed = w.saturating_sub(room / prev.max(1));
            return Some(span_from_u128(e_needed.saturating_sub(elapsed)));
        }
        // Otherwise wait into the next bucket, where this bucket's count becomes the previous one:
        // need cur × (w - e') <= (limit - cost) × w.
        let to_next = w - elapsed;
        let room = (limit - cost) * w;
        let e_needed = w.saturating_sub(room / cur.max(1));
        Some(span_from_u128(to_next + e_needed))
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, View) {
        let now = now.max(self.latest);
        let mut v = self.view(now);
        let w = u128::from(self.quota.window().micros());
        let limit = self.quota.limit();
        let passes = self.scaled_estimate(&v) + u128::from(cost) * w <= u128::from(limit) * w;
        let retry_after = if passes {
            None
        } else {
            self.wait_for(&v, cost)
        };
        if passes || self.count_refused {
            v.current = v.current.saturating_add(cost);
        }
        let estimate_after = self.scaled_estimate(&v);
        let remaining = (u128::from(limit) * w).saturating_sub(estimate_after) / w;
        let to_bucket_end = w - u128::from(v.elapsed);
        let reset_after = if v.current > 0 {
            to_bucket_end + w
        } else if v.previous > 0 {
            to_bucket_end
        } else {
            0
        };
        let decision = Decision {
            verdict: if passes {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit,
            remaining: u64::try_from(remaining).unwrap_or(limit),
            reset_after: span_from_u128(reset_after),
            retry_after,
        };
        (decision, v)
    }

    /// The current estimate as a plain number, for display.
    pub fn estimate(&self, now: Time) -> f64 {
        let v = self.view(now.max(self.latest));
        self.scaled_estimate(&v) as f64 / self.quota.window().micros() as f64
    }
}

impl Limiter for SlidingCounter {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, v) = self.assess(now, cost);
        self.latest = now.max(self.latest);
        self.bucket = v.bucket;
        self.start = self.latest.micros() - v.elapsed;
        self.current = v.current;
        self.previous = v.previous;
        decision
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        let now = now.max(self.latest);
        self.latest = now;
        let w = self.quota.window().micros();
        let mut elapsed = now.micros() - self.start;
        if elapsed >= w {
            let bucket = now.micros() / w;
            self.previous = if Some(bucket) == self.bucket.checked_add(1) {
                self.current
            } else {
                0
            };
            self.current = 0;
            self.bucket = bucket;
            elapsed = now.micros() % w;
            self.start = now.micros() - elapsed;
        }
        // previous × (w - elapsed) + (current + cost) × w <= limit × w. The counts are at most
        // MAX_COUNT (< 2^30) and a window under 2^32 µs (71 minutes) keeps every product under
        // 2^63, so the usual case is exact in 64 bits (one instruction per product in Wasm, where
        // 128-bit products are a library call); otherwise it is done in 128 bits.
        let after = self.current.saturating_add(cost);
        let (previous, limit) = (self.previous, self.quota.limit());
        let fits = if w < 1 << 32 && after < 1 << 31 {
            previous * (w - elapsed) + after * w <= limit * w
        } else {
            let w = u128::from(w);
            u128::from(previous) * (w - u128::from(elapsed)) + u128::from(after) * w
                <= u128::from(limit) * w
        };
        // A refusal reads `count_refused` only on its own branch: in WebAssembly a verdict took
        // 12 ns instead of 10 when every request read it.
        if fits {
            self.current = after;
            Verdict::Allowed
        } else {
            if self.count_refused {
                self.current = after;
            }
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let v = self.view(now.max(self.latest));
        v.current == 0 && v.previous == 0
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.estimate(now),
            max: self.quota.limit() as f64,
            unit: "estimated in the window",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ten_per_minute() -> SlidingCounter {
        SlidingCounter::new(Quota::new(10, Span::from_secs(60)).unwrap())
    }

    #[test]
    fn at_the_boundary_the_previous_bucket_counts_in_full() {
        let mut limiter = ten_per_minute();
        for _ in 0..10 {
            assert!(limiter.decide(Time::from_millis(59_500), 1).allowed());
        }
        assert!(
            !limiter.decide(Time::from_millis(60_000), 1).allowed(),
            "no double burst at the seam"
        );
    }

    #[test]
    fn a_third_of_the_way_in_the_previous_bucket_counts_two_thirds() {
        let mut limiter = ten_per_minute();
        for _ in 0..9 {
            limiter.decide(Time::from_secs(30), 1);
        }
        // 20 s into the next minute: 9 × 2/3 = 6 estimated, so 4 more fit.
        let now = Time::from_secs(80);
        assert_eq!(limiter.peek(now, 1).remaining, 3);
        let passed = (0..10).filter(|_| limiter.decide(now, 1).allowed()).count();
        assert_eq!(passed, 4);
    }

    #[test]
    fn retry_after_is_the_exact_moment_the_estimate_makes_room() {
        let mut limiter = ten_per_minute();
        for _ in 0..10 {
            limiter.decide(Time::from_secs(30), 1);
        }
        let now = Time::from_secs(65);
        let denied = limiter.decide(now, 1);
        let wait = denied.retry_after.unwrap();
        let at = now.plus(wait);
        assert!(!limiter.peek(Time(at.micros() - 1), 1).allowed());
        assert!(limiter.peek(at, 1).allowed());
        // 10 × (1 - e/60) + 1 <= 10 first holds at e = 6 s, i.e. 66 s.
        assert_eq!(at, Time::from_secs(66));
    }

    #[test]
    fn a_full_current_bucket_must_wait_into_the_next_one() {
        let mut limiter = ten_per_minute();
        for _ in 0..10 {
            limiter.decide(Time::from_secs(1), 1);
        }
        let denied = limiter.decide(Time::from_secs(2), 1);
        let at = Time::from_secs(2).plus(denied.retry_after.unwrap());
        assert!(limiter.peek(at, 1).allowed());
        assert!(!limiter.peek(Time(at.micros() - 1), 1).allowed());
    }

    #[test]
    fn after_two_idle_buckets_everything_is_forgotten() {
        let mut limiter = ten_per_minute();
        for _ in 0..10 {
            limiter.decide(Time::from_secs(1), 1);
        }
        assert_eq!(limiter.peek(Time::from_secs(120), 1).remaining, 9);
    }

    #[test]
    fn a_counter_that_counts_refused_hits_keeps_a_client_that_never_stops_above_the_limit() {
        let quota = Quota::new(5, Span::from_secs(10)).unwrap();
        let mut plain = SlidingCounter::new(quota);
        let mut counting = SlidingCounter::with_options(quota, true);
        let every_second: Vec<Time> = (0..60).map(Time::from_secs).collect();
        let passed = |l: &mut SlidingCounter| {
            every_second
                .iter()
                .filter(|&&t| l.admit(t, 1).passes())
                .count()
        };
        assert_eq!(passed(&mut plain), 25);
        // 10 hits in each window weigh at least 5 at any moment of the next one.
        assert_eq!(passed(&mut counting), 5);
    }

    #[test]
    fn counting_refused_hits_decide_and_admit_agree() {
        let quota = Quota::new(3, Span::from_secs(2)).unwrap();
        let mut deciding = SlidingCounter::with_options(quota, true);
        let mut admitting = SlidingCounter::with_options(quota, true);
        for i in 0..200u64 {
            let t = Time::from_millis(i * 137 % 9_000 + i * 40);
            let peeked = deciding.peek(t, 1 + i % 2);
            let decided = deciding.decide(t, 1 + i % 2);
            assert_eq!(peeked, decided, "#{i}");
            assert_eq!(decided.verdict, admitting.admit(t, 1 + i % 2), "#{i}");
        }
    }
}
