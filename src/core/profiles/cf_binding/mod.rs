//! Cloudflare Workers' Rate Limiting binding: `"ratelimits": [{ "simple": { "limit", "period" } }]`
//! and `const { success } = await env.LIMITER.limit({ key })`, as documented on
//! developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/.
//!
//! - `limit` is "the number of tokens allowed within a given period in a single Cloudflare
//!   location", and `period` is in seconds and "must be either 10 or 60"; anything else is
//!   refused here with a message naming the two values.
//! - `limit()` answers only `{ success }`: no remaining count, no reset time.
//! - Counts are kept per Cloudflare location, so one profile is one key in one location: the same
//!   key reaching two locations is two independent profiles. The docs also call the count
//!   approximate and eventually consistent (requests can slightly exceed the limit); the lab's
//!   counter is exact, which is the ideal the real one approaches.
//!
//! The docs do not say how a period is counted. The profile reuses the lab's [`FixedWindow`] (the
//! same counter the Durable Object emulation uses for the binding tier), and its windows start at
//! whole multiples of the period, as in Miniflare, Cloudflare's local simulator behind
//! `wrangler dev` (cloudflare/workers-sdk, packages/miniflare/src/workers/ratelimit/
//! ratelimit.worker.ts): counters are cleared when `floor(now / period)` changes, a call fails when
//! the key's count has reached `limit`, and only successful calls are counted. The lab takes the
//! trace's time 0 as a period boundary. Whether production counts in fixed windows too is not
//! documented; the binding runs on "the same infrastructure that serves rate limiting rules".
//!
//! Choices where the binding has nothing to say:
//! - A call counts one. A request of cost `n` is read as `n` calls at once, all or nothing.
//! - The lab's [`Decision`] carries what the window implies (remaining in this period, time to
//!   the next period boundary). The product itself reveals only `success`: the reply holds
//!   nothing else, and the row's HTTP response is the seed's Worker's bare 429
//!   (`profiles::response`).

use crate::core::algorithms::FixedWindow;
use crate::core::config::{ConfigError, Quota, MAX_COUNT};
use crate::core::decision::{Decision, Gauge, Limiter};
use crate::core::time::{Span, Time, MICROS_PER_SEC};

use super::{Product, ProductReply};
use crate::core::profiles::{explanation, Family, Hint, ProductRow, SnippetOf};
mod config;
mod fields;
pub(crate) mod snippet;

pub use fields::Fields;

/// The only periods the binding accepts, in seconds.
pub const PERIODS: [u64; 2] = [10, 60];

/// The binding's `simple: { limit, period }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfBindingParams {
    pub limit: u64,
    /// Seconds: 10 or 60.
    pub period_secs: u64,
}

impl CfBindingParams {
    /// The lab's "`limit` per `window`" on the binding: period 10 s for a window of up to 10 s,
    /// else 60 s, and the limit scaled to that period at the same average rate, rounded down (so
    /// the binding is never looser than the lab's quota on average) but at least 1. A 5 per 10 s
    /// quota is exactly `{ limit: 5, period: 10 }`; 1 per second becomes 10 per 10 s, a coarser
    /// promise that allows all 10 in one moment.
    pub fn defaults_for(limit: u64, window: Span) -> CfBindingParams {
        let period_secs = if window <= Span::from_secs(10) {
            10
        } else {
            60
        };
        let scaled = u128::from(limit) * u128::from(period_secs * MICROS_PER_SEC)
            / u128::from(window.micros().max(1));
        CfBindingParams {
            limit: scaled.clamp(1, u128::from(MAX_COUNT)) as u64,
            period_secs,
        }
    }
}

/// One key's counter in one Cloudflare location.
#[derive(Clone, Debug)]
pub struct CfRateLimitBinding {
    params: CfBindingParams,
    window: FixedWindow,
}

impl CfRateLimitBinding {
    pub fn new(params: CfBindingParams) -> Result<CfRateLimitBinding, ConfigError> {
        if !PERIODS.contains(&params.period_secs) {
            return Err(ConfigError::Unsupported(
                "the Rate Limiting binding's period can only be 10 or 60 seconds",
            ));
        }
        let quota = Quota::new(params.limit, Span::from_secs(params.period_secs))?;
        Ok(CfRateLimitBinding {
            params,
            window: FixedWindow::new(quota),
        })
    }

