//! GCRA, the generic cell rate algorithm: instead of counting tokens, keep one timestamp per key,
//! the theoretical arrival time (TAT) of the next request if traffic ran exactly at the rate.
//!
//! Semantics follow the `governor` crate's `Gcra` (gcra.rs): with emission interval `T` (the time
//! one request's worth of quota takes to come back) and burst `b`, the tolerance is
//! `tau = T × (b - 1)`. A new key starts with `TAT = now`. A request of `n` cells is refused
//! outright ("insufficient capacity") when `T × (n - 1) > tau`; otherwise it conforms when
//! `now >= TAT + T × (n - 1) - tau`, and then `TAT = max(TAT, now) + T × n`. A refusal names the
//! earliest time it would conform. Defaults: burst = limit and `T = window / limit`.
//!
//! Unlike `governor`, which rounds `T` to whole nanoseconds, time here is scaled by the rate's
//! numerator so that `T` is an exact integer: GCRA then agrees decision for decision with a
//! token bucket of capacity `b` refilling one token per `T` (a property test checks it).

use std::hint::select_unpredictable;

use crate::core::config::{
    checked_mul_u64, div_ceil_u128, span_from_u128, ConfigError, Rate, MAX_COUNT,
};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time};
use crate::core::traffic::Request;

#[derive(Clone, Debug)]
pub struct Gcra {
    rate: Rate,
    burst: u64,
    /// The tolerance, `T × (burst - 1)` in scaled time, worked out once.
    tolerance: u128,
    /// In scaled time (microseconds × `rate.amount`), or `None` for a key never seen.
    tat: Option<u128>,
    latest: Time,
}

impl Gcra {
    /// `rate` is how fast quota comes back (one cell per `rate.per / rate.amount`).
    pub fn new(rate: Rate, burst: u64) -> Result<Gcra, ConfigError> {
        if burst == 0 {
            return Err(ConfigError::ZeroBurst);
        }
        if burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("burst"));
        }
        let tolerance = u128::from(rate.per().micros()) * u128::from(burst - 1);
        Ok(Gcra {
            rate,
            burst,
            tolerance,
            tat: None,
            latest: Time::ZERO,
        })
    }

    /// [`Limiter::admit`] on each of `requests` in order, telling `verdict` each answer: the same
    /// verdicts and the same final state, with the state kept in two 64-bit locals for the run.
    ///
    /// A key never seen is kept as a TAT of 0: `max(TAT, now)` is then `now`, and the conformance
    /// test `now + tau >= TAT + T × (n - 1)` reduces to `T × (n - 1) <= tau`, both exactly what
    /// `TAT = now` gives. A request whose figures could leave 64 bits (a time past `now_cap`, a
    /// cost of 0 or above the burst) is decided by `decide`, in 128 bits (the same verdict and
    /// change of state).
    // A function of its own, not inlined into the row's dispatch: every textbook row's verdict
    // then takes as many instructions as with the products' dispatch absent, or fewer
    // (docs/performance.md, "One descriptor per row").
    #[inline(never)]
    pub(crate) fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        // Worked out once a run, not kept: a larger limiter is copied once per key.
        let Some(k) = RunFigures::new(self.rate, self.burst) else {
            requests.for_each(|r| verdict(self.decide(r.at, u64::from(r.cost)).verdict));
            return;
        };
        // Below `now_cap` every TAT fits (it is at most `latest × amount + T × burst`); above it
        // the locals are not used, every request going to `admit`.
        let mut latest = self.latest.micros();
        let mut tat = self.tat.map_or(0, |tat| tat as u64);
        for r in requests {
            let now = r.at.micros().max(latest);
            let cost = u64::from(r.cost);
            let v = if now <= k.now_cap && cost.wrapping_sub(1) < k.burst {
                latest = now;
                let now_s = now * k.amount;
                // `T × n`, the TAT's step: it conforms when TAT + T × (n - 1) <= now + tau,
                // that is TAT <= now + T × burst - T × n.
                let step = k.t * cost;
                let passes = tat <= now_s + (k.window - step);
                // A refusal leaves the TAT past `now_s`, where the max changes nothing: so the
                // max is taken either way and only the step added depends on the verdict.
                tat = tat.max(now_s) + select_unpredictable(passes, step, 0);
                if passes {
                    Verdict::Allowed
                } else {
                    Verdict::Rejected
                }
            } else {
                let v;
                (v, latest, tat) = self.admit_one_of_each(latest, tat, k.now_cap, r);
                v
            };
            verdict(v);
        }
        self.save_run_state(latest, tat, k.now_cap);
    }

    /// `admit_each`'s way out for one request: the state back in place, `decide`, and out again.
    #[cold]
    #[inline(never)]
    fn admit_one_of_each(
        &mut self,
        latest: u64,
        tat: u64,
        now_cap: u64,
        r: &Request,
    ) -> (Verdict, u64, u64) {
        self.save_run_state(latest, tat, now_cap);
        let v = self.decide(r.at, u64::from(r.cost)).verdict;
        (
            v,
            self.latest.micros(),
            self.tat.map_or(0, |tat| tat as u64),
        )
    }

    fn save_run_state(&mut self, latest: u64, tat: u64, now_cap: u64) {
        if latest <= now_cap {
            self.latest = Time(latest);
            // An allowed request leaves a TAT of at least T, never 0.
            self.tat = if tat == 0 {
                None
            } else {
                Some(u128::from(tat))
            };
        }
    }

    /// The emission interval in scaled time.
    fn t(&self) -> u128 {
        u128::from(self.rate.per().micros())
    }

    fn tau(&self) -> u128 {
        self.tolerance
    }

    fn scaled(&self, now: Time) -> u128 {
        u128::from(now.micros()) * u128::from(self.rate.amount())
    }

    /// Scaled time back to microseconds, rounded up so a wait is never too short.
    fn to_span(&self, scaled: u128) -> Span {
        span_from_u128(div_ceil_u128(scaled, u128::from(self.rate.amount())))
    }

    /// Cells that would conform right now with this TAT (governor's capacity formula).
    fn cells_available(&self, now_s: u128, tat: u128) -> u64 {
        if tat > now_s + self.tau() {
            return 0;
        }
        let cells = (now_s + self.tau() - tat) / self.t() + 1;
        u64::try_from(cells).unwrap_or(self.burst).min(self.burst)
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, Option<u128>, Time) {
        let now = now.max(self.latest);
        let now_s = self.scaled(now);
        let tat = self.tat.unwrap_or(now_s);
        let answer = |verdict: Verdict, tat_after: u128, retry_after: Option<Span>| Decision {
            verdict,
            limit: self.burst,
            remaining: self.cells_available(now_s, tat_after),
            reset_after: self.to_span(tat_after.saturating_sub(now_s)),
            retry_after,
        };
        if cost == 0 {
            return (answer(Verdict::Allowed, tat, None), self.tat, now);
        }
        let additional = self.t() * u128::from(cost - 1);
        if additional > self.tau() {
            // governor's InsufficientCapacity: no wait will ever let this through.
            return (answer(Verdict::Rejected, tat, None), self.tat, now);
        }
        let earliest = (tat + additional).saturating_sub(self.tau());
        if now_s < earliest {
            let wait = self.to_span(earliest - now_s);
            return (answer(Verdict::Rejected, tat, Some(wait)), self.tat, now);
        }
        let next = tat.max(now_s) + self.t() + additional;
        (answer(Verdict::Allowed, next, None), Some(next), now)
    }
}

