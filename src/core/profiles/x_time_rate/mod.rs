//! Go's `golang.org/x/time/rate` token bucket, call for call, in its own float64 arithmetic.
//!
//! Read from golang/time at commit 2b4e43900c03fd6b77109b7b2b6d77583f48bc1c (September 2025, one
//! commit after tag v0.13.0; the newest stored): `rate/rate.go`, checked against
//! `rate/rate_test.go`. The figures in this profile's tests were also checked by running that
//! `rate.go` with Go 1.19 on linux/amd64.
//!
//! What the library does:
//!
//! - `NewLimiter(r Limit, b int)`: `r` is a float64 of events per second, `b` the burst; the
//!   bucket holds `tokens`, a float64 that starts at `b`, and `last`, the time it was last
//!   written, which starts as the zero `time.Time` (year 1). `rate.Inf` is `math.MaxFloat64`, the
//!   largest float, and lets everything through without touching the state, whatever `b` is.
//! - `advance(t)` (the tokens at `t`, nothing written): `elapsed = t.Sub(last)` (with `last`
//!   taken as `t` when `t` is before it), `tokensFromDuration(elapsed)`, which is
//!   `elapsed.Seconds() * r` (0 for `r <= 0`), is added and the sum capped at `b`.
//!   `Duration.Seconds()` is `float64(d / 1e9) + float64(d % 1e9) / 1e9`.
//! - `reserveN(t, n, maxFutureReserve)` subtracts `n` from `advance(t)`; when the result is
//!   negative the wait is `durationFromTokens(-tokens)`: `(tokens / r) * 1e9` truncated to whole
//!   nanoseconds, `InfDuration` (`MaxInt64` ns) for `r <= 0` or a result above `MaxInt64`. The
//!   call is OK when `n <= b` and the wait is at most `maxFutureReserve`, and only then does it
//!   write `tokens` (possibly negative), `last = t` and `lastEvent = t + wait`.
//! - `AllowN(t, n)` is `reserveN(t, n, 0)`: it passes only when the wait truncates to 0, and a
//!   refused call writes nothing. `ReserveN(t, n)` is `reserveN(t, n, InfDuration)`: it is OK for
//!   any `n <= b`, takes the tokens at once (driving the bucket negative) and says, through
//!   `DelayFrom(t)`, how long to wait (`InfDuration` when not OK). `WaitN(ctx, n)` fails at once
//!   with "rate: Wait(n=%d) exceeds limiter's burst %d" when `n > b` (unless `r` is `Inf`),
//!   otherwise reserves like `ReserveN` (bounded by the context's deadline) and sleeps the delay.
//!
//! How the lab maps it: a row is `AllowN` (refused = `Rejected`, nothing reserved), and the reply
//! says what `ReserveN` and `WaitN` would have answered instead in the same state (their delay,
//! `OK()`, the error), without doing it. `tokens` in the reply is `TokensAt(t)` after the call.
//! The Go-shaped methods ([`XTimeRate::allow_n`], [`XTimeRate::reserve_n`],
//! [`XTimeRate::reserve_n_max`], [`XTimeRate::wait_n`], [`XTimeRate::tokens_at`]) are there to
//! reproduce the library's own tests.
//!
//! Time: the lab's time `µs` is the `time.Time` exactly `µs` microseconds after the limiter was
//! created (a `time.Time` holds every such instant to the nanosecond), so every `time.Duration`
//! Go computes between two of them is a whole number of microseconds times 1000 ns. `t.Sub(u)`
//! saturates at `MaxInt64` ns as Go's does, so after 292 years without a write the bucket stops
//! gaining, in Go and here. The limiter is created at a real `time.Now()`, far more than 292
//! years after the zero `last`, so until its first write the elapsed time saturates and
//! `advance` returns exactly `b`.
//!
//! The lab's [`Decision`]: `limit` is `b`; `remaining` is how many `AllowN(t, 1)` calls in a
//! row would pass now (the whole tokens left, and one more when Go would let the fraction
//! owed pass; above 1e9 per second an estimate); `retry_after` is the first microsecond at
//! which the same `AllowN` passes (Go's `ReserveN` delay, made exact on the lab's clock), `None`
//! when it never does (`n > b`, a limit of 0 or less, or a token more than 292 years away);
//! `reset_after` is the first microsecond at which the bucket is full again, from when the
//! limiter answers as a fresh one (`Span(u64::MAX)` for never). With `rate.Inf`, `limit` and
//! `remaining` are `u64::MAX`: nothing is held against anyone.
//!
//! Exactness notes: the float64 operations are Go's, in Go's order; a float64 to int64
//! conversion out of range (only `durationFromTokens` at exactly 2^63 ns can reach it) gives
//! `MinInt64`, as on amd64, Go's most common target (arm64 saturates to `MaxInt64`; and arm64,
//! ppc64le and s390x builds may fuse `a + b * c` into one rounding, which can move the last bit
//! of `tokens`). `lastEvent`, `CancelAt`, `SetLimitAt` and `SetBurstAt` are not modelled: the lab
//! never cancels a reservation or changes a limit mid-trace.
//!
//! Choices where Go has nothing to say:
//! - Go's `n` is an `int`; a lab cost above `MaxInt64` cannot be written. It is larger than any
//!   burst, so it is refused and `ReserveN` is not OK (with `r = Inf`, every `n` passes), and the
//!   reply notes it. A cost of 0 is a real Go call: it passes and writes `last` and `tokens`
//!   (which can move the last bit of later figures), and the profile does the same.
//! - Go moves `last` back when a call comes with an earlier time (`TestLimiterJumpBackwards`:
//!   going back and forth earns tokens). The Go-shaped methods do that too; the [`Limiter`] path
//!   follows the lab's rule instead: a time earlier than one already seen is that later time.
//! - `NewLimiter` refuses nothing. The profile refuses a NaN or infinite limit (Go's results for
//!   them depend on how the processor converts NaN to an integer; write `rate.Inf` as
//!   [`INF`]) and, as every lab profile, a burst above [`MAX_COUNT`]. A zero or negative limit
//!   and a zero burst are kept as Go has them: the bucket never refills, or only a cost of 0
//!   passes.

