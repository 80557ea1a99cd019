//! The products' own parameters as the lab holds them: each is optional, and unset it follows
//! the lab's limit and window through the profile's `defaults_for`, so moving the limit slider
//! moves every product with it. The URL fields (`nginx-rate=10r/s`, `cell-burst=4`, ...) are
//! read and written here, one table for both directions, and documented in the README.
//!
//! A Durable Object split into shards divides the lab's limit; a product field set in the URL is
//! taken as written for every shard.

use crate::core::config::MAX_COUNT;
use crate::core::time::{format_seconds, parse_seconds, Span, MICROS_PER_SEC};

use super::cf_binding::CfBindingParams;
use super::envoy::{EnvoyParams, EnvoyRefill};
use super::governor::GovernorParams;
use super::nginx::{parse_rate, NginxDelay, NginxParams, NginxRate};
use super::redis_cell::RedisCellParams;
use super::upstash::{UpstashAlgorithm, UpstashKind, UpstashParams};

/// Every product field of the URL, in the order they are written.
pub const FIELDS: [&str; 23] = [
    "nginx-rate",
    "nginx-burst",
    "nginx-delay",
    "nginx-status",
    "governor-period",
    "governor-burst",
    "cell-burst",
    "cell-count",
    "cell-period",
    "upstash-tokens",
    "upstash-window",
    "upstash-refill",
    "upstash-interval",
    "upstash-max",
    "upstash-timeout",
    "upstash-latency",
    "upstash-cache",
    "envoy-max",
    "envoy-fill",
    "envoy-interval",
    "envoy-refill",
    "cf-limit",
    "cf-period",
];

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
}

