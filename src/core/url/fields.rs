//! The lab's own fields of a link: the limit and window, the traffic, the rows, the
//! per-algorithm knobs, the seed and the view. One row per field: its name, how its text is read
//! into the state (and what a refusal says), and how it is written back (nothing at the
//! default). The products and the Durable Object have tables of their own; `super::SECTIONS`
//! puts them all in the order a link writes them.

use super::codec::percent_encode;
use super::trace_list::{kept_link, parse_kept_link, parse_trace_list, trace_list_within};
use super::values::{choice, count, flag, name_of};
use super::MAX_QUERY_CHARS;
use crate::core::algorithms::fixed_window::Alignment;
use crate::core::clients::{DEFAULT_RETRIES, MAX_RETRIES};
use crate::core::compose::{parse_segments, segments_text};
use crate::core::config::Rate;
use crate::core::control::scale::{
    count_at, leak_delay_at, leak_delay_position, limit_at, rate_at, rate_position, window_at,
    COUNT_OR_ZERO_SCALE, COUNT_SCALE, LIMIT_SCALE, REFILL_SCALE, WINDOW_SCALE,
};
use crate::core::control::{scaled, NumberControl};
use crate::core::deployment::{Spread, MAX_INSTANCES};
use crate::core::durable::DurableParams;
use crate::core::embed::{Control, MAX_CAPTION_CHARS};
use crate::core::field::Field;
use crate::core::lab_state::{
    KeptTrace, LabState, Lanes, MAX_LAB_LIMIT, MAX_LAB_WINDOW, MIN_LAB_WINDOW, MIN_VIEW,
};
use crate::core::limiter::{Algorithm, LeakDelay, Settings};
use crate::core::second_limit::{SecondKey, SecondLimit, Spend};
use crate::core::theme::Theme;
use crate::core::time::{format_seconds, parse_seconds, Span, Time, MICROS_PER_SEC};
use crate::core::traffic::Pattern;

/// `limit` and `window`, the two numbers every row follows.
pub const LIMIT_AND_WINDOW: &[Field<Settings>] = &[
    Field {
        name: "limit",
        read: |s, raw| {
            const DEFAULT: &str = "; using the default, 5.";
            match raw.trim().parse::<u64>() {
                Ok(n) if (1..=MAX_LAB_LIMIT).contains(&n) => {
                    s.limit = n;
                    Ok(())
                }
                Ok(0) => Err(format!("the limit must be at least 1 request{DEFAULT}")),
                Ok(_) => Err(format!("the largest limit is {MAX_LAB_LIMIT}{DEFAULT}")),
                Err(_) => Err(format!(
                    "the limit must be a whole number of requests, like 5{DEFAULT}"
                )),
            }
        },
        write: |s| (s.limit != Settings::default().limit).then(|| s.limit.to_string()),
    },
    Field {
        name: "window",
        read: |s, raw| {
            const DEFAULT: &str = "; using the default, 10 s.";
            match parse_seconds(raw) {
                Ok(us) if (MIN_LAB_WINDOW.micros()..=MAX_LAB_WINDOW.micros()).contains(&us) => {
                    s.window = Span(us);
                    Ok(())
                }
                Ok(0) => Err(format!("the window must be longer than 0 seconds{DEFAULT}")),
                Ok(_) => Err(format!(
                    "the window must be between {} and {} seconds{DEFAULT}",
                    format_seconds(MIN_LAB_WINDOW.micros()),
                    format_seconds(MAX_LAB_WINDOW.micros())
                )),
                Err(e) => Err(format!("{e}{DEFAULT}")),
            }
        },
        write: |s| {
            (s.window != Settings::default().window).then(|| format_seconds(s.window.micros()))
        },
    },
];

/// `limit` and `window`'s box and slider each, at the top of the side column; an embed shows each
/// when its `controls=` names it, so the page places each by its name.
pub const LIMIT_AND_WINDOW_CONTROLS: &[NumberControl] = &[LIMIT_CONTROL, WINDOW_CONTROL];

/// The limit every row follows.
pub const LIMIT_CONTROL: NumberControl = NumberControl {
    field: "limit",
    label: "Limit, requests",
    unit: "requests",
    text: |s| s.settings.limit.to_string(),
    slider: scaled(
        "Limit",
        |s| LIMIT_SCALE.position(s.settings.limit as f64),
        |s| format!("{} requests", s.settings.limit),
        |s, p| s.settings.limit = limit_at(p, s.settings.limit),
    ),
};

