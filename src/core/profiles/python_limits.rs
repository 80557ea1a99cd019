//! The Python package `limits` (alisaifee/limits), its three strategies over its in-memory
//! storage, each a row: `FixedWindowRateLimiter` (`limits-fixed`), `MovingWindowRateLimiter`
//! (`limits-moving`) and `SlidingWindowCounterRateLimiter` (`limits-sliding`).
//!
//! Read from limits 5.8.0 (the tag, and the PyPI wheel of that version, whose files are the
//! same): `limits/strategies.py` (the three limiters' `hit`, `test` and `get_window_stats`),
//! `limits/storage/memory.py` (`MemoryStorage`: `incr`, `get`, `get_expiry`, `acquire_entry`,
//! `get_moving_window`, `acquire_sliding_window_entry`, `_get_sliding_window_info`, the expiry
//! timer), `limits/storage/base.py` (`TimestampedSlidingWindow.sliding_window_keys`),
//! `limits/limits.py` (`RateLimitItem`, its `GRANULARITY` and `get_expiry`), `limits/util.py`
//! (`WindowStats`), `doc/source/strategies.rst` and `doc/source/quickstart.rst`, and checked
//! against `tests/test_strategy.py` and `tests/storage/test_memory.py`. The master branch 30
//! commits later (f7d1eef, "Make memory storage threadsafe") only adds a lock around the timer.
//!
//! A rate limit is a `RateLimitItem`: `amount` per `multiples` × the class's `GRANULARITY`
//! (second, minute, hour, day, month = 30 days, year = 360 days); `get_expiry()` is that window
//! in whole seconds, and `multiples` of 0 is taken as 1 (`int(multiples or 1)`). The library
//! accepts an `amount` of 0 (every hit of positive cost is refused), so the profile does too.
//!
//! Time. Every reading of the clock in the library is `time.time()`, a float (an IEEE double) of
//! seconds since the Unix epoch, and all of its window arithmetic is done on those floats. The
//! lab's time 0 reads as `epoch` whole seconds, and a lab time of `t` µs reads as CPython's
//! `time.time()` would for the instant `epoch × 10^6 + t` µs: CPython takes the clock in whole
//! nanoseconds `ns` and returns `(double)(ns / 10^9)` when `ns` is whole seconds, else
//! `(double)ns / 1e9` (`PyTime_AsSecondsDouble`, Python/pytime.c); here `ns` is held in 128 bits,
//! so no lab time overflows. Every `time.time()` call made during one call of the library reads
//! the same instant. With the default `epoch` (about 1.7 × 10^9 s, as today's clocks read) one
//! ULP of the clock is 2^-22 s, about 0.24 µs, so every lab microsecond is a distinct float.
//! Far from 1970 (from 2^62 ns since it, in 2116) the readings can go down: a whole second
//! reads as that many seconds exactly, every other instant through its nanoseconds rounded to a
//! double, which a whole second's nanoseconds then no longer are, so the instants just after a
//! whole second can read one ULP below it (or those just before it one ULP above). The library
//! then reads, a microsecond after a whole second, the window it had left at that second.
//!
//! - Fixed window (`FixedWindowRateLimiter.hit` → `MemoryStorage.incr(key, expiry, cost)`):
//!   `incr` first drops the counter when its expiry time is at or before now, then adds the cost,
//!   and sets the expiry to `now + expiry` only when the counter now equals the cost (it was 0):
//!   the window starts at the first hit, not on a clock boundary, and is never extended. `hit`
//!   compares after adding: `count <= amount`. A refused hit is still counted and nothing is
//!   rolled back, so a client that keeps calling stays refused until the window ends; a hit that
//!   costs more than `amount` is counted too. `get_window_stats` is `(expiry time, or now when
//!   there is no counter; max(0, amount - count))`.
//! - Moving window (`acquire_entry(key, amount, expiry, cost)`): a cost above `amount` is refused
//!   at once. Otherwise the `amount - cost`-th newest entry (0-based) of the key's log is looked
//!   at; if there is one and `entry.atime >= now - expiry` the hit is refused and nothing is
//!   recorded; else `cost` entries stamped now are put at the head of the log (a cost of 0 puts
//!   none and is allowed). `get_moving_window` counts the entries with `atime > now - expiry`
//!   (strictly: an entry exactly one window old still blocks but is no longer counted) and
//!   `get_window_stats` answers `(window_start + expiry, amount - count)`, `window_start` being
//!   the oldest counted entry's `atime`, or, when none is counted, the oldest entry still in the
//!   log (Python's `events[-1]`), or now when the log is empty. The log is pruned only by the
//!   storage's timer, a `threading.Timer(0.01)` started with the storage and restarted by
//!   `incr`, `decr` and `acquire_entry` when it is not running; it removes the entries whose
//!   `atime + expiry` is at or before its own time. The profile runs that timer exactly 10 ms
//!   after it is started (a real one fires a little later), the storage being made at the lab's
//!   time 0, and lets it go first when it is due at the instant of a call. So a stats reply can
//!   name a reset time in the past: after a hit refused for its cost (which starts no timer)
//!   when every entry has aged out but not yet been pruned.
//!
//!   The timer is the storage's, not a key's: an application makes one `MemoryStorage` and
//!   limits every key in it, so the lab's row keeps one storage for all its keys (one per copy
//!   of the row). Any key's hit starts the timer when it is not running, and its firing prunes
//!   every key's log. Keys then depend on each other: at 1 per second, `a` at 0 s, `b` at 0.99 s
//!   (starting the timer, due at 1.0 s) and `a` at 1.0 s, the timer prunes `a`'s entry just
//!   before `a`'s second hit, which passes; without `b`'s hit it would be refused (an entry
//!   exactly one window old still blocks). A second limit (`also=`) keeps a storage of its own,
//!   as an application that gives it a second `MemoryStorage` does. The fixed window and the
//!   sliding window counter share the storage too, but there the timer drops only counters that
//!   `get` already reads as expired (`expirations[key] <= time.time()` both), so their keys stay
//!   independent.
//! - Sliding window counter (`acquire_sliding_window_entry(key, amount, expiry, cost)`): a cost
//!   above `amount` is refused at once. Two counters, keyed by `int(now / expiry)` (the current
//!   window) and `int((now - expiry) / expiry)` (the previous one), so windows are aligned on the
//!   epoch clock, not on the first hit. The previous window's time to live is
//!   `(1 - (((now - expiry) / expiry) % 1)) × expiry` (0.0 when its count is 0), and the
//!   weighted count `previous × ttl / expiry + current`, each step a double. A hit is refused,
//!   and nothing counted, when `floor(weighted) + cost > amount`; otherwise the current counter
//!   is `incr`ed (a new counter expires `2 × expiry` after its first hit) and, if the weighted
//!   count recomputed with the new current count floors above `amount`, decremented again and
//!   the hit refused (the library's guard against a concurrent hit; alone it only catches a
//!   rounding difference). `get_window_stats` answers `remaining = max(0, amount -
//!   floor(weighted))` and `reset_time = now + min(previous_ttl % (expiry / previous),
//!   current_ttl % expiry)`, the terms of an empty counter left out and `now` itself when both
//!   are empty; `current_ttl = (1 - ((now / expiry) % 1)) × expiry + expiry`, so exactly on a
//!   window boundary the current term is 0 and the reset time is now. `%` is Python's float
//!   modulo (the result takes the divisor's sign). The documentation's example (100 per minute,
//!   40 hits in the previous window and 80 in the current: refused 30 s into the window, allowed
//!   40 s into it) holds exactly.
//!
//!   With an `epoch` below the window (the lab's time read as 1970), `(now - expiry) / expiry` is
//!   negative and `int()` truncates it to 0, the same key as the current window: the first window
//!   counts its own hits twice, weighted. Real clocks never read that low; the default `epoch`
//!   does not either.
//!
//! The reply is what a caller of the library gets: `hit` (`True`/`False`, the return of
//! `limiter.hit(item, cost=cost)`), then `reset_time` and `remaining`, the `WindowStats` that
//! `limiter.get_window_stats(item)` returns right after, at the same instant. `reset_time` is
//! written as Python's `repr` of the float; `remaining` as Python's int.
//!
//! The lab's `Decision`: `limit` is `amount`; `remaining` the stats' `remaining`; `reset_after`
//! the time until the state holds nothing that changes a later answer (the counter expired; the
//! newest entry out of the window; both counters expired or out of reach of the window keys, at
//! every reading from then on, so not at a whole second whose next microsecond reads back into
//! their windows); `retry_after`, for a refused hit, the time until the same hit would pass if
//! nothing else happened (found on the exact float predicate, to the microsecond: in the sliding
//! window counter and the moving window the first microsecond whose reading lets it pass, even if
//! the next one reads lower and would not), `None` when its cost is above `amount`.
//!
//! Choices where the library is silent: a time earlier than one already seen is treated as that
//! later time (the library would read the wall clock, which only moves on). A limiter made on
//! its own is one key alone in its storage; the lab's rows hand the moving window's storage
//! timer from key to key (`core::limiter::LimiterSlots`). Counts are held as saturating 64-bit integers (Python's are unbounded; they only grow past
//! `amount` in the fixed window, where any count above `amount` answers the same). Forgetting a
//! moving-window key whose entries have all aged out but are not yet pruned (`is_at_rest`) loses
//! only the past `reset_time` its stats would name; forgetting a fixed-window counter of 0 (left
//! by hits of cost 0) loses only its `reset_time`.
//!
//! What a client receives over HTTP: see [`http_response`].

