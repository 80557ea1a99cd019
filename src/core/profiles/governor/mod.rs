//! The `governor` crate's GCRA (boinkor-net/governor), decision for decision, in its own
//! nanosecond arithmetic.
//!
//! What governor does (read from governor 0.10: `governor/src/quota.rs`, `gcra.rs`, `errors.rs`,
//! `middleware.rs`, `state/in_memory.rs` and `state/keyed.rs`, and checked against
//! `tests/direct.rs` and `tests/middleware.rs`):
//!
//! - A `Quota` is a burst size `b` (a `NonZeroU32`) and a replenish interval: one cell comes back
//!   every `replenish_1_per`. `Quota::per_second(n)` is `1 s / n` and burst `n`, computed as
//!   whole nanoseconds with the remainder dropped (`per_minute`, `per_hour` and the string form
//!   "30 per 3 hours" do the same); `Quota::with_period(d)` is burst 1 and refuses a zero `d`;
//!   `allow_burst(b)` sets the burst.
//! - The limiter uses `T = max(replenish_1_per, 1 ns)` and the tolerance `tau = T × (b - 1)`,
//!   both as `u64` nanoseconds, and keeps one number per key: the theoretical arrival time (TAT),
//!   in nanoseconds since the limiter was created. A key never seen starts with `TAT = now`.
//! - `check_n(n)` first refuses a batch that can never fit: when `T × (n - 1) > tau` (that is,
//!   `n > b`) it returns `Err(InsufficientCapacity(1 + tau / T))`, which is the burst size `b`.
//!   Otherwise the batch conforms when `now >= TAT + T × (n - 1) - tau` (saturating at 0), and
//!   then `TAT = max(TAT, now) + T × n`; if not, `Ok(Err(NotUntil))`, whose
//!   `earliest_possible()` is that bound and `wait_time_from(now)` the distance to it. `check()`
//!   is the same with `n = 1` (and never answers `InsufficientCapacity`).
//! - With the `StateInformationMiddleware` an allowed call also reports the snapshot's
//!   `remaining_burst_capacity = min(now + tau + T - TAT, tau + T) / T`, the first term
//!   saturating at 0 (`tau + T` is what governor calls the bucket's whole burst capacity). The
//!   snapshot is taken with the TAT just stored, which is at least `now + T`, so the first term
//!   is at most `tau` and the cap never decides the figure after an allowed call.
//! - A keyed limiter keeps one TAT per key until `retain_recent()` drops the keys whose TAT is at
//!   or before `now - T` (`drop_below = now.saturating_sub(T)`, `is_older_than`): a key stays one
//!   interval longer than it takes to decide like a fresh one (TAT at or before now).
//!
//! Why this profile does not wrap the core `Gcra`: the core keeps `T` as an exact fraction, while
//! governor truncates it to whole nanoseconds. `Quota::per_second(3)` replenishes every
//! 333,333,333 ns, not every 1/3 s, so after 3,000 cells at the rate governor lets the next one
//! through at 999.999999 s where the exact rate waits until 1000 s. The profile keeps governor's
//! truncated `T`; its times are nanoseconds held in `u128`, so times beyond governor's own `u64`
//! range (about 584 years) still do not overflow.
//!
//! What cannot be said in governor's API, and what the profile answers instead: `check_n` takes a
//! `NonZeroU32`, so a cost of 0 cannot be asked; the profile answers it `Ok` and changes nothing
//! (like the core algorithms). A cost above `u32::MAX` cannot be asked either; since every burst
//! is at most `u32::MAX`, the profile answers it `InsufficientCapacity(b)`, as governor does for
//! any batch above the burst. The lab's time 0 is the moment the limiter was created.
//!
//! The surprise users report (governor issue #39: "limit of 10 rp/s ... around 15ish rp/s make it
//! through" at the start): a fresh limiter lets its whole burst through at once, because the
//! burst of `per_second(n)` is `n`, and only then holds the caller to one cell per interval.

use std::num::NonZeroU32;

use crate::core::config::{ConfigError, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf, Told};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{Span, Time};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

const NANOS_PER_MICRO: u128 = 1_000;
const NANOS_PER_MILLI: u128 = 1_000_000;

/// A governor `Quota`: the replenish interval in nanoseconds and the burst size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GovernorParams {
    /// `Quota::replenish_interval()`, in whole nanoseconds.
    pub replenish_1_per_ns: u64,
    /// `Quota::burst_size()`.
    pub burst: u64,
}

