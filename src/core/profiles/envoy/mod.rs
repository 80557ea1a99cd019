//! Envoy's HTTP local rate limit filter (`envoy.filters.http.local_ratelimit`): one token bucket
//! `{max_tokens, tokens_per_fill, fill_interval}` (api/envoy/type/v3/token_bucket.proto), as the
//! filter and its limiter implement it (envoyproxy/envoy,
//! source/extensions/filters/http/local_ratelimit/local_ratelimit.cc and
//! source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc), with the behaviour
//! its configuration page documents (envoyproxy.io, configuration/http/http_filters/
//! local_rate_limit_filter).
//!
//! - The bucket starts full: `max_tokens` is "also the number of tokens that the bucket initially
//!   contains" (token_bucket.proto), and the limiter's constructor sets it so.
//! - Each HTTP request takes one token; with none left the filter answers with the configured
//!   status (429 unless set) and the body `local_rate_limited`, and the page says it "also sets
//!   the x-envoy-ratelimited header" (the filter's own code only sends the local reply with the
//!   configured `response_headers_to_add`; the profile follows the page). A configured `status`
//!   other than 429 and the draft `x-ratelimit-*` headers (`enable_x_ratelimit_headers`) are not
//!   modelled.
//! - `fill_interval` is read in whole milliseconds (`PROTOBUF_GET_MS_OR_DEFAULT`), and the
//!   limiter refuses one under 50 ms ("local rate limit token bucket fill timer must be >= 50ms").
//!   The proto requires `max_tokens > 0`, `tokens_per_fill > 0` (default 1), `fill_interval > 0`.
//!
//! How tokens come back depends on the Envoy version, so the profile offers both
//! ([`EnvoyRefill`]):
//! - [`EnvoyRefill::Continuous`], current Envoy: since envoyproxy/envoy#35207 (merged July 2024;
//!   Gloo's changelog places it in Envoy 1.31.x) the limiter uses an `AtomicTokenBucket`, which
//!   refills lazily and continuously at `tokens_per_fill / fill_interval` tokens per second, and a
//!   request passes when a whole token is there. The runtime guard that could switch it back,
//!   `envoy.reloadable_features.no_timer_based_rate_limit_token_bucket`, was later removed
//!   (upgrade notes list it under 1.34). Envoy keeps this in floating point; here it is exact.
//!   When the bucket was created makes no difference: it starts full, and a full bucket gains
//!   nothing.
//! - [`EnvoyRefill::Timer`], Envoy before that change (the `TimerTokenBucket`): a timer armed when
//!   the limiter is created fires every `fill_interval` and adds `tokens_per_fill`, capped at
//!   `max_tokens`; between ticks nothing comes back, not even part of a token. The limiter is
//!   created with the filter configuration, not at the first request; the lab takes the trace's
//!   time 0 as that moment, so ticks fall on whole multiples of `fill_interval`. (Envoy re-arms
//!   the timer after each tick, so a real one drifts late by its scheduling delay; not modelled.)
//!   A tick and a request at the same instant: the tick goes first.
//!
//! Choices where Envoy has nothing to say:
//! - The filter takes exactly one token per request. A request of cost `n` takes `n` tokens or
//!   none, like Envoy's general `TokenBucket::consume(n, allow_partial = false)`; cost 0 looks.
//! - Envoy answers nothing about waiting; the lab's `retry_after` for a rejection is the time until
//!   the request would pass: the next tick(s) with the timer, the next whole token(s) otherwise.
//! - A gotcha the page documents but the profile does not model: without `filter_enabled` and
//!   `filter_enforced` (both default to 0% "for safety") the filter limits nothing. The profile is
//!   the filter enabled and enforced for every request, as in the page's example.

use crate::core::algorithms::TokenBucket;
use crate::core::config::{ConfigError, Rate, MAX_COUNT, MAX_WINDOW};
use crate::core::decision::{Decision, Gauge, Limiter, Verdict};
use crate::core::time::{format_seconds, Span, Time, MICROS_PER_MILLI};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
mod snippet;

pub use fields::Fields;

/// The shortest fill interval Envoy accepts.
pub const MIN_FILL_INTERVAL: Span = Span::from_millis(50);

