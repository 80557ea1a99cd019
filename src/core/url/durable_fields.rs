//! The Durable Object's fields of a link (`do=1`, `timeout=120`, `outage=20-30`, ...): one row
//! per knob of `DurableParams`, read and written as the lab's own fields are (`super::fields`).
//! The lab's seed, which the object shares with the Poisson pattern, is a lab field.

use std::ops::RangeInclusive;

use super::codec::{percent_decode, percent_encode};
use super::values::{
    choice, flag, millis, millis_text, name_of, period, period_text, region, seconds_text,
    NOT_A_REGION,
};
use crate::core::control::scale::{span_at, span_position, LogScale};
use crate::core::control::{scaled, NumberControl, SliderControl};
use crate::core::durable::{DoCode, DurableParams, FailMode, Placement, ShardBy, Tier};
use crate::core::field::Field;
use crate::core::limiter::Algorithm;
use crate::core::time::{format_seconds, parse_seconds, Span, MICROS_PER_SEC};

const FAIL_MODES: [(&str, FailMode); 2] = [("open", FailMode::Open), ("closed", FailMode::Closed)];
const SHARD_BY: [(&str, ShardBy); 2] = [("key", ShardBy::Key), ("request", ShardBy::Request)];
const DO_CODES: [(&str, DoCode); 2] = [
    ("safe", DoCode::Safe),
    ("await-between", DoCode::AwaitBetween),
];
const PLACEMENTS: [(&str, Placement); 2] =
    [("first", Placement::First), ("smart", Placement::Smart)];
/// The binding's only periods, in seconds; the first is its default.
const BINDING_PERIODS: [(&str, u64); 2] = [("10", 10), ("60", 60)];
/// The most origin regions a link names, and routes it lists.
const MAX_ORIGINS: usize = 12;
const MAX_CLOSED_ROUTES: usize = 64;
const MAX_ROUTE_CHARS: usize = 200;

// What a link accepts for the object's timings, in microseconds, and its shard counts; the lab's
// sliders span the same ranges (their scales, below).
pub const TIMEOUT_MICROS: RangeInclusive<u64> = 1_000..=60_000_000;
pub const SERVICE_MICROS: RangeInclusive<u64> = 1..=10_000_000;
pub const JITTER_MICROS: RangeInclusive<u64> = 0..=1_000_000;
pub const EVICT_MICROS: RangeInclusive<u64> = 1_000..=86_400_000_000;
pub const MAX_SHARDS: u32 = 64;

/// The timeout slider, in seconds: 1 ms to a minute.
pub const TIMEOUT_SCALE: LogScale =
    LogScale::seconds_between(*TIMEOUT_MICROS.start(), *TIMEOUT_MICROS.end());
/// The time per decision, in seconds: 1 µs to 10 s.
pub const SERVICE_SCALE: LogScale =
    LogScale::seconds_between(*SERVICE_MICROS.start(), *SERVICE_MICROS.end());
/// The jitter per hop, in seconds: none, then 1 µs (the finest a link writes) to a second.
pub const JITTER_SCALE: LogScale = LogScale::seconds_or_zero(*JITTER_MICROS.end());
/// The idle time before an object is evicted, in seconds: 1 ms to a day.
pub const EVICT_SCALE: LogScale =
    LogScale::seconds_between(*EVICT_MICROS.start(), *EVICT_MICROS.end());

/// The finest step of the object's timings in a link: three decimals of a millisecond.
const MICROSECOND: Span = Span(1);

fn defaults() -> DurableParams {
    DurableParams::default()
}

