//! Guava's `RateLimiter` in its default form, `SmoothBursty`, in its own double and long-micros
//! arithmetic.
//!
//! Sources (google/guava, read in the master of the 31.x–33.x era; the SmoothBursty arithmetic
//! below is identical in both stored versions of `SmoothRateLimiter.java` that were read, commits
//! 07212fe1 and 4280533e):
//! - `guava/src/com/google/common/util/concurrent/RateLimiter.java` (commit c237c80c): `create`,
//!   `setRate` (`checkArgument(permitsPerSecond > 0.0 && !Double.isNaN(permitsPerSecond), "rate
//!   must be positive")`), `acquire`, `reserve`, `tryAcquire`, `canAcquire`, `checkPermits`
//!   (`"Requested permits (%s) must be positive"`), `reserveAndGetWaitLength`, and the
//!   `SleepingStopwatch` whose clock starts when the limiter is created.
//! - `guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java`: `SmoothBursty`,
//!   `doSetRate`, `reserveEarliestAvailable`, `resync`.
//! - `guava-tests/test/com/google/common/util/concurrent/RateLimiterTest.java` (commit f2944006),
//!   whose bursty cases `tests/profiles_guava.rs` reproduces.
//! - Guava 31.1-jre itself (Debian's `guava-31.1-jre.jar`, run on OpenJDK 17 through its
//!   package-private `SmoothBursty` and a fake stopwatch): about 390,000 random `tryAcquire` calls
//!   (rates from `Double.MIN_VALUE` to infinity, windows from 1 µs to 2 minutes, permits up to
//!   `Integer.MAX_VALUE`, times up to 2^62 µs) gave the same verdicts, the same `storedPermits`
//!   bit for bit, and the same tickets and waits as this profile, and the last 300,000 the same
//!   `Double.toString` texts; a few of those rows are kept in the tests. (The replies write
//!   doubles by the JDK 19+ rule; JDK 17's older `Double.toString` differs from it on rare
//!   doubles, none of which came up.)
//!
//! What Guava does, for `SmoothBursty` (what `RateLimiter.create(permitsPerSecond)` returns):
//! - State: `storedPermits` (a double), `maxPermits = maxBurstSeconds × permitsPerSecond` (a
//!   double; `create` fixes `maxBurstSeconds` at 1.0), `stableIntervalMicros = 1_000_000.0 /
//!   permitsPerSecond` (a double), and `nextFreeTicketMicros` (a long, on the stopwatch's clock:
//!   microseconds since the limiter was created). A new limiter holds 0 stored permits and
//!   `nextFreeTicketMicros = 0`: `setRate` at creation sees an old `maxPermits` of 0.0 and sets
//!   `storedPermits` to 0.0.
//! - `resync(now)`: when `now > nextFreeTicketMicros`, `storedPermits = min(maxPermits,
//!   storedPermits + (now - nextFreeTicketMicros) / stableIntervalMicros)` and
//!   `nextFreeTicketMicros = now`.
//! - Reserving `permits` at `now` (`reserveEarliestAvailable`): resync, remember
//!   `nextFreeTicketMicros` as the moment this request may go, spend `min(permits,
//!   storedPermits)` stored permits for free, and push `nextFreeTicketMicros` ahead (saturating) by
//!   `(long) (freshPermits × stableIntervalMicros)`, truncated. The request itself waits only
//!   until the remembered moment: its own cost is paid by the NEXT caller. `acquire(permits)`
//!   sleeps `max(moment - now, 0)` and returns it in seconds.
//! - `tryAcquire(permits)` is `tryAcquire(permits, 0, MICROSECONDS)`: refused (returning false)
//!   when `nextFreeTicketMicros > now`, and a refusal changes nothing (there is nothing to
//!   resync either: the ticket is still in the future); otherwise it reserves as above (with no
//!   wait to sleep). So ANY number of permits passes while the ticket is free, and then holds
//!   later callers back.
//!
//! How the profile maps it: each lab request is `tryAcquire(cost)` at the request's time (a
//! refusal is Rejected). The lab's time 0 is the moment the limiter was created (the stopwatch
//! reads lab microseconds). The reply gives what `tryAcquire` returned, the state after the call,
//! and what `acquire(cost)` would have returned instead (the seconds it would sleep), which is
//! also the lab's `retry_after`: after that wait the same `tryAcquire` passes.
//!
//! Choices where Guava has nothing to say:
//! - A time earlier than one already seen is treated as that later time (Guava's stopwatch is
//!   monotonic). Times beyond `Long.MAX_VALUE` microseconds read as `Long.MAX_VALUE`.
//! - A cost of 0: Guava throws `IllegalArgumentException("Requested permits (0) must be
//!   positive")`. The reply says so; the lab answers it as a look (passed, nothing changed), as
//!   the other profiles answer a cost of 0.
//! - A cost above `Integer.MAX_VALUE`: `permits` is a Java `int`, so it cannot be asked. The
//!   profile refuses it, changes nothing, and names no wait (`retry_after` is `None`).
//! - `maxBurstSeconds`: Guava's public API only offers 1.0; the package-private
//!   `SmoothBursty(stopwatch, maxBurstSeconds)` takes any double. The profile accepts any positive
//!   finite number of seconds (with 0, an infinite rate makes `maxPermits = 0 × ∞` NaN; with
//!   infinity, a rest stores unbounded permits).
//! - The lab's figures: `limit` is how many requests of 1 permit a rested limiter lets through at
//!   one instant: `floor(maxPermits) + 1` (the last one borrows from the future, as
//!   `testOneSecondBurst` shows: 6 permits at once at 5 per second), one more when the borrowed
//!   part truncates to a wait of 0 µs, and unbounded when every wait truncates to 0 µs (a stable
//!   interval under 1 µs, or an infinite rate). `remaining` is the same count from the state after
//!   the call, exactly as repeated `tryAcquire(1)` calls at the same instant would find it.
//!   `reset_after` is the time until the stored permits are full again (the debt, then
//!   `(maxPermits - storedPermits) × stableIntervalMicros`, rounded up).
//! - Warming up (`SmoothWarmingUp`, `create(permitsPerSecond, warmupPeriod)`) and `tryAcquire`
//!   with a timeout are not rows of the lab; the latter, `acquire` and `setRate` are offered as
//!   methods for the tests.
//!
//! Guava sends no HTTP response; [`http_response`] is what a server using it typically answers.