use std::fmt::Write as _;

use crate::core::config::{ConfigError, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::Decision;
use crate::core::http::HttpResponse;
use crate::core::time::{Span, Time, MICROS_PER_SEC};

use super::ProductReply;

mod fixed;
mod moving;
mod sliding;

use crate::core::profiles::{
    explanation, Explanation, Family, Hint, ProductRow, RowSettings, SnippetOf,
};
pub use fixed::FixedWindowRateLimiter;
pub use moving::{MovingWindowRateLimiter, StorageTimer};
pub use sliding::SlidingWindowCounterRateLimiter;
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// The `epoch` the default settings start near: 1,700,000,000 s (2023-11-14 22:13:20 UTC).
pub const DEFAULT_EPOCH_NEAR: u64 = 1_700_000_000;

/// The largest `epoch` accepted, in seconds (as the lab's own largest time).
pub const MAX_EPOCH: u64 = 1_000_000_000_000;

/// The storage timer's interval: `threading.Timer(0.01, ...)`.
pub const TIMER_INTERVAL: Span = Span::from_millis(10);

/// A `RateLimitItem` subclass's `GRANULARITY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    Second,
    Minute,
    Hour,
    Day,
    /// 30 days.
    Month,
    /// 360 days (12 of the library's months).
    Year,
}

