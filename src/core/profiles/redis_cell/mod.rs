//! redis-cell's `CL.THROTTLE key max_burst count period [quantity]`: GCRA as the redis-cell
//! module implements it, and the key's expiry as Redis keeps it. Read from brandur/redis-cell
//! 0.5.0 (`src/cell/mod.rs` the limiter, `src/cell/store.rs` the Redis store, `src/redis/mod.rs`
//! `set_expire`, `src/lib.rs` the command and its reply) and redis/redis (`src/module.c`
//! `RM_SetExpire`, `src/db.c` `keyIsExpired`).
//!
//! The limiter, with durations in nanoseconds:
//! - emission interval `T = period / count`, divided in f64 and truncated (`Rate::per_period`);
//!   a `T` of 0 is refused ("Zero rates are not supported");
//! - delay variation tolerance `DVT = T × (max_burst + 1)`, and `limit = max_burst + 1`;
//! - `increment = T × quantity`; `tat` is the stored theoretical arrival time, or now when Redis
//!   holds no key; `new_tat = max(now, tat) + increment`; the request is limited when
//!   `now < new_tat - DVT`, and then `retry_after = new_tat - DVT - now` unless the request is
//!   larger than the whole tolerance (then -1 s), and `ttl = tat - now`; otherwise
//!   `ttl = new_tat - now` and the new TAT is written;
//! - `remaining = (DVT - ttl) / T`, both in whole microseconds (truncated), divided in f64 and
//!   truncated, when `DVT - ttl > -T`, else 0; `reset_after = ttl`;
//! - the reply is `[limited, limit, remaining, retry_after, reset_after]` with both times in
//!   whole seconds (`as_seconds_f64() as i64`, plus one when the part after the whole seconds
//!   holds at least a millisecond), `retry_after` -1 when allowed. Quantity 0 takes nothing
//!   but, like any allowed call, writes `max(now, tat)`.
//!
//! The key's expiry: an allowed call writes the TAT and then `RedisModule_SetExpire(key,
//! ttl.whole_milliseconds())`, which Redis makes the absolute expiry `now_ms + ttl_ms` (its
//! millisecond clock at the command plus the ttl truncated to whole milliseconds). A limited call
//! writes nothing and leaves the expiry as it was. Redis holds the key while `now_ms <= expiry`
//! and treats it as gone once `now_ms > expiry` (`keyIsExpired`); the next command then finds no
//! key and starts from a fresh state. Two things follow:
//! - a key idle past its expiry is decided as a new one: `CL.THROTTLE k 15 30 60 1` at `t`, then
//!   `CL.THROTTLE k 15 30 60 17` at `t + 600 s` answers `[1, 16, 16, -1, 0]`, as for a key never
//!   seen (the old TAT, kept, would give a reset 598 s in the past and a `remaining` of 315);
//! - the truncation can forget a key up to a millisecond before its TAT: `CL.THROTTLE k 0 3 1 1`
//!   at 1,700,000,000.000900 s stores a ttl of 333.33 ms as 333 ms, so Redis holds the key
//!   through millisecond ...333 and it is gone at ...334.000 although its TAT is ...334.233; the
//!   same call at ...334.100 is allowed, `[0, 1, 0, -1, 1]`.
//!
//! The module's `remaining` can exceed its `limit`, and the reply keeps that figure: when `T` is
//! not a whole number of microseconds (both sides are truncated to whole microseconds before
//! dividing), and in the under a millisecond between a key's TAT and its expiry, where a
//! refusal's `ttl` is negative.
//!
//! Time: the module reads the wall clock in nanoseconds and Redis its millisecond clock, both at
//! the same instant for one command; the lab's time 0 is taken as the Unix epoch, so
//! `now_ms = floor(lab µs / 1000)`.
//!
//! The surprise users report: `limit` is `max_burst + 1`, not `max_burst`, so
//! `CL.THROTTLE user123 15 30 60` lets 16 requests through at once.
//!
//! As a lab [`Limiter`], a request of `cost` is `CL.THROTTLE key max_burst count period cost`;
//! the [`Decision`] takes the internal result (nanoseconds, rounded up to the microsecond, the
//! remaining count capped at the limit; the retry and reset times cut short when Redis forgets
//! the key sooner, so that they stay the exact moments the lab promises), and the [`Product`]
//! reply is the command's five integers, named as above, then what became of the key in Redis.
//!
//! Where the module has nothing to say: its `period` is a whole number of seconds, the lab also
//! takes fractions; its durations are `i64` nanoseconds (about 292 years), which the largest
//! tolerances the lab allows would overflow, so they are kept in `i128` here.