/// The window every row follows.
pub const WINDOW_CONTROL: NumberControl = NumberControl {
    field: "window",
    label: "Window, seconds",
    unit: "s",
    text: |s| format_seconds(s.settings.window.micros()),
    slider: scaled(
        "Window",
        |s| WINDOW_SCALE.position(s.settings.window.micros() as f64 / MICROS_PER_SEC as f64),
        |s| format!("{} s", format_seconds(s.settings.window.micros())),
        |s, p| s.settings.window = window_at(p, s.settings.window),
    ),
};

/// The most characters a caption takes in a link, escaped (`caption=`): with every other field at
/// its longest, the link still fits `super::MAX_QUERY_CHARS`.
pub const MAX_CAPTION_IN_LINK: usize = 900;

/// The traffic and the rows. `trace` comes before `pattern`: a trace, once read, makes
/// `pattern` moot. A link carries one or the other.
pub const TRAFFIC: &[Field<LabState>] = &[
    Field {
        name: "trace",
        read: |s, raw| {
            if let Some(named) = parse_kept_link(raw) {
                let id = named.map_err(|e| format!("{e}; showing the default pattern instead."))?;
                s.kept = KeptTrace::Named(id);
                return Ok(());
            }
            let points = parse_trace_list(raw)
                .map_err(|e| format!("{e}; showing the default pattern instead."))?;
            s.pattern = Pattern::from_points(points);
            s.kept = KeptTrace::No;
            Ok(())
        },
        // The list, unless it alone passes what a link may hold: then the kept trace's name, or
        // nothing for a trace the page has not kept, which no link can open again
        // (`super::reopens`). Whether the whole link fits is `super::to_query`'s to decide.
        write: |s| match &s.kept {
            KeptTrace::Named(id) => Some(kept_link(id.as_deref())),
            KeptTrace::Kept(id) => {
                trace_list_within(&s.pattern, MAX_QUERY_CHARS).or_else(|| Some(kept_link(Some(id))))
            }
            KeptTrace::No => trace_list_within(&s.pattern, MAX_QUERY_CHARS),
        },
    },
    Field {
        name: "pattern",
        read: |s, raw| {
            let raw = raw.trim();
            if s.kept.is_named() || s.pattern.given_len() > 0 {
                return match raw {
                    "trace" => Ok(()),
                    _ if s.kept.is_named() => Ok(()),
                    _ => Err(
                        "trace= was given, so pattern= is ignored: the page shows your trace."
                            .into(),
                    ),
                };
            }
            if raw == "trace" {
                return Err(
                    "needs a trace= list of request times; using the default, edge.".into(),
                );
            }
            let preset = Pattern::presets(s.durable.seed)
                .into_iter()
                .find(|p| p.slug() == raw)
                .ok_or("not a known pattern (edge, steady, double, burst-trickle, retry-storm, poisson, several-keys, clicks, trace); using the default, edge.")?;
            s.pattern = preset;
            Ok(())
        },
        write: |s| {
            let written_as_trace = s.kept.is_named() || s.pattern.given_len() > 0;
            (!written_as_trace && s.pattern != Pattern::Edge).then(|| s.pattern.slug().to_string())
        },
    },
    Field {
        name: "compose",
        read: |s, raw| {
            s.compose = parse_segments(raw).map_err(|e| format!("{e}; no segments added."))?;
            Ok(())
        },
        write: |s| (!s.compose.is_empty()).then(|| percent_encode(&segments_text(&s.compose))),
    },
    Field {
        name: "algos",
        read: |s, raw| {
            let mut chosen: Vec<Algorithm> = Vec::new();
            let mut unknown: Vec<String> = Vec::new();
            for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match Algorithm::from_slug(name) {
                    Some(a) if !chosen.contains(&a) => chosen.push(a),
                    Some(_) => {}
                    None => unknown.push(format!("\"{name}\"")),
                }
            }
            if !chosen.is_empty() {
                s.algorithms = Algorithm::in_row_order(&chosen);
            }
            match (unknown.is_empty(), chosen.is_empty()) {
                (true, false) => Ok(()),
                (true, true) => Err("empty; showing the six algorithms.".into()),
                (false, _) => {
                    let known: Vec<&str> = Algorithm::ALL.iter().map(|a| a.slug()).collect();
                    Err(format!(
                        "{} not known (use {}).",
                        unknown.join(", "),
                        known.join(", ")
                    ))
                }
            }
        },
        write: |s| {
            (s.algorithms != Algorithm::CORE).then(|| {
                let slugs: Vec<&str> = s.algorithms.iter().map(|a| a.slug()).collect();
                slugs.join(",")
            })
        },
    },
];