use crate::core::config::ConfigError;
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::http::HttpResponse;
use crate::core::time::{Span, Time};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// `SECONDS.toMicros(1L)`, as the double Guava divides by.
const MICROS_PER_SECOND: f64 = 1_000_000.0;

/// 2^53: from here on, subtracting 1.0 from a double no longer counts down exactly.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// The parameters of a `SmoothBursty` limiter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuavaParams {
    /// `permitsPerSecond`, the stable rate (`+Infinity` is allowed, as in Guava).
    pub permits_per_second: f64,
    /// `maxBurstSeconds`: how many seconds of unused permits can be stored (1.0 in `create`).
    pub max_burst_seconds: f64,
}

impl GuavaParams {
    /// `RateLimiter.create(permitsPerSecond)`: a burst of one second's permits.
    pub fn create(permits_per_second: f64) -> GuavaParams {
        GuavaParams {
            permits_per_second,
            max_burst_seconds: 1.0,
        }
    }

    /// The lab's "`limit` per `window`": `permitsPerSecond = limit / window seconds` and
    /// `maxBurstSeconds = window seconds` (both computed in doubles), so the limiter stores
    /// (about) `limit` permits and refills them over the window. For a one-second window this is
    /// exactly `RateLimiter.create(limit)`; any other window needs the package-private burst,
    /// since Guava's public API only offers `maxBurstSeconds = 1`. A limit or window of 0 gives a
    /// rate [`Guava::new`] refuses.
    pub fn defaults_for(limit: u64, window: Span) -> GuavaParams {
        let window_seconds = window.micros() as f64 / MICROS_PER_SECOND;
        GuavaParams {
            permits_per_second: limit as f64 / window_seconds,
            max_burst_seconds: window_seconds,
        }
    }
}

/// Guava's `IllegalArgumentException` for a call's arguments, with Guava's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalArgument(pub String);

/// What the lab asked for, in terms of Guava's `int permits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    /// 1 to `Integer.MAX_VALUE` permits: a call Guava takes.
    Permits(i32),
    /// 0: Guava throws; the lab looks.
    Zero,
    /// More than `Integer.MAX_VALUE`: cannot be written; the lab refuses.
    AboveInt,
}

impl Ask {
    fn of(cost: u64) -> Ask {
        match i32::try_from(cost) {
            Ok(0) => Ask::Zero,
            Ok(permits) => Ask::Permits(permits),
            Err(_) => Ask::AboveInt,
        }
    }
}