use crate::core::config::{ConfigError, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::{peek_on_a_copy, Decision, Gauge, Limiter, Verdict};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf, Told};
use crate::core::profiles::{Product, ProductReply};
use crate::core::time::{format_seconds, Span, Time};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

const NANOS_PER_MICRO: i128 = 1_000;
const NANOS_PER_SEC: i128 = 1_000_000_000;
const NANOS_PER_MILLI: i128 = 1_000_000;
const MICROS_PER_MILLI: i128 = 1_000;

/// Why the module would refuse the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThrottleError {
    /// `count` of 0 or a zero period: "Zero rates are not supported".
    ZeroRate,
}

/// The module's five-integer reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottleReply {
    /// 0 allowed, 1 limited.
    pub limited: i64,
    /// `max_burst + 1`.
    pub limit: i64,
    pub remaining: i64,
    /// Seconds until the request would be allowed; -1 when it was allowed (or never can be).
    pub retry_after: i64,
    /// Seconds until the limit is fully available again.
    pub reset_after: i64,
}

impl ThrottleReply {
    /// The reply the command builds from the internal result.
    pub fn from_result(r: &RateLimitResult) -> ThrottleReply {
        ThrottleReply {
            limited: i64::from(r.limited),
            limit: r.limit,
            remaining: r.remaining,
            retry_after: reply_seconds(r.retry_after_ns),
            reset_after: reply_seconds(r.reset_after_ns),
        }
    }
}

/// The internal result, before the reply rounds it to seconds (what redis-cell's tests check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitResult {
    pub limited: bool,
    pub limit: i64,
    pub remaining: i64,
    /// Nanoseconds; -1 s when not applicable.
    pub retry_after_ns: i128,
    /// Nanoseconds.
    pub reset_after_ns: i128,
}

/// The arguments of `CL.THROTTLE key max_burst count period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedisCellParams {
    pub max_burst: u64,
    /// Requests allowed per `period`.
    pub count: u64,
    pub period: Span,
}

impl RedisCellParams {
    /// The lab's "limit per window": `count = limit` per `period = window`, and
    /// `max_burst = limit - 1`, so that `limit` requests (not `limit + 1`) pass at once.
    pub fn defaults_for(limit: u64, window: Span) -> RedisCellParams {
        RedisCellParams {
            max_burst: limit.saturating_sub(1),
            count: limit,
            period: window,
        }
    }
}

/// The key as Redis holds it after the module's last write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredKey {
    /// The theoretical arrival time the module stored, in nanoseconds since the epoch.
    pub tat_ns: i128,
    /// Redis's millisecond clock when the expiry was set.
    pub set_at_ms: i128,
    /// The expiry the module asked for: the ttl in whole milliseconds, truncated.
    pub px_ms: i128,
}

impl StoredKey {
    /// The last millisecond at which Redis still holds the key.
    pub fn expires_at_ms(&self) -> i128 {
        self.set_at_ms + self.px_ms
    }

    /// Whether Redis holds the key at millisecond `now_ms`: it is expired once `now_ms` is past
    /// its expiry, not at it (`keyIsExpired`: `now > when`).
    pub fn held_at(&self, now_ms: i128) -> bool {
        now_ms <= self.expires_at_ms()
    }

    /// The first moment the key is gone, on the lab's clock.
    pub fn gone_at(&self) -> Time {
        Time(u64::try_from((self.expires_at_ms() + 1) * MICROS_PER_MILLI).unwrap_or(u64::MAX))
    }
}