impl Granularity {
    /// From the longest to the shortest, as `defaults_for` tries them.
    pub const ALL: [Granularity; 6] = [
        Granularity::Year,
        Granularity::Month,
        Granularity::Day,
        Granularity::Hour,
        Granularity::Minute,
        Granularity::Second,
    ];

    /// `GRANULARITY.seconds`.
    pub const fn seconds(self) -> u64 {
        match self {
            Granularity::Second => 1,
            Granularity::Minute => 60,
            Granularity::Hour => 3_600,
            Granularity::Day => 86_400,
            Granularity::Month => 2_592_000,
            Granularity::Year => 31_104_000,
        }
    }

    /// `GRANULARITY.name`, as the string notation and `repr` write it.
    pub const fn name(self) -> &'static str {
        match self {
            Granularity::Second => "second",
            Granularity::Minute => "minute",
            Granularity::Hour => "hour",
            Granularity::Day => "day",
            Granularity::Month => "month",
            Granularity::Year => "year",
        }
    }

    /// The granularity named `name` (singular or plural, as `check_granularity_string` allows).
    pub fn from_name(name: &str) -> Option<Granularity> {
        let lower = name.trim().to_ascii_lowercase();
        let singular = lower.strip_suffix('s').unwrap_or(&lower);
        Granularity::ALL.into_iter().find(|g| g.name() == singular)
    }
}

/// A `RateLimitItem` (`RateLimitItemPer<Granularity>(amount, multiples)`) and the clock the lab
/// reads it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PyLimitsParams {
    /// `amount`: hits allowed per window.
    pub amount: u64,
    /// `multiples` of the granularity (0 is taken as 1, as the library does).
    pub multiples: u64,
    /// The item's class: `RateLimitItemPerSecond`, `...PerMinute`, and so on.
    pub granularity: Granularity,
    /// What `time.time()` reads at the lab's time 0, in whole seconds (not a library option).
    pub epoch: u64,
}

impl PyLimitsParams {
    /// `RateLimitItemPer<granularity>(amount, multiples)`, read on the default clock.
    pub fn new(amount: u64, multiples: u64, granularity: Granularity) -> PyLimitsParams {
        let expiry = granularity.seconds().saturating_mul(multiples.max(1));
        PyLimitsParams {
            amount,
            multiples,
            granularity,
            epoch: aligned_epoch(expiry),
        }
    }

    /// The lab's "`limit` per `window`" as the item `limit` per `window`: the window in whole
    /// seconds (rounded down, at least 1 s: the library's windows are whole seconds, so 1.5 s
    /// becomes 1 s and 0.2 s becomes 1 s), written with the longest granularity that divides it
    /// (60 s is `RateLimitItemPerMinute(limit, 1)`, 90 s `RateLimitItemPerSecond(limit, 90)`,
    /// 7200 s `RateLimitItemPerHour(limit, 2)`). `epoch` is the first multiple of the window at or
    /// after 1,700,000,000 s, so the sliding window counter's clock-aligned windows begin at the
    /// lab's time 0, `window`, `2 × window`, ... like the lab's other fixed windows.
    pub fn defaults_for(limit: u64, window: Span) -> PyLimitsParams {
        let secs = (window.micros() / MICROS_PER_SEC).max(1);
        let granularity = Granularity::ALL
            .into_iter()
            .find(|g| secs.is_multiple_of(g.seconds()))
            .unwrap_or(Granularity::Second);
        PyLimitsParams::new(limit, secs / granularity.seconds(), granularity)
    }

    pub fn with_epoch(self, epoch: u64) -> PyLimitsParams {
        PyLimitsParams { epoch, ..self }
    }

    /// `item.get_expiry()`: the window in seconds, or `None` past 64 bits.
    pub fn expiry(&self) -> Option<u64> {
        self.granularity
            .seconds()
            .checked_mul(self.multiples.max(1))
    }

    /// `repr(item)`: "10 per 2 second".
    pub fn item_repr(&self) -> String {
        format!(
            "{} per {} {}",
            self.amount,
            self.multiples.max(1),
            self.granularity.name()
        )
    }

    /// Checks what the lab cannot hold and returns the window in seconds.
    fn validate(&self) -> Result<u64, ConfigError> {
        if self.amount > MAX_COUNT {
            return Err(ConfigError::TooLarge("amount"));
        }
        let expiry = self.expiry().ok_or(ConfigError::TooLarge("window"))?;
        if Span::from_secs(expiry) > MAX_WINDOW {
            return Err(ConfigError::TooLarge("window"));
        }
        if self.epoch > MAX_EPOCH {
            return Err(ConfigError::TooLarge("epoch"));
        }
        Ok(expiry)
    }
}

/// The first multiple of `expiry` seconds at or after [`DEFAULT_EPOCH_NEAR`].
pub fn aligned_epoch(expiry: u64) -> u64 {
    let expiry = expiry.max(1);
    DEFAULT_EPOCH_NEAR
        .div_ceil(expiry)
        .saturating_mul(expiry)
        .min(MAX_EPOCH)
}