/// The two numbers a `SmoothBursty` limiter changes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    stored_permits: f64,
    next_free_ticket_micros: i64,
}

/// One evaluated `tryAcquire`: the lab's decision, the state to keep, and the reply's figures.
#[derive(Clone, Copy, Debug)]
struct Evaluation {
    decision: Decision,
    ask: Ask,
    now: Time,
    now_micros: i64,
    /// What `tryAcquire` returned (for a call Guava takes).
    acquired: bool,
    /// The state after the call (the old one when nothing changed).
    after: State,
    /// What `acquire(permits)` would have slept instead, in microseconds.
    acquire_wait_micros: i64,
}

/// One `SmoothBursty` `RateLimiter`, created at the lab's time 0.
#[derive(Clone, Debug)]
pub struct Guava {
    params: GuavaParams,
    max_permits: f64,
    stable_interval_micros: f64,
    state: State,
    /// The lab's `limit`: requests of 1 permit a full, rested limiter lets through at once.
    burst_limit: u64,
    latest: Time,
}

impl Guava {
    /// `new SmoothBursty(stopwatch, maxBurstSeconds)` followed by `setRate(permitsPerSecond)` at
    /// stopwatch time 0, refusing the rates `setRate` refuses.
    pub fn new(params: GuavaParams) -> Result<Guava, ConfigError> {
        check_rate(params.permits_per_second).map_err(|_| {
            ConfigError::Unsupported(
                "Guava refuses this rate: \"rate must be positive\" (permitsPerSecond must be above 0 and not NaN)",
            )
        })?;
        let burst = params.max_burst_seconds;
        if !(burst.is_finite() && burst > 0.0) {
            return Err(ConfigError::Unsupported(
                "maxBurstSeconds must be a positive, finite number of seconds (Guava's public create() always uses 1.0)",
            ));
        }
        let mut limiter = Guava {
            params,
            max_permits: 0.0,
            stable_interval_micros: 0.0,
            state: State {
                stored_permits: 0.0,
                next_free_ticket_micros: 0,
            },
            burst_limit: 0,
            latest: Time::ZERO,
        };
        limiter.do_set_rate(params.permits_per_second, 0);
        Ok(limiter)
    }

    pub fn params(&self) -> GuavaParams {
        self.params
    }

    /// `storedPermits`, as last stored (not resynced to any time).
    pub fn stored_permits(&self) -> f64 {
        self.state.stored_permits
    }

    /// `maxPermits`.
    pub fn max_permits(&self) -> f64 {
        self.max_permits
    }

    /// `stableIntervalMicros`.
    pub fn stable_interval_micros(&self) -> f64 {
        self.stable_interval_micros
    }

    /// `nextFreeTicketMicros`, on the stopwatch's clock (lab microseconds).
    pub fn next_free_ticket_micros(&self) -> i64 {
        self.state.next_free_ticket_micros
    }

    /// `getRate()`: `1_000_000.0 / stableIntervalMicros`.
    pub fn get_rate(&self) -> f64 {
        MICROS_PER_SECOND / self.stable_interval_micros
    }

    /// `setRate(permitsPerSecond)` at `now`.
    pub fn set_rate(&mut self, now: Time, permits_per_second: f64) -> Result<(), IllegalArgument> {
        check_rate(permits_per_second)?;
        let now_micros = self.read_micros(now);
        self.do_set_rate(permits_per_second, now_micros);
        Ok(())
    }

    /// `reserve(permits)` at `now`: takes the permits and returns the microseconds `acquire`
    /// sleeps before going (a caller on the lab's clock moves on by that much).
    pub fn reserve(&mut self, now: Time, permits: i32) -> Result<i64, IllegalArgument> {
        check_permits(permits)?;
        let now_micros = self.read_micros(now);
        let (after, moment) = self.reserve_earliest_available(permits, now_micros);
        self.state = after;
        Ok(moment.saturating_sub(now_micros).max(0))
    }

    /// `acquire(permits)`'s return value for a reservation of `micros_to_wait`: the seconds
    /// slept, `1.0 * microsToWait / SECONDS.toMicros(1L)`.
    pub fn seconds_slept(micros_to_wait: i64) -> f64 {
        micros_to_wait as f64 / MICROS_PER_SECOND
    }

    /// `tryAcquire(permits)` at `now` (no timeout).
    pub fn try_acquire(&mut self, now: Time, permits: i32) -> Result<bool, IllegalArgument> {
        Ok(self.try_acquire_within(now, permits, 0)?.is_some())
    }