/// Every Durable Object field, in the order a link writes them.
pub const FIELDS: &[Field<DurableParams>] = &[
    Field {
        name: "do",
        read: |d, raw| {
            d.enabled = flag(raw, "use do=1 to show the Durable Object row, or do=0.")?;
            Ok(())
        },
        write: |d| d.enabled.then(|| "1".to_string()),
    },
    Field {
        name: "do-algo",
        read: |d, raw| {
            match Algorithm::from_slug(raw.trim()) {
            Some(a) if !a.is_product() => {
                d.algorithm = a;
                Ok(())
            }
            _ => Err("the object runs one of the six algorithms (fixed, sliding-log, sliding-counter, token-bucket, gcra, leaky-bucket); it runs the sliding log.".into()),
        }
        },
        write: |d| (d.algorithm != defaults().algorithm).then(|| d.algorithm.slug().to_string()),
    },
    Field {
        name: "from",
        read: |d, raw| {
            let mut regions = Vec::new();
            let mut unknown = Vec::new();
            for code in raw.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                match region(code) {
                    Ok(r) => regions.push(r),
                    Err(_) => unknown.push(format!("\"{code}\"")),
                }
            }
            if !regions.is_empty() {
                regions.truncate(MAX_ORIGINS);
                d.from = regions;
            }
            match unknown.is_empty() {
                true => Ok(()),
                false => Err(format!("{} {NOT_A_REGION}", unknown.join(", "))),
            }
        },
        write: |d| {
            (d.from != defaults().from).then(|| {
                let codes: Vec<&str> = d.from.iter().map(|r| r.code()).collect();
                codes.join(",")
            })
        },
    },
    Field {
        name: "cache",
        read: |d, raw| {
            d.cache = flag(raw, "use cache=1 for the first-tier cache, or cache=0.")?;
            Ok(())
        },
        write: |d| d.cache.then(|| "1".to_string()),
    },
    Field {
        name: "tier",
        read: |d, raw| {
            let binding = choice(
                raw,
                &[("do", false), ("binding", true)],
                "use do (a Durable Object) or binding (the Rate Limiting binding).",
            )?;
            d.tier = match binding {
                true => Tier::Binding {
                    period_secs: BINDING_PERIODS[0].1,
                },
                false => Tier::DurableObject,
            };
            Ok(())
        },
        write: |d| matches!(d.tier, Tier::Binding { .. }).then(|| "binding".to_string()),
    },
    Field {
        // Read after `tier`: it sets the binding's period, and means nothing for an object.
        name: "period",
        read: |d, raw| {
            let secs = choice(
                raw,
                &BINDING_PERIODS,
                "the binding's period can only be 10 or 60 seconds; using 10.",
            )?;
            if let Tier::Binding { period_secs } = &mut d.tier {
                *period_secs = secs;
            }
            Ok(())
        },
        write: |d| match d.tier {
            Tier::Binding { period_secs } if period_secs != BINDING_PERIODS[0].1 => {
                Some(period_secs.to_string())
            }
            _ => None,
        },
    },
    Field {
        name: "home",
        read: |d, raw| {
            d.home = Some(region(raw)?);
            Ok(())
        },
        write: |d| d.home.map(|r| r.code().to_string()),
    },
    Field {
        name: "timeout",
        read: |d, raw| {
            d.timeout = millis(
                raw,
                TIMEOUT_MICROS,
                "the timeout is in milliseconds, 1 to 60000; using 120 ms.",
            )?;
            Ok(())
        },
        write: |d| (d.timeout != defaults().timeout).then(|| millis_text(d.timeout)),
    },
    Field {
        name: "fail",
        read: |d, raw| {
            d.fail = choice(
                raw,
                &FAIL_MODES,
                "use fail=open or fail=closed; failing open.",
            )?;
            Ok(())
        },
        write: |d| (d.fail != defaults().fail).then(|| name_of(&FAIL_MODES, d.fail).to_string()),
    },
    Field {
        // Undecoded (`codec::RAW_FIELDS`): split on the link's commas, then each route decoded,
        // since a route (a CSV's quoted route column) may hold a comma.
        name: "closed-routes",
        read: |d, raw| {
            d.closed_routes = raw
                .split(',')
                .map(|r| percent_decode(r).trim().to_string())
                .filter(|r| !r.is_empty())
                .take(MAX_CLOSED_ROUTES)
                .map(|r| r.chars().take(MAX_ROUTE_CHARS).collect())
                .collect();
            Ok(())
        },
        write: |d| {
            (!d.closed_routes.is_empty()).then(|| {
                let names: Vec<String> =
                    d.closed_routes.iter().map(|r| percent_encode(r)).collect();
                names.join(",")
            })
        },
    },
    Field {
        name: "service",
        read: |d, raw| {
            d.service = millis(
                raw,
                SERVICE_MICROS,
                "the service time is in milliseconds, 0.001 to 10000; using 0.15 ms.",
            )?;
            Ok(())
        },
        write: |d| (d.service != defaults().service).then(|| millis_text(d.service)),
    },
    Field {
        name: "persist",
        read: |d, raw| {
            d.persist = flag(raw, "use persist=1 or persist=0; persisting.")?;
            Ok(())
        },
        write: |d| (d.persist != defaults().persist).then(|| u8::from(d.persist).to_string()),
    },
    Field {
        name: "evict",
        read: |d, raw| match parse_seconds(raw) {
            Ok(us) if EVICT_MICROS.contains(&us) => {
                d.evict = Span(us);
                Ok(())
            }
            _ => Err("idle seconds before eviction, 0.001 to 86400; using 10 s.".into()),
        },
        write: |d| (d.evict != defaults().evict).then(|| seconds_text(d.evict)),
    },
    Field {
        name: "gc",
        read: |d, raw| {
            d.gc = flag(raw, "use gc=1 for the runtime's pauses, or gc=0; pausing.")?;
            Ok(())
        },
        write: |d| (d.gc != defaults().gc).then(|| u8::from(d.gc).to_string()),
    },
    Field {
        name: "do-code",
        read: |d, raw| {
            d.code = choice(
                raw,
                &DO_CODES,
                "use do-code=safe or do-code=await-between; running the seed's safe code.",
            )?;
            Ok(())
        },
        write: |d| (d.code != defaults().code).then(|| name_of(&DO_CODES, d.code).to_string()),
    },
    Field {
        name: "await-ms",
        read: |d, raw| {
            d.await_call = millis(
                raw,
                0..=60_000_000,
                "the other service's answer takes 0 to 60000 ms; using 20 ms.",
            )?;
            Ok(())
        },
        write: |d| (d.await_call != defaults().await_call).then(|| millis_text(d.await_call)),
    },
    Field {
        name: "jitter",
        read: |d, raw| {
            d.jitter = millis(
                raw,
                JITTER_MICROS,
                "milliseconds of extra delay per hop, 0 to 1000; using 5 ms.",
            )?;
            Ok(())
        },
        write: |d| (d.jitter != defaults().jitter).then(|| millis_text(d.jitter)),
    },
    Field {
        name: "slow",
        read: |d, raw| {
            d.slow = Some(period(raw, "slow=20-30")?);
            Ok(())
        },
        write: |d| d.slow.map(period_text),
    },
    Field {
        name: "evict-at",
        read: |d, raw| {
            let at = parse_seconds(raw).map_err(|e| format!("{e}; no eviction scheduled."))?;
            d.evict_at = Some(Span(at));
            Ok(())
        },
        write: |d| d.evict_at.map(seconds_text),
    },
    Field {
        name: "outage",
        read: |d, raw| {
            d.outage = Some(period(raw, "outage=20-30")?);
            Ok(())
        },
        write: |d| d.outage.map(period_text),
    },
    Field {
        name: "shards",
        read: |d, raw| {
            match raw.trim() {
            "seed" => {
                d.shards = None;
                Ok(())
            }
            n => match n.parse::<u32>() {
                Ok(n) if (1..=MAX_SHARDS).contains(&n) => {
                    d.shards = Some(n);
                    Ok(())
                }
                _ => Err("a whole number from 1 to 64, or seed (the seed's rule by key prefix); using one object per key.".into()),
            },
        }
        },
        write: |d| {
            (d.shards != defaults().shards).then(|| {
                d.shards
                    .map_or_else(|| "seed".to_string(), |n| n.to_string())
            })
        },
    },
    Field {
        name: "shard-by",
        read: |d, raw| {
            d.shard_by = choice(raw, &SHARD_BY, "use key or request; sharding by key.")?;
            Ok(())
        },
        write: |d| {
            (d.shard_by != defaults().shard_by).then(|| name_of(&SHARD_BY, d.shard_by).to_string())
        },
    },
    Field {
        name: "placement",
        read: |d, raw| {
            d.placement = choice(
                raw,
                &PLACEMENTS,
                "use first or smart; placing at the first caller.",
            )?;
            Ok(())
        },
        write: |d| {
            (d.placement != defaults().placement)
                .then(|| name_of(&PLACEMENTS, d.placement).to_string())
        },
    },
];