/// The library's `WindowStats(reset_time, remaining)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowStats {
    /// Seconds since the epoch, as `time.time()` counts them.
    pub reset_time: f64,
    /// Python's int: never negative in these strategies, but held signed as Python's is.
    pub remaining: i128,
}

impl WindowStats {
    /// `remaining` as the lab's count.
    pub fn remaining_count(&self) -> u64 {
        u64::try_from(self.remaining.max(0)).unwrap_or(u64::MAX)
    }
}

/// The reply fields: `hit`, then the stats' `reset_time` and `remaining`.
pub fn reply(hit: bool, stats: &WindowStats) -> ProductReply {
    ProductReply {
        fields: vec![
            ("hit", if hit { "True" } else { "False" }.to_string()),
            ("reset_time", py_float_repr(stats.reset_time)),
            ("remaining", stats.remaining.to_string()),
        ],
    }
}

/// What a client receives over HTTP. `limits` sends nothing itself and its documentation shows
/// no server: its quickstart only calls `hit`, `test` and `get_window_stats`. The answer shown is
/// that of Flask-Limiter, the same author's web extension built on `limits`, whose README
/// example answers a refused request `429 Too Many Requests` and a passed one with the view's
/// 200, with no rate-limit header (its `X-RateLimit-*` headers are off unless
/// `RATELIMIT_HEADERS_ENABLED` is set). The verdict is the reply's `hit` when there is one.
pub fn http_response(decision: &Decision, reply: &ProductReply) -> HttpResponse {
    let passed = reply
        .get("hit")
        .map_or(decision.allowed(), |hit| hit == "True");
    if passed {
        HttpResponse {
            status: 200,
            reason: "OK",
            headers: Vec::new(),
        }
    } else {
        HttpResponse {
            status: 429,
            reason: "Too Many Requests",
            headers: Vec::new(),
        }
    }
}

/// `time.time()` at lab time `now` on a clock reading `epoch` seconds at the lab's time 0:
/// CPython's `PyTime_AsSecondsDouble` of the instant in whole nanoseconds.
pub fn time_time(epoch: u64, now: Time) -> f64 {
    const NANOS_PER_SEC: u128 = 1_000_000_000;
    // The usual case in 64 bits (a 128-bit division is slow): whole seconds when the
    // microseconds are, else the nanoseconds converted to the nearest double, then divided.
    let fast = epoch
        .checked_mul(MICROS_PER_SEC)
        .and_then(|e| e.checked_add(now.micros()))
        .and_then(|micros| Some((micros, micros.checked_mul(1_000)?)));
    if let Some((micros, ns)) = fast {
        return if micros.is_multiple_of(MICROS_PER_SEC) {
            (micros / MICROS_PER_SEC) as f64
        } else {
            ns as f64 / 1e9
        };
    }
    let micros = u128::from(epoch) * u128::from(MICROS_PER_SEC) + u128::from(now.micros());
    let ns = micros * 1_000;
    if ns.is_multiple_of(NANOS_PER_SEC) {
        (ns / NANOS_PER_SEC) as f64
    } else {
        ns as f64 / 1e9
    }
}

/// Python's float `a % b`: C's `fmod`, moved into the divisor's sign (`float_rem`).
pub fn py_mod(a: f64, b: f64) -> f64 {
    // `fmod(a, 1)` is `a - trunc(a)`, exactly (and much faster than `fmod` on large `a`).
    // `fmod(a, b)` of `0 <= a < 2b` is `a` or `a - b`, exact (Sterbenz) and needing no libm
    // call: a computed `a - b` below `b` can only come from `a < 2b`.
    let m = if b == 1.0 {
        a - trunc(a)
    } else if a >= 0.0 && b > 0.0 && a < b {
        a
    } else if a >= b && b > 0.0 && a - b < b {
        a - b
    } else {
        a % b
    };
    if m == 0.0 {
        0.0_f64.copysign(b)
    } else if (m < 0.0) != (b < 0.0) {
        m + b
    } else {
        m
    }
}

/// Python's `repr` of a float: the shortest digits that read back the same double, in fixed
/// notation when the decimal exponent is in `-4 <= e < 16`, else in exponent notation with a
/// sign and at least two digits (`1e+16`, `1.5e-05`); a whole number keeps its `.0`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    // Rust's `{:e}` writes the shortest round-trip digits, as Python's repr chooses them.
    let (digits, exponent) = shortest_digits(x.abs());
    let len = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    // The value is 0.d1d2... × 10^decpt.
    let decpt = exponent + 1;
    let mut out = String::from(sign);
    if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            for _ in 0..-decpt {
                out.push('0');
            }
            out.push_str(&digits);
        } else if decpt < len {
            let (int, frac) = digits.split_at(decpt.unsigned_abs() as usize);
            let _ = write!(out, "{int}.{frac}");
        } else {
            out.push_str(&digits);
            for _ in 0..decpt - len {
                out.push('0');
            }
            out.push_str(".0");
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = decpt - 1;
        let _ = write!(
            out,
            "e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        );
    }
    out
}