/// How the bucket gets its tokens back (which Envoy version is modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EnvoyRefill {
    /// Current Envoy (since mid-2024): continuously, `tokens_per_fill` spread over each
    /// `fill_interval`.
    #[default]
    Continuous,
    /// Envoy before mid-2024 (1.30 and earlier): `tokens_per_fill` at once on every tick of a
    /// `fill_interval` timer.
    Timer,
}

/// The filter's `token_bucket` and the refill behaviour of the Envoy version modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvoyParams {
    pub max_tokens: u64,
    /// 1 when not given (Envoy's default).
    pub tokens_per_fill: u64,
    pub fill_interval: Span,
    pub refill: EnvoyRefill,
}

impl EnvoyParams {
    /// `max_tokens` and `fill_interval`, with `tokens_per_fill` at its default of 1 and the
    /// refill of current Envoy.
    pub fn new(max_tokens: u64, fill_interval: Span) -> EnvoyParams {
        EnvoyParams {
            max_tokens,
            tokens_per_fill: 1,
            fill_interval,
            refill: EnvoyRefill::default(),
        }
    }

    /// The lab's "`limit` per `window`" as a token bucket: `max_tokens = tokens_per_fill = limit`
    /// and `fill_interval = window`. A fresh client gets `limit` at once, and over time the same
    /// average, `limit` per `window`. With the timer refill this is a fixed window that refills to
    /// full on every tick; with the continuous refill it is the lab's own token bucket defaults
    /// (capacity = limit, refill = limit per window). A window under 50 ms cannot be written for
    /// Envoy, and [`EnvoyLocalRateLimit::new`] refuses it.
    pub fn defaults_for(limit: u64, window: Span) -> EnvoyParams {
        EnvoyParams {
            tokens_per_fill: limit,
            ..EnvoyParams::new(limit, window)
        }
    }

    /// The `token_bucket` block as it would be written in YAML (flow style).
    pub fn token_bucket_yaml(&self) -> String {
        let ms = self.fill_interval.micros() / MICROS_PER_MILLI;
        let interval = format!("{}s", format_seconds(ms * MICROS_PER_MILLI));
        format!(
            "{{max_tokens: {}, tokens_per_fill: {}, fill_interval: {interval}}}",
            self.max_tokens, self.tokens_per_fill
        )
    }
}

/// The timer-refilled bucket of Envoy 1.30 and earlier.
#[derive(Clone, Debug)]
struct TimerBucket {
    max: u64,
    per_fill: u64,
    interval_us: u64,
    tokens: u64,
    /// Timer ticks already added to `tokens`.
    ticks: u64,
    latest: Time,
}

impl TimerBucket {
    /// Tokens at `now` after the ticks up to then, the ticks so far, and `now` as read.
    fn level_at(&self, now: Time) -> (u64, u64, Time) {
        let now = now.max(self.latest);
        let ticks = now.micros() / self.interval_us;
        let gained = (ticks.saturating_sub(self.ticks)).saturating_mul(self.per_fill);
        (self.tokens.saturating_add(gained).min(self.max), ticks, now)
    }

    /// The time from `now` until `n` more ticks have fired after tick number `ticks`.
    fn after_ticks(&self, now: Time, ticks: u64, n: u64) -> Span {
        let at = (u128::from(ticks) + u128::from(n)) * u128::from(self.interval_us);
        Span(u64::try_from(at.saturating_sub(u128::from(now.micros()))).unwrap_or(u64::MAX))
    }

    fn assess(&self, now: Time, cost: u64) -> (Decision, u64, u64, Time) {
        let (tokens, ticks, now) = self.level_at(now);
        let passes = tokens >= cost;
        let after = if passes { tokens - cost } else { tokens };
        let reset_after = if after >= self.max {
            Span::ZERO
        } else {
            self.after_ticks(now, ticks, (self.max - after).div_ceil(self.per_fill))
        };
        let retry_after = if passes || cost > self.max {
            None
        } else {
            Some(self.after_ticks(now, ticks, (cost - tokens).div_ceil(self.per_fill)))
        };
        let decision = Decision {
            verdict: if passes {
                Verdict::Allowed
            } else {
                Verdict::Rejected
            },
            limit: self.max,
            remaining: after,
            reset_after,
            retry_after,
        };
        (decision, after, ticks, now)
    }
}

#[derive(Clone, Debug)]
enum Bucket {
    Continuous(TokenBucket),
    Timer(TimerBucket),
}

/// One Envoy local rate limit filter (its one shared bucket).
#[derive(Clone, Debug)]
pub struct EnvoyLocalRateLimit {
    params: EnvoyParams,
    bucket: Bucket,
}