/// The Durable Object lab's timings and shards.
pub const CONTROLS: &[NumberControl] = &[
    NumberControl {
        field: "timeout",
        label: "Timeout, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.timeout),
        slider: scaled(
            "Timeout",
            |s| span_position(&TIMEOUT_SCALE, s.durable.timeout),
            |s| format!("{} ms", millis_text(s.durable.timeout)),
            |s, p| s.durable.timeout = span_at(&TIMEOUT_SCALE, p, s.durable.timeout, MICROSECOND),
        ),
    },
    NumberControl {
        field: "service",
        label: "Service time per decision, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.service),
        slider: scaled(
            "Service time per decision",
            |s| span_position(&SERVICE_SCALE, s.durable.service),
            |s| {
                let at_best = MICROS_PER_SEC / s.durable.service.micros().max(1);
                format!(
                    "{} ms ({at_best} a second at best)",
                    millis_text(s.durable.service)
                )
            },
            |s, p| s.durable.service = span_at(&SERVICE_SCALE, p, s.durable.service, MICROSECOND),
        ),
    },
    NumberControl {
        field: "jitter",
        label: "Network jitter per hop, milliseconds",
        unit: "ms",
        text: |s| millis_text(s.durable.jitter),
        slider: scaled(
            "Network jitter per hop",
            |s| span_position(&JITTER_SCALE, s.durable.jitter),
            |s| match s.durable.jitter {
                Span(0) => "none".to_string(),
                jitter => format!("up to {} ms", millis_text(jitter)),
            },
            |s, p| s.durable.jitter = span_at(&JITTER_SCALE, p, s.durable.jitter, MICROSECOND),
        ),
    },
    NumberControl {
        field: "evict",
        label: "Evicted after idle, seconds",
        unit: "s",
        text: |s| format_seconds(s.durable.evict.micros()),
        slider: scaled(
            "Evicted after idle",
            |s| span_position(&EVICT_SCALE, s.durable.evict),
            |s| format!("{} s", format_seconds(s.durable.evict.micros())),
            |s, p| {
                let millisecond = Span::from_millis(1);
                s.durable.evict = span_at(&EVICT_SCALE, p, s.durable.evict, millisecond)
            },
        ),
    },
    NumberControl {
        field: "shards",
        label: "Shards per key, or seed",
        unit: "shards",
        text: |s| {
            s.durable
                .shards
                .map_or_else(|| "seed".to_string(), |n| n.to_string())
        },
        // Few enough for a linear scale: each shard count is a position, and 0 is the seed's rule.
        slider: Some(SliderControl {
            label: "Shards per key",
            max: MAX_SHARDS as i64,
            position: |s| s.durable.shards.map(i64::from).unwrap_or(0),
            shown: |s| match s.durable.shards {
                Some(n) => n.to_string(),
                None => "the seed's rule by prefix (ip: 1, global: 16, others 4)".into(),
            },
            set: |s, p| s.durable.shards = shards_at(p),
        }),
    },
];

/// The shards a linear slider's position asks for: none (the seed's rule) at 0.
fn shards_at(position: i64) -> Option<u32> {
    let position = position.clamp(0, i64::from(MAX_SHARDS));
    u32::try_from(position).ok().filter(|&n| n > 0)
}

/// The Durable Object's scheduled faults, typed (a box is empty when none is scheduled): for a
/// keyboard, and for exact times (a drag across its chart sets them too).
pub const FAULT_CONTROLS: &[NumberControl] = &[
    NumberControl {
        field: "outage",
        label: "Outage, from and to in seconds",
        unit: "s, outage (20-30)",
        text: |s| s.durable.outage.map(period_text).unwrap_or_default(),
        slider: None,
    },
    NumberControl {
        field: "slow",
        label: "Slow period, from and to in seconds",
        unit: "s, slow (20-30)",
        text: |s| s.durable.slow.map(period_text).unwrap_or_default(),
        slider: None,
    },
    NumberControl {
        field: "evict-at",
        label: "Eviction, at seconds",
        unit: "s, eviction",
        text: |s| s.durable.evict_at.map(seconds_text).unwrap_or_default(),
        slider: None,
    },
];