impl GovernorParams {
    /// `Quota::per_second(n)` generalised to any period: one cell per `period / n` (whole
    /// nanoseconds, remainder dropped, as `per_second`, `per_minute` and `per_hour` compute it)
    /// and a burst of `n`.
    pub fn per_period(n: u64, period: Span) -> GovernorParams {
        let period_ns = u128::from(period.micros()) * NANOS_PER_MICRO;
        let replenish = period_ns / u128::from(n.max(1));
        GovernorParams {
            replenish_1_per_ns: u64::try_from(replenish).unwrap_or(u64::MAX),
            burst: n,
        }
    }

    /// `Quota::per_second(n)`.
    pub fn per_second(n: u64) -> GovernorParams {
        GovernorParams::per_period(n, Span::from_secs(1))
    }

    /// `Quota::with_period(d)`: one cell per `d` nanoseconds with a burst of 1; `None` for a zero
    /// period, as governor answers.
    pub fn with_period_ns(replenish_1_per_ns: u64) -> Option<GovernorParams> {
        (replenish_1_per_ns > 0).then_some(GovernorParams {
            replenish_1_per_ns,
            burst: 1,
        })
    }

    /// `Quota::allow_burst(b)`.
    pub fn allow_burst(self, burst: u64) -> GovernorParams {
        GovernorParams { burst, ..self }
    }

    /// The lab's "limit per window" as governor users write it: one cell per `window / limit`
    /// and a burst of `limit` (what `Quota::per_second(limit)` is for a one-second window).
    pub fn defaults_for(limit: u64, window: Span) -> GovernorParams {
        GovernorParams::per_period(limit, window)
    }
}

/// governor's three answers to `check_n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GovernorAnswer {
    /// `Ok(Ok(()))`: the cells conform and were taken.
    Ok,
    /// `Ok(Err(NotUntil))`: not now; `earliest_possible_ns` is `NotUntil::earliest_possible()`
    /// in nanoseconds since the limiter was created.
    NotUntil { earliest_possible_ns: u128 },
    /// `Err(InsufficientCapacity(b))`: the batch is larger than the burst and can never conform;
    /// the number is the burst size.
    InsufficientCapacity(u32),
}

impl GovernorAnswer {
    /// The answer as the brief spelling of governor's types: "Ok(())", "NotUntil",
    /// "InsufficientCapacity(5)".
    pub fn result(&self) -> String {
        match self {
            GovernorAnswer::Ok => "Ok(())".to_string(),
            GovernorAnswer::NotUntil { .. } => "NotUntil".to_string(),
            GovernorAnswer::InsufficientCapacity(b) => format!("InsufficientCapacity({b})"),
        }
    }

    /// `NotUntil::earliest_possible()` on the lab's clock, rounded up to the microsecond (the
    /// first lab time at which the same call conforms).
    pub fn earliest_possible(&self) -> Option<Time> {
        match self {
            GovernorAnswer::NotUntil {
                earliest_possible_ns,
            } => Some(micros_up(*earliest_possible_ns)),
            _ => None,
        }
    }

    /// `NotUntil::wait_time_from(now)`, rounded up to the microsecond; zero once it has passed.
    pub fn wait_time_from(&self, now: Time) -> Option<Span> {
        self.earliest_possible().map(|at| at.since(now))
    }
}

/// One key of a governor `RateLimiter` (a direct limiter, or one key of a keyed one).
#[derive(Clone, Debug)]
pub struct Governor {
    /// `T` in nanoseconds, at least 1 (governor's `Gcra::new` clamps a zero interval to 1 ns).
    t: u128,
    /// `tau = T × (b - 1)` in nanoseconds.
    tau: u128,
    burst: u32,
    /// The stored TAT in nanoseconds since the limiter was created, `None` for a key never seen
    /// (governor's `InMemoryState` holds 0 for that, a TAT it can never store).
    tat: Option<u128>,
    latest: Time,
}