/// GCRA's figures in 64 bits, for [`Gcra::admit_each`].
#[derive(Clone, Copy, Debug)]
struct RunFigures {
    amount: u64,
    t: u64,
    /// `T × burst`, the tolerance and one step.
    window: u64,
    burst: u64,
    /// The latest time (µs) at which `time × amount + T × burst` still fits in 64 bits.
    now_cap: u64,
}

impl RunFigures {
    fn new(rate: Rate, burst: u64) -> Option<RunFigures> {
        let t = rate.per().micros();
        let window = t.checked_mul(burst)?;
        let now_cap = (u64::MAX - window).checked_div(rate.amount())?;
        Some(RunFigures {
            amount: rate.amount(),
            t,
            window,
            burst,
            now_cap,
        })
    }
}

impl Limiter for Gcra {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, tat, at) = self.assess(now, cost);
        self.tat = tat;
        self.latest = at;
        decision
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        // `admit_each`'s arithmetic for one request, in 64 bits whenever every figure fits, with
        // no division; else `decide`, whose code is there anyway. A TAT is at most `latest ×
        // amount + T × burst`, so it fits whenever `now × amount + T × burst` does.
        let now = now.max(self.latest);
        let t = self.rate.per().micros();
        if let (Some(now_s), Some(window)) = (
            checked_mul_u64(now.micros(), self.rate.amount()),
            checked_mul_u64(t, self.burst),
        ) {
            if now_s <= u64::MAX - window && cost.wrapping_sub(1) < self.burst {
                self.latest = now;
                let tat = self.tat.map_or(0, |tat| tat as u64);
                let step = t * cost;
                if tat > now_s + (window - step) {
                    return Verdict::Rejected;
                }
                self.tat = Some(u128::from(tat.max(now_s) + step));
                return Verdict::Allowed;
            }
        }
        self.decide(now, cost).verdict
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        let now_s = self.scaled(now.max(self.latest));
        self.tat.is_none_or(|tat| tat <= now_s)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now_s = self.scaled(now.max(self.latest));
        let debt = self.tat.map(|tat| tat.saturating_sub(now_s)).unwrap_or(0);
        let level = self.burst as f64 - debt as f64 / self.t() as f64;
        Gauge {
            level: level.max(0.0),
            max: self.burst as f64,
            unit: "cells of burst left",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::traffic::Request;

    /// governor's `Quota::per_second(5)`: T = 200 ms, burst 5.
    fn five_per_second() -> Gcra {
        Gcra::new(Rate::new(5, Span::from_secs(1)).unwrap(), 5).unwrap()
    }

    #[test]
    fn a_fresh_key_gets_its_whole_burst_at_once() {
        let mut g = five_per_second();
        let passed = (0..10)
            .filter(|_| g.decide(Time::ZERO, 1).allowed())
            .count();
        assert_eq!(passed, 5);
    }

    #[test]
    fn after_the_burst_one_cell_returns_every_emission_interval() {
        let mut g = five_per_second();
        for _ in 0..5 {
            g.decide(Time::ZERO, 1);
        }
        let denied = g.decide(Time::from_millis(100), 1);
        assert_eq!(denied.retry_after, Some(Span::from_millis(100)));
        assert!(g.decide(Time::from_millis(200), 1).allowed());
        assert!(!g.decide(Time::from_millis(399), 1).allowed());
        assert!(g.decide(Time::from_millis(400), 1).allowed());
    }

    #[test]
    fn a_request_larger_than_the_burst_is_insufficient_capacity() {
        let mut g = five_per_second();
        let d = g.decide(Time::ZERO, 6);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert!(
            g.decide(Time::ZERO, 5).allowed(),
            "the refusal consumed nothing"
        );
    }

    #[test]
    fn remaining_counts_the_cells_that_would_still_conform() {
        let mut g = five_per_second();
        assert_eq!(g.decide(Time::ZERO, 1).remaining, 4);
        assert_eq!(g.decide(Time::ZERO, 2).remaining, 2);
        assert_eq!(g.peek(Time::from_millis(1000), 1).remaining, 4);
    }

    /// `requests` (time in µs, cost) through `admit_each`, and the verdicts.
    fn admit_each(g: &mut Gcra, requests: &[(u64, u32)]) -> Vec<Verdict> {
        let requests: Vec<Request> = requests
            .iter()
            .map(|&(t, cost)| Request {
                cost,
                ..Request::new(Time(t), 0)
            })
            .collect();
        let mut verdicts = Vec::new();
        g.admit_each(requests.iter(), &mut |v| verdicts.push(v));
        verdicts
    }

    #[test]
    fn admit_each_keeps_a_key_new_through_a_refusal_and_a_zero_cost() {
        let mut g = five_per_second();
        let verdicts = admit_each(&mut g, &[(0, 6), (10, 0)]);
        assert_eq!(verdicts, [Verdict::Rejected, Verdict::Allowed]);
        assert_eq!(g.tat, None, "still a key never let through");
        // Its first real request then starts from its own time, like a new key's.
        assert_eq!(
            admit_each(&mut g, &[(5_000_000, 5), (5_000_000, 1)]),
            [Verdict::Allowed, Verdict::Rejected]
        );
        assert_eq!(
            g.tat,
            Some(6_000_000),
            "five cells of 200 ms after 5 s (5 per second is 1 per 200,000 µs)"
        );
    }

    #[test]
    fn admit_each_decides_times_whose_scaled_figures_leave_64_bits_like_decide() {
        let (mut running, mut deciding) = (five_per_second(), five_per_second());
        // Past `u64::MAX - T × burst`, a TAT could leave 64 bits: from the third request on.
        let late = u64::MAX - 1_200_000;
        let requests = [
            (late, 1),
            (late, 1),
            (late + 250_000, 5),
            (late + 500_000, 1),
            (late + 500_000, 1),
            (u64::MAX, 1),
        ];
        let expected: Vec<Verdict> = requests
            .iter()
            .map(|&(t, cost)| deciding.decide(Time(t), u64::from(cost)).verdict)
            .collect();
        assert_eq!(admit_each(&mut running, &requests), expected);
        assert_eq!(
            (running.tat, running.latest),
            (deciding.tat, deciding.latest)
        );
    }

    #[test]
    fn a_zero_burst_is_an_error() {
        assert_eq!(
            Gcra::new(Rate::new(1, Span::from_secs(1)).unwrap(), 0).unwrap_err(),
            ConfigError::ZeroBurst
        );
    }
}