use crate::core::config::{ConfigError, MAX_COUNT};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::http::HttpResponse;
use crate::core::time::{Span, Time};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// `rate.Inf`: `Limit(math.MaxFloat64)`.
pub const INF: f64 = f64::MAX;
/// `rate.InfDuration`: `time.Duration(math.MaxInt64)`, in nanoseconds.
pub const INF_DURATION: i64 = i64::MAX;

const NANOS_PER_SEC: i64 = 1_000_000_000;
const NANOS_PER_MICRO: i128 = 1_000;

/// The arguments of `rate.NewLimiter(r, b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XTimeRateParams {
    /// `r`: a `rate.Limit`, events per second (float64). [`INF`] is `rate.Inf`.
    pub limit: f64,
    /// `b`: the burst, the bucket's size and the largest `n` that can ever pass.
    pub burst: u64,
}

impl XTimeRateParams {
    /// `rate.NewLimiter(limit, burst)`.
    pub fn new(limit: f64, burst: u64) -> XTimeRateParams {
        XTimeRateParams { limit, burst }
    }

    /// The lab's "`limit` per `window`" as Go users write it:
    /// `rate.NewLimiter(rate.Limit(float64(limit) / window.Seconds()), limit)`, a rate of `limit`
    /// per window and a burst of `limit`, so a fresh client gets `limit` at once. (A zero
    /// window gives an infinite `r`, which [`XTimeRate::new`] refuses.)
    pub fn defaults_for(limit: u64, window: Span) -> XTimeRateParams {
        let window_ns =
            i64::try_from(i128::from(window.micros()) * NANOS_PER_MICRO).unwrap_or(INF_DURATION);
        XTimeRateParams {
            limit: limit as f64 / go_seconds(window_ns),
            burst: limit,
        }
    }

    /// `rate.Every(interval)`: `Inf` for an interval of 0 or less, else `1 / interval.Seconds()`.
    pub fn every(interval_ns: i64) -> f64 {
        if interval_ns <= 0 {
            return INF;
        }
        1.0 / go_seconds(interval_ns)
    }
}

/// What `ReserveN` (or `reserveN` with a bound) returned: `OK()` and the moment to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reservation {
    ok: bool,
    /// `timeToAct` in nanoseconds since the limiter was created (meaningful when `ok`).
    time_to_act_ns: i128,
}

impl Reservation {
    /// `r.OK()`.
    pub fn ok(&self) -> bool {
        self.ok
    }

    /// `r.DelayFrom(t)` in nanoseconds: `InfDuration` when not OK, never negative.
    pub fn delay_from(&self, t: Time) -> i64 {
        if !self.ok {
            return INF_DURATION;
        }
        go_sub(self.time_to_act_ns, nanos(t)).max(0)
    }
}

/// Why `WaitN` returned an error without waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    /// `n > b` with a finite limit.
    ExceedsBurst { n: u64, burst: u64 },
    /// The context's deadline comes before the tokens would.
    ExceedsDeadline { n: u64 },
}

impl WaitError {
    /// The error's text, as `WaitN` formats it.
    pub fn message(&self) -> String {
        match self {
            WaitError::ExceedsBurst { n, burst } => {
                format!("rate: Wait(n={n}) exceeds limiter's burst {burst}")
            }
            WaitError::ExceedsDeadline { n } => {
                format!("rate: Wait(n={n}) would exceed context deadline")
            }
        }
    }
}