/// The per-algorithm knobs: token bucket capacity and refill, GCRA burst, leaky bucket burst and
/// delay. Unset, each follows the limit and window.
pub const TUNING: &[Field<Settings>] = &[
    Field {
        name: "capacity",
        read: |s, raw| {
            s.capacity = Some(count(raw, 1)?);
            Ok(())
        },
        write: |s| s.capacity.map(|c| c.to_string()),
    },
    Field {
        name: "refill",
        read: |s, raw| {
            let rate =
                Rate::parse_per_second(raw).map_err(|e| format!("{e}; using limit per window."))?;
            s.refill = Some(rate);
            Ok(())
        },
        write: |s| s.refill.map(|rate| rate.per_second_text()),
    },
    Field {
        name: "burst",
        read: |s, raw| {
            s.gcra_burst = Some(count(raw, 1)?);
            Ok(())
        },
        write: |s| s.gcra_burst.map(|b| b.to_string()),
    },
    Field {
        name: "leak-burst",
        read: |s, raw| {
            s.leak_burst = Some(count(raw, 0)?);
            Ok(())
        },
        write: |s| s.leak_burst.map(|b| b.to_string()),
    },
    Field {
        // Read after `leak-burst`, which bounds it.
        name: "leak-delay",
        read: |s, raw| {
            let n = match raw.trim() {
                "nodelay" => {
                    s.leak_delay = LeakDelay::NoDelay;
                    return Ok(());
                }
                other => count(other, 0)?,
            };
            if n > s.leak_burst() {
                s.leak_delay = LeakDelay::NoDelay;
                return Err(format!(
                    "more than the leaky bucket's burst ({}); serving the whole burst at once.",
                    s.leak_burst()
                ));
            }
            s.leak_delay = LeakDelay::After(n);
            Ok(())
        },
        write: |s| match s.leak_delay {
            LeakDelay::After(0) => None,
            LeakDelay::After(n) => Some(n.to_string()),
            LeakDelay::NoDelay => Some("nodelay".to_string()),
        },
    },
];

/// The token bucket's knobs in the tuning panel (its refill rate is GCRA's rate too).
pub const TOKEN_BUCKET_CONTROLS: &[NumberControl] = &[
    NumberControl {
        field: "capacity",
        label: "Bucket capacity, tokens",
        unit: "tokens",
        text: |s| s.settings.bucket_capacity().to_string(),
        slider: scaled(
            "Bucket capacity",
            |s| COUNT_SCALE.position(s.settings.bucket_capacity() as f64),
            |s| format!("{} tokens", s.settings.bucket_capacity()),
            |s, p| {
                s.settings.capacity = Some(count_at(&COUNT_SCALE, p, s.settings.bucket_capacity()))
            },
        ),
    },
    NumberControl {
        field: "refill",
        label: "Refill rate, tokens a second",
        unit: "tokens/s",
        text: |s| {
            let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
            rate.map(|r| r.per_second_text()).unwrap_or_default()
        },
        slider: scaled(
            "Refill rate",
            |s| {
                let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
                rate.map(|r| rate_position(&REFILL_SCALE, r)).unwrap_or(0)
            },
            |s| {
                let rate = s.settings.quota().map(|q| s.settings.refill_rate(q));
                rate.map(|r| format!("{} tokens/s", r.per_second_text()))
                    .unwrap_or_default()
            },
            |s, p| {
                if let Ok(q) = s.settings.quota() {
                    s.settings.refill = Some(rate_at(&REFILL_SCALE, p, s.settings.refill_rate(q)));
                }
            },
        ),
    },
];

/// GCRA's knob in the tuning panel.
pub const GCRA_CONTROLS: &[NumberControl] = &[NumberControl {
    field: "burst",
    label: "GCRA burst, requests",
    unit: "requests",
    text: |s| s.settings.gcra_burst().to_string(),
    slider: scaled(
        "GCRA burst",
        |s| COUNT_SCALE.position(s.settings.gcra_burst() as f64),
        |s| format!("{} requests", s.settings.gcra_burst()),
        |s, p| s.settings.gcra_burst = Some(count_at(&COUNT_SCALE, p, s.settings.gcra_burst())),
    ),
}];

