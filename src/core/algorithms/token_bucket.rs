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

use std::hint::select_unpredictable;

use crate::core::config::{
    checked_mul_u64, div_ceil_u128, span_from_u128, ConfigError, Rate, MAX_COUNT,
};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::time::Time;
use crate::core::traffic::Request;

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
        Ok(TokenBucket {
            capacity,
            refill,
            full,
            level: full,
            last: Time::ZERO,
        })
    }

    /// [`Limiter::admit`] on each of `requests` in order, telling `verdict` each answer: the same
    /// verdicts and the same final state, with the state kept in two 64-bit locals for the run.
    ///
    /// The level is kept as the moment the bucket is full again, in time scaled by the refill
    /// amount (`µs × amount`, where a token is `per` units): `full_at = last × amount + (full -
    /// level)`. The lazy refill is then `max(full_at, now)`, a request of `need = cost × per`
    /// passes exactly when `full_at <= now + full - need`, and takes its tokens by adding `need`:
    /// GCRA's arithmetic, with no product of an elapsed time to saturate. A request whose figures
    /// could leave 64 bits (a time past `now_cap`, a cost above the capacity) is decided by
    /// `decide`, in 128 bits (the same verdict and change of state).
    // Inlined into the row's dispatch: as a call of its own, its verdict took one instruction
    // more (`PARTS=instructions bash scripts/bench-core-compare.sh`, docs/performance.md).
    #[inline(always)]
    pub(crate) fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        // Worked out once a run, not kept: a larger limiter is copied once per key.
        let Some(k) = RunFigures::new(self.refill, self.full) else {
            requests.for_each(|r| verdict(self.decide(r.at, u64::from(r.cost)).verdict));
            return;
        };
        // Below `now_cap` every figure fits; above it the locals are not used, every request
        // going to `admit`.
        let (mut last, mut full_at) = self.run_state(k);
        for r in requests {
            let now = r.at.micros().max(last);
            let cost = u64::from(r.cost);
            let v = if now <= k.now_cap && cost <= self.capacity {
                last = now;
                let now_s = now * k.amount;
                let need = cost * k.per;
                let passes = full_at <= now_s + (k.full - need);
                // A refusal leaves `full_at` past `now_s`, where the max changes nothing: so the
                // max is taken either way and only the tokens taken depend on the verdict.
                full_at = full_at.max(now_s) + select_unpredictable(passes, need, 0);
                if passes {
                    Verdict::Allowed
                } else {
                    Verdict::Rejected
                }
            } else {
                let v;
                (v, last, full_at) = self.admit_one_of_each(k, last, full_at, r);
                v
            };
            verdict(v);
        }
        self.save_run_state(k, last, full_at);
    }

    /// `admit_each`'s way out for one request: the state back in place, `decide`, and out again.
    #[cold]
    #[inline(never)]
    fn admit_one_of_each(
        &mut self,
        k: RunFigures,
        last: u64,
        full_at: u64,
        r: &Request,
    ) -> (Verdict, u64, u64) {
        self.save_run_state(k, last, full_at);
        let v = self.decide(r.at, u64::from(r.cost)).verdict;
        let (last, full_at) = self.run_state(k);
        (v, last, full_at)
    }

    /// `(last, full_at)` for `admit_each` (meaningful while `last <= now_cap`).
    fn run_state(&self, k: RunFigures) -> (u64, u64) {
        let last = self.last.micros();
        (
            last,
            last.wrapping_mul(k.amount)
                .wrapping_add(k.full - self.level as u64),
        )
    }

    fn save_run_state(&mut self, k: RunFigures, last: u64, full_at: u64) {
        if last <= k.now_cap {
            self.last = Time(last);
            self.level = u128::from(k.full - (full_at - last * k.amount));
        }
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
            verdict: if passes {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
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

/// The token bucket's figures in 64 bits, for [`TokenBucket::admit_each`].
#[derive(Clone, Copy, Debug)]
struct RunFigures {
    amount: u64,
    per: u64,
    full: u64,
    /// The latest time (µs) at which `time × amount + full` still fits in 64 bits.
    now_cap: u64,
}

impl RunFigures {
    fn new(refill: Rate, full: u128) -> Option<RunFigures> {
        let full = u64::try_from(full).ok()?;
        let now_cap = (u64::MAX - full).checked_div(refill.amount())?;
        Some(RunFigures {
            amount: refill.amount(),
            per: refill.per().micros(),
            full,
            now_cap,
        })
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
        // `admit_each`'s arithmetic for one request, in 64 bits whenever every figure fits (every
        // real bucket), with no division; else `decide`, whose code is there anyway.
        let now = now.max(self.last);
        let amount = self.refill.amount();
        if let (Ok(full), Some(now_s)) = (
            u64::try_from(self.full),
            checked_mul_u64(now.micros(), amount),
        ) {
            if now_s <= u64::MAX - full && cost <= self.capacity {
                let full_at = self.last.micros() * amount + (full - self.level as u64);
                let need = cost * self.refill.per().micros();
                let passes = full_at <= now_s + (full - need);
                let full_at = full_at.max(now_s) + select_unpredictable(passes, need, 0);
                self.level = u128::from(full - (full_at - now_s));
                self.last = now;
                return if passes {
                    Verdict::Allowed
                } else {
                    Verdict::Rejected
                };
            }
        }
        self.decide(now, cost).verdict
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.level_at(now).0 == self.full()
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.tokens(now),
            max: self.capacity as f64,
            unit: "tokens",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::Span;
    use crate::core::traffic::Request;

    fn explainer_bucket() -> TokenBucket {
        TokenBucket::new(5, Rate::parse_per_second("0.5").unwrap()).unwrap()
    }

    #[test]
    fn starts_full_and_passes_its_capacity_at_once() {
        let mut bucket = explainer_bucket();
        let passed = (0..8)
            .filter(|_| bucket.decide(Time::ZERO, 1).allowed())
            .count();
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
        let passed = (0..10)
            .filter(|_| bucket.decide(Time::from_secs(3600), 1).allowed())
            .count();
        assert_eq!(passed, 5);
    }

    /// `requests` (time in µs, cost) through `admit_each`, and the verdicts.
    fn admit_each(bucket: &mut TokenBucket, requests: &[(u64, u32)]) -> Vec<Verdict> {
        let requests: Vec<Request> = requests
            .iter()
            .map(|&(t, cost)| Request {
                cost,
                ..Request::new(Time(t), 0)
            })
            .collect();
        let mut verdicts = Vec::new();
        bucket.admit_each(requests.iter(), &mut |v| verdicts.push(v));
        verdicts
    }

    #[test]
    fn admit_each_refills_and_refuses_exactly_like_decide() {
        let (mut running, mut deciding) = (explainer_bucket(), explainer_bucket());
        // Out of order, a cost above the capacity (refused, yet the refill up to now happens), a
        // zero cost, and a token exactly on time.
        let requests = [
            (0, 3),
            (0, 3),
            (1_000_000, 2),
            (500_000, 6),
            (4_000_000, 0),
            (5_999_999, 1),
            (6_000_000, 1),
            (6_000_000, 1),
        ];
        let expected: Vec<Verdict> = requests
            .iter()
            .map(|&(t, cost)| deciding.decide(Time(t), u64::from(cost)).verdict)
            .collect();
        assert_eq!(admit_each(&mut running, &requests), expected);
        assert_eq!(
            (running.level, running.last),
            (deciding.level, deciding.last)
        );
    }

    #[test]
    fn admit_each_decides_times_whose_scaled_figures_leave_64_bits_like_decide() {
        let (mut running, mut deciding) = (explainer_bucket(), explainer_bucket());
        // 0.5 per second is 1 token per 2 s, a full bucket 10^7 units: past `u64::MAX - 10^7` µs
        // a figure could leave 64 bits, from the third request on.
        let late = u64::MAX - 13_000_000;
        let requests = [
            (late, 5),
            (late + 2_000_000, 1),
            (late + 4_000_000, 1),
            (late + 6_000_000, 1),
            (u64::MAX, 1),
        ];
        let expected: Vec<Verdict> = requests
            .iter()
            .map(|&(t, cost)| deciding.decide(Time(t), u64::from(cost)).verdict)
            .collect();
        assert_eq!(admit_each(&mut running, &requests), expected);
        assert_eq!(
            (running.level, running.last),
            (deciding.level, deciding.last)
        );
    }

    #[test]
    fn a_zero_capacity_is_an_error() {
        assert_eq!(
            TokenBucket::new(0, Rate::parse_per_second("1").unwrap()).unwrap_err(),
            ConfigError::ZeroCapacity
        );
    }
}