impl EnvoyLocalRateLimit {
    pub fn new(params: EnvoyParams) -> Result<EnvoyLocalRateLimit, ConfigError> {
        if params.max_tokens == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        if params.max_tokens > MAX_COUNT {
            return Err(ConfigError::TooLarge("max_tokens"));
        }
        if params.tokens_per_fill == 0 {
            return Err(ConfigError::Unsupported(
                "Envoy requires tokens_per_fill to be at least 1",
            ));
        }
        if params.tokens_per_fill > MAX_COUNT {
            return Err(ConfigError::TooLarge("tokens_per_fill"));
        }
        if params.fill_interval > MAX_WINDOW {
            return Err(ConfigError::TooLarge("fill_interval"));
        }
        // Envoy reads the duration in whole milliseconds.
        let interval = Span::from_millis(params.fill_interval.micros() / MICROS_PER_MILLI);
        if interval < MIN_FILL_INTERVAL {
            return Err(ConfigError::Unsupported(
                "Envoy requires the token bucket's fill_interval to be at least 50 ms",
            ));
        }
        let bucket = match params.refill {
            EnvoyRefill::Continuous => Bucket::Continuous(TokenBucket::new(
                params.max_tokens,
                Rate::new(params.tokens_per_fill, interval)?,
            )?),
            EnvoyRefill::Timer => Bucket::Timer(TimerBucket {
                max: params.max_tokens,
                per_fill: params.tokens_per_fill,
                interval_us: interval.micros(),
                tokens: params.max_tokens,
                ticks: 0,
                latest: Time::ZERO,
            }),
        };
        Ok(EnvoyLocalRateLimit { params, bucket })
    }

    pub fn params(&self) -> EnvoyParams {
        self.params
    }

    /// The fill interval Envoy uses: the configured one in whole milliseconds.
    pub fn fill_interval(&self) -> Span {
        Span::from_millis(self.params.fill_interval.micros() / MICROS_PER_MILLI)
    }

    /// Tokens in the bucket at `now`, for display (fractional with the continuous refill).
    pub fn tokens(&self, now: Time) -> f64 {
        match &self.bucket {
            Bucket::Continuous(b) => b.tokens(now),
            Bucket::Timer(b) => b.level_at(now).0 as f64,
        }
    }

    fn reply(decision: &Decision) -> ProductReply {
        let mut fields = Vec::with_capacity(4);
        if decision.allowed() {
            fields.push(("status", "200".to_string()));
        } else {
            fields.push(("status", "429".to_string()));
            fields.push(("x-envoy-ratelimited", "true".to_string()));
            fields.push(("body", "local_rate_limited".to_string()));
        }
        fields.push(("tokens_remaining", decision.remaining.to_string()));
        ProductReply { fields }
    }
}

impl Limiter for EnvoyLocalRateLimit {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        match &mut self.bucket {
            Bucket::Continuous(b) => b.decide(now, cost),
            Bucket::Timer(b) => {
                let (decision, after, ticks, at) = b.assess(now, cost);
                b.tokens = after;
                b.ticks = ticks;
                b.latest = at;
                decision
            }
        }
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        match &self.bucket {
            Bucket::Continuous(b) => b.peek(now, cost),
            Bucket::Timer(b) => b.assess(now, cost).0,
        }
    }

    fn gauge(&self, now: Time) -> Gauge {
        Gauge {
            level: self.tokens(now),
            max: self.params.max_tokens as f64,
            unit: "tokens",
        }
    }

    fn is_at_rest(&self, now: Time) -> bool {
        match &self.bucket {
            Bucket::Continuous(b) => b.is_at_rest(now),
            Bucket::Timer(b) => b.level_at(now).0 == b.max,
        }
    }
}

impl Product for EnvoyLocalRateLimit {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let decision = self.decide(now, cost);
        (decision, Self::reply(&decision))
    }
}