/// One `rate.Limiter`.
#[derive(Clone, Debug)]
pub struct XTimeRate {
    limit: f64,
    burst: u64,
    tokens: f64,
    /// `last` as a lab time (every time Go sees here is a whole microsecond); `None` for the
    /// zero `time.Time`.
    last: Option<u64>,
    /// The latest lab time seen (the [`Limiter`] path never goes back past it).
    latest: Time,
    /// `1e9 / limit`, for first guesses only (exact answers divide as Go does).
    ns_per_token: f64,
}

/// What `reserveN` computed at one time for one `n`, before deciding.
#[derive(Clone, Copy, Debug)]
struct Ask {
    /// `advance(t)`.
    advanced: f64,
    /// `advance(t) - n`.
    tokens: f64,
    /// The wait is at most 0: `AllowN` would pass but for the burst.
    now: bool,
    /// `n <= b`.
    fits: bool,
}

impl XTimeRate {
    /// `rate.NewLimiter(params.limit, params.burst)`, created at the lab's time 0.
    pub fn new(params: XTimeRateParams) -> Result<XTimeRate, ConfigError> {
        if !params.limit.is_finite() {
            return Err(ConfigError::BadRate(format!(
                "{} (write rate.Inf as the largest float64)",
                go_float(params.limit)
            )));
        }
        if params.burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("burst"));
        }
        Ok(XTimeRate {
            limit: params.limit,
            burst: params.burst,
            tokens: params.burst as f64,
            last: None,
            latest: Time::ZERO,
            ns_per_token: NANOS_PER_SEC as f64 / params.limit,
        })
    }

    /// `lim.Limit()`.
    pub fn limit(&self) -> f64 {
        self.limit
    }

    /// `lim.Burst()`.
    pub fn burst(&self) -> u64 {
        self.burst
    }

    fn is_inf(&self) -> bool {
        self.limit == INF
    }

    /// `limit.tokensFromDuration(d)`.
    fn tokens_from_duration(&self, d: i64) -> f64 {
        if self.limit <= 0.0 {
            return 0.0;
        }
        go_seconds(d) * self.limit
    }

    /// `limit.durationFromTokens(tokens)`, in nanoseconds.
    fn duration_from_tokens(&self, tokens: f64) -> i64 {
        if self.limit <= 0.0 {
            return INF_DURATION;
        }
        let duration = (tokens / self.limit) * NANOS_PER_SEC as f64;
        if duration > i64::MAX as f64 {
            return INF_DURATION;
        }
        go_f64_to_i64(duration)
    }

    /// `lim.advance(t)`: the tokens at lab time `t`, nothing written.
    fn advance(&self, t: u64) -> f64 {
        let elapsed = match self.last {
            // t.Sub(zero time): far beyond a Duration, so MaxInt64.
            None => INF_DURATION,
            Some(last) => elapsed_ns(t - last.min(t)),
        };
        let tokens = self.tokens + self.tokens_from_duration(elapsed);
        let burst = self.burst as f64;
        if tokens > burst {
            burst
        } else {
            tokens
        }
    }

    /// `reserveN`'s arithmetic for `n` at lab time `t` (a finite limit), before deciding.
    fn ask(&self, t: u64, n: u64) -> Ask {
        let advanced = self.advance(t);
        let tokens = advanced - n as f64;
        Ask {
            advanced,
            tokens,
            now: tokens >= 0.0 || self.owed_comes_back_at_once(-tokens),
            // Go's n is an int: a larger cost cannot be written and exceeds any burst.
            fits: n <= self.burst && i64::try_from(n).is_ok(),
        }
    }

    /// The wait `reserveN` computes, in nanoseconds.
    fn wait(&self, ask: Ask) -> i64 {
        if ask.tokens < 0.0 {
            self.duration_from_tokens(-ask.tokens)
        } else {
            0
        }
    }

    /// Whether `durationFromTokens(owed) <= 0` for `owed > 0`: the tokens owed come back in
    /// under 1 ns. Decided without a division when `owed` is clearly on one side of
    /// `limit / 1e9` (and far below the 2^63 ns that converts to `MinInt64`).
    fn owed_comes_back_at_once(&self, owed: f64) -> bool {
        if self.limit <= 0.0 {
            return false;
        }
        if self.limit >= 1e-280 {
            let one_ns = self.limit * 1e-9;
            if owed < one_ns * 0.999_999 {
                return true;
            }
            if owed > one_ns * 1.000_001 && owed < self.limit * 9e9 {
                return false;
            }
        }
        self.duration_from_tokens(owed) <= 0
    }

    /// `lim.reserveN(t, n, maxFutureReserve)`, writing the state when OK.
    fn reserve(&mut self, t: Time, n: u64, max_future_reserve: i64) -> Reservation {
        self.latest = self.latest.max(t);
        let t_ns = nanos(t);
        if self.is_inf() {
            return Reservation {
                ok: true,
                time_to_act_ns: t_ns,
            };
        }
        let ask = self.ask(t.micros(), n);
        // AllowN's bound of 0 needs no division unless it passes while owing tokens.
        let wait = if max_future_reserve == 0 && !ask.now {
            INF_DURATION
        } else {
            self.wait(ask)
        };
        let ok = ask.fits && wait <= max_future_reserve;
        if ok {
            self.last = Some(t.micros());
            self.tokens = ask.tokens;
        }
        Reservation {
            ok,
            time_to_act_ns: t_ns + i128::from(wait),
        }
    }

    /// `lim.AllowN(t, n)`, with Go's handling of a `t` earlier than the last write.
    pub fn allow_n(&mut self, t: Time, n: u64) -> bool {
        self.reserve(t, n, 0).ok
    }

    /// `lim.ReserveN(t, n)`.
    pub fn reserve_n(&mut self, t: Time, n: u64) -> Reservation {
        self.reserve(t, n, INF_DURATION)
    }

    /// `lim.reserveN(t, n, maxFutureReserve)`: what `WaitN` calls with a context deadline
    /// `maxFutureReserve` after `t`.
    pub fn reserve_n_max(&mut self, t: Time, n: u64, max_future_reserve_ns: i64) -> Reservation {
        self.reserve(t, n, max_future_reserve_ns)
    }

    /// `lim.WaitN(ctx, n)` called at `t` with a context that has no deadline (`None`) or one
    /// `deadline_ns` after `t`: the time it sleeps, in nanoseconds, or its error.
    pub fn wait_n(&mut self, t: Time, n: u64, deadline_ns: Option<i64>) -> Result<i64, WaitError> {
        if n > self.burst && !self.is_inf() {
            return Err(WaitError::ExceedsBurst {
                n,
                burst: self.burst,
            });
        }
        let r = self.reserve(t, n, deadline_ns.unwrap_or(INF_DURATION));
        if !r.ok {
            return Err(WaitError::ExceedsDeadline { n });
        }
        Ok(r.delay_from(t))
    }

    /// `lim.TokensAt(t)`.
    pub fn tokens_at(&self, t: Time) -> f64 {
        self.advance(t.micros())
    }

    /// What `ReserveN(t, n)` would answer in the current state, without taking anything:
    /// `OK()` and `DelayFrom(t)` in nanoseconds.
    pub fn would_reserve(&self, t: Time, n: u64) -> (bool, i64) {
        let mut probe = self.clone();
        let r = probe.reserve_n(t, n);
        (r.ok(), r.delay_from(t))
    }

    /// Whether `AllowN(t, n)` passes in the current state (`t` not before the last write).
    fn passes(&self, t: u64, n: u64) -> bool {
        if self.is_inf() {
            return true;
        }
        let ask = self.ask(t, n);
        ask.fits && ask.now
    }

    /// The lab time from which `Sub` saturates (`last + MaxInt64` ns, rounded up to the
    /// microsecond) and the bucket gains nothing more.
    fn horizon(&self, from: u64) -> u64 {
        match self.last {
            None => from,
            Some(last) => last.saturating_add(SATURATED_US).max(from),
        }
    }

    /// The first lab time after `from` at which `at` is true, given that it is false at `from`
    /// and, once true, stays true as time goes on; `None` if it never becomes true. `guess_ns`
    /// is where the float arithmetic says it turns, counted from `from`: the search starts
    /// there and gallops out, so a guess off by Go's rounding costs a few probes, not a search
    /// of 292 years.
    fn first_time(&self, from: u64, guess_ns: i64, at: impl Fn(u64) -> bool) -> Option<u64> {
        // From `end` on, `Sub` saturates and nothing changes any more.
        let end = self.horizon(from);
        if end == from {
            return None;
        }
        let guess_us = guess_ns.max(0).unsigned_abs().div_ceil(1_000);
        let guess = from
            .saturating_add(guess_us)
            .clamp(from.saturating_add(1), end);
        // Bracket the turn: `lo` false, `hi` true.
        let (mut lo, mut hi);
        let mut step = 1u64;
        if at(guess) {
            hi = guess;
            loop {
                let probe = hi.saturating_sub(step).max(from);
                if probe == from || !at(probe) {
                    lo = probe;
                    break;
                }
                hi = probe;
                step = step.saturating_mul(2);
            }
        } else {
            lo = guess;
            loop {
                if lo == end {
                    return None;
                }
                let probe = lo.saturating_add(step).min(end);
                if at(probe) {
                    hi = probe;
                    break;
                }
                lo = probe;
                step = step.saturating_mul(2);
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if at(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// The first lab time at or after `now` at which `AllowN(n)` passes, if any, given what
    /// `reserveN` computed at `now` (`ask`).
    fn first_pass(&self, now: Time, n: u64, ask: Ask) -> Option<Time> {
        if self.is_inf() || (ask.fits && ask.now) {
            return Some(now);
        }
        if !ask.fits {
            return None;
        }
        let passes = |t| self.passes(t, n);
        // A call passes once what it owes comes back in under 1 ns: 0.001 µs before the level
        // reaches `n`.
        if let Some(t) = self.certain_turn(now.micros(), n as f64, 0.001, &passes) {
            return Some(Time(t));
        }
        self.first_time(now.micros(), self.wait(ask), passes)
            .map(Time)
    }

    /// The first lab time at or after `now` at which the bucket is full (`advance == b`), if
    /// any, given the tokens at `now` (`left`): from then on the limiter decides exactly as a
    /// fresh one.
    fn first_full(&self, now: Time, left: f64) -> Option<Time> {
        let burst = self.burst as f64;
        if left >= burst {
            return Some(now);
        }
        let full = |t| self.advance(t) >= burst;
        if let Some(t) = self.certain_turn(now.micros(), burst, 0.0, &full) {
            return Some(Time(t));
        }
        // Only a starting point for the search: a multiplication stands in for Go's division.
        let guess = if self.limit > 0.0 {
            go_f64_to_i64(((burst - left) * self.ns_per_token).min(i64::MAX as f64)).max(0)
        } else {
            INF_DURATION
        };
        self.first_time(now.micros(), guess, full).map(Time)
    }

    /// The first lab time after `from` at which the level (`tokens` at `last`, growing at
    /// `limit` per second) reaches `target`, less `shift_us` microseconds, when that can be
    /// told with at most one evaluation of Go's arithmetic (`at`, false at `from`); `None` to
    /// have [`Self::first_time`] search.
    ///
    /// In real numbers the level reaches `target` `turn` µs after `last`; Go's float64 result
    /// differs from the real one by far less than `band` µs of refill (a bound on its four
    /// roundings, and on those of `turn`). So a lab time more than `band` after `turn` passes
    /// and one more than `band` before it does not, without asking; only a time within `band`
    /// of `turn` (as on "nice" traces, where the turn falls on a whole microsecond) is asked.
    fn certain_turn(
        &self,
        from: u64,
        target: f64,
        shift_us: f64,
        at: &impl Fn(u64) -> bool,
    ) -> Option<u64> {
        let last = self.last?;
        // A zero, negative or extremely small limit: search instead.
        if self.limit <= 1e-200 {
            return None;
        }
        let from_after_last = from.checked_sub(last)?;
        let turn = (target - self.tokens) / self.limit * 1e6 - shift_us;
        // Far from the 292 years at which `Sub` saturates, and from 2^53 µs.
        if turn.is_nan() || turn >= 1e15 || from_after_last > 1 << 52 {
            return None;
        }
        let band = (self.tokens.abs() + target.abs() + 1.0) * 1e-14 / self.limit * 1e6
            + turn.abs() * 1e-14
            + 1e-6;
        if band > 0.25 {
            return None;
        }
        // The first whole microsecond at or after the turn, and after `from`.
        let k = if turn <= 0.0 {
            0
        } else {
            let whole = turn as u64;
            whole + u64::from((whole as f64) < turn)
        }
        .max(from_after_last + 1);
        let first = last.checked_add(k)?;
        let kf = k as f64;
        let passes_at_k = kf - turn > band || at(first);
        if !passes_at_k {
            return None;
        }
        let fails_before = k - 1 == from_after_last || turn - (kf - 1.0) > band || !at(first - 1);
        fails_before.then_some(first)
    }

    /// How many `AllowN(t, 1)` calls in a row would pass with `tokens` left.
    fn cost_one_passes(&self, tokens: f64) -> u64 {
        if self.is_inf() {
            return u64::MAX;
        }
        if self.burst == 0 {
            return 0;
        }
        let mut left = tokens;
        let mut count = 0u64;
        if left >= 1.0 {
            // Taking one token at a time from a value of 1 or more is exact in float64, so
            // Go's bucket would hold exactly this after the whole tokens.
            // (Truncation is the floor here: `left` is positive and at most the burst.)
            count = left as u64;
            left -= count as f64;
        }
        // Go also passes a call whose shortfall is worth less than 1 ns of refill.
        for _ in 0..3 {
            let next = left - 1.0;
            if next < 0.0 && !self.owed_comes_back_at_once(-next) {
                return count;
            }
            count += 1;
            left = next;
        }
        // Only a limit above 1e9 per second passes more: a call passes while the tokens owed
        // come back in under 1 ns, that is while fewer than limit / 1e9 are owed. (An estimate:
        // at the boundary Go's rounding may pass one call more or less.)
        let owed_in_one_ns = self.limit / NANOS_PER_SEC as f64;
        ((tokens + owed_in_one_ns).ceil() - 1.0).max(0.0) as u64
    }

    /// The lab's decision for `AllowN(now, cost)`, and the state to write if it passes.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn evaluate(&self, now: Time, cost: u64) -> (Decision, Option<f64>) {
        let now = now.max(self.latest);
        if self.is_inf() {
            let decision = Decision {
                verdict: Verdict::Allowed,
                limit: u64::MAX,
                remaining: u64::MAX,
                reset_after: Span::ZERO,
                retry_after: None,
            };
            return (decision, None);
        }
        let ask = self.ask(now.micros(), cost);
        let ok = ask.fits && ask.now;
        let mut after = self.clone();
        if ok {
            after.tokens = ask.tokens;
            after.last = Some(now.micros());
        }
        // What advance(now) gives after the call: the tokens left by a write at `now` (no time
        // has passed since it), or the tokens before a refused call.
        let left = if ok { ask.tokens } else { ask.advanced };
        let reset_after = after
            .first_full(now, left)
            .map_or(Span(u64::MAX), |at| at.since(now));
        let decision = Decision {
            verdict: if ok {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit: self.burst,
            remaining: after.cost_one_passes(left),
            reset_after,
            retry_after: if ok {
                None
            } else {
                self.first_pass(now, cost, ask).map(|at| at.since(now))
            },
        };
        (decision, ok.then_some(ask.tokens))
    }

    fn commit(&mut self, now: Time, tokens: Option<f64>) {
        let now = now.max(self.latest);
        if let Some(tokens) = tokens {
            self.tokens = tokens;
            self.last = Some(now.micros());
        }
        self.latest = now;
    }

    /// What Go answered, in its own words: `AllowN`, then what `ReserveN` and `WaitN` would have
    /// answered instead (`reserve` is `ReserveN`'s `OK()` and delay, computed before the call).
    fn reply(&self, now: Time, cost: u64, allowed: bool, reserve: (bool, i64)) -> ProductReply {
        let mut fields = vec![
            ("call", format!("AllowN(t, {cost})")),
            ("allow", allowed.to_string()),
            ("tokens", go_float(self.tokens_at(now))),
            ("reserve_ok", reserve.0.to_string()),
            ("delay", go_duration(reserve.1)),
        ];
        let wait_err = if cost > self.burst && !self.is_inf() {
            WaitError::ExceedsBurst {
                n: cost,
                burst: self.burst,
            }
            .message()
        } else {
            "<nil>".to_string()
        };
        fields.push(("wait_err", wait_err));
        if i64::try_from(cost).is_err() {
            fields.push((
                "note",
                "n is a Go int: a cost above 9223372036854775807 cannot be asked".to_string(),
            ));
        }
        ProductReply { fields }
    }
}

impl Limiter for XTimeRate {
    /// `AllowN(now, cost)`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let (decision, tokens) = self.evaluate(now, cost);
        self.commit(now, tokens);
        decision
    }

    fn admit(&mut self, now: Time, cost: u64) -> Verdict {
        let now = now.max(self.latest);
        if self.allow_n(now, cost) {
            Verdict::Allowed
        } else {
            Verdict::Rejected
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let level = self.tokens_at(now.max(self.latest));
        Gauge {
            level: level.max(0.0),
            max: self.burst as f64,
            unit: "tokens",
        }
    }

    /// At rest once the bucket is full again: from then on it decides as a fresh limiter.
    fn is_at_rest(&self, now: Time) -> bool {
        let now = now.max(self.latest);
        self.is_inf() || self.advance(now.micros()) >= self.burst as f64
    }
}

impl Product for XTimeRate {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let at = now.max(self.latest);
        let reserve = self.would_reserve(at, cost);
        let decision = self.decide(now, cost);
        let reply = self.reply(at, cost, decision.allowed(), reserve);
        (decision, reply)
    }
}

/// What a client receives. The library sends nothing over HTTP, and golang/time has no example
/// server (the module holds only `rate.go`, `sometimes.go` and their tests), so this is what an
/// `AllowN` answer tells a server written the usual way: 200 when it passes, else
/// `429 Too Many Requests` with `Retry-After` in whole seconds (rounded up, at least 1) from the
/// wait the limiter names, and no `Retry-After` for a cost above the burst, which never passes.
pub fn http_response(decision: &Decision, _reply: &ProductReply) -> HttpResponse {
    super::response::refused_with_retry_after(decision)
}

/// Lab time in nanoseconds since the limiter was created.
fn nanos(t: Time) -> i128 {
    i128::from(t.micros()) * NANOS_PER_MICRO
}

/// The microseconds from which `elapsed_ns` saturates: `MaxInt64` ns, rounded up.
const SATURATED_US: u64 = (i64::MAX as u64).div_ceil(1_000);

/// `t.Sub(last)` for `us` microseconds between them: nanoseconds, saturated at `MaxInt64`.
fn elapsed_ns(us: u64) -> i64 {
    if us >= SATURATED_US {
        INF_DURATION
    } else {
        us as i64 * 1_000
    }
}

/// `t.Sub(u)`: the difference in nanoseconds, saturated to a `time.Duration`.
fn go_sub(t: i128, u: i128) -> i64 {
    let d = t - u;
    i64::try_from(d).unwrap_or(if d < 0 { i64::MIN } else { i64::MAX })
}

/// `time.Duration(d).Seconds()`.
fn go_seconds(d: i64) -> f64 {
    let whole = d / NANOS_PER_SEC;
    let frac = d % NANOS_PER_SEC;
    whole as f64 + frac as f64 / 1e9
}

/// `time.Duration(f)` for a float64 `f`, as amd64 converts: truncation toward zero, and
/// `MinInt64` for NaN or a value outside the int64 range.
fn go_f64_to_i64(f: f64) -> i64 {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    // NaN is in no range, so it takes this branch too.
    if !(-TWO_TO_63..TWO_TO_63).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// A `time.Duration` as Go's `String()` writes it: "0s", "999ns", "1.5µs", "200ms", "1m1.5s",
/// "2562047h47m16.854775807s".
pub fn go_duration(ns: i64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    let sign = if ns < 0 { "-" } else { "" };
    let u = ns.unsigned_abs();
    if u < 1_000 {
        return format!("{sign}{u}ns");
    }
    if u < 1_000_000 {
        return format!("{sign}{}µs", decimal(u / 1_000, u % 1_000, 3));
    }
    if u < 1_000_000_000 {
        return format!("{sign}{}ms", decimal(u / 1_000_000, u % 1_000_000, 6));
    }
    let secs = u / 1_000_000_000;
    let seconds = decimal(secs % 60, u % 1_000_000_000, 9);
    let (minutes, hours) = ((secs / 60) % 60, secs / 3_600);
    if hours > 0 {
        format!("{sign}{hours}h{minutes}m{seconds}s")
    } else if minutes > 0 {
        format!("{sign}{minutes}m{seconds}s")
    } else {
        format!("{sign}{seconds}s")
    }
}

/// `whole.frac` with `frac` written in `width` digits, trailing zeros (and a bare point) dropped.
fn decimal(whole: u64, frac: u64, width: usize) -> String {
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// A float64 as Go's `%v` writes it: the shortest digits that read back the same, in `%e` form
/// ("1e+06", "1.234567e+06", "1e-05") when the exponent is below -4 or at least 6, else plain
/// ("123456", "0.0001", "0.9999999999999999").
pub fn go_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` writes the same shortest digits: "-1.234567e6".
    let scientific = format!("{x:e}");
    let (mantissa, exp) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    if !(-4..6).contains(&exp) {
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exp_sign}{:02}", exp.unsigned_abs());
    }
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if exp < 0 {
        let zeros = "0".repeat(exp.unsigned_abs() as usize - 1);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = exp as usize + 1;
    if digits.len() <= int_len {
        format!("{sign}{digits:0<int_len$}")
    } else {
        format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
    }
}

/// The Go `x/time/rate` row (`core::limiter::rows`).
pub const ROW: ProductRow<XTimeRate> = ProductRow {
    slug: "x-time-rate",
    label: "Go x/time/rate",
    family: Family {
        prefix: "xtime-",
        name: "Go x/time/rate",
        fields: fields::FIELDS,
    },
    build: |s| XTimeRate::new(s.products.x_time_rate.params(s.limit, s.window)),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: "the Retry-After header of its response, when it sends one",
    explain: |s| {
        let x = s.products.x_time_rate.params(s.limit, s.window);
        explanation(
            format!("Go's golang.org/x/time/rate, NewLimiter({}, {}) asked with AllowN: a token bucket in float64 tokens, advanced by the library's own arithmetic; a refused call takes nothing, and ReserveN would have waited instead.", go_float(x.limit), x.burst),
            "Three words per Limiter (tokens, last, lastEvent) and its mutex, in the Go process.",
            "Go services limiting in process; a call larger than the burst never passes, and WaitN says so at once.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "main.go",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limit: f64, burst: u64) -> XTimeRate {
        XTimeRate::new(XTimeRateParams::new(limit, burst)).unwrap()
    }

    #[test]
    fn durations_are_written_as_go_writes_them() {
        // Each checked against fmt.Println(time.Duration(...)) in Go 1.19.
        assert_eq!(go_duration(INF_DURATION), "2562047h47m16.854775807s");
        assert_eq!(go_duration(1_500), "1.5µs");
        assert_eq!(go_duration(1_500_000), "1.5ms");
        assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
        assert_eq!(go_duration(61_500_000_000), "1m1.5s");
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(999), "999ns");
        assert_eq!(go_duration(200_000_000), "200ms");
        assert_eq!(go_duration(-1_500), "-1.5µs");
    }

    #[test]
    fn floats_are_written_as_gos_percent_v_writes_them() {
        // fmt.Println(1e6, 123456.0, 1234567.0, 0.0001, 0.00001, 2.5, 1e21,
        // 0.9999999999999999, float64(3), math.MaxFloat64) in Go 1.19.
        let cases = [
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (2.5, "2.5"),
            (1e21, "1e+21"),
            (0.9999999999999999, "0.9999999999999999"),
            (3.0, "3"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-0.25, "-0.25"),
            (0.0, "0"),
        ];
        for (x, text) in cases {
            assert_eq!(go_float(x), text, "{x}");
        }
    }

    #[test]
    fn seconds_of_a_duration_are_whole_seconds_plus_the_nanoseconds_over_1e9() {
        assert_eq!(go_seconds(1_500_000_000), 1.5);
        assert_eq!(go_seconds(i64::MAX), 9_223_372_036.0 + 854_775_807.0 / 1e9);
        assert_eq!(go_seconds(-2_000_000_000), -2.0);
    }

    #[test]
    fn sub_saturates_at_the_largest_duration() {
        assert_eq!(go_sub(i128::MAX / 2, 0), i64::MAX);
        assert_eq!(go_sub(0, i128::MAX / 2), i64::MIN);
        assert_eq!(go_sub(5, 3), 2);
    }

    #[test]
    fn a_float_at_two_to_the_63_converts_to_min_int64_as_on_amd64() {
        assert_eq!(go_f64_to_i64(9_223_372_036_854_775_808.0), i64::MIN);
        assert_eq!(go_f64_to_i64(f64::NAN), i64::MIN);
        assert_eq!(go_f64_to_i64(1.9), 1);
        assert_eq!(go_f64_to_i64(-1.9), -1);
    }

    #[test]
    fn a_refused_allow_writes_nothing_but_a_reserve_takes_the_tokens_at_once() {
        let mut lim = limiter(10.0, 2);
        assert!(lim.allow_n(Time::ZERO, 2));
        assert!(!lim.allow_n(Time::ZERO, 1));
        assert_eq!(lim.tokens_at(Time::ZERO), 0.0);
        let r = lim.reserve_n(Time::ZERO, 1);
        assert!(r.ok());
        assert_eq!(r.delay_from(Time::ZERO), 100_000_000);
        assert_eq!(lim.tokens_at(Time::ZERO), -1.0);
    }

    #[test]
    fn the_remaining_count_is_the_cost_one_calls_that_would_pass() {
        let mut lim = limiter(10.0, 5);
        let d = lim.decide(Time::ZERO, 2);
        assert_eq!(d.remaining, 3);
        for expected in [2, 1, 0] {
            assert_eq!(lim.decide(Time::ZERO, 1).remaining, expected);
        }
        assert_eq!(
            lim.cost_one_passes(0.9999999999999999),
            1,
            "a 1e-16 shortfall"
        );
        assert_eq!(lim.cost_one_passes(0.5), 0);
        let fast = limiter(1e12, 5);
        assert_eq!(
            fast.cost_one_passes(2.0),
            1_001,
            "1,000 tokens come back every 1 ns"
        );
    }

    #[test]
    fn a_zero_limit_never_refills_so_the_limiter_never_rests_and_no_wait_helps() {
        let mut lim = limiter(0.0, 1);
        assert!(lim.decide(Time::ZERO, 1).allowed());
        let d = lim.decide(Time::from_secs(1_000), 1);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert_eq!(d.reset_after, Span(u64::MAX));
        assert!(!lim.is_at_rest(Time(u64::MAX)));
        assert_eq!(
            lim.would_reserve(Time::from_secs(1_000), 1),
            (true, INF_DURATION)
        );
    }

    #[test]
    fn an_infinite_limit_passes_everything_and_writes_nothing() {
        let mut lim = limiter(INF, 0);
        let (d, reply) = lim.decide_with_reply(Time::ZERO, 7);
        assert!(d.allowed());
        assert_eq!(reply.get("wait_err"), Some("<nil>"));
        assert_eq!(reply.get("delay"), Some("0s"));
        assert_eq!(lim.tokens, 0.0);
        assert!(lim.is_at_rest(Time::ZERO));
    }

    #[test]
    fn nan_and_infinite_limits_are_refused_and_so_is_a_burst_past_the_labs_cap() {
        for limit in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                XTimeRate::new(XTimeRateParams::new(limit, 1)),
                Err(ConfigError::BadRate(_))
            ));
        }
        assert_eq!(
            XTimeRate::new(XTimeRateParams::new(1.0, MAX_COUNT + 1)).unwrap_err(),
            ConfigError::TooLarge("burst")
        );
        assert!(XTimeRate::new(XTimeRateParams::new(-3.0, 0)).is_ok());
    }
}
