//! The products' own parameters as the lab holds them: each is optional, and unset it follows
//! the lab's limit and window through the profile's `defaults_for`, so moving the limit slider
//! moves every product with it. The fields (`nginx-rate=10r/s`, `cell-burst=4`, ...) are one
//! table, [`FIELDS`], each row reading and writing its own text; the URL layer iterates it, and
//! the README documents it.
//!
//! A Durable Object split into shards divides the lab's limit; a product field set in the URL is
//! taken as written for every shard.

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::field::Field;
use crate::core::time::{format_seconds, parse_seconds, Span, MICROS_PER_MILLI, MICROS_PER_SEC};

use super::cf_binding::CfBindingParams;
use super::dotnet::{
    FixedWindowParams, QueueProcessingOrder, SlidingWindowParams, TokenBucketParams,
};
use super::envoy::{EnvoyParams, EnvoyRefill};
use super::express_rate_limit::{ExpressRateLimitParams, StandardHeaders};
use super::governor::GovernorParams;
use super::guava::GuavaParams;
use super::nginx::{parse_rate, NginxDelay, NginxParams, NginxRate};
use super::python_limits::{Granularity, PyLimitsParams};
use super::redis_cell::RedisCellParams;
use super::upstash::{UpstashAlgorithm, UpstashKind, UpstashParams};
use super::x_time_rate::XTimeRateParams;

/// The products' parameters that differ from their defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductSettings {
    pub nginx_rate: Option<NginxRate>,
    pub nginx_burst: Option<u64>,
    pub nginx_delay: Option<NginxDelay>,
    pub nginx_status: Option<u16>,
    /// governor's replenish interval: one cell per this long.
    pub governor_period: Option<Span>,
    pub governor_burst: Option<u64>,
    pub cell_burst: Option<u64>,
    pub cell_count: Option<u64>,
    pub cell_period: Option<Span>,
    /// `tokens` of `fixedWindow` and `slidingWindow`.
    pub upstash_tokens: Option<u64>,
    pub upstash_window: Option<Span>,
    /// `tokenBucket(refillRate, interval, maxTokens)`.
    pub upstash_refill: Option<u64>,
    pub upstash_interval: Option<Span>,
    pub upstash_max: Option<u64>,
    pub upstash_timeout: Option<Span>,
    pub upstash_latency: Option<Span>,
    pub upstash_cache: Option<bool>,
    pub envoy_max: Option<u64>,
    pub envoy_fill: Option<u64>,
    pub envoy_interval: Option<Span>,
    pub envoy_refill: Option<EnvoyRefill>,
    pub cf_limit: Option<u64>,
    pub cf_period: Option<u64>,
    /// Go's `rate.Limit` in millionths of an event per second, as written in decimal.
    pub xtime_rate: Option<u64>,
    pub xtime_burst: Option<u64>,
    pub express_limit: Option<u64>,
    pub express_window: Option<Span>,
    pub express_headers: Option<StandardHeaders>,
    pub express_legacy: Option<bool>,
    pub express_status: Option<u16>,
    /// `PermitLimit` of the fixed and sliding windows, `TokenLimit` of the token bucket.
    pub limits_amount: Option<u64>,
    pub limits_multiples: Option<u64>,
    pub limits_per: Option<Granularity>,
    pub dotnet_limit: Option<u64>,
    /// `Window` of the fixed and sliding windows, `ReplenishmentPeriod` of the token bucket.
    pub dotnet_window: Option<Span>,
    pub dotnet_segments: Option<u64>,
    pub dotnet_per_period: Option<u64>,
    pub dotnet_queue: Option<u64>,
    /// `QueueProcessingOrder` of all three.
    pub dotnet_order: Option<QueueProcessingOrder>,
    /// Guava's `permitsPerSecond` in millionths of a permit, as written in decimal.
    pub guava_rate: Option<u64>,
    pub guava_burst: Option<Span>,
}

/// What a refused field falls back to: the product's own default for the lab's limit and window.
const USING_DEFAULT: &str = "; using the default.";