fn count(raw: &str, min: u64) -> Result<u64, String> {
    match raw.trim().parse::<u64>() {
        Ok(n) if (min..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(format!("a whole number from {min} to {MAX_COUNT}")),
    }
}

fn seconds(raw: &str, allow_zero: bool) -> Result<Span, String> {
    match parse_seconds(raw) {
        Ok(micros) if micros <= 366 * 24 * 3600 * MICROS_PER_SEC && (allow_zero || micros > 0) => {
            Ok(Span(micros))
        }
        _ => Err(format!(
            "a time in seconds{}, at most a year",
            if allow_zero { "" } else { " above 0" }
        )),
    }
}

fn secs_text(span: Span) -> String {
    format_seconds(span.micros())
}

impl ProductSettings {
    /// Reads one URL field (`name` from [`FIELDS`]); the error says what the field accepts.
    pub fn set(&mut self, name: &str, raw: &str) -> Result<(), String> {
        let v = raw.trim();
        match name {
            "nginx-rate" => {
                self.nginx_rate = Some(
                    parse_rate(v)
                        .map_err(|e| format!("{e}; write it as nginx does, e.g. 10r/s or 30r/m"))?,
                )
            }
            "nginx-burst" => self.nginx_burst = Some(count(v, 0)?),
            "nginx-delay" => {
                self.nginx_delay = Some(if v == "nodelay" {
                    NginxDelay::NoDelay
                } else {
                    NginxDelay::Delay(count(v, 0).map_err(|e| format!("nodelay or {e}"))?)
                })
            }
            "nginx-status" => {
                self.nginx_status = Some(match v.parse::<u16>() {
                    Ok(s) if (400..=599).contains(&s) => s,
                    _ => return Err("a status from 400 to 599, as limit_req_status accepts".into()),
                })
            }
            "governor-period" => self.governor_period = Some(seconds(v, false)?),
            "governor-burst" => self.governor_burst = Some(count(v, 1)?),
            "cell-burst" => self.cell_burst = Some(count(v, 0)?),
            "cell-count" => self.cell_count = Some(count(v, 1)?),
            "cell-period" => self.cell_period = Some(seconds(v, false)?),
            "upstash-tokens" => self.upstash_tokens = Some(count(v, 1)?),
            "upstash-window" => self.upstash_window = Some(seconds(v, false)?),
            "upstash-refill" => self.upstash_refill = Some(count(v, 1)?),
            "upstash-interval" => self.upstash_interval = Some(seconds(v, false)?),
            "upstash-max" => self.upstash_max = Some(count(v, 1)?),
            "upstash-timeout" => self.upstash_timeout = Some(seconds(v, true)?),
            "upstash-latency" => self.upstash_latency = Some(seconds(v, true)?),
            "upstash-cache" => {
                self.upstash_cache = Some(match v {
                    "on" | "1" => true,
                    "off" | "0" => false,
                    _ => return Err("on or off".into()),
                })
            }
            "envoy-max" => self.envoy_max = Some(count(v, 1)?),
            "envoy-fill" => self.envoy_fill = Some(count(v, 1)?),
            "envoy-interval" => self.envoy_interval = Some(seconds(v, false)?),
            "envoy-refill" => {
                self.envoy_refill = Some(match v {
                    "continuous" => EnvoyRefill::Continuous,
                    "timer" => EnvoyRefill::Timer,
                    _ => return Err("continuous or timer".into()),
                })
            }
            "cf-limit" => self.cf_limit = Some(count(v, 1)?),
            "cf-period" => {
                self.cf_period = Some(match v {
                    "10" => 10,
                    "60" => 60,
                    _ => return Err("10 or 60: the only periods the binding accepts".into()),
                })
            }
            _ => return Err("not a product field".into()),
        }
        Ok(())
    }

    /// The fields that are set, as `(name, value)` in [`FIELDS`] order, for the URL.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let n = |v: Option<u64>| v.map(|n| n.to_string());
        let s = |v: Option<Span>| v.map(secs_text);
        let values: [Option<String>; 23] = [
            self.nginx_rate.map(|r| r.to_string()),
            n(self.nginx_burst),
            self.nginx_delay.map(|d| match d {
                NginxDelay::NoDelay => "nodelay".to_string(),
                NginxDelay::Delay(n) => n.to_string(),
            }),
            self.nginx_status.map(|s| s.to_string()),
            s(self.governor_period),
            n(self.governor_burst),
            n(self.cell_burst),
            n(self.cell_count),
            s(self.cell_period),
            n(self.upstash_tokens),
            s(self.upstash_window),
            n(self.upstash_refill),
            s(self.upstash_interval),
            n(self.upstash_max),
            s(self.upstash_timeout),
            s(self.upstash_latency),
            self.upstash_cache
                .map(|on| if on { "on" } else { "off" }.to_string()),
            n(self.envoy_max),
            n(self.envoy_fill),
            s(self.envoy_interval),
            self.envoy_refill.map(|r| match r {
                EnvoyRefill::Continuous => "continuous".to_string(),
                EnvoyRefill::Timer => "timer".to_string(),
            }),
            n(self.cf_limit),
            n(self.cf_period),
        ];
        FIELDS
            .into_iter()
            .zip(values)
            .filter_map(|(name, value)| Some((name, value?)))
            .collect()
    }

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
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ];
        for (name, value) in input {
            s.set(name, value)
                .unwrap_or_else(|e| panic!("{name}={value}: {e}"));
        }
        let written: Vec<(&str, String)> = s.pairs();
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
        s.set("cell-burst", "9").unwrap();
        let p = s.redis_cell(5, Span::from_secs(10));
        assert_eq!(
            (p.max_burst, p.count, p.period),
            (9, 5, Span::from_secs(10))
        );
        s.set("governor-period", "0.25").unwrap();
        assert_eq!(
            s.governor(5, Span::from_secs(10)).replenish_1_per_ns,
            250_000_000
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_the_field_accepts() {
        let mut s = ProductSettings::default();
        assert!(s.set("cf-period", "30").unwrap_err().contains("10 or 60"));
        assert!(s
            .set("nginx-rate", "10 per second")
            .unwrap_err()
            .contains("10r/s"));
        assert!(s
            .set("nginx-status", "200")
            .unwrap_err()
            .contains("400 to 599"));
        assert!(s
            .set("envoy-refill", "sometimes")
            .unwrap_err()
            .contains("continuous or timer"));
        assert!(s.set("upstash-window", "-1").is_err());
        assert!(s.set("governor-burst", "0").is_err());
        assert_eq!(s, ProductSettings::default());
    }
}