    /// `tryAcquire(permits, timeout, MICROSECONDS)` at `now`: `Some(micros slept)` when the
    /// permits were acquired, `None` when not (nothing changes then). A negative timeout counts
    /// as 0, as in Guava.
    pub fn try_acquire_within(
        &mut self,
        now: Time,
        permits: i32,
        timeout_micros: i64,
    ) -> Result<Option<i64>, IllegalArgument> {
        let timeout_micros = timeout_micros.max(0);
        check_permits(permits)?;
        let now_micros = self.read_micros(now);
        // canAcquire: queryEarliestAvailable(now) - timeoutMicros <= now. Both terms are at
        // least 0, so the subtraction cannot overflow.
        if self.state.next_free_ticket_micros - timeout_micros > now_micros {
            return Ok(None);
        }
        let (after, moment) = self.reserve_earliest_available(permits, now_micros);
        self.state = after;
        Ok(Some(moment.saturating_sub(now_micros).max(0)))
    }

    /// The stopwatch reading at `now`: lab microseconds, never earlier than a time already seen,
    /// at most `Long.MAX_VALUE`. Records `now` as seen.
    fn read_micros(&mut self, now: Time) -> i64 {
        let now = now.max(self.latest);
        self.latest = now;
        micros_of(now)
    }

    /// `SmoothRateLimiter.doSetRate` then `SmoothBursty.doSetRate`.
    fn do_set_rate(&mut self, permits_per_second: f64, now_micros: i64) {
        self.state = resync(
            self.state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        self.stable_interval_micros = MICROS_PER_SECOND / permits_per_second;
        let old_max_permits = self.max_permits;
        self.max_permits = self.params.max_burst_seconds * permits_per_second;
        self.state.stored_permits = if old_max_permits == f64::INFINITY {
            self.max_permits
        } else if old_max_permits == 0.0 {
            0.0
        } else {
            self.state.stored_permits * self.max_permits / old_max_permits
        };
        self.params.permits_per_second = permits_per_second;
        self.burst_limit = ones_passing(self.max_permits, self.stable_interval_micros);
    }

    /// `reserveEarliestAvailable(permits, now)`: the state after, and the moment the request may
    /// go.
    fn reserve_earliest_available(&self, permits: i32, now_micros: i64) -> (State, i64) {
        let state = resync(
            self.state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        let moment = state.next_free_ticket_micros;
        let required = f64::from(permits);
        let stored_to_spend = java_min(required, state.stored_permits);
        let fresh_permits = required - stored_to_spend;
        // storedPermitsToWaitTime is 0 for SmoothBursty; the fresh permits' wait truncates.
        let wait_micros = java_long(fresh_permits * self.stable_interval_micros);
        let after = State {
            stored_permits: state.stored_permits - stored_to_spend,
            next_free_ticket_micros: moment.saturating_add(wait_micros),
        };
        (after, moment)
    }

    /// `tryAcquire(cost)` at `now`, without changing anything.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn evaluate(&self, now: Time, cost: u64) -> Evaluation {
        let now = now.max(self.latest);
        let now_micros = micros_of(now);
        let ask = Ask::of(cost);
        // What acquire would sleep: reserve's moment (the ticket after a resync) minus now.
        let acquire_wait_micros = (self.state.next_free_ticket_micros - now_micros).max(0);
        let ticket_is_free = self.state.next_free_ticket_micros <= now_micros;
        let (verdict, acquired, after) = match ask {
            Ask::Permits(permits) if ticket_is_free => (
                Verdict::Allowed,
                true,
                self.reserve_earliest_available(permits, now_micros).0,
            ),
            Ask::Permits(_) => (Verdict::Rejected, false, self.state),
            Ask::Zero => (Verdict::Allowed, false, self.state),
            Ask::AboveInt => (Verdict::Rejected, false, self.state),
        };
        let retry_after = match (ask, verdict) {
            (Ask::Permits(_), Verdict::Rejected) => Some(Span(acquire_wait_micros.unsigned_abs())),
            _ => None,
        };
        let decision = Decision {
            verdict,
            limit: self.burst_limit,
            remaining: self.remaining(after, now_micros),
            reset_after: self.reset_after(after, now_micros),
            retry_after,
        };
        Evaluation {
            decision,
            ask,
            now,
            now_micros,
            acquired,
            after,
            acquire_wait_micros,
        }
    }

    fn commit(&mut self, evaluation: &Evaluation) {
        self.latest = evaluation.now;
        self.state = evaluation.after;
    }

    /// Requests of 1 permit that `tryAcquire` would grant one after another at `now_micros`.
    fn remaining(&self, state: State, now_micros: i64) -> u64 {
        let state = resync(
            state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        if state.next_free_ticket_micros > now_micros {
            return 0;
        }
        ones_passing(state.stored_permits, self.stable_interval_micros)
    }

    /// The time until the stored permits are full again: the debt to `nextFreeTicketMicros`, then
    /// the missing permits at the stable interval, rounded up to the microsecond.
    fn reset_after(&self, state: State, now_micros: i64) -> Span {
        let state = resync(
            state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        let debt = (state.next_free_ticket_micros - now_micros)
            .max(0)
            .unsigned_abs();
        let missing = self.max_permits - state.stored_permits;
        let refill = if missing > 0.0 {
            let micros = (missing * self.stable_interval_micros).ceil();
            if micros.is_finite() {
                // Saturates at u64::MAX, as `as` does for a float.
                micros as u64
            } else if micros.is_nan() {
                0
            } else {
                u64::MAX
            }
        } else {
            0
        };
        Span(debt.saturating_add(refill))
    }

    /// What Guava answered, in its own words.
    fn reply(&self, evaluation: &Evaluation, cost: u64) -> ProductReply {
        let mut fields = Vec::with_capacity(6);
        fields.push(("call", format!("tryAcquire({cost})")));
        match evaluation.ask {
            Ask::Permits(_) => {
                fields.push(("tryAcquire", evaluation.acquired.to_string()));
            }
            Ask::Zero => {
                fields.push(("tryAcquire", "IllegalArgumentException".to_string()));
                fields.push((
                    "message",
                    "Requested permits (0) must be positive".to_string(),
                ));
                fields.push((
                    "note",
                    "the lab answers a cost of 0 as a look: passed, nothing changed".to_string(),
                ));
            }
            Ask::AboveInt => {
                fields.push(("tryAcquire", "not callable".to_string()));
                fields.push((
                    "note",
                    format!(
                        "permits is a Java int: {cost} is above Integer.MAX_VALUE ({}); the lab refuses it",
                        i32::MAX
                    ),
                ));
            }
        }
        fields.push(("nowMicros", evaluation.now_micros.to_string()));
        fields.push((
            "storedPermits",
            java_double(evaluation.after.stored_permits),
        ));
        fields.push((
            "nextFreeTicketMicros",
            evaluation.after.next_free_ticket_micros.to_string(),
        ));
        if let Ask::Permits(_) = evaluation.ask {
            fields.push((
                "acquire",
                java_double(Guava::seconds_slept(evaluation.acquire_wait_micros)),
            ));
        }
        ProductReply { fields }
    }
}

/// `setRate`'s check.
fn check_rate(permits_per_second: f64) -> Result<(), IllegalArgument> {
    if permits_per_second > 0.0 && !permits_per_second.is_nan() {
        Ok(())
    } else {
        Err(IllegalArgument("rate must be positive".to_string()))
    }
}

/// `checkPermits`.
fn check_permits(permits: i32) -> Result<(), IllegalArgument> {
    if permits > 0 {
        Ok(())
    } else {
        Err(IllegalArgument(format!(
            "Requested permits ({permits}) must be positive"
        )))
    }
}

/// A lab time as the stopwatch reads it: microseconds, at most `Long.MAX_VALUE`.
fn micros_of(now: Time) -> i64 {
    i64::try_from(now.micros()).unwrap_or(i64::MAX)
}

/// `resync(now)`: the idle time since the ticket, turned into stored permits up to the maximum.
fn resync(state: State, now_micros: i64, max_permits: f64, stable_interval_micros: f64) -> State {
    if now_micros > state.next_free_ticket_micros {
        // A long difference (no overflow: both are at least 0), then divided as a double.
        let new_permits =
            (now_micros - state.next_free_ticket_micros) as f64 / stable_interval_micros;
        State {
            stored_permits: java_min(max_permits, state.stored_permits + new_permits),
            next_free_ticket_micros: now_micros,
        }
    } else {
        state
    }
}

/// How many `tryAcquire(1)` calls pass one after another at one instant, starting from a free
/// ticket and `stored` permits. Each call spends 1.0 stored permit while there is one (exact
/// below 2^53); then one call spends the fraction left and pushes the ticket by the truncated
/// wait of the rest: a wait of 0 µs leaves the ticket free for one more call, which pays a whole
/// interval. Saturates at `u64::MAX` when no wait is ever charged.
fn ones_passing(stored: f64, stable_interval_micros: f64) -> u64 {
    let whole_interval = java_long(stable_interval_micros);
    if whole_interval == 0 || stored.is_nan() || stored >= EXACT_INTEGERS {
        return u64::MAX;
    }
    let spent_whole = stored.floor();
    let fraction = stored - spent_whole;
    // Below 2^53 the float is an exact integer that fits.
    let whole = spent_whole.max(0.0) as u64;
    if fraction > 0.0 && java_long((1.0 - fraction) * stable_interval_micros) == 0 {
        whole.saturating_add(2)
    } else {
        whole.saturating_add(1)
    }
}

/// Java's `(long) x`: truncation toward 0, saturating at the long range, NaN to 0 (Rust's `as`
/// does exactly this).
fn java_long(x: f64) -> i64 {
    x as i64
}

/// Java's `Math.min(double, double)`: NaN if either is NaN, and -0.0 below 0.0.
fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else if a == 0.0 && b == 0.0 && b.is_sign_negative() {
        b
    } else if a <= b {
        a
    } else {
        b
    }
}

/// A double as Java's `Double.toString` writes it (JDK 19+: the shortest decimal that reads back
/// as the same double, at least two digits when one would do, the closest such and the even one
/// on a tie): "0.0", "5.0", "0.2", "1234.5", "1.0E7", "1.0E-4", "4.9E-324", "Infinity", "NaN".
pub fn java_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let a = x.abs();
    if a == 0.0 {
        return format!("{sign}0.0");
    }
    let shortest = format!("{a:e}");
    let length = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    // Among the decimals of that length (two when one would do) that read back as `a`, Java
    // takes the closest, the even one on a tie; `{:.Ne}` rounds the exact value half to even.
    let closest = format!("{a:.*e}", length.max(2) - 1);
    let scientific = if closest.parse::<f64>() == Ok(a) {
        closest
    } else {
        shortest
    };
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let body = if (1e-3..1e7).contains(&a) {
        if exponent >= 0 {
            let point = usize::try_from(exponent).unwrap_or(0) + 1;
            let int_part = if digits.len() >= point {
                digits[..point].to_string()
            } else {
                format!("{digits}{}", "0".repeat(point - digits.len()))
            };
            let frac = digits.get(point..).filter(|f| !f.is_empty()).unwrap_or("0");
            format!("{int_part}.{frac}")
        } else {
            let zeros = usize::try_from(-exponent - 1).unwrap_or(0);
            format!("0.{}{digits}", "0".repeat(zeros))
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{first}.{rest}E{exponent}")
    };
    format!("{sign}{body}")
}

/// What the client of a server using Guava typically receives (Guava itself sends nothing): 200
/// when `tryAcquire` passed, else 429 with `Retry-After` set to the wait `acquire` would have
/// slept, in whole seconds rounded up and at least 1 (the lab's choice; Guava's documentation
/// shows no server), and no `Retry-After` for a cost that cannot be asked.
pub fn http_response(decision: &Decision, _reply: &ProductReply) -> HttpResponse {
    super::response::refused_with_retry_after(decision)
}

impl Limiter for Guava {
    /// `tryAcquire(cost)`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        let evaluation = self.evaluate(now, cost);
        self.commit(&evaluation);
        evaluation.decision
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    /// The stored permits at `now` (0 while the ticket is in the future).
    fn gauge(&self, now: Time) -> Gauge {
        let now_micros = micros_of(now.max(self.latest));
        let state = resync(
            self.state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        let (level, max) = if self.max_permits.is_finite() {
            (
                state.stored_permits.clamp(0.0, self.max_permits),
                self.max_permits,
            )
        } else {
            (1.0, 1.0)
        };
        Gauge {
            level,
            max,
            unit: "stored permits",
        }
    }

    /// At rest when a limiter created at the lab's time 0 and never used would hold the same
    /// state from `now` on: never used, or (ticket free, stored permits full) while the unused
    /// one would also be full by now.
    fn is_at_rest(&self, now: Time) -> bool {
        let untouched = State {
            stored_permits: 0.0,
            next_free_ticket_micros: 0,
        };
        if self.state == untouched {
            return true;
        }
        let now_micros = micros_of(now.max(self.latest));
        let ours = resync(
            self.state,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        let fresh = resync(
            untouched,
            now_micros,
            self.max_permits,
            self.stable_interval_micros,
        );
        ours.next_free_ticket_micros <= now_micros
            && ours.stored_permits == self.max_permits
            && fresh.stored_permits == self.max_permits
    }
}

impl Product for Guava {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let evaluation = self.evaluate(now, cost);
        let reply = self.reply(&evaluation, cost);
        self.commit(&evaluation);
        (evaluation.decision, reply)
    }
}

/// The Guava `RateLimiter` row (`core::limiter::rows`).
pub const ROW: ProductRow<Guava> = ProductRow {
    slug: "guava",
    label: "Guava RateLimiter",
    family: Family {
        prefix: "guava-",
        name: "Guava",
        fields: fields::FIELDS,
    },
    build: |s| Guava::new(s.products.guava.params(s.limit, s.window)),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: "the Retry-After header of its response, when it sends one",
    explain: |s| {
        let g = s.products.guava.params(s.limit, s.window);
        explanation(
            format!("Guava's SmoothBursty RateLimiter at {} permits a second, storing up to {} seconds of them, asked with tryAcquire: a request that passes may take more than is stored, and the next caller pays for it by waiting.", java_double(g.permits_per_second), java_double(g.max_burst_seconds)),
            "Two doubles and a long per limiter, in the Java process.",
            "Java services pacing their own calls; with tryAcquire it refuses, with acquire it waits.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "Example.java",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn five_per_second() -> Guava {
        Guava::new(GuavaParams::create(5.0)).unwrap()
    }

    #[test]
    fn a_new_limiter_stores_nothing_and_its_ticket_is_free_at_time_zero() {
        let g = five_per_second();
        assert_eq!(g.stored_permits(), 0.0);
        assert_eq!(g.next_free_ticket_micros(), 0);
        assert_eq!(g.max_permits(), 5.0);
        assert_eq!(g.stable_interval_micros(), 200_000.0);
    }

    #[test]
    fn a_refused_try_acquire_changes_nothing_not_even_a_resync() {
        let mut g = five_per_second();
        assert!(g.decide(Time::ZERO, 3).allowed());
        // The ticket is at 600 ms; at 500 ms the call is refused and the state stays.
        let before = g.state;
        let d = g.decide(Time::from_millis(500), 1);
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(d.retry_after, Some(Span::from_millis(100)));
        assert_eq!(g.state, before);
    }

    #[test]
    fn any_number_of_permits_passes_while_the_ticket_is_free_and_the_next_caller_pays() {
        let mut g = five_per_second();
        let d = g.decide(Time::ZERO, 50);
        assert!(d.allowed());
        assert_eq!(g.next_free_ticket_micros(), 10_000_000);
        let d = g.decide(Time::from_secs(1), 1);
        assert_eq!(d.retry_after, Some(Span::from_secs(9)));
    }

    #[test]
    fn the_wait_truncates_to_whole_microseconds() {
        // 3 per second: a stable interval of 333333.33... µs, charged as 333333 µs.
        let mut g = Guava::new(GuavaParams::create(3.0)).unwrap();
        assert!(g.decide(Time::ZERO, 1).allowed());
        assert_eq!(g.next_free_ticket_micros(), 333_333);
        assert!(g.decide(Time(333_333), 1).allowed());
        assert_eq!(g.next_free_ticket_micros(), 666_666);
    }

    #[test]
    fn a_cost_of_zero_is_a_look_and_the_reply_names_guavas_exception() {
        let mut g = five_per_second();
        assert!(g.decide(Time::ZERO, 1).allowed());
        let before = g.state;
        let (d, reply) = g.decide_with_reply(Time::from_millis(100), 0);
        assert!(d.allowed());
        assert_eq!(g.state, before);
        assert_eq!(reply.get("tryAcquire"), Some("IllegalArgumentException"));
        assert_eq!(
            reply.get("message"),
            Some("Requested permits (0) must be positive")
        );
    }

    #[test]
    fn a_cost_above_a_java_int_is_refused_with_no_wait_and_changes_nothing() {
        let mut g = five_per_second();
        let (d, reply) = g.decide_with_reply(Time::ZERO, u64::from(u32::MAX));
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
        assert_eq!(g.next_free_ticket_micros(), 0);
        assert_eq!(reply.get("tryAcquire"), Some("not callable"));
        // The largest int is a call Guava takes, and passes on a free ticket.
        assert!(g.decide(Time::ZERO, i32::MAX as u64).allowed());
    }

    #[test]
    fn the_limit_counts_the_borrowed_request_after_the_stored_ones() {
        assert_eq!(five_per_second().peek(Time::ZERO, 1).limit, 6);
        // 1e-3 per second, or an infinite rate: every wait truncates to 0 µs or none is charged.
        let fast = Guava::new(GuavaParams::create(2_000_000.0)).unwrap();
        assert_eq!(fast.peek(Time::ZERO, 1).limit, u64::MAX);
        let infinite = Guava::new(GuavaParams::create(f64::INFINITY)).unwrap();
        assert_eq!(infinite.peek(Time::ZERO, 1).limit, u64::MAX);
    }

    #[test]
    fn a_borrowed_fraction_whose_wait_truncates_to_zero_lets_one_more_through() {
        // 0.9999999 stored permits at 1 per second: the 1e-7 fresh permit costs 0.1 µs, charged 0.
        assert_eq!(ones_passing(0.9999999, 1_000_000.0), 2);
        assert_eq!(ones_passing(0.5, 1_000_000.0), 1);
        assert_eq!(ones_passing(3.0, 1_000_000.0), 4);
        assert_eq!(ones_passing(0.0, 200_000.0), 1);
    }

    #[test]
    fn remaining_is_what_repeated_calls_at_the_same_instant_find() {
        for rate in [5.0, 3.0, 7.5, 0.25, 1_000.0] {
            let mut g = Guava::new(GuavaParams::create(rate)).unwrap();
            let at = Time::from_secs(17);
            let d = g.decide(at, 2);
            let passed = (0..10_000)
                .take_while(|_| g.decide(at, 1).allowed())
                .count();
            assert_eq!(d.remaining, passed as u64, "rate {rate}");
        }
    }

    #[test]
    fn rates_guava_refuses_are_refused() {
        for rate in [0.0, -0.0, -1.0, f64::NAN, f64::NEG_INFINITY] {
            assert!(
                matches!(
                    Guava::new(GuavaParams::create(rate)),
                    Err(ConfigError::Unsupported(_))
                ),
                "{rate}"
            );
        }
        assert!(Guava::new(GuavaParams::create(f64::INFINITY)).is_ok());
        assert!(Guava::new(GuavaParams::create(f64::MIN_POSITIVE)).is_ok());
        let no_burst = GuavaParams {
            max_burst_seconds: 0.0,
            ..GuavaParams::create(1.0)
        };
        assert!(Guava::new(no_burst).is_err());
    }

    #[test]
    fn doubles_are_written_as_java_writes_them() {
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(-0.0), "-0.0");
        assert_eq!(java_double(5.0), "5.0");
        assert_eq!(java_double(0.2), "0.2");
        assert_eq!(java_double(1234.5), "1234.5");
        assert_eq!(java_double(0.001), "0.001");
        assert_eq!(java_double(9_999_999.0), "9999999.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(1.0e-4), "1.0E-4");
        assert_eq!(java_double(123_456_789.0), "1.23456789E8");
        assert_eq!(java_double(f64::from_bits(1)), "4.9E-324");
        assert_eq!(java_double(4.999999999999999), "4.999999999999999");
        assert_eq!(java_double(1.0 / 3.0), "0.3333333333333333");
        // A tie between two 16-digit decimals: Java takes the even last digit.
        assert_eq!(
            java_double(147_573_952_315_465.0 / 16.0),
            "9.223372019716562E12"
        );
        assert_eq!(java_double(f64::INFINITY), "Infinity");
        assert_eq!(java_double(f64::NAN), "NaN");
    }

    #[test]
    fn java_min_propagates_nan_and_prefers_negative_zero() {
        assert!(java_min(f64::NAN, 1.0).is_nan());
        assert!(java_min(1.0, f64::NAN).is_nan());
        assert!(java_min(0.0, -0.0).is_sign_negative());
        assert_eq!(java_min(2.0, 3.0), 2.0);
    }

    #[test]
    fn a_rejection_is_a_429_with_the_acquire_wait_rounded_up() {
        let mut g = five_per_second();
        g.decide(Time::ZERO, 6);
        let (d, reply) = g.decide_with_reply(Time::from_millis(100), 1);
        assert_eq!(reply.get("acquire"), Some("1.1"));
        let response = http_response(&d, &reply);
        assert_eq!(response.status, 429);
        assert_eq!(response.header("Retry-After"), Some("2"));
    }
}