impl Governor {
    /// `RateLimiter::direct(quota)`, created at the lab's time 0.
    pub fn new(params: GovernorParams) -> Result<Governor, ConfigError> {
        if params.burst == 0 {
            return Err(ConfigError::Unsupported(
                "governor's burst size is a NonZeroU32: a burst of 0 cannot be written",
            ));
        }
        if params.burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("burst"));
        }
        let max_ns = u128::from(MAX_WINDOW.micros()) * NANOS_PER_MICRO;
        if u128::from(params.replenish_1_per_ns) > max_ns {
            return Err(ConfigError::TooLarge("replenish interval"));
        }
        // Quota::per_second(n) for n above 10^9 holds a zero interval; Gcra::new makes it 1 ns.
        let t = u128::from(params.replenish_1_per_ns.max(1));
        let tau = t * u128::from(params.burst - 1);
        if tau > u128::from(u64::MAX) {
            return Err(ConfigError::Unsupported(
                "governor keeps its tolerance (interval × (burst - 1)) in u64 nanoseconds, and this quota overflows it",
            ));
        }
        let burst = u32::try_from(params.burst).map_err(|_| ConfigError::TooLarge("burst"))?;
        Ok(Governor {
            t,
            tau,
            burst,
            tat: None,
            latest: Time::ZERO,
        })
    }

    /// The replenish interval governor actually uses, in nanoseconds.
    pub fn replenish_interval_ns(&self) -> u128 {
        self.t
    }

    pub fn burst(&self) -> u32 {
        self.burst
    }

    /// `check()` at `now`.
    pub fn check(&mut self, now: Time) -> GovernorAnswer {
        self.check_n(now, NonZeroU32::MIN)
    }

    /// `check_n(n)` at `now`, taking the cells when they conform.
    pub fn check_n(&mut self, now: Time, n: NonZeroU32) -> GovernorAnswer {
        let now = now.max(self.latest);
        self.latest = now;
        let (answer, tat) = self.assess(nanos(now), u128::from(n.get()));
        if let Some(tat) = tat {
            self.tat = Some(tat);
        }
        answer
    }

    /// `check_n_only(n)` at `now`: the same answer, nothing taken.
    pub fn check_n_only(&self, now: Time, n: NonZeroU32) -> GovernorAnswer {
        self.assess(nanos(now.max(self.latest)), u128::from(n.get()))
            .0
    }

    /// The answer for `n` cells at `now_ns`, and the TAT to store when they conform.
    fn assess(&self, now_ns: u128, n: u128) -> (GovernorAnswer, Option<u128>) {
        let additional = self.t * n.saturating_sub(1);
        if additional > self.tau {
            // 1 + tau / T, which is the burst size since tau = T × (b - 1).
            let capacity = 1 + self.tau / self.t;
            return (
                GovernorAnswer::InsufficientCapacity(u32::try_from(capacity).unwrap_or(u32::MAX)),
                None,
            );
        }
        let tat = self.tat.unwrap_or(now_ns);
        let earliest = (tat + additional).saturating_sub(self.tau);
        if now_ns < earliest {
            return (
                GovernorAnswer::NotUntil {
                    earliest_possible_ns: earliest,
                },
                None,
            );
        }
        (
            GovernorAnswer::Ok,
            Some(tat.max(now_ns) + self.t + additional),
        )
    }

    /// Cells that would conform right now with this TAT, at most the burst.
    fn cells_available(&self, now_ns: u128, tat: Option<u128>) -> u64 {
        let tat = tat.unwrap_or(now_ns);
        if tat > now_ns + self.tau {
            return 0;
        }
        let cells = (now_ns + self.tau - tat) / self.t + 1;
        u64::try_from(cells)
            .unwrap_or(u64::MAX)
            .min(u64::from(self.burst))
    }

    /// `StateSnapshot::remaining_burst_capacity()` after an allowed call at `now_ns` that stored
    /// `tat`.
    fn remaining_burst_capacity(&self, now_ns: u128, tat: u128) -> u64 {
        let room = (now_ns + self.tau + self.t)
            .saturating_sub(tat)
            .min(self.tau + self.t);
        u64::try_from(room / self.t).unwrap_or(u64::MAX)
    }

    /// Whether a keyed limiter's `retain_recent()` at `now` would drop this key: its TAT is at or
    /// before `now - T` (a key never seen holds nothing to drop).
    pub fn dropped_by_retain_recent(&self, now: Time) -> bool {
        let drop_below = nanos(now.max(self.latest)).saturating_sub(self.t);
        self.tat.is_none_or(|tat| tat <= drop_below)
    }

    /// The decision for a request of `cost` at `now`, governor's answer, and the TAT to store.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn evaluate(&self, now: Time, cost: u64) -> (Decision, GovernorAnswer, Option<u128>) {
        let now = now.max(self.latest);
        let now_ns = nanos(now);
        let (answer, stored) = if cost == 0 {
            // Not expressible in governor (NonZeroU32): answered Ok, nothing checked or taken.
            (GovernorAnswer::Ok, None)
        } else {
            self.assess(now_ns, u128::from(cost))
        };
        let tat_after = stored.or(self.tat);
        let mut decision = Decision {
            verdict: Verdict::Allowed,
            limit: u64::from(self.burst),
            remaining: self.cells_available(now_ns, tat_after),
            reset_after: span_up(tat_after.map_or(0, |tat| tat.saturating_sub(now_ns))),
            retry_after: None,
        };
        match answer {
            GovernorAnswer::Ok => {}
            GovernorAnswer::NotUntil { .. } => {
                decision.verdict = Verdict::Rejected;
                decision.retry_after = answer.wait_time_from(now);
            }
            GovernorAnswer::InsufficientCapacity(_) => decision.verdict = Verdict::Rejected,
        }
        (decision, answer, stored)
    }

    /// Keeps the TAT of a conforming call and the latest time seen.
    fn commit(&mut self, now: Time, stored: Option<u128>) {
        if stored.is_some() {
            self.tat = stored;
        }
        self.latest = now.max(self.latest);
    }

    /// What governor returned, in its own words, for `check_n(cost)` at `now_ns`.
    fn reply(
        &self,
        cost: u64,
        now_ns: u128,
        answer: GovernorAnswer,
        stored: Option<u128>,
    ) -> ProductReply {
        let mut fields = vec![("call", format!("check_n({cost})"))];
        if cost == 0 {
            fields.push((
                "note",
                "check_n takes a NonZeroU32, so 0 cells cannot be asked; nothing is taken"
                    .to_string(),
            ));
        }
        fields.push(("result", answer.result()));
        match answer {
            GovernorAnswer::Ok => {
                if let Some(tat) = stored {
                    fields.push((
                        "remaining_burst_capacity",
                        self.remaining_burst_capacity(now_ns, tat).to_string(),
                    ));
                }
            }
            GovernorAnswer::NotUntil {
                earliest_possible_ns,
            } => {
                fields.push(("earliest_possible", millis_text(earliest_possible_ns)));
                fields.push(("wait", millis_text(earliest_possible_ns - now_ns)));
            }
            GovernorAnswer::InsufficientCapacity(_) => {}
        }
        ProductReply { fields }
    }
}