/// The shortest decimal digits that read back as `x` (positive, finite) and the decimal exponent
/// of the first, choosing as Python's `repr` (David Gay's `dtoa`, mode 0) does: the digits
/// nearest `x`, and of two equally near the one ending in an even digit. Rust's `{:e}` picks the
/// nearest too but breaks that tie upwards, so the tie is looked for in `x`'s exact expansion.
fn shortest_digits(x: f64) -> (String, i32) {
    let split = |sci: &str| -> (String, i32) {
        let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
        let digits = mantissa.chars().filter(|c| *c != '.').collect();
        (digits, exponent.parse().unwrap_or(0))
    };
    let (shortest, exponent) = split(&format!("{x:e}"));
    // Every double's decimal expansion ends within 767 significant digits.
    let (exact, exact_exponent) = split(&format!("{x:.800e}"));
    let n = shortest.len();
    if exact_exponent != exponent || n >= exact.len() {
        return (shortest, exponent);
    }
    let (kept, rest) = exact.split_at(n);
    let halfway = rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0');
    let kept_is_even = kept
        .bytes()
        .last()
        .is_some_and(|d| (d - b'0').is_multiple_of(2));
    if halfway && kept_is_even && kept != shortest {
        let candidate = format!("{}.{}e{exponent}", &kept[..1], &kept[1..]);
        if candidate.parse::<f64>() == Ok(x) {
            return (kept.to_string(), exponent);
        }
    }
    (shortest, exponent)
}

/// The clock of one limiter: the float the library reads at each lab time, and back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Clock {
    epoch: u64,
}

/// An instant below this many microseconds since the Unix epoch has its next whole second below
/// 2^62 ns, and no reading from it to there is lower than its own (nor any later one, which are
/// higher still): below 2^62 a whole second's nanoseconds, `S × 10^9 = (S × 5^9) × 2^9`, are a
/// double exactly (`S × 5^9` is below 2^53), which divides to `S` as the whole-second case reads.
const MONOTONE_BELOW_MICROS: u64 = (1 << 62) / 1_000 - MICROS_PER_SEC;

impl Clock {
    fn read(self, now: Time) -> f64 {
        time_time(self.epoch, now)
    }

    /// `read` without CPython's whole-second case: the nanoseconds converted to the nearest
    /// double, then divided. It never goes down as the lab time grows (each step rounds
    /// monotonically), and it is `read` at every lab time that is not a whole second.
    fn plain(self, now: Time) -> f64 {
        let ns = self
            .epoch
            .checked_mul(MICROS_PER_SEC)
            .and_then(|e| e.checked_add(now.micros()))
            .and_then(|micros| micros.checked_mul(1_000));
        match ns {
            Some(ns) => ns as f64 / 1e9,
            None => {
                let micros =
                    u128::from(self.epoch) * u128::from(MICROS_PER_SEC) + u128::from(now.micros());
                (micros * 1_000) as f64 / 1e9
            }
        }
    }

    /// The lowest reading at `now` or at any later lab time; `here` is the reading at `now`.
    ///
    /// The readings can go down far from 1970 (from 2^62 ns, the year 2116): a whole second
    /// reads as exactly that many seconds, but the instants around it through their nanoseconds
    /// rounded to a double, which a whole second's nanoseconds need not be; so the microseconds
    /// just after a whole second can read one ULP below it, or those just before it one ULP
    /// above. A state that reads as holding nothing at a whole second can then read its counters
    /// again a microsecond later. Every later instant that is not a whole second reads at least
    /// as the first such one (`plain` never goes down), and every later whole second at least as
    /// the first one: the lowest reading is one of these two or the reading at `now`.
    fn least_from(self, now: Time, here: f64) -> f64 {
        let t = now.micros();
        let micros = self
            .epoch
            .checked_mul(MICROS_PER_SEC)
            .and_then(|e| e.checked_add(t));
        if micros.is_some_and(|m| m < MONOTONE_BELOW_MICROS) {
            return here;
        }
        // The epoch is whole seconds: the lab's whole seconds are the clock's.
        let next_second = (t - t % MICROS_PER_SEC).checked_add(MICROS_PER_SEC);
        let next_other = t.checked_add(1).and_then(|u| {
            if u % MICROS_PER_SEC == 0 {
                u.checked_add(1)
            } else {
                Some(u)
            }
        });
        [next_second, next_other]
            .into_iter()
            .flatten()
            .map(|u| self.read(Time(u)))
            .fold(here, f64::min)
    }

    /// The first lab time at or after `from` whose reading satisfies `holds`, a condition on the
    /// lab time and the reading there that stays true as either grows (the lab time only through
    /// what a timer has done by then); `guess` is a time near the answer. Where the
    /// readings go down (see `least_from`) it can hold at a whole second and fail a microsecond
    /// later, or fail at a whole second and hold the microsecond before, so it is not searched
    /// on the lab time directly: the search finds the first time it holds on `plain`, which
    /// never goes down, and past a whole second found there, the next microsecond (`plain` is
    /// the reading there and still holds). Before that, the reading can hold only at the last
    /// whole second: every earlier one reads below an instant half a second after it, at which
    /// `plain` fails (a ULP of the clock is far less than half a second), so fails too.
    fn first_reading(
        self,
        from: Time,
        guess: u64,
        holds: impl Fn(Time, f64) -> bool,
    ) -> Option<Time> {
        let found = first_time(from, guess, |t| holds(t, self.plain(t)))?.micros();
        let other = if found % MICROS_PER_SEC == 0 {
            match found.checked_add(1) {
                Some(u) => u,
                None => return holds(Time(found), self.read(Time(found))).then_some(Time(found)),
            }
        } else {
            found
        };
        let second = other - other % MICROS_PER_SEC;
        if second >= from.micros() && holds(Time(second), self.read(Time(second))) {
            Some(Time(second))
        } else {
            Some(Time(other))
        }
    }