/// The leaky bucket's knobs in the tuning panel.
pub const LEAKY_BUCKET_CONTROLS: &[NumberControl] = &[
    NumberControl {
        field: "leak-burst",
        label: "Leaky bucket burst, requests",
        unit: "requests",
        text: |s| s.settings.leak_burst().to_string(),
        slider: scaled(
            "Leaky bucket burst",
            |s| COUNT_OR_ZERO_SCALE.position(s.settings.leak_burst() as f64),
            |s| format!("{} requests ahead of the rate", s.settings.leak_burst()),
            |s, p| {
                let burst = count_at(&COUNT_OR_ZERO_SCALE, p, s.settings.leak_burst());
                s.settings.leak_burst = Some(burst);
                // The delay counts requests of the burst, so it can be no larger.
                if let LeakDelay::After(d) = s.settings.leak_delay {
                    s.settings.leak_delay = LeakDelay::After(d.min(burst))
                }
            },
        ),
    },
    NumberControl {
        field: "leak-delay",
        label: "Leaky bucket: requests served at once, or nodelay",
        unit: "requests",
        text: |s| match s.settings.leak_delay {
            LeakDelay::NoDelay => "nodelay".to_string(),
            LeakDelay::After(d) => d.to_string(),
        },
        slider: scaled(
            "Leaky bucket: served at once",
            |s| leak_delay_position(s.settings.leak_delay, s.settings.leak_burst()),
            |s| match s.settings.leak_delay {
                LeakDelay::NoDelay => "all (nodelay)".to_string(),
                LeakDelay::After(0) => "none: every excess request waits".to_string(),
                LeakDelay::After(d) => format!("{d}, the rest wait"),
            },
            |s, p| {
                let burst = s.settings.leak_burst();
                s.settings.leak_delay = leak_delay_at(p, s.settings.leak_delay, burst)
            },
        ),
    },
];

/// Two rules libraries differ on: where a fixed window starts, and whether the fixed window, the
/// sliding log and the sliding-window counter count refused requests.
pub const COUNTING: &[Field<Settings>] = &[
    Field {
        name: "fixed-align",
        read: |s, raw| {
            let alignments = Alignment::ALL.map(|a| (a.slug(), a));
            s.fixed_align = choice(
                raw,
                &alignments,
                "use clock (windows on the clock) or first (from a key's first request); using clock.",
            )?;
            Ok(())
        },
        write: |s| (s.fixed_align != Alignment::Clock).then(|| s.fixed_align.slug().to_string()),
    },
    Field {
        name: "count-refused",
        read: |s, raw| {
            s.count_refused = flag(
                raw,
                "use 1 to count refused requests, 0 not to; not counting them.",
            )?;
            Ok(())
        },
        write: |s| s.count_refused.then(|| "1".to_string()),
    },
];

/// How many copies every row runs as, and how requests are spread over them.
pub const DEPLOYMENT: &[Field<Settings>] = &[
    Field {
        name: "instances",
        read: |s, raw| match raw.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_INSTANCES).contains(&n) => {
                s.deployment.instances = n;
                Ok(())
            }
            _ => Err(format!(
                "a whole number of copies from 1 to {MAX_INSTANCES}; using 1."
            )),
        },
        write: |s| (s.deployment.instances != 1).then(|| s.deployment.instances.to_string()),
    },
    Field {
        name: "spread",
        read: |s, raw| {
            let spreads = Spread::ALL.map(|spread| (spread.slug(), spread));
            s.deployment.spread = choice(
                raw,
                &spreads,
                "use round-robin, random or key; using round-robin.",
            )?;
            Ok(())
        },
        write: |s| {
            (s.deployment.spread != Spread::RoundRobin)
                .then(|| s.deployment.spread.slug().to_string())
        },
    },
];

/// Copies of each row.
pub const INSTANCES_CONTROL: NumberControl = NumberControl {
    field: "instances",
    label: "Copies of each row",
    unit: "copies, 1 to 64",
    text: |s| s.settings.deployment.instances.to_string(),
    slider: None,
};