/// One key's state under one `CL.THROTTLE` configuration.
#[derive(Clone, Debug)]
pub struct RedisCell {
    limit: i64,
    emission_ns: i128,
    tolerance_ns: i128,
    /// What the last allowed call wrote; Redis may have expired it since (see [`Self::key_at`]).
    key: Option<StoredKey>,
    /// The latest time the lab has decided at (earlier times are taken as this one).
    latest: Time,
}

impl RedisCell {
    /// `CL.THROTTLE key max_burst count period`.
    pub fn new(max_burst: u64, count: u64, period: Span) -> Result<RedisCell, ThrottleError> {
        let period_ns = i128::from(period.micros()) * NANOS_PER_MICRO;
        if count == 0 || period_ns == 0 {
            return Err(ThrottleError::ZeroRate);
        }
        // `Rate::per_period`: `((ns as f64) / (n as f64)) as i64`.
        let emission_ns = i128::from((period_ns as f64 / count as f64) as i64);
        if emission_ns == 0 {
            return Err(ThrottleError::ZeroRate);
        }
        let limit = i64::try_from(max_burst)
            .unwrap_or(i64::MAX - 1)
            .saturating_add(1);
        Ok(RedisCell {
            limit,
            emission_ns,
            tolerance_ns: emission_ns * i128::from(limit),
            key: None,
            latest: Time::ZERO,
        })
    }

    /// The command's configuration checked as the lab checks any other: the module's refusal
    /// of a zero rate becomes [`ConfigError::Unsupported`], and counts and periods beyond the
    /// lab's bounds are refused as too large.
    pub fn from_params(params: RedisCellParams) -> Result<RedisCell, ConfigError> {
        if params.max_burst > MAX_COUNT {
            return Err(ConfigError::TooLarge("max_burst"));
        }
        if params.count > MAX_COUNT {
            return Err(ConfigError::TooLarge("count"));
        }
        if params.period > MAX_WINDOW {
            return Err(ConfigError::TooLarge("period"));
        }
        RedisCell::new(params.max_burst, params.count, params.period).map_err(|ThrottleError::ZeroRate| {
            ConfigError::Unsupported("redis-cell refuses this rate: \"Zero rates are not supported\" (count 0, or a period shorter than count nanoseconds)")
        })
    }

    /// The key Redis holds at `now`: `None` when none was written or it has expired.
    pub fn key_at(&self, now: Time) -> Option<StoredKey> {
        self.key.filter(|k| k.held_at(millis(now)))
    }

    /// The command at `now` for `quantity` (0 peeks).
    pub fn rate_limit(&mut self, now: Time, quantity: u64) -> RateLimitResult {
        let (now_ns, now_ms) = (nanos(now), millis(now));
        // The read finds nothing once the key has expired (and Redis deletes it then).
        self.key = self.key_at(now);
        let increment = self.emission_ns * i128::from(quantity);
        let tat = self.key.map_or(now_ns, |k| k.tat_ns);
        let new_tat = tat.max(now_ns) + increment;
        let allow_at = new_tat - self.tolerance_ns;
        let diff = now_ns - allow_at;
        let (limited, ttl, retry_after_ns) = if diff < 0 {
            let retry = if increment <= self.tolerance_ns {
                -diff
            } else {
                -NANOS_PER_SEC
            };
            (true, tat - now_ns, retry)
        } else {
            // The new TAT (even for quantity 0, which moves a stale TAT up to now), then its
            // expiry: the ttl in whole milliseconds from Redis's clock now.
            let ttl = new_tat - now_ns;
            self.key = Some(StoredKey {
                tat_ns: new_tat,
                set_at_ms: now_ms,
                px_ms: ttl / NANOS_PER_MILLI,
            });
            (false, ttl, -NANOS_PER_SEC)
        };
        let next = self.tolerance_ns - ttl;
        let remaining = if next > -self.emission_ns {
            // Whole microseconds over whole microseconds, divided in f64 and truncated, as the
            // module does (an interval under 1 µs divides by 0.0, which Rust saturates).
            ((next / NANOS_PER_MICRO) as f64 / (self.emission_ns / NANOS_PER_MICRO) as f64) as i64
        } else {
            0
        };
        RateLimitResult {
            limited,
            limit: self.limit,
            remaining,
            retry_after_ns,
            reset_after_ns: ttl,
        }
    }