    /// A lab time near the instant `secs` reads (for starting a search), saturating.
    fn guess(self, secs: f64) -> u64 {
        let since = (secs - self.epoch as f64) * MICROS_PER_SEC as f64;
        if since.is_nan() {
            0
        } else {
            // `as` saturates at both ends.
            since.ceil() as u64
        }
    }

    /// The first lab time at or after `from` at which `time.time()` reads at least `secs`.
    fn first_reading_at_least(self, from: Time, secs: f64) -> Option<Time> {
        first_time(from, self.guess(secs), |t| self.read(t) >= secs)
    }
}

/// The first lab time at or after `from` at which `holds` is true, for a condition that stays
/// true once it holds; `guess` is a time near the answer. A few steps around the guess find it
/// when the guess is off by rounding; a binary search otherwise. `None` when it never holds.
fn first_time(from: Time, guess: u64, holds: impl Fn(Time) -> bool) -> Option<Time> {
    const STEPS: u32 = 8;
    let lo = from.micros();
    let mut g = guess.max(lo);
    if holds(Time(g)) {
        for _ in 0..STEPS {
            if g == lo || !holds(Time(g - 1)) {
                return Some(Time(g));
            }
            g -= 1;
        }
        if holds(Time(lo)) {
            return Some(Time(lo));
        }
        // Not at `lo`, true at `g`.
        Some(Time(bisect(lo, g, &holds)))
    } else {
        for _ in 0..STEPS {
            if g == u64::MAX {
                return None;
            }
            g += 1;
            if holds(Time(g)) {
                return Some(Time(g));
            }
        }
        if !holds(Time(u64::MAX)) {
            return None;
        }
        Some(Time(bisect(g, u64::MAX, &holds)))
    }
}

/// The first time in `(false_at, true_at]` at which `holds` is true, given it is false at
/// `false_at` and true at `true_at`.
fn bisect(mut false_at: u64, mut true_at: u64, holds: &impl Fn(Time) -> bool) -> u64 {
    while true_at - false_at > 1 {
        let mid = false_at + (true_at - false_at) / 2;
        if holds(Time(mid)) {
            true_at = mid;
        } else {
            false_at = mid;
        }
    }
    true_at
}

/// `floor(x)` of a non-negative double as Python's int, held in 128 bits (saturating).
fn floor_int(x: f64) -> u128 {
    // Below 2^64 the truncation to 64 bits is the floor (one instruction, where `floor` and a
    // conversion to 128 bits are library calls on the baseline x86-64).
    if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
        u128::from(x as u64)
    } else {
        // `as` saturates, and a NaN (never produced here) would be 0.
        x.floor() as u128
    }
}

/// `x.trunc()`, bit for bit (the sign of a zero kept), without the library call `trunc` is on
/// the baseline x86-64: below 2^52 in magnitude through a 64-bit integer, above it `x` itself
/// (already whole, or infinite, or NaN).
fn trunc(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        ((x as i64) as f64).copysign(x)
    } else {
        x
    }
}

const FAMILY: Family = Family {
    prefix: "limits-",
    name: "Python limits",
    fields: fields::FIELDS,
};

const TELLS: &str = "nothing: Flask-Limiter's 429 carries no wait";

const FILE_NAME: &str = "limits_example.py";

fn explain(s: &RowSettings, how: &str) -> Explanation {
    let l = s.products.python_limits.params(s.limit, s.window);
    explanation(
        format!("Python's limits with its memory storage, the item {}: {how}.", l.item_repr()),
        "A counter and its expiry per key (the moving window: a time per hit), in the Python process.",
        "Flask and Django apps limiting in process; pick the strategy by how much error a window edge may have.",
    )
}

