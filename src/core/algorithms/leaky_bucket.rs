//! Leaky bucket as a meter, in the style of nginx's `limit_req`.
//!
//! Each key has an "excess": how many requests it is ahead of the allowed rate. The excess leaks
//! away at the rate; every request adds one. Semantics follow ngx_http_limit_req_module:
//! - a key seen for the first time starts with an excess of 0 (its first request is free);
//! - otherwise `excess = max(0, excess - rate × elapsed + 1)`;
//! - if that is more than `burst`, the request is rejected and the state is left alone;
//! - otherwise it is accepted, and it is served at once when `excess <= delay`, or held back by
//!   `(excess - delay) / rate` when above it. `delay = 0` (nginx's default) smooths every excess
//!   request to the rate; `nodelay` is `delay = burst` (everything accepted is served at once).
//!
//! So a request can be delayed as well as allowed or rejected, and delayed requests are released
//! in arrival order, one emission interval apart. nginx keeps the excess in thousandths of a
//! request and milliseconds; here it is exact: in units of 1/`per` request for a rate of `amount`
//! per `per` microseconds. A request of cost `c` counts as `c` requests arriving together.

use std::hint::select_unpredictable;
use std::num::NonZeroU64;

use crate::core::config::{
    checked_mul_u64, div_ceil_u128, span_from_u128, ConfigError, Rate, MAX_COUNT,
};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::time::{Span, Time};
use crate::core::traffic::Request;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeakyBucketConfig {
    pub rate: Rate,
    /// Requests a key may be ahead of the rate before it is rejected.
    pub burst: u64,
    /// Requests ahead of the rate that are still served at once (`burst` means nodelay).
    pub delay: u64,
}

impl LeakyBucketConfig {
    pub fn new(rate: Rate, burst: u64, delay: u64) -> Result<LeakyBucketConfig, ConfigError> {
        if burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("burst"));
        }
        if delay > burst {
            return Err(ConfigError::DelayAboveBurst { delay, burst });
        }
        Ok(LeakyBucketConfig { rate, burst, delay })
    }

    /// `limit_req ... burst=N nodelay`.
    pub fn nodelay(rate: Rate, burst: u64) -> Result<LeakyBucketConfig, ConfigError> {
        LeakyBucketConfig::new(rate, burst, burst)
    }
}

#[derive(Clone, Debug)]
pub struct LeakyBucket {
    config: LeakyBucketConfig,
    /// Excess (in units of 1/`per` request) and when it was last updated; `None` for a new key.
    state: Option<(u128, Time)>,
    latest: Time,
}

/// `admit_each`'s three verdicts, chosen without a branch.
const ALLOWED: u8 = 0;
const DELAYED: u8 = 1;
const REJECTED: u8 = 2;

/// The leaky bucket's figures in 64 bits, for [`LeakyBucket::admit_each`].
#[derive(Clone, Copy, Debug)]
struct RunFigures {
    /// Units leaked per µs (the rate's amount; never 0, so a division by it needs no check).
    rate: NonZeroU64,
    /// One request, in units.
    one: u64,
    burst: u64,
    /// `(burst + 1) × one`: the most a request may find ahead of it, its own unit included.
    room: u64,
    /// `(delay + 1) × one`.
    served_at_once: u64,
    /// The latest time (µs) at which `time × rate + room` still fits in 64 bits.
    now_cap: u64,
}

impl RunFigures {
    fn new(config: LeakyBucketConfig) -> Option<RunFigures> {
        let one = config.rate.per().micros();
        let room = config.burst.checked_add(1)?.checked_mul(one)?;
        let served_at_once = config.delay.checked_add(1)?.checked_mul(one)?;
        let rate = NonZeroU64::new(config.rate.amount())?;
        let now_cap = (u64::MAX - room) / rate;
        Some(RunFigures {
            rate,
            one,
            burst: config.burst,
            room,
            served_at_once,
            now_cap,
        })
    }
}

impl LeakyBucket {
    pub fn new(config: LeakyBucketConfig) -> LeakyBucket {
        LeakyBucket {
            config,
            state: None,
            latest: Time::ZERO,
        }
    }