/// Clients that wait as told and retry, and how many times. `retries` needs `clients=obey`,
/// which is read before it.
pub const CLIENTS: &[Field<Settings>] = &[
    Field {
        name: "clients",
        read: |s, raw| {
            s.clients.obey = choice(
                raw,
                &[("ignore", false), ("obey", true)],
                "use ignore (every request sent at its time) or obey (refused clients wait as told and retry); using ignore.",
            )?;
            Ok(())
        },
        write: |s| s.clients.obey.then(|| s.clients.slug().to_string()),
    },
    Field {
        name: "retries",
        read: |s, raw| {
            if !s.clients.obey {
                return Err("needs clients that obey (clients=obey); ignored.".to_string());
            }
            match raw.trim().parse::<u32>() {
                Ok(n) if n <= MAX_RETRIES => {
                    s.clients.retries = n;
                    Ok(())
                }
                _ => Err(format!(
                    "a whole number of retries from 0 to {MAX_RETRIES}; using {DEFAULT_RETRIES}."
                )),
            }
        },
        write: |s| {
            (s.clients.obey && s.clients.retries != DEFAULT_RETRIES)
                .then(|| s.clients.retries.to_string())
        },
    },
];

/// The rules every row runs under that are numbers: copies of each row, and how many times an
/// obeying client retries. Each sits in a row of its own among the section's menus, so the page
/// places each by its name.
pub const COUNTING_CONTROLS: &[NumberControl] = &[INSTANCES_CONTROL, RETRIES_CONTROL];

/// How many times an obeying client retries: its box is shown only for clients that obey.
pub const RETRIES_CONTROL: NumberControl = NumberControl {
    field: "retries",
    label: "Retries per client",
    unit: "retries, 0 to 50",
    text: |s| s.settings.clients.retries.to_string(),
    slider: None,
};

/// A second limit on every row: its count and window, its key and how the two spend. `also-key`
/// and `spend` need `also`, which is read before them.
pub const SECOND_LIMIT: &[Field<Settings>] = &[
    Field {
        name: "also",
        read: |s, raw| {
            const HINT: &str =
                "a count and a window in seconds, like 2/1 (2 per second); no second limit.";
            let (count, seconds) = raw.trim().split_once('/').ok_or(HINT)?;
            let count = match count.trim().parse::<u64>() {
                Ok(n) if (1..=MAX_LAB_LIMIT).contains(&n) => n,
                _ => {
                    return Err(format!(
                    "the count must be a whole number from 1 to {MAX_LAB_LIMIT}; no second limit."
                ))
                }
            };
            let window = match parse_seconds(seconds) {
                Ok(us) if (MIN_LAB_WINDOW.micros()..=MAX_LAB_WINDOW.micros()).contains(&us) => {
                    Span(us)
                }
                _ => {
                    return Err(format!(
                        "the window must be between {} and {} seconds; no second limit.",
                        format_seconds(MIN_LAB_WINDOW.micros()),
                        format_seconds(MAX_LAB_WINDOW.micros())
                    ))
                }
            };
            s.also = Some(SecondLimit {
                count,
                window,
                key: SecondKey::Same,
                spend: Spend::All,
            });
            Ok(())
        },
        write: |s| {
            s.also
                .map(|also| format!("{}/{}", also.count, format_seconds(also.window.micros())))
        },
    },
    Field {
        name: "also-key",
        read: |s, raw| {
            let keys = SecondKey::ALL.map(|k| (k.slug(), k));
            let key = choice(
                raw,
                &keys,
                "use same or prefix (the key before its last colon); using same.",
            )?;
            let also = s
                .also
                .as_mut()
                .ok_or("needs a second limit (also=COUNT/SECONDS); ignored.")?;
            also.key = key;
            Ok(())
        },
        write: |s| {
            s.also
                .filter(|also| also.key != SecondKey::Same)
                .map(|also| also.key.slug().to_string())
        },
    },
    Field {
        name: "spend",
        read: |s, raw| {
            let spends = Spend::ALL.map(|k| (k.slug(), k));
            let spend = choice(raw, &spends, "use all (one limit after the other) or passed (both spend only when both pass); using all.")?;
            let also = s
                .also
                .as_mut()
                .ok_or("needs a second limit (also=COUNT/SECONDS); ignored.")?;
            also.spend = spend;
            Ok(())
        },
        write: |s| {
            s.also
                .filter(|also| also.spend != Spend::All)
                .map(|also| also.spend.slug().to_string())
        },
    },
];

/// The themes a link can name.
const THEMES: [(&str, Theme); 3] = [
    ("auto", Theme::Auto),
    ("light", Theme::Light),
    ("dark", Theme::Dark),
];

/// How the rows show several keys.
const LANES: [(&str, Lanes); 2] = [("one", Lanes::One), ("key", Lanes::Key)];