fn count(raw: &str, min: u64) -> Result<u64, String> {
    match raw.trim().parse::<u64>() {
        Ok(n) if (min..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(format!(
            "a whole number from {min} to {MAX_COUNT}{USING_DEFAULT}"
        )),
    }
}

fn seconds(raw: &str, allow_zero: bool) -> Result<Span, String> {
    match parse_seconds(raw) {
        Ok(micros) if micros <= MAX_WINDOW.micros() && (allow_zero || micros > 0) => {
            Ok(Span(micros))
        }
        _ => Err(format!(
            "a time in seconds{}, at most a year{USING_DEFAULT}",
            if allow_zero { "" } else { " above 0" }
        )),
    }
}

/// Every product field, in the order a link writes them: one row per field, its reader (with
/// what it accepts when refused) and its writer.
pub const FIELDS: &[Field<ProductSettings>] = &[
    Field {
        name: "nginx-rate",
        read: |p, v| {
            let rate = parse_rate(v.trim()).map_err(|e| {
                format!("{e}; write it as nginx does, e.g. 10r/s or 30r/m{USING_DEFAULT}")
            })?;
            p.nginx_rate = Some(rate);
            Ok(())
        },
        write: |p| p.nginx_rate.map(|r| r.to_string()),
    },
    Field {
        name: "nginx-burst",
        read: |p, v| set(&mut p.nginx_burst, count(v, 0)),
        write: |p| whole_text(p.nginx_burst),
    },
    Field {
        name: "nginx-delay",
        read: |p, v| {
            let delay = match v.trim() {
                "nodelay" => NginxDelay::NoDelay,
                n => NginxDelay::Delay(count(n, 0).map_err(|e| format!("nodelay or {e}"))?),
            };
            set(&mut p.nginx_delay, Ok(delay))
        },
        write: |p| {
            p.nginx_delay.map(|d| match d {
                NginxDelay::NoDelay => "nodelay".to_string(),
                NginxDelay::Delay(n) => n.to_string(),
            })
        },
    },
    Field {
        name: "nginx-status",
        read: |p, v| {
            let status = match v.trim().parse::<u16>() {
                Ok(s) if (400..=599).contains(&s) => s,
                _ => {
                    return Err(format!(
                        "a status from 400 to 599, as limit_req_status accepts{USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.nginx_status, Ok(status))
        },
        write: |p| p.nginx_status.map(|s| s.to_string()),
    },
    Field {
        name: "governor-period",
        read: |p, v| set(&mut p.governor_period, seconds(v, false)),
        write: |p| seconds_text(p.governor_period),
    },
    Field {
        name: "governor-burst",
        read: |p, v| set(&mut p.governor_burst, count(v, 1)),
        write: |p| whole_text(p.governor_burst),
    },
    Field {
        name: "cell-burst",
        read: |p, v| set(&mut p.cell_burst, count(v, 0)),
        write: |p| whole_text(p.cell_burst),
    },
    Field {
        name: "cell-count",
        read: |p, v| set(&mut p.cell_count, count(v, 1)),
        write: |p| whole_text(p.cell_count),
    },
    Field {
        name: "cell-period",
        read: |p, v| set(&mut p.cell_period, seconds(v, false)),
        write: |p| seconds_text(p.cell_period),
    },
    Field {
        name: "upstash-tokens",
        read: |p, v| set(&mut p.upstash_tokens, count(v, 1)),
        write: |p| whole_text(p.upstash_tokens),
    },
    Field {
        name: "upstash-window",
        read: |p, v| set(&mut p.upstash_window, seconds(v, false)),
        write: |p| seconds_text(p.upstash_window),
    },
    Field {
        name: "upstash-refill",
        read: |p, v| set(&mut p.upstash_refill, count(v, 1)),
        write: |p| whole_text(p.upstash_refill),
    },
    Field {
        name: "upstash-interval",
        read: |p, v| set(&mut p.upstash_interval, seconds(v, false)),
        write: |p| seconds_text(p.upstash_interval),
    },
    Field {
        name: "upstash-max",
        read: |p, v| set(&mut p.upstash_max, count(v, 1)),
        write: |p| whole_text(p.upstash_max),
    },
    Field {
        name: "upstash-timeout",
        read: |p, v| set(&mut p.upstash_timeout, seconds(v, true)),
        write: |p| seconds_text(p.upstash_timeout),
    },
    Field {
        name: "upstash-latency",
        read: |p, v| set(&mut p.upstash_latency, seconds(v, true)),
        write: |p| seconds_text(p.upstash_latency),
    },
    Field {
        name: "upstash-cache",
        read: |p, v| set(&mut p.upstash_cache, on_off(v)),
        write: |p| on_off_text(p.upstash_cache),
    },
    Field {
        name: "envoy-max",
        read: |p, v| set(&mut p.envoy_max, count(v, 1)),
        write: |p| whole_text(p.envoy_max),
    },
    Field {
        name: "envoy-fill",
        read: |p, v| set(&mut p.envoy_fill, count(v, 1)),
        write: |p| whole_text(p.envoy_fill),
    },
    Field {
        name: "envoy-interval",
        read: |p, v| set(&mut p.envoy_interval, seconds(v, false)),
        write: |p| seconds_text(p.envoy_interval),
    },
    Field {
        name: "envoy-refill",
        read: |p, v| {
            let refill = match v.trim() {
                "continuous" => EnvoyRefill::Continuous,
                "timer" => EnvoyRefill::Timer,
                _ => return Err(format!("continuous or timer{USING_DEFAULT}")),
            };
            set(&mut p.envoy_refill, Ok(refill))
        },
        write: |p| {
            p.envoy_refill.map(|r| match r {
                EnvoyRefill::Continuous => "continuous".to_string(),
                EnvoyRefill::Timer => "timer".to_string(),
            })
        },
    },
    Field {
        name: "cf-limit",
        read: |p, v| set(&mut p.cf_limit, count(v, 1)),
        write: |p| whole_text(p.cf_limit),
    },
    Field {
        name: "cf-period",
        read: |p, v| {
            let period = match v.trim() {
                "10" => 10,
                "60" => 60,
                _ => {
                    return Err(format!(
                        "10 or 60: the only periods the binding accepts{USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.cf_period, Ok(period))
        },
        write: |p| whole_text(p.cf_period),
    },
    Field {
        name: "xtime-rate",
        read: |p, v| {
            let rate = match parse_seconds(v) {
                Ok(micro_events) => micro_events,
                _ => {
                    return Err(format!(
                        "events per second, decimals allowed{USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.xtime_rate, Ok(rate))
        },
        write: |p| p.xtime_rate.map(format_seconds),
    },
    Field {
        name: "xtime-burst",
        read: |p, v| set(&mut p.xtime_burst, count(v, 0)),
        write: |p| whole_text(p.xtime_burst),
    },
    Field {
        name: "express-limit",
        read: |p, v| set(&mut p.express_limit, count(v, 0)),
        write: |p| whole_text(p.express_limit),
    },
    Field {
        name: "express-window",
        read: |p, v| set(&mut p.express_window, seconds(v, false)),
        write: |p| seconds_text(p.express_window),
    },
    Field {
        name: "express-headers",
        read: |p, v| {
            let headers = StandardHeaders::parse(v).map_err(|_| {
                format!("draft-6, draft-7, draft-8 or false (standardHeaders){USING_DEFAULT}")
            })?;
            set(&mut p.express_headers, Ok(headers))
        },
        write: |p| p.express_headers.map(|h| h.word().to_string()),
    },
    Field {
        name: "express-legacy",
        read: |p, v| set(&mut p.express_legacy, on_off(v)),
        write: |p| on_off_text(p.express_legacy),
    },
    Field {
        name: "express-status",
        read: |p, v| {
            let status = match v.trim().parse::<u16>() {
                Ok(s) if (100..=999).contains(&s) => s,
                _ => {
                    return Err(format!(
                        "a status from 100 to 999, as Node can write it{USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.express_status, Ok(status))
        },
        write: |p| p.express_status.map(|s| s.to_string()),
    },
    Field {
        name: "limits-amount",
        read: |p, v| set(&mut p.limits_amount, count(v, 0)),
        write: |p| whole_text(p.limits_amount),
    },
    Field {
        name: "limits-multiples",
        read: |p, v| set(&mut p.limits_multiples, count(v, 1)),
        write: |p| whole_text(p.limits_multiples),
    },
    Field {
        name: "limits-per",
        read: |p, v| {
            let per = Granularity::from_name(v).ok_or_else(|| {
                format!("second, minute, hour, day, month or year{USING_DEFAULT}")
            })?;
            set(&mut p.limits_per, Ok(per))
        },
        write: |p| p.limits_per.map(|g| g.name().to_string()),
    },
    Field {
        name: "dotnet-limit",
        read: |p, v| set(&mut p.dotnet_limit, count(v, 1)),
        write: |p| whole_text(p.dotnet_limit),
    },
    Field {
        name: "dotnet-window",
        read: |p, v| set(&mut p.dotnet_window, seconds(v, false)),
        write: |p| seconds_text(p.dotnet_window),
    },
    Field {
        name: "dotnet-segments",
        read: |p, v| set(&mut p.dotnet_segments, count(v, 1)),
        write: |p| whole_text(p.dotnet_segments),
    },
    Field {
        name: "dotnet-per-period",
        read: |p, v| set(&mut p.dotnet_per_period, count(v, 1)),
        write: |p| whole_text(p.dotnet_per_period),
    },
    Field {
        name: "dotnet-queue",
        read: |p, v| set(&mut p.dotnet_queue, count(v, 0)),
        write: |p| whole_text(p.dotnet_queue),
    },
    Field {
        name: "dotnet-order",
        read: |p, v| {
            let order = match v.trim() {
                "oldest" => QueueProcessingOrder::OldestFirst,
                "newest" => QueueProcessingOrder::NewestFirst,
                _ => {
                    return Err(format!(
                        "oldest or newest (QueueProcessingOrder){USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.dotnet_order, Ok(order))
        },
        write: |p| {
            p.dotnet_order.map(|o| match o {
                QueueProcessingOrder::OldestFirst => "oldest".to_string(),
                QueueProcessingOrder::NewestFirst => "newest".to_string(),
            })
        },
    },
    Field {
        name: "guava-rate",
        read: |p, v| {
            let rate = match parse_seconds(v) {
                Ok(micro_permits) if micro_permits > 0 => micro_permits,
                _ => {
                    return Err(format!(
                        "permits per second above 0, decimals allowed{USING_DEFAULT}"
                    ))
                }
            };
            set(&mut p.guava_rate, Ok(rate))
        },
        write: |p| p.guava_rate.map(format_seconds),
    },
    Field {
        name: "guava-burst",
        read: |p, v| set(&mut p.guava_burst, seconds(v, false)),
        write: |p| seconds_text(p.guava_burst),
    },
];

fn on_off(raw: &str) -> Result<bool, String> {
    match raw.trim() {
        "on" | "1" => Ok(true),
        "off" | "0" => Ok(false),
        _ => Err(format!("on or off{USING_DEFAULT}")),
    }
}

fn on_off_text(value: Option<bool>) -> Option<String> {
    value.map(|on| if on { "on" } else { "off" }.to_string())
}

/// The text of the field called `name` as a link writes it; `None` when it is unset (it then
/// follows the lab's limit and window) or no product has such a field.
pub fn field_text(p: &ProductSettings, name: &str) -> Option<String> {
    crate::core::field::find(FIELDS, name).and_then(|f| (f.write)(p))
}

/// `p` with the field called `name` unset again, so it follows the lab's limit and window: every
/// other field written and read back (the round trip the tests below check).
pub fn without_field(p: &ProductSettings, name: &str) -> ProductSettings {
    let mut fresh = ProductSettings::default();
    for f in FIELDS.iter().filter(|f| f.name != name) {
        if let Some(text) = (f.write)(p) {
            let _ = (f.read)(&mut fresh, &text);
        }
    }
    fresh
}

/// Stores a value read, or passes its refusal on.
fn set<V>(slot: &mut Option<V>, value: Result<V, String>) -> Result<(), String> {
    *slot = Some(value?);
    Ok(())
}

fn whole_text(value: Option<u64>) -> Option<String> {
    value.map(|n| n.to_string())
}

fn seconds_text(value: Option<Span>) -> Option<String> {
    value.map(|span| format_seconds(span.micros()))
}

impl ProductSettings {
    pub fn nginx(&self, limit: u64, window: Span) -> NginxParams {
        let mut p = NginxParams::defaults_for(limit, window);
        p.rate = self.nginx_rate.unwrap_or(p.rate);
        p.burst = self.nginx_burst.unwrap_or(p.burst);
        p.delay = self.nginx_delay.unwrap_or(p.delay);
        p.status = self.nginx_status.unwrap_or(p.status);
        p
    }

    pub fn governor(&self, limit: u64, window: Span) -> GovernorParams {
        let mut p = GovernorParams::defaults_for(limit, window);
        if let Some(period) = self.governor_period {
            p.replenish_1_per_ns = period.micros().saturating_mul(1_000);
        }
        p.burst = self.governor_burst.unwrap_or(p.burst);
        p
    }

    pub fn redis_cell(&self, limit: u64, window: Span) -> RedisCellParams {
        let mut p = RedisCellParams::defaults_for(limit, window);
        p.max_burst = self.cell_burst.unwrap_or(p.max_burst);
        p.count = self.cell_count.unwrap_or(p.count);
        p.period = self.cell_period.unwrap_or(p.period);
        p
    }

    pub fn upstash(&self, kind: UpstashKind, limit: u64, window: Span) -> UpstashParams {
        let mut p = UpstashParams::defaults_for(kind, limit, window);
        p.algorithm = match p.algorithm {
            UpstashAlgorithm::FixedWindow { tokens, window } => UpstashAlgorithm::FixedWindow {
                tokens: self.upstash_tokens.unwrap_or(tokens),
                window: self.upstash_window.unwrap_or(window),
            },
            UpstashAlgorithm::SlidingWindow { tokens, window } => UpstashAlgorithm::SlidingWindow {
                tokens: self.upstash_tokens.unwrap_or(tokens),
                window: self.upstash_window.unwrap_or(window),
            },
            UpstashAlgorithm::TokenBucket {
                refill_rate,
                interval,
                max_tokens,
            } => UpstashAlgorithm::TokenBucket {
                refill_rate: self.upstash_refill.unwrap_or(refill_rate),
                interval: self.upstash_interval.unwrap_or(interval),
                max_tokens: self.upstash_max.unwrap_or(max_tokens),
            },
        };
        p.timeout = self.upstash_timeout.unwrap_or(p.timeout);
        p.redis_latency = self.upstash_latency.unwrap_or(p.redis_latency);
        p.ephemeral_cache = self.upstash_cache.unwrap_or(p.ephemeral_cache);
        p
    }

    pub fn envoy(&self, limit: u64, window: Span) -> EnvoyParams {
        let mut p = EnvoyParams::defaults_for(limit, window);
        p.max_tokens = self.envoy_max.unwrap_or(p.max_tokens);
        p.tokens_per_fill = self.envoy_fill.unwrap_or(p.tokens_per_fill);
        p.fill_interval = self.envoy_interval.unwrap_or(p.fill_interval);
        p.refill = self.envoy_refill.unwrap_or(p.refill);
        p
    }

    pub fn cf_binding(&self, limit: u64, window: Span) -> CfBindingParams {
        let mut p = CfBindingParams::defaults_for(limit, window);
        p.limit = self.cf_limit.unwrap_or(p.limit);
        p.period_secs = self.cf_period.unwrap_or(p.period_secs);
        p
    }

    /// The decimal rate read as Go reads a float literal: one correctly rounded division.
    pub fn x_time_rate(&self, limit: u64, window: Span) -> XTimeRateParams {
        let mut p = XTimeRateParams::defaults_for(limit, window);
        if let Some(micro_events) = self.xtime_rate {
            p.limit = micro_events as f64 / MICROS_PER_SEC as f64;
        }
        p.burst = self.xtime_burst.unwrap_or(p.burst);
        p
    }

    /// The item `limits-amount per limits-multiples limits-per`; unset, the lab's limit per
    /// window (one of `limits-per`, when only that is set).
    pub fn python_limits(&self, limit: u64, window: Span) -> PyLimitsParams {
        let d = PyLimitsParams::defaults_for(limit, window);
        let (multiples, per) = match self.limits_per {
            Some(per) => (self.limits_multiples.unwrap_or(1), per),
            None => (self.limits_multiples.unwrap_or(d.multiples), d.granularity),
        };
        PyLimitsParams::new(self.limits_amount.unwrap_or(d.amount), multiples, per)
    }

    pub fn express(&self, limit: u64, window: Span) -> ExpressRateLimitParams {
        let mut p = ExpressRateLimitParams::defaults_for(limit, window);
        p.limit = self.express_limit.unwrap_or(p.limit);
        if let Some(window) = self.express_window {
            p.window_ms = window.micros() / MICROS_PER_MILLI;
        }
        p.standard_headers = self.express_headers.unwrap_or(p.standard_headers);
        p.legacy_headers = self.express_legacy.unwrap_or(p.legacy_headers);
        p.status_code = self.express_status.unwrap_or(p.status_code);
        p
    }

    /// The decimal texts of the URL read as Java's `Double.parseDouble` reads them: one division
    /// of two integers exact in a double, so correctly rounded as the parse is.
    pub fn guava(&self, limit: u64, window: Span) -> GuavaParams {
        let mut p = GuavaParams::defaults_for(limit, window);
        if let Some(micro_permits) = self.guava_rate {
            p.permits_per_second = micro_permits as f64 / MICROS_PER_SEC as f64;
        }
        if let Some(burst) = self.guava_burst {
            p.max_burst_seconds = burst.micros() as f64 / MICROS_PER_SEC as f64;
        }
        p
    }

    pub fn dotnet_fixed(&self, limit: u64, window: Span) -> FixedWindowParams {
        let mut p = FixedWindowParams::defaults_for(limit, window);
        p.permit_limit = self.dotnet_limit.unwrap_or(p.permit_limit);
        p.window = self.dotnet_window.unwrap_or(p.window);
        p.queue_limit = self.dotnet_queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.dotnet_order.unwrap_or(p.queue_processing_order);
        p
    }

    pub fn dotnet_sliding(&self, limit: u64, window: Span) -> SlidingWindowParams {
        let mut p = SlidingWindowParams::defaults_for(limit, window);
        p.permit_limit = self.dotnet_limit.unwrap_or(p.permit_limit);
        p.window = self.dotnet_window.unwrap_or(p.window);
        p.segments_per_window = self.dotnet_segments.unwrap_or(p.segments_per_window);
        p.queue_limit = self.dotnet_queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.dotnet_order.unwrap_or(p.queue_processing_order);
        p
    }

    pub fn dotnet_token(&self, limit: u64, window: Span) -> TokenBucketParams {
        let mut p = TokenBucketParams::defaults_for(limit, window);
        p.token_limit = self.dotnet_limit.unwrap_or(p.token_limit);
        p.replenishment_period = self.dotnet_window.unwrap_or(p.replenishment_period);
        p.tokens_per_period = self.dotnet_per_period.unwrap_or(p.tokens_per_period);
        p.queue_limit = self.dotnet_queue.unwrap_or(p.queue_limit);
        p.queue_processing_order = self.dotnet_order.unwrap_or(p.queue_processing_order);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::field::find;

    /// Reads `value` into the field called `name`, as the URL layer does.
    fn read_field(s: &mut ProductSettings, name: &str, value: &str) -> Result<(), String> {
        let field = find(FIELDS, name).ok_or_else(|| format!("no field {name}"))?;
        (field.read)(s, value)
    }

    /// The fields that differ from the defaults, as the URL layer writes them.
    fn written(s: &ProductSettings) -> Vec<(&'static str, String)> {
        FIELDS
            .iter()
            .filter_map(|f| Some((f.name, (f.write)(s)?)))
            .collect()
    }

    #[test]
    fn a_field_unset_again_follows_the_lab_and_leaves_the_others_as_set() {
        let mut s = ProductSettings::default();
        read_field(&mut s, "nginx-burst", "4").unwrap();
        read_field(&mut s, "guava-rate", "2.5").unwrap();
        assert_eq!(field_text(&s, "nginx-burst").as_deref(), Some("4"));
        let cleared = without_field(&s, "nginx-burst");
        assert_eq!(field_text(&cleared, "nginx-burst"), None);
        assert_eq!(field_text(&cleared, "guava-rate").as_deref(), Some("2.5"));
        assert_eq!(
            cleared.nginx(5, Span::from_secs(10)).burst,
            4,
            "limit - 1 again"
        );
        assert_eq!(field_text(&s, "no-such-field"), None);
    }

    #[test]
    fn every_field_read_is_written_back_the_same() {
        let mut s = ProductSettings::default();
        let input = [
            ("nginx-rate", "30r/m"),
            ("nginx-burst", "4"),
            ("nginx-delay", "nodelay"),
            ("nginx-status", "429"),
            ("governor-period", "0.2"),
            ("governor-burst", "3"),
            ("cell-burst", "15"),
            ("cell-count", "30"),
            ("cell-period", "60"),
            ("upstash-tokens", "10"),
            ("upstash-window", "1.5"),
            ("upstash-refill", "2"),
            ("upstash-interval", "0.5"),
            ("upstash-max", "8"),
            ("upstash-timeout", "0"),
            ("upstash-latency", "0.05"),
            ("upstash-cache", "off"),
            ("envoy-max", "7"),
            ("envoy-fill", "2"),
            ("envoy-interval", "0.25"),
            ("envoy-refill", "timer"),
            ("cf-limit", "100"),
            ("cf-period", "60"),
            ("xtime-rate", "0.25"),
            ("xtime-burst", "3"),
            ("express-limit", "0"),
            ("express-window", "0.05"),
            ("express-headers", "draft-7"),
            ("express-legacy", "on"),
            ("express-status", "503"),
            ("limits-amount", "100"),
            ("limits-multiples", "2"),
            ("limits-per", "minute"),
            ("dotnet-limit", "4"),
            ("dotnet-window", "2.5"),
            ("dotnet-segments", "5"),
            ("dotnet-per-period", "2"),
            ("dotnet-queue", "3"),
            ("dotnet-order", "newest"),
            ("guava-rate", "2.5"),
            ("guava-burst", "4"),
        ];
        for (name, value) in input {
            read_field(&mut s, name, value).unwrap_or_else(|e| panic!("{name}={value}: {e}"));
        }
        let written: Vec<(&str, String)> = written(&s);
        let expected: Vec<(&str, String)> =
            input.iter().map(|(n, v)| (*n, v.to_string())).collect();
        assert_eq!(written, expected);
    }

    #[test]
    fn unset_fields_follow_the_lab_and_set_ones_override_it() {
        let mut s = ProductSettings::default();
        assert_eq!(
            s.redis_cell(5, Span::from_secs(10)),
            RedisCellParams::defaults_for(5, Span::from_secs(10))
        );
        read_field(&mut s, "cell-burst", "9").unwrap();
        let p = s.redis_cell(5, Span::from_secs(10));
        assert_eq!(
            (p.max_burst, p.count, p.period),
            (9, 5, Span::from_secs(10))
        );
        read_field(&mut s, "governor-period", "0.25").unwrap();
        assert_eq!(
            s.governor(5, Span::from_secs(10)).replenish_1_per_ns,
            250_000_000
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_the_field_accepts() {
        let mut s = ProductSettings::default();
        assert!(read_field(&mut s, "cf-period", "30")
            .unwrap_err()
            .contains("10 or 60"));
        assert!(read_field(&mut s, "nginx-rate", "10 per second")
            .unwrap_err()
            .contains("10r/s"));
        assert!(read_field(&mut s, "nginx-status", "200")
            .unwrap_err()
            .contains("400 to 599"));
        assert!(read_field(&mut s, "envoy-refill", "sometimes")
            .unwrap_err()
            .contains("continuous or timer"));
        assert!(read_field(&mut s, "upstash-window", "-1").is_err());
        assert!(read_field(&mut s, "governor-burst", "0").is_err());
        assert_eq!(s, ProductSettings::default());
    }
}