    /// [`Limiter::admit`] on each of `requests` in order, telling `verdict` each answer: the same
    /// verdicts and the same final state, with the state kept in three 64-bit locals for the run.
    ///
    /// The excess is kept as the scaled moment (`µs × rate`, in units) at which the key would be
    /// new again, its excess and one more request leaked away: `clear_at = last × rate + excess +
    /// one`, or 0 for a key never let through. A request of `cost` adds `cost × one` to what is
    /// left at `now`, `max(clear_at, now) - now`, so it passes exactly when `clear_at <= now +
    /// room - cost × one`, and then `clear_at` becomes `max(clear_at, now) + cost × one`: GCRA's
    /// arithmetic again, a select rather than a branch. The delay (a division) is worked out only
    /// for a request accepted beyond `delay`. A request whose figures could leave 64 bits (a time
    /// past `now_cap`, a cost of 0 or above `burst + 1`) is decided by `decide`, in 128 bits (the
    /// same verdict and change of state).
    pub(crate) fn admit_each<'a>(
        &mut self,
        requests: impl Iterator<Item = &'a Request>,
        verdict: &mut impl FnMut(Verdict),
    ) {
        // Worked out once a run, not kept: a larger limiter is copied once per key.
        let Some(k) = RunFigures::new(self.config) else {
            requests.for_each(|r| verdict(self.decide(r.at, u64::from(r.cost)).verdict));
            return;
        };
        // Below `now_cap` every figure fits (`clear_at` is at most `latest × rate + room`);
        // above it the locals are not used, every request going to `admit`.
        let (mut latest, mut last, mut clear_at) = self.run_state(k);
        for r in requests {
            let now = r.at.micros().max(latest);
            let cost = u64::from(r.cost);
            let v = if now <= k.now_cap && cost.wrapping_sub(1) <= k.burst {
                latest = now;
                let now_s = now * k.rate.get();
                let step = cost * k.one;
                let passes = clear_at <= now_s + (k.room - step);
                // A refusal leaves `clear_at` past `now_s`, where the max changes nothing.
                clear_at = clear_at.max(now_s) + select_unpredictable(passes, step, 0);
                last = select_unpredictable(passes, now, last);
                // Accepted with `clear_at - now_s - one` ahead of the rate, its own units
                // included; held back by what is above `delay`, at `rate` units a µs. The verdict
                // is put together from selects too: only a rate other than 1 a µs needs the
                // division, and only for a request held back.
                let ahead = clear_at - now_s;
                let delayed = ahead > k.served_at_once;
                let over = ahead.wrapping_sub(k.served_at_once);
                let by = if k.rate.get() == 1 {
                    over
                } else if passes & delayed {
                    over / k.rate + u64::from(over % k.rate != 0)
                } else {
                    0
                };
                match select_unpredictable(
                    passes,
                    select_unpredictable(delayed, DELAYED, ALLOWED),
                    REJECTED,
                ) {
                    ALLOWED => Verdict::Allowed,
                    DELAYED => Verdict::Delayed { by: Span(by) },
                    _ => Verdict::Rejected,
                }
            } else {
                let v;
                (v, latest, last, clear_at) =
                    self.admit_one_of_each(k, (latest, last, clear_at), r);
                v
            };
            verdict(v);
        }
        self.save_run_state(k, (latest, last, clear_at));
    }

    /// `admit_each`'s way out for one request: the state back in place, `decide`, and out again.
    #[cold]
    #[inline(never)]
    fn admit_one_of_each(
        &mut self,
        k: RunFigures,
        run: (u64, u64, u64),
        r: &Request,
    ) -> (Verdict, u64, u64, u64) {
        self.save_run_state(k, run);
        let v = self.decide(r.at, u64::from(r.cost)).verdict;
        let (latest, last, clear_at) = self.run_state(k);
        (v, latest, last, clear_at)
    }

    /// `(latest, last, clear_at)` for `admit_each` (meaningful while `latest <= now_cap`).
    fn run_state(&self, k: RunFigures) -> (u64, u64, u64) {
        let latest = self.latest.micros();
        match self.state {
            None => (latest, 0, 0),
            Some((excess, last)) => {
                let last = last.micros();
                (
                    latest,
                    last,
                    last.wrapping_mul(k.rate.get())
                        .wrapping_add(excess as u64)
                        .wrapping_add(k.one),
                )
            }
        }
    }

    fn save_run_state(&mut self, k: RunFigures, (latest, last, clear_at): (u64, u64, u64)) {
        if latest <= k.now_cap {
            self.latest = Time(latest);
            // A request let through leaves `clear_at` at least `one` (never 0).
            self.state = (clear_at != 0).then(|| {
                (
                    u128::from(clear_at - last * k.rate.get() - k.one),
                    Time(last),
                )
            });
        }
    }

    fn one(&self) -> u128 {
        u128::from(self.config.rate.per().micros())
    }

    fn rate(&self) -> u128 {
        u128::from(self.config.rate.amount())
    }

    /// What is left of the excess at `now`, before adding anything (signed: may go below zero).
    fn leaked(&self, now: Time) -> i128 {
        match self.state {
            None => -(self.one() as i128),
            Some((excess, last)) => {
                let drained = u128::from(now.since(last).micros()) * self.rate();
                excess as i128 - drained.min(i128::MAX as u128 / 2) as i128
            }
        }
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, Option<(u128, Time)>) {
        let now = now.max(self.latest);
        let one = self.one() as i128;
        let burst = i128::from(self.config.burst) * one;
        let left = self.leaked(now);
        // u64 fits in i128 whole: a huge cost is compared as it is, never clamped.
        let cost = i128::from(cost);
        let excess = if cost == 0 {
            left.max(0)
        } else {
            (left + one).max(0) + (cost - 1) * one
        };
        let passes = excess <= burst;
        let kept = if passes { excess } else { left.max(0) };
        let delay_units = (excess - i128::from(self.config.delay) * one).max(0);
        let verdict = match (passes, delay_units > 0) {
            (false, _) => Verdict::Rejected,
            (true, false) => Verdict::Allowed,
            (true, true) => Verdict::Delayed {
                by: span_from_u128(div_ceil_u128(delay_units as u128, self.rate())),
            },
        };
        let retry_after = if passes || cost > i128::from(self.config.burst) + 1 {
            None
        } else {
            // Accepted once left - rate × Δ + cost <= burst (all in units of 1/`per` request).
            let over = left + cost * one - burst;
            Some(span_from_u128(div_ceil_u128(
                over.max(1) as u128,
                self.rate(),
            )))
        };
        let decision = Decision {
            verdict,
            limit: self.config.burst + 1,
            remaining: u64::try_from((burst - kept).max(0) / one).unwrap_or(0),
            reset_after: span_from_u128(div_ceil_u128(kept as u128, self.rate())),
            retry_after,
        };
        let state = if passes && cost > 0 {
            Some((excess as u128, now))
        } else {
            self.state
        };
        (decision, state)
    }

    /// Requests currently ahead of the rate, for display.
    pub fn excess(&self, now: Time) -> f64 {
        (self.leaked(now.max(self.latest)).max(0)) as f64 / self.one() as f64
    }
}