    pub fn params(&self) -> CfBindingParams {
        self.params
    }
}

impl Limiter for CfRateLimitBinding {
    fn decide(&mut self, now: Time, cost: u64) -> Decision {
        self.window.decide(now, cost)
    }

    fn peek(&self, now: Time, cost: u64) -> Decision {
        self.window.peek(now, cost)
    }

    fn gauge(&self, now: Time) -> Gauge {
        self.window.gauge(now)
    }

    fn is_at_rest(&self, now: Time) -> bool {
        self.window.is_at_rest(now)
    }
}

impl Product for CfRateLimitBinding {
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply) {
        let decision = self.decide(now, cost);
        (
            decision,
            ProductReply {
                fields: vec![("success", decision.allowed().to_string())],
            },
        )
    }
}

/// The Cloudflare Workers Rate Limiting binding row (`core::limiter::rows`).
pub const ROW: ProductRow<CfRateLimitBinding> = ProductRow {
    slug: "cf-binding",
    label: "Cloudflare binding",
    family: Family {
        prefix: "cf-",
        name: "Cloudflare binding",
        fields: fields::FIELDS,
    },
    build: |s| CfRateLimitBinding::new(s.products.cf_binding.params(s.limit, s.window)),
    response: |s, decision, _| {
        let period = s.products.cf_binding.params(s.limit, s.window).period_secs;
        super::response::binding_worker(decision, period)
    },
    hint: Hint::Header,
    tells: "the Worker's Retry-After: the binding's whole period, whatever is left of it",
    explain: |s| {
        let b = s.products.cf_binding.params(s.limit, s.window);
        explanation(
            format!("Cloudflare's Workers Rate Limiting binding, {{ limit: {}, period: {} }}: a fixed window per key in each Cloudflare location, answering {{ success }} and nothing else.", b.limit, b.period_secs),
            "Kept by Cloudflare, per location: nothing in your Worker.",
            "Abuse protection at the edge where an approximate, per-location count is enough.",
        )
    },
    snippet: SnippetOf::Written {
        file_name: "wrangler.toml",
        write: snippet::write,
    },
    terms: |_| None,
    config: config::CONFIG,
    copies: Some("This is the binding's own behaviour: Cloudflare counts per location, so every copy here is one more location whose visitors each get the full limit."),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::decision::Verdict;

    #[test]
    fn only_periods_of_10_and_60_seconds_are_accepted() {
        for period_secs in [0, 1, 9, 11, 15, 30, 59, 61, 3600] {
            let err = CfRateLimitBinding::new(CfBindingParams {
                limit: 5,
                period_secs,
            })
            .unwrap_err();
            assert!(err.to_string().contains("10 or 60"), "{period_secs}: {err}");
        }
        for period_secs in PERIODS {
            assert!(CfRateLimitBinding::new(CfBindingParams {
                limit: 5,
                period_secs
            })
            .is_ok());
        }
    }

    #[test]
    fn a_zero_or_huge_limit_is_refused() {
        assert_eq!(
            CfRateLimitBinding::new(CfBindingParams {
                limit: 0,
                period_secs: 10
            })
            .unwrap_err(),
            ConfigError::ZeroLimit
        );
        let huge = CfBindingParams {
            limit: MAX_COUNT + 1,
            period_secs: 60,
        };
        assert_eq!(
            CfRateLimitBinding::new(huge).unwrap_err(),
            ConfigError::TooLarge("limit")
        );
    }

    #[test]
    fn the_reply_is_success_only() {
        let mut b = CfRateLimitBinding::new(CfBindingParams {
            limit: 1,
            period_secs: 10,
        })
        .unwrap();
        let (d, reply) = b.decide_with_reply(Time::ZERO, 1);
        assert_eq!(
            (d.verdict, reply.fields.clone()),
            (Verdict::Allowed, vec![("success", "true".to_string())])
        );
        let (d, reply) = b.decide_with_reply(Time::ZERO, 1);
        assert_eq!(
            (d.verdict, reply.fields),
            (Verdict::Rejected, vec![("success", "false".to_string())])
        );
    }
}