/// The Python `limits` FixedWindowRateLimiter row (`core::limiter::rows`).
pub const FIXED_ROW: ProductRow<FixedWindowRateLimiter> = ProductRow {
    slug: "limits-fixed",
    label: "Python limits, fixed window",
    family: FAMILY,
    build: |s| FixedWindowRateLimiter::new(s.products.python_limits.params(s.limit, s.window)),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: |s| {
        explain(
            s,
            "a window per key from its first hit, counting refused hits too",
        )
    },
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| snippet::write("Python limits, fixed window", "FixedWindowRateLimiter", s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The Python `limits` MovingWindowRateLimiter row (`core::limiter::rows`).
pub const MOVING_ROW: ProductRow<MovingWindowRateLimiter> = ProductRow {
    slug: "limits-moving",
    label: "Python limits, moving window",
    family: FAMILY,
    build: |s| MovingWindowRateLimiter::new(s.products.python_limits.params(s.limit, s.window)),
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: |s| {
        explain(s, "a log of the hits of the last window; refused hits are not logged, and the storage's one expiry timer, started by any key's hit, prunes every key's log, so one key's hit can let another's through an instant sooner")
    },
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| snippet::write("Python limits, moving window", "MovingWindowRateLimiter", s),
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

/// The Python `limits` SlidingWindowCounterRateLimiter row (`core::limiter::rows`).
pub const SLIDING_ROW: ProductRow<SlidingWindowCounterRateLimiter> = ProductRow {
    slug: "limits-sliding",
    label: "Python limits, sliding window counter",
    family: FAMILY,
    build: |s| {
        SlidingWindowCounterRateLimiter::new(s.products.python_limits.params(s.limit, s.window))
    },
    response: |_, decision, reply| http_response(decision, reply),
    hint: Hint::Header,
    tells: TELLS,
    explain: |s| {
        explain(s, "two clock-aligned windows, the previous one weighted in doubles by how much of it is still inside the window")
    },
    snippet: SnippetOf::Written {
        file_name: FILE_NAME,
        write: |s| {
            snippet::write(
                "Python limits, sliding window counter",
                "SlidingWindowCounterRateLimiter",
                s,
            )
        },
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_time_divides_nanoseconds_as_cpython_does() {
        assert_eq!(time_time(0, Time::ZERO), 0.0);
        assert_eq!(time_time(0, Time(1)), 1e-6);
        assert_eq!(time_time(0, Time::from_secs(90)), 90.0);
        // 1.7e9 s + 1 µs: the nearest double, 2^-22 apart from its neighbours.
        let t = time_time(1_700_000_000, Time(1));
        assert_eq!(t, 1_700_000_000.000_001_f64);
        assert!(t > 1_700_000_000.0 && t - 1_700_000_000.0 < 1.1e-6);
        // The lab's last microsecond on the largest clock neither panics nor overflows.
        assert!(time_time(MAX_EPOCH, Time(u64::MAX)).is_finite());
        // Past 64 bits of nanoseconds the same formula in 128 bits.
        let t = Time(20_000_000_000_000_001);
        assert_eq!(
            time_time(0, t),
            (20_000_000_000_000_001u128 * 1_000) as f64 / 1e9
        );
        assert_eq!(time_time(MAX_EPOCH, Time::ZERO), 1e12);
    }

    #[test]
    fn python_float_modulo_takes_the_divisor_sign() {
        assert_eq!(py_mod(-0.5, 1.0), 0.5);
        assert_eq!(py_mod(-1.0, 1.0), 0.0);
        assert_eq!(py_mod(2.75, 1.0), 0.75);
        assert_eq!(py_mod(120.0, 60.0), 0.0);
        assert_eq!(py_mod(0.999, 1.0 / 3.0), 0.999 % (1.0 / 3.0));
        for a in [
            1e300,
            -1e300,
            2.5e15 + 0.5,
            -3.25,
            1_700_000_000.000_001,
            -0.0,
        ] {
            let fmod = a % 1.0;
            let want = if fmod == 0.0 {
                0.0
            } else if fmod < 0.0 {
                fmod + 1.0
            } else {
                fmod
            };
            assert_eq!(py_mod(a, 1.0).to_bits(), want.to_bits(), "{a}");
        }
    }

    /// proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    mod float_steps {
        use super::*;

        /// The library's float steps as they were written before the shortcuts: `trunc`, `floor`
        /// and `fmod` from the standard library.
        fn py_mod_slow(a: f64, b: f64) -> f64 {
            let m = if b == 1.0 { a - a.trunc() } else { a % b };
            if m == 0.0 {
                0.0_f64.copysign(b)
            } else if (m < 0.0) != (b < 0.0) {
                m + b
            } else {
                m
            }
        }

        fn same(x: f64, y: f64) -> bool {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }

        proptest::proptest! {
            /// `trunc`, `floor_int` and `py_mod` without library calls give the library calls'
            /// doubles bit for bit: on any double, and on the values the windows produce.
            #[test]
            fn the_float_shortcuts_agree_with_the_library_calls(
                bits in proptest::num::u64::ANY,
                small in -1e7f64..1e7,
                ttl in 0.0f64..200.0,
                w in 1u64..100,
                count in 1u64..60,
            ) {
                let any = f64::from_bits(bits);
                for x in [any, small, ttl, -ttl, small * 1e12, -0.0, 0.0, 4_503_599_627_370_495.5] {
                    proptest::prop_assert!(same(trunc(x), x.trunc()), "trunc {:e}", x);
                    proptest::prop_assert_eq!(floor_int(x.abs()), x.abs().floor() as u128);
                    proptest::prop_assert_eq!(floor_int(x), x.floor() as u128);
                    proptest::prop_assert!(same(py_mod(x, 1.0), py_mod_slow(x, 1.0)), "{:e} % 1", x);
                }
                let w = w as f64;
                for (a, b) in [
                    (ttl, w),
                    (ttl + w, w),
                    (2.0 * w, w),
                    (ttl, w / count as f64),
                    (any, w),
                    (w, any),
                    (any, small),
                    (small, ttl),
                    (-ttl, w),
                ] {
                    proptest::prop_assert!(same(py_mod(a, b), py_mod_slow(a, b)), "{:e} % {:e}", a, b);
                }
            }
        }
    }

    #[test]
    fn floats_are_written_as_python_repr_writes_them() {
        // Each expected string is Python 3.11's `repr` of the same double.
        let cases = [
            (1_710_720_060.0, "1710720060.0"),
            (1_710_720_060.000_001, "1710720060.000001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123_456_789_012_345_680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000_015, "1.5e-05"),
            (2.5, "2.5"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (f64::INFINITY, "inf"),
            (1e22, "1e+22"),
            (1.7e9, "1700000000.0"),
            // Exactly halfway between two shortest candidates: the even one.
            (21_290_870_088_077.0 / 32.0, "665339690252.4062"),
            (20_214_886_347_997.0 / 32.0, "631715198374.9062"),
            (666_737_067_573.656_1, "666737067573.6561"),
        ];
        for (x, repr) in cases {
            assert_eq!(py_float_repr(x), repr, "{x:e}");
        }
    }

    #[test]
    fn defaults_write_the_window_with_the_longest_granularity_that_divides_it() {
        let p = PyLimitsParams::defaults_for(100, Span::from_secs(60));
        assert_eq!((p.granularity, p.multiples), (Granularity::Minute, 1));
        assert_eq!(p.item_repr(), "100 per 1 minute");
        let p = PyLimitsParams::defaults_for(5, Span::from_secs(90));
        assert_eq!((p.granularity, p.multiples), (Granularity::Second, 90));
        let p = PyLimitsParams::defaults_for(5, Span::from_secs(7_200));
        assert_eq!((p.granularity, p.multiples), (Granularity::Hour, 2));
        let p = PyLimitsParams::defaults_for(5, Span::from_secs(86_400 * 60));
        assert_eq!((p.granularity, p.multiples), (Granularity::Month, 2));
        assert_eq!(p.expiry(), Some(86_400 * 60));
    }

    #[test]
    fn a_fractional_window_is_rounded_down_to_whole_seconds_and_at_least_one() {
        let p = PyLimitsParams::defaults_for(5, Span(1_500_000));
        assert_eq!(p.expiry(), Some(1));
        let p = PyLimitsParams::defaults_for(5, Span(200_000));
        assert_eq!(p.expiry(), Some(1));
        let p = PyLimitsParams::defaults_for(5, Span(10_999_999));
        assert_eq!(p.expiry(), Some(10));
    }

    #[test]
    fn the_default_epoch_is_a_multiple_of_the_window_near_today() {
        let p = PyLimitsParams::defaults_for(5, Span::from_secs(60));
        assert_eq!(p.epoch % 60, 0);
        assert!(p.epoch >= DEFAULT_EPOCH_NEAR && p.epoch < DEFAULT_EPOCH_NEAR + 60);
        let p = PyLimitsParams::defaults_for(5, Span::from_secs(7));
        assert_eq!(p.epoch % 7, 0);
    }

    #[test]
    fn zero_multiples_mean_one_as_in_the_library() {
        let p = PyLimitsParams::new(3, 0, Granularity::Minute);
        assert_eq!(p.expiry(), Some(60));
        assert_eq!(p.item_repr(), "3 per 1 minute");
    }

    #[test]
    fn granularity_names_read_singular_or_plural() {
        assert_eq!(Granularity::from_name("Hours"), Some(Granularity::Hour));
        assert_eq!(Granularity::from_name("day"), Some(Granularity::Day));
        assert_eq!(Granularity::from_name("fortnight"), None);
    }

    #[test]
    fn what_the_lab_cannot_hold_is_refused() {
        let too_many = PyLimitsParams::new(MAX_COUNT + 1, 1, Granularity::Second);
        assert_eq!(too_many.validate(), Err(ConfigError::TooLarge("amount")));
        let too_long = PyLimitsParams::new(1, 2, Granularity::Year);
        assert_eq!(too_long.validate(), Err(ConfigError::TooLarge("window")));
        let huge = PyLimitsParams::new(1, u64::MAX, Granularity::Year);
        assert_eq!(huge.validate(), Err(ConfigError::TooLarge("window")));
        let late = PyLimitsParams::new(1, 1, Granularity::Second).with_epoch(MAX_EPOCH + 1);
        assert_eq!(late.validate(), Err(ConfigError::TooLarge("epoch")));
        assert_eq!(
            PyLimitsParams::new(0, 1, Granularity::Second).validate(),
            Ok(1),
            "the library takes an amount of 0"
        );
    }

    #[test]
    fn the_first_time_search_finds_the_boundary_from_any_guess() {
        let holds = |t: Time| t.micros() >= 1_000_003;
        for guess in [0, 999_990, 1_000_003, 1_000_010, 5_000_000, u64::MAX] {
            assert_eq!(first_time(Time::ZERO, guess, holds), Some(Time(1_000_003)));
        }
        assert_eq!(first_time(Time(2_000_000), 0, holds), Some(Time(2_000_000)));
        assert_eq!(first_time(Time::ZERO, 5, |_| false), None);
    }

    #[test]
    fn a_refused_hit_is_answered_429_and_a_passed_one_200_without_headers() {
        let d = Decision {
            verdict: crate::core::decision::Verdict::Rejected,
            limit: 1,
            remaining: 0,
            reset_after: Span::ZERO,
            retry_after: None,
        };
        let stats = WindowStats {
            reset_time: 1.0,
            remaining: 0,
        };
        let r = http_response(&d, &reply(false, &stats));
        assert_eq!((r.status, r.reason), (429, "Too Many Requests"));
        assert!(r.headers.is_empty());
        assert_eq!(http_response(&d, &reply(true, &stats)).status, 200);
    }
}