impl Limiter for LeakyBucket {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, state) = self.assess(now, cost);
        self.state = state;
        self.latest = now.max(self.latest);
        decision
    }

    #[inline]
    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        // `admit_each`'s arithmetic for one request, in 64 bits whenever every figure fits, with
        // a division only for a request held back; else `decide`, whose code is there anyway.
        let now = now.max(self.latest);
        let (one, rate) = (self.config.rate.per().micros(), self.config.rate.amount());
        let room = (self.config.burst + 1).checked_mul(one);
        if let (Some(room), Some(now_s)) = (room, checked_mul_u64(now.micros(), rate)) {
            if now_s <= u64::MAX - room && cost.wrapping_sub(1) <= self.config.burst {
                self.latest = now;
                let clear_at = match self.state {
                    None => 0,
                    Some((excess, last)) => last.micros() * rate + excess as u64 + one,
                };
                let step = cost * one;
                if clear_at > now_s + (room - step) {
                    return Verdict::Rejected;
                }
                let ahead = clear_at.max(now_s) + step - now_s;
                self.state = Some((u128::from(ahead - one), now));
                let served_at_once = (self.config.delay + 1) * one;
                return if ahead > served_at_once {
                    Verdict::Delayed {
                        by: Span((ahead - served_at_once).div_ceil(rate)),
                    }
                } else {
                    Verdict::Allowed
                };
            }
        }
        self.decide(now, cost).verdict
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        // Only once a full request has leaked away past zero does it act like a new key.
        self.leaked(now.max(self.latest)) <= -(self.one() as i128)
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.excess(now),
            max: self.config.burst as f64,
            unit: "requests ahead of the rate",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::Span;

    fn one_per_second(burst: u64, delay: u64) -> LeakyBucket {
        LeakyBucket::new(
            LeakyBucketConfig::new(Rate::new(1, Span::from_secs(1)).unwrap(), burst, delay)
                .unwrap(),
        )
    }

    #[test]
    fn without_nodelay_excess_requests_are_released_one_interval_apart() {
        let mut meter = one_per_second(5, 0);
        let verdicts: Vec<Verdict> = (0..7)
            .map(|_| meter.decide(Time::ZERO, 1))
            .map(|d| d.verdict)
            .collect();
        assert_eq!(verdicts[0], Verdict::Allowed);
        for (i, v) in verdicts[1..6].iter().enumerate() {
            assert_eq!(
                *v,
                Verdict::Delayed {
                    by: Span::from_secs(i as u64 + 1)
                }
            );
        }
        assert_eq!(verdicts[6], Verdict::Rejected, "the 7th is beyond burst=5");
    }

    #[test]
    fn nodelay_serves_the_whole_burst_at_once() {
        let mut meter = one_per_second(5, 5);
        let verdicts: Vec<Verdict> = (0..7)
            .map(|_| meter.decide(Time::ZERO, 1).verdict)
            .collect();
        assert_eq!(&verdicts[..6], &[Verdict::Allowed; 6]);
        assert_eq!(verdicts[6], Verdict::Rejected);
    }

    #[test]
    fn a_delay_threshold_serves_the_first_requests_at_once_and_delays_the_rest() {
        let mut meter = one_per_second(5, 2);
        let verdicts: Vec<Verdict> = (0..6)
            .map(|_| meter.decide(Time::ZERO, 1).verdict)
            .collect();
        assert_eq!(&verdicts[..3], &[Verdict::Allowed; 3]);
        assert_eq!(
            verdicts[3],
            Verdict::Delayed {
                by: Span::from_secs(1)
            }
        );
        assert_eq!(
            verdicts[5],
            Verdict::Delayed {
                by: Span::from_secs(3)
            }
        );
    }

    #[test]
    fn burst_zero_allows_exactly_the_rate() {
        let mut meter = one_per_second(0, 0);
        assert!(meter.decide(Time::ZERO, 1).allowed());
        let denied = meter.decide(Time::from_millis(400), 1);
        assert_eq!(denied.verdict, Verdict::Rejected);
        assert_eq!(denied.retry_after, Some(Span::from_millis(600)));
        assert!(!meter.decide(Time::from_millis(999), 1).allowed());
        assert!(meter.decide(Time::from_millis(1000), 1).allowed());
    }

    #[test]
    fn a_rejection_leaves_the_excess_alone() {
        let mut meter = one_per_second(1, 1);
        meter.decide(Time::ZERO, 1);
        meter.decide(Time::ZERO, 1);
        for _ in 0..5 {
            assert!(!meter.decide(Time::ZERO, 1).allowed());
        }
        assert!(meter.decide(Time::from_secs(1), 1).allowed());
    }

    #[test]
    fn a_huge_cost_is_rejected_not_clamped() {
        let mut meter = one_per_second(MAX_COUNT - 1, MAX_COUNT - 1);
        let d = meter.decide(Time::ZERO, 5 * MAX_COUNT);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    }

    #[test]
    fn it_is_at_rest_only_when_it_would_answer_like_a_new_key() {
        let mut meter = one_per_second(2, 2);
        meter.decide(Time::ZERO, 1);
        meter.decide(Time::ZERO, 1);
        // At 1 s one request has leaked: excess 0, but a new request still adds to it.
        assert!(!meter.is_at_rest(Time::from_secs(1)));
        assert!(meter.is_at_rest(Time::from_secs(2)));
    }

    /// `requests` (time in µs, cost) through `admit_each`, and the verdicts.
    fn admit_each(meter: &mut LeakyBucket, requests: &[(u64, u32)]) -> Vec<Verdict> {
        let requests: Vec<Request> = requests
            .iter()
            .map(|&(t, cost)| Request {
                cost,
                ..Request::new(Time(t), 0)
            })
            .collect();
        let mut verdicts = Vec::new();
        meter.admit_each(requests.iter(), &mut |v| verdicts.push(v));
        verdicts
    }

    /// `requests` through `admit_each` and through `decide`: the same verdicts and state.
    fn assert_admit_each_is_decide(meter: LeakyBucket, requests: &[(u64, u32)]) {
        let (mut running, mut deciding) = (meter.clone(), meter);
        let expected: Vec<Verdict> = requests
            .iter()
            .map(|&(t, cost)| deciding.decide(Time(t), u64::from(cost)).verdict)
            .collect();
        assert_eq!(admit_each(&mut running, requests), expected);
        assert_eq!(
            (running.state, running.latest),
            (deciding.state, deciding.latest)
        );
    }

    #[test]
    fn admit_each_keeps_a_key_new_through_a_refusal_and_a_zero_cost() {
        let mut meter = one_per_second(2, 0);
        assert_eq!(
            admit_each(&mut meter, &[(0, 4), (10, 0)]),
            [Verdict::Rejected, Verdict::Allowed]
        );
        assert_eq!(meter.state, None, "still a key never let through");
        // Its first request is then free, like a new key's, and the next is held back a second.
        let verdicts = admit_each(&mut meter, &[(5_000_000, 1), (5_000_000, 1)]);
        assert_eq!(
            verdicts,
            [
                Verdict::Allowed,
                Verdict::Delayed {
                    by: Span::from_secs(1)
                }
            ]
        );
        assert_eq!(meter.state, Some((1_000_000, Time::from_secs(5))));
    }

    #[test]
    fn admit_each_holds_requests_back_like_decide_at_a_rate_that_is_not_whole_units_a_microsecond()
    {
        // 3 a second: a request is 10^6 units and 3 leak a µs, so a delay is rounded up.
        let rate = Rate::new(3, Span::from_secs(1)).unwrap();
        let meter = LeakyBucket::new(LeakyBucketConfig::new(rate, 4, 1).unwrap());
        let requests = [
            (0, 1),
            (0, 1),
            (0, 2),
            (1, 1),
            (400_000, 1),
            (400_001, 1),
            (2_000_000, 5),
            (2_000_000, 0),
            (1_000, 1),
        ];
        assert_admit_each_is_decide(meter, &requests);
    }

    #[test]
    fn admit_each_decides_times_whose_scaled_figures_leave_64_bits_like_decide() {
        // Past `u64::MAX - (burst + 1) × 10^6` µs a figure could leave 64 bits: from the third on.
        let late = u64::MAX - 4_500_000;
        let requests = [
            (late, 1),
            (late + 1_000_000, 2),
            (late + 2_000_000, 1),
            (late + 2_000_000, 1),
            (u64::MAX, 1),
        ];
        assert_admit_each_is_decide(one_per_second(2, 1), &requests);
    }

    #[test]
    fn a_delay_above_the_burst_is_an_error() {
        let rate = Rate::new(1, Span::from_secs(1)).unwrap();
        assert_eq!(
            LeakyBucketConfig::new(rate, 2, 3),
            Err(ConfigError::DelayAboveBurst { delay: 3, burst: 2 })
        );
    }
}