/// Lab time in nanoseconds since the limiter was created.
fn nanos(now: Time) -> u128 {
    u128::from(now.micros()) * NANOS_PER_MICRO
}

/// Nanoseconds to a lab time, rounded up to the microsecond, saturating.
fn micros_up(ns: u128) -> Time {
    Time(u64::try_from(ns.div_ceil(NANOS_PER_MICRO)).unwrap_or(u64::MAX))
}

/// Nanoseconds to a span, rounded up to the microsecond, saturating.
fn span_up(ns: u128) -> Span {
    Span(micros_up(ns).micros())
}

/// Nanoseconds written as milliseconds, exactly: 1000000000 ns is "1000", 333333333 ns is
/// "333.333333".
fn millis_text(ns: u128) -> String {
    let (whole, frac) = (ns / NANOS_PER_MILLI, ns % NANOS_PER_MILLI);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

impl Limiter for Governor {
    /// `check_n(cost)`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, _, stored) = self.evaluate(now, cost);
        self.commit(now, stored);
        decision
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now_ns = nanos(now.max(self.latest));
        let debt = self.tat.map(|tat| tat.saturating_sub(now_ns)).unwrap_or(0);
        let level = f64::from(self.burst) - debt as f64 / self.t as f64;
        Gauge {
            level: level.max(0.0),
            max: f64::from(self.burst),
            unit: "cells of burst left",
        }
    }

    /// governor forgets a key when `retain_recent()` drops it, one interval after its TAT has
    /// passed; from then on it decides like a fresh key (it already did from the TAT on).
    fn is_at_rest(&self, now: Time) -> bool {
        self.dropped_by_retain_recent(now)
    }
}

impl Product for Governor {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let (decision, answer, stored) = self.evaluate(now, cost);
        let reply = self.reply(cost, nanos(now.max(self.latest)), answer, stored);
        self.commit(now, stored);
        (decision, reply)
    }
}