    /// The command's reply at `now` for `quantity`.
    pub fn throttle(&mut self, now: Time, quantity: u64) -> ThrottleReply {
        ThrottleReply::from_result(&self.rate_limit(now, quantity))
    }
}

/// The lab's time in nanoseconds since the epoch (the module's clock).
fn nanos(now: Time) -> i128 {
    i128::from(now.micros()) * NANOS_PER_MICRO
}

/// The lab's time as Redis's millisecond clock reads it.
fn millis(now: Time) -> i128 {
    i128::from(now.micros()) / MICROS_PER_MILLI
}

/// A duration as the reply writes it: `as_seconds_f64() as i64` of the module's
/// `time::Duration` (seconds and a same-signed nanosecond part), plus one when that part holds
/// at least a millisecond.
fn reply_seconds(ns: i128) -> i64 {
    let (seconds, subsec) = (ns / NANOS_PER_SEC, ns % NANOS_PER_SEC);
    let whole = (seconds as f64 + subsec as f64 / NANOS_PER_SEC as f64) as i64;
    whole.saturating_add(i64::from(subsec / NANOS_PER_MILLI > 0))
}

/// Nanoseconds (never negative here) to a span, rounded up to the microsecond.
fn span_up(ns: i128) -> Span {
    let micros = u128::try_from(ns)
        .unwrap_or(0)
        .div_ceil(NANOS_PER_MICRO as u128);
    Span(u64::try_from(micros).unwrap_or(u64::MAX))
}

/// A moment written as decimal seconds on the lab's clock.
fn seconds_text(at: Time) -> String {
    format_seconds(at.micros())
}

impl RedisCell {
    /// The decision for `cost` at `now` (earlier times taken as the latest seen), and the
    /// module's own result it came from.
    // Inline in `decide` and `decide_with_reply`: see `decision::peek_on_a_copy`.
    #[inline(always)]
    fn evaluate(&mut self, now: Time, cost: u64) -> (Decision, RateLimitResult) {
        let now = now.max(self.latest);
        self.latest = now;
        let r = self.rate_limit(now, cost);
        let decision = Decision {
            verdict: if r.limited {
                Verdict::Rejected
            } else {
                Verdict::Allowed
            },
            limit: u64::try_from(r.limit).unwrap_or(u64::MAX),
            // The reply keeps the module's figure, which can exceed the limit (see the header);
            // the decision never promises more than the limit.
            remaining: u64::try_from(r.remaining.clamp(0, r.limit)).unwrap_or(0),
            // Redis may forget the key before its TAT (the expiry is truncated to whole
            // milliseconds), and a fresh key holds nothing and lets the same request through: the
            // lab's times are the earlier of the two, the moments that are exact.
            reset_after: self.until_forgotten(now, span_up(r.reset_after_ns)),
            // The module's -1 s means "allowed" or "can never be allowed": no time to name.
            retry_after: (r.limited && r.retry_after_ns >= 0)
                .then(|| self.until_forgotten(now, span_up(r.retry_after_ns))),
        };
        (decision, r)
    }

    /// `wait`, or less if Redis forgets the key sooner.
    fn until_forgotten(&self, now: Time, wait: Span) -> Span {
        self.key_at(now)
            .map_or(wait, |k| wait.min(k.gone_at().since(now)))
    }
}

impl Limiter for RedisCell {
    /// `CL.THROTTLE key max_burst count period cost`.
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.evaluate(now, cost).0
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        peek_on_a_copy(self, now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        let now = now.max(self.latest);
        let debt = self
            .key_at(now)
            .map_or(0, |k| (k.tat_ns - nanos(now)).max(0));
        let level = (self.tolerance_ns - debt) as f64 / self.emission_ns as f64;
        Gauge {
            level: level.max(0.0),
            max: self.limit as f64,
            unit: "requests of burst left",
        }
    }

    /// Redis holds no key for it any more (never written, or expired): the next command starts
    /// from a fresh state.
    fn is_at_rest(&self, now: Time) -> bool {
        self.key_at(now.max(self.latest)).is_none()
    }
}

