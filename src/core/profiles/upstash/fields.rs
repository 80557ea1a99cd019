//! The URL fields of Upstash's `@upstash/ratelimit` (`upstash-tokens`, `upstash-window`,
//! `upstash-refill`, `upstash-interval`, `upstash-max`, `upstash-timeout`, `upstash-latency`,
//! `upstash-cache`): the parameters a person set, each optional so that unset it follows the lab's
//! limit and window through the profile's `defaults_for`, the rows that read and write them in a
//! link (their names, what each accepts and the refusal saying so), and the product's parameters
//! they make. The names and values are the product's own, as the header of the product's module
//! cites them; the shared readers are `profiles::settings`'s.

use crate::core::field::Field;
use crate::core::profiles::settings::{
    count, on_off, on_off_text, seconds, seconds_text, set, whole_text,
};
use crate::core::profiles::{RowSettings, Tunable};
use crate::core::time::{format_seconds, Span};

use super::{UpstashAlgorithm, UpstashKind, UpstashParams};

/// The `upstash-` fields a person set; `None` follows the lab's limit and window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `tokens` of `fixedWindow` and `slidingWindow`.
    pub tokens: Option<u64>,
    pub window: Option<Span>,
    /// `tokenBucket(refillRate, interval, maxTokens)`.
    pub refill: Option<u64>,
    pub interval: Option<Span>,
    pub max: Option<u64>,
    pub timeout: Option<Span>,
    pub latency: Option<Span>,
    pub cache: Option<bool>,
}

/// The `upstash-` fields, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Tunable] = &[
    Tunable {
        label: "Tokens per window (fixed, sliding)",
        field: Field {
            name: "upstash-tokens",
            read: |p, v| set(&mut p.upstash.tokens, count(v, 1)),
            write: |p| whole_text(p.upstash.tokens),
        },
        in_force: |s| window_params(s).0.to_string(),
    },
    Tunable {
        label: "Window, s (fixed, sliding)",
        field: Field {
            name: "upstash-window",
            read: |p, v| set(&mut p.upstash.window, seconds(v, false)),
            write: |p| seconds_text(p.upstash.window),
        },
        in_force: |s| format_seconds(window_params(s).1.micros()),
    },
    Tunable {
        label: "Refill rate (tokenBucket)",
        field: Field {
            name: "upstash-refill",
            read: |p, v| set(&mut p.upstash.refill, count(v, 1)),
            write: |p| whole_text(p.upstash.refill),
        },
        in_force: |s| bucket_params(s).0.to_string(),
    },
    Tunable {
        label: "Interval, s (tokenBucket)",
        field: Field {
            name: "upstash-interval",
            read: |p, v| set(&mut p.upstash.interval, seconds(v, false)),
            write: |p| seconds_text(p.upstash.interval),
        },
        in_force: |s| format_seconds(bucket_params(s).1.micros()),
    },
    Tunable {
        label: "Max tokens (tokenBucket)",
        field: Field {
            name: "upstash-max",
            read: |p, v| set(&mut p.upstash.max, count(v, 1)),
            write: |p| whole_text(p.upstash.max),
        },
        in_force: |s| bucket_params(s).2.to_string(),
    },
    Tunable {
        label: "Timeout, s (timeout)",
        field: Field {
            name: "upstash-timeout",
            read: |p, v| set(&mut p.upstash.timeout, seconds(v, true)),
            write: |p| seconds_text(p.upstash.timeout),
        },
        in_force: |s| format_seconds(common(s).timeout.micros()),
    },
    Tunable {
        label: "Redis round trip, s",
        field: Field {
            name: "upstash-latency",
            read: |p, v| set(&mut p.upstash.latency, seconds(v, true)),
            write: |p| seconds_text(p.upstash.latency),
        },
        in_force: |s| format_seconds(common(s).redis_latency.micros()),
    },
    Tunable {
        label: "Ephemeral cache",
        field: Field {
            name: "upstash-cache",
            read: |p, v| set(&mut p.upstash.cache, on_off(v)),
            write: |p| on_off_text(p.upstash.cache),
        },
        in_force: |s| {
            if common(s).ephemeral_cache {
                "on"
            } else {
                "off"
            }
            .to_string()
        },
    },
];

impl Fields {
    /// The parameters of the algorithm `kind`: the fields set, the rest following the lab's
    /// limit and window.
    pub fn params(&self, kind: UpstashKind, limit: u64, window: Span) -> UpstashParams {
        let mut p = UpstashParams::defaults_for(kind, limit, window);
        p.algorithm = match p.algorithm {
            UpstashAlgorithm::FixedWindow { tokens, window } => UpstashAlgorithm::FixedWindow {
                tokens: self.tokens.unwrap_or(tokens),
                window: self.window.unwrap_or(window),
            },
            UpstashAlgorithm::SlidingWindow { tokens, window } => UpstashAlgorithm::SlidingWindow {
                tokens: self.tokens.unwrap_or(tokens),
                window: self.window.unwrap_or(window),
            },
            UpstashAlgorithm::TokenBucket {
                refill_rate,
                interval,
                max_tokens,
            } => UpstashAlgorithm::TokenBucket {
                refill_rate: self.refill.unwrap_or(refill_rate),
                interval: self.interval.unwrap_or(interval),
                max_tokens: self.max.unwrap_or(max_tokens),
            },
        };
        p.timeout = self.timeout.unwrap_or(p.timeout);
        p.redis_latency = self.latency.unwrap_or(p.redis_latency);
        p.ephemeral_cache = self.cache.unwrap_or(p.ephemeral_cache);
        p
    }
}

/// The fixed and sliding windows' `(tokens, window)` in force (the two take the same).
fn window_params(s: &RowSettings) -> (u64, Span) {
    let p = s
        .products
        .upstash
        .params(UpstashKind::FixedWindow, s.limit, s.window);
    match p.algorithm {
        UpstashAlgorithm::FixedWindow { tokens, window }
        | UpstashAlgorithm::SlidingWindow { tokens, window } => (tokens, window),
        UpstashAlgorithm::TokenBucket { .. } => (0, Span::ZERO),
    }
}

/// The token bucket's `(refillRate, interval, maxTokens)` in force.
fn bucket_params(s: &RowSettings) -> (u64, Span, u64) {
    let p = s
        .products
        .upstash
        .params(UpstashKind::TokenBucket, s.limit, s.window);
    match p.algorithm {
        UpstashAlgorithm::TokenBucket {
            refill_rate,
            interval,
            max_tokens,
        } => (refill_rate, interval, max_tokens),
        UpstashAlgorithm::FixedWindow { .. } | UpstashAlgorithm::SlidingWindow { .. } => {
            (0, Span::ZERO, 0)
        }
    }
}

/// What the three algorithms share: the timeout, Redis's round trip and the cache.
fn common(s: &RowSettings) -> UpstashParams {
    s.products
        .upstash
        .params(UpstashKind::FixedWindow, s.limit, s.window)
}