/// The Envoy local rate limit row (`core::limiter::rows`).
pub const ROW: ProductRow<EnvoyLocalRateLimit> = ProductRow {
    slug: "envoy",
    label: "Envoy local rate limit",
    family: Family {
        prefix: "envoy-",
        name: "Envoy",
        fields: fields::FIELDS,
    },
    build: |s| EnvoyLocalRateLimit::new(s.products.envoy.params(s.limit, s.window)),
    response: |_, decision, reply| super::response::envoy(decision, reply),
    hint: Hint::Header,
    tells: "nothing: Envoy's 429 carries no wait",
    explain: |s| {
        let e = s.products.envoy.params(s.limit, s.window);
        explanation(
            format!("Envoy's HTTP local rate limit, token_bucket {}: the bucket starts full, and a refusal is a 429 with x-envoy-ratelimited.", e.token_bucket_yaml()),
            "One bucket per filter chain (or per descriptor), not per client.",
            "A sidecar or edge proxy limiting all traffic to a route; it does not tell clients when to retry.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "envoy.yaml",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: Some("This is Envoy's own behaviour: the local rate limit keeps its token bucket in each Envoy process, so every copy here is one more Envoy behind the load balancer, each granting the full bucket."),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(max: u64, per_fill: u64, interval_ms: u64) -> EnvoyLocalRateLimit {
        let p = EnvoyParams {
            max_tokens: max,
            tokens_per_fill: per_fill,
            fill_interval: Span::from_millis(interval_ms),
            refill: EnvoyRefill::Timer,
        };
        EnvoyLocalRateLimit::new(p).unwrap()
    }

    #[test]
    fn the_timer_bucket_adds_tokens_per_fill_on_each_tick_capped_at_max_tokens() {
        let mut l = timer(5, 2, 1000);
        for _ in 0..5 {
            assert!(l.decide(Time::ZERO, 1).allowed());
        }
        assert_eq!(l.tokens(Time::from_millis(999)), 0.0);
        assert_eq!(l.tokens(Time::from_millis(1000)), 2.0);
        assert_eq!(l.tokens(Time::from_millis(2000)), 4.0);
        assert_eq!(l.tokens(Time::from_millis(3000)), 5.0, "capped");
        assert!(l.is_at_rest(Time::from_secs(3)));
        assert!(!l.is_at_rest(Time::from_secs(2)));
    }

    #[test]
    fn a_timer_rejection_waits_for_as_many_ticks_as_the_cost_needs() {
        let mut l = timer(6, 2, 1000);
        assert!(l.decide(Time::from_millis(200), 6).allowed());
        let d = l.decide(Time::from_millis(400), 5);
        // 5 tokens need 3 ticks of 2: at 1 s, 2 s and 3 s.
        assert_eq!(
            (d.verdict, d.retry_after),
            (Verdict::Rejected, Some(Span::from_millis(2_600)))
        );
        assert_eq!(d.reset_after, Span::from_millis(2_600));
        assert_eq!(
            l.decide(Time::from_millis(400), 7).retry_after,
            None,
            "more than max_tokens never passes"
        );
    }

    #[test]
    fn the_fill_interval_is_read_in_whole_milliseconds() {
        let p = EnvoyParams {
            fill_interval: Span(50_999),
            ..EnvoyParams::new(1, Span::ZERO)
        };
        assert_eq!(
            EnvoyLocalRateLimit::new(p).unwrap().fill_interval(),
            Span::from_millis(50)
        );
        let p = EnvoyParams {
            fill_interval: Span(49_999),
            ..p
        };
        assert!(
            EnvoyLocalRateLimit::new(p).is_err(),
            "49.999 ms is 49 ms to Envoy"
        );
    }

    #[test]
    fn the_token_bucket_is_written_as_the_yaml_block() {
        assert_eq!(
            EnvoyParams::defaults_for(5, Span::from_secs(10)).token_bucket_yaml(),
            "{max_tokens: 5, tokens_per_fill: 5, fill_interval: 10s}"
        );
        assert_eq!(
            EnvoyParams::new(3, Span::from_millis(250)).token_bucket_yaml(),
            "{max_tokens: 3, tokens_per_fill: 1, fill_interval: 0.25s}"
        );
    }

    #[test]
    fn peek_and_cost_zero_take_nothing() {
        for refill in [EnvoyRefill::Timer, EnvoyRefill::Continuous] {
            let mut l = EnvoyLocalRateLimit::new(EnvoyParams {
                refill,
                ..EnvoyParams::new(2, Span::from_secs(1))
            })
            .unwrap();
            assert_eq!(l.peek(Time::ZERO, 1).remaining, 1);
            assert_eq!(l.decide(Time::ZERO, 0).remaining, 2);
            assert_eq!(l.decide(Time::ZERO, 1).remaining, 1);
        }
    }
}