/// The governor row (`core::limiter::rows`).
pub const ROW: ProductRow<Governor> = ProductRow {
    slug: "governor",
    label: "governor (Rust)",
    family: Family {
        prefix: "governor-",
        name: "governor",
        fields: fields::FIELDS,
    },
    build: |s| Governor::new(s.products.governor.params(s.limit, s.window)),
    response: |_, decision, _| super::response::governor(decision),
    // The exact wait of its `NotUntil` answer (`wait_time_from`), which a client of the library
    // reads instead of a rounded header; `InsufficientCapacity` says no wait helps.
    hint: Hint::Finer(|_, decision, _| match decision.retry_after {
        Some(wait) => Told::Wait(wait),
        None => Told::Never,
    }),
    tells: "the exact wait of governor's NotUntil answer",
    explain: |s| {
        let g = s.products.governor.params(s.limit, s.window);
        explanation(
            format!("The governor crate's GCRA, in its own whole nanoseconds: one cell every {} s, a burst of {}. A fresh limiter lets the whole burst through at once.", crate::core::time::format_seconds(g.replenish_1_per_ns / 1000), g.burst),
            "One 64-bit timestamp per key, until a keyed limiter's retain_recent drops it one interval after its arrival time.",
            "Rust services limiting in process; check_n refuses a request larger than the burst for ever (InsufficientCapacity).",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "main.rs",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    #[test]
    fn per_second_truncates_the_interval_to_whole_nanoseconds() {
        // quota.rs: per_second(50) replenishes every 20 ms; per_second(3) every 333,333,333 ns.
        assert_eq!(
            GovernorParams::per_second(50).replenish_1_per_ns,
            20_000_000
        );
        assert_eq!(
            GovernorParams::per_second(3).replenish_1_per_ns,
            333_333_333
        );
        assert_eq!(GovernorParams::with_period_ns(0), None);
    }

    #[test]
    fn a_zero_interval_from_a_huge_per_second_is_clamped_to_one_nanosecond() {
        // Gcra::new: t = max(replenish_1_per, 1 ns); tests/direct.rs runs per_second(1_000_000_001).
        let g = Governor::new(GovernorParams::per_second(1_000_000_000).allow_burst(1)).unwrap();
        assert_eq!(g.replenish_interval_ns(), 1);
        let params = GovernorParams {
            replenish_1_per_ns: 0,
            burst: 1,
        };
        assert_eq!(Governor::new(params).unwrap().replenish_interval_ns(), 1);
    }

    #[test]
    fn the_middleware_capacity_and_the_available_cells_agree_after_an_allowed_call() {
        let mut g = Governor::new(GovernorParams::per_second(5)).unwrap();
        for (ms, n) in [(0u64, 2u32), (10, 1), (450, 2), (460, 1)] {
            let now = Time::from_millis(ms);
            if g.check_n(now, nz(n)) == GovernorAnswer::Ok {
                let tat = g.tat.unwrap();
                assert_eq!(
                    g.remaining_burst_capacity(nanos(now), tat),
                    g.cells_available(nanos(now), Some(tat))
                );
            }
        }
    }

    #[test]
    fn the_snapshot_caps_at_tau_plus_t_which_an_allowed_call_never_reaches() {
        // per_second(4): T = 250 ms, tau = 750 ms, so governor's cap is tau + T = 1 s.
        let mut g = Governor::new(GovernorParams::per_second(4)).unwrap();
        assert_eq!(
            g.remaining_burst_capacity(0, 0),
            4,
            "a TAT at or before now would report tau + T: 4 cells"
        );
        for ms in [0u64, 0, 100, 900, 5_000] {
            let now = Time::from_millis(ms);
            if g.check(now) == GovernorAnswer::Ok {
                let (now_ns, tat) = (nanos(now), g.tat.unwrap());
                assert!(
                    now_ns + g.tau + g.t - tat <= g.tau,
                    "the stored TAT is at least now + T"
                );
                assert!(g.remaining_burst_capacity(now_ns, tat) < 4);
            }
        }
    }

    #[test]
    fn a_zero_burst_is_refused_as_governor_cannot_write_it() {
        assert!(matches!(
            Governor::new(GovernorParams::per_second(0)),
            Err(ConfigError::Unsupported(_))
        ));
    }

    #[test]
    fn milliseconds_are_written_exactly() {
        assert_eq!(millis_text(1_000_000_000), "1000");
        assert_eq!(millis_text(333_333_333), "333.333333");
        assert_eq!(millis_text(200_500_000), "200.5");
    }
}