impl Product for RedisCell {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let at = now.max(self.latest);
        let expired = self.key.filter(|k| !k.held_at(millis(at)));
        let (decision, r) = self.evaluate(now, cost);
        let reply = ThrottleReply::from_result(&r);
        let mut fields = vec![
            ("limited", reply.limited.to_string()),
            ("limit", reply.limit.to_string()),
            ("remaining", reply.remaining.to_string()),
            ("retry_after", reply.retry_after.to_string()),
            ("reset_after", reply.reset_after.to_string()),
        ];
        if let Some(k) = expired {
            let set_at = Time(u64::try_from(k.set_at_ms * MICROS_PER_MILLI).unwrap_or(u64::MAX));
            fields.push((
                "key expired",
                format!(
                    "gone from {} s (PX {} set at {} s): the command found no key and started fresh",
                    seconds_text(k.gone_at()),
                    k.px_ms,
                    seconds_text(set_at)
                ),
            ));
        }
        let in_redis = match self.key {
            Some(k) if !r.limited => format!(
                "TAT stored with PX {}, gone from {} s",
                k.px_ms,
                seconds_text(k.gone_at())
            ),
            Some(k) => format!("unchanged, gone from {} s", seconds_text(k.gone_at())),
            None => "none (a refusal stores nothing)".to_string(),
        };
        fields.push(("key in Redis", in_redis));
        (decision, ProductReply { fields })
    }
}

/// The redis-cell row (`core::limiter::rows`).
pub const ROW: ProductRow<RedisCell> = ProductRow {
    slug: "redis-cell",
    label: "redis-cell CL.THROTTLE",
    family: Family {
        prefix: "cell-",
        name: "redis-cell",
        fields: fields::FIELDS,
    },
    build: |s| RedisCell::from_params(s.products.redis_cell.params(s.limit, s.window)),
    response: |_, decision, reply| super::response::redis_cell(decision, reply),
    // The reply's `retry_after` seconds, as redis-cell rounds them; -1 on a limited call means no
    // wait helps.
    hint: Hint::Finer(|_, _, reply| {
        match reply.get("retry_after").and_then(|s| s.parse::<i64>().ok()) {
            Some(seconds) if seconds >= 0 => Told::Wait(Span::from_secs(seconds as u64)),
            Some(_) => Told::Never,
            None => Told::Nothing,
        }
    }),
    tells: "the retry_after of redis-cell's reply, in whole seconds",
    explain: |s| {
        let c = s.products.redis_cell.params(s.limit, s.window);
        explanation(
            format!("redis-cell's CL.THROTTLE key {} {} {}: GCRA inside Redis, allowing max_burst + 1 = {} at once, and replying five integers.", c.max_burst, c.count, crate::core::time::format_seconds(c.period.micros()), c.max_burst + 1),
            "One Redis key per client, holding the theoretical arrival time.",
            "Several servers sharing one Redis; remember the burst is one more than max_burst.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "cl-throttle.redis",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_products_reply_is_the_commands_reply_for_the_same_calls() {
        let mut via_lab = RedisCell::new(4, 1, Span::from_secs(1)).unwrap();
        let mut via_command = via_lab.clone();
        for (ms, quantity) in [
            (0u64, 1u64),
            (0, 3),
            (0, 2),
            (300, 1),
            (2_500, 6),
            (2_500, 0),
            (9_000, 5),
        ] {
            let now = Time::from_millis(ms);
            let (_, reply) = via_lab.decide_with_reply(now, quantity);
            let expected = via_command.throttle(now, quantity);
            let fields = [
                expected.limited,
                expected.limit,
                expected.remaining,
                expected.retry_after,
                expected.reset_after,
            ];
            let got: Vec<i64> = reply
                .fields
                .iter()
                .take(5)
                .map(|(_, v)| v.parse().unwrap())
                .collect();
            assert_eq!(got, fields, "at {ms} ms for {quantity}");
        }
    }

    #[test]
    fn nanoseconds_round_up_to_the_next_microsecond() {
        assert_eq!(span_up(1), Span(1));
        assert_eq!(span_up(1_000), Span(1));
        assert_eq!(span_up(1_001), Span(2));
        assert_eq!(span_up(-5), Span::ZERO);
    }
}