/// `view=FROM-TO`: the stretch of the time axis shown, in seconds.
fn read_view(raw: &str) -> Result<(Time, Time), String> {
    const WHOLE: &str = "; showing the whole trace.";
    let (from, to) = raw
        .split_once('-')
        .ok_or(format!("write it as FROM-TO in seconds, like 8-12{WHOLE}"))?;
    let from = parse_seconds(from).map_err(|e| format!("{e}{WHOLE}"))?;
    let to = parse_seconds(to).map_err(|e| format!("{e}{WHOLE}"))?;
    if from >= to {
        return Err(format!("the start must come before the end{WHOLE}"));
    }
    if to - from < MIN_VIEW.micros() {
        return Err(format!("it must be at least 0.001 s wide{WHOLE}"));
    }
    Ok((Time(from), Time(to)))
}

/// The seed (shared by the Durable Object's emulation and the Poisson pattern) and the view.
pub const SEED_AND_VIEW: &[Field<LabState>] = &[
    Field {
        name: "seed",
        read: |s, raw| {
            let seed = raw.trim().parse::<u64>().map_err(|_| {
                format!(
                    "a whole number, 0 or more; using {}.",
                    DurableParams::default().seed
                )
            })?;
            s.set_seed(seed);
            Ok(())
        },
        write: |s| {
            (s.durable.seed != DurableParams::default().seed).then(|| s.durable.seed.to_string())
        },
    },
    Field {
        name: "embed",
        read: |s, raw| {
            s.embed = flag(raw, "use embed=1 for the compact view.")?;
            Ok(())
        },
        write: |s| s.embed.then(|| "1".to_string()),
    },
    Field {
        name: "controls",
        read: |s, raw| {
            let mut named = Vec::new();
            let mut unknown = Vec::new();
            for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match Control::from_slug(name) {
                    Some(c) => named.push(c),
                    None => unknown.push(format!("\"{name}\"")),
                }
            }
            // In the one order a link writes them, each once.
            s.controls = Control::ALL
                .into_iter()
                .filter(|c| named.contains(c))
                .collect();
            match unknown.is_empty() {
                true => Ok(()),
                false => Err(format!(
                    "{} not known (use {}); showing the others.",
                    unknown.join(", "),
                    Control::ALL.map(Control::slug).join(", ")
                )),
            }
        },
        write: |s| {
            (s.controls != Control::DEFAULT).then(|| {
                let names: Vec<&str> = s.controls.iter().map(|c| c.slug()).collect();
                names.join(",")
            })
        },
    },
    Field {
        name: "caption",
        read: |s, raw| {
            let caption: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            let count = caption.chars().count();
            // At most MAX_CAPTION_CHARS characters, and as many as fit in MAX_CAPTION_IN_LINK
            // characters of the link (an emoji is 12 there, a letter with an accent 6).
            let mut written = 0;
            s.caption = caption
                .chars()
                .take(MAX_CAPTION_CHARS)
                .take_while(|c| {
                    written += percent_encode(c.encode_utf8(&mut [0; 4])).len();
                    written <= MAX_CAPTION_IN_LINK
                })
                .collect();
            let kept = s.caption.chars().count();
            match (count > MAX_CAPTION_CHARS, kept < count.min(MAX_CAPTION_CHARS)) {
                (_, true) => Err(format!(
                    "longer than a link keeps ({MAX_CAPTION_IN_LINK} characters once escaped); showing the first {kept}."
                )),
                (true, false) => Err(format!(
                    "longer than {MAX_CAPTION_CHARS} characters; showing the first {MAX_CAPTION_CHARS}."
                )),
                (false, false) => Ok(()),
            }
        },
        write: |s| (!s.caption.is_empty()).then(|| percent_encode(&s.caption)),
    },
    Field {
        name: "theme",
        read: |s, raw| {
            s.theme = choice(raw, &THEMES, "use light, dark or auto.")?;
            Ok(())
        },
        write: |s| (s.theme != Theme::Auto).then(|| name_of(&THEMES, s.theme).to_string()),
    },
    Field {
        name: "view",
        read: |s, raw| {
            s.view = Some(read_view(raw)?);
            Ok(())
        },
        write: |s| {
            s.view.map(|(from, to)| {
                format!(
                    "{}-{}",
                    format_seconds(from.micros()),
                    format_seconds(to.micros())
                )
            })
        },
    },
    Field {
        name: "lanes",
        read: |s, raw| {
            s.lanes = choice(
                raw,
                &LANES,
                "use one (every request on one line) or key (a lane per key); using one.",
            )?;
            Ok(())
        },
        write: |s| (s.lanes != Lanes::One).then(|| name_of(&LANES, s.lanes).to_string()),
    },
];
