//! The page's state as a URL query, both ways. Every value comes from a person (a link, a
//! bookmark, an edited address bar), so nothing here can panic: a bad field gets a specific
//! message, falls back to its default, and the rest of the state still applies.
//!
//! Contract (kept stable; later parameters extend it):
//! - `limit`: integer, 1 to 1,000,000, default 5
//! - `window`: seconds, decimals allowed, 0.001 to 86400, default 10
//! - `pattern`: `edge` | `steady` | `double` | `burst-trickle` | `retry-storm` | `poisson` |
//!   `several-keys` | `clicks` | `trace`, default `edge` (`poisson` draws from `seed`)
//! - `trace`: comma-separated request times in seconds (implies `pattern=trace`)
//! - `algos`: comma list of `fixed`, `sliding-log`, `sliding-counter`, `token-bucket`, `gcra`,
//!   `leaky-bucket` and the product profiles `nginx`, `governor`, `redis-cell`, `upstash-fixed`,
//!   `upstash-sliding`, `upstash-token`, `envoy`, `cf-binding`; default the six algorithms
//! - the products' own parameters (`nginx-rate`, `cell-burst`, ...): see
//!   `profiles::settings::FIELDS`; unset, each follows `limit` and `window`
//!
//! - Durable Object row (`do=1`) and its knobs: `from`, `home` (region codes `fra`, `iad`,
//!   `gru`, `sin`, `syd`, `nrt`), `timeout` (ms), `fail` (`open`|`closed`), `service` (ms per
//!   decision), `persist` (0|1), `evict` (idle seconds), `outage` (`start-end` seconds), `slow`
//!   (`start-end`: every decision 250 ms longer), `evict-at` (seconds), `jitter` (ms), `shards`
//!   (1 to 64 per key, or `seed` for the seed's rule by prefix), `shard-by` (`key`|`request`), `placement` (`first`|`smart`), `seed`, `do-algo` (an algorithm),
//!   `closed-routes` (routes of a person's traffic that fail closed, a comma list)
//!
//! The page's own form may instead send `algo=` once per ticked algorithm. Unknown parameters
//! are ignored, so links made by later versions still open.

use super::config::Rate;
use super::durable::{DurableParams, FailMode, Placement, ShardBy, Tier};
use super::limiter::{Algorithm, LeakDelay, Settings};
use super::profiles::settings::FIELDS;
use super::region::Region;
use super::time::{format_seconds, parse_seconds, Span, Time};
use super::traffic::{Pattern, Point, DEFAULT_KEY};

pub const MAX_LIMIT: u64 = 1_000_000;
pub const MIN_WINDOW: Span = Span::from_millis(1);
pub const MAX_WINDOW: Span = Span::from_secs(86_400);
/// The most request times a `trace=` parameter may carry.
pub const MAX_TRACE_IN_URL: usize = 100_000;
/// The most requests the page writes into a link; a larger trace is kept in the browser's own
/// storage and the link says `trace=stored`.
pub const MAX_REQUESTS_IN_LINK: usize = 10_000;
/// `trace=stored`: the trace is the one this browser keeps for the page.
pub const STORED_TRACE: &str = "stored";

/// Everything the page shows, as set by the URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabState {
    pub settings: Settings,
    pub pattern: Pattern,
    pub algorithms: Vec<Algorithm>,
    pub durable: DurableParams,
    /// `embed=1`: the compact view for an iframe.
    pub embed: bool,
    pub theme: Theme,
    /// The link said `trace=stored`: the page reads the trace from its own storage.
    pub trace_in_storage: bool,
}

impl LabState {
    /// The same state in another theme (a scenario keeps the person's theme).
    pub fn with_theme(mut self, theme: Theme) -> LabState {
        self.theme = theme;
        self
    }
}

/// The colour theme (`theme=`): follow the system, or force one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn slug(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

impl Default for LabState {
    fn default() -> LabState {
        LabState {
            settings: Settings::default(),
            pattern: Pattern::Edge,
            algorithms: Algorithm::CORE.to_vec(),
            durable: DurableParams::default(),
            embed: false,
            theme: Theme::Auto,
            trace_in_storage: false,
        }
    }
}

/// A message about one field that could not be used as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub field: &'static str,
    pub message: String,
}

/// The state read from a query, and what had to be corrected on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub state: LabState,
    pub notices: Vec<Notice>,
}

/// Decodes `%XX` escapes and `+` (a space in form encoding). Invalid escapes are kept as text and
/// invalid UTF-8 is replaced, so decoding never fails.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes everything but letters, digits and `-._~:` so a key survives inside a query.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// Splits a query (with or without its leading `?`) into decoded pairs, in order.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(part), String::new()),
        })
        .collect()
}

/// Shortens what a person typed for quoting in a message.
fn quoted(value: &str) -> String {
    let mut shown: String = value.chars().take(40).collect();
    if value.chars().count() > 40 {
        shown.push('…');
    }
    format!("\"{shown}\"")
}

/// The notices of one parse, in the order the fields are read. The helpers are shared by every
/// field (not generic, not inlined), so that each field costs the module a call, not a copy of
/// the formatting.
struct Notes(Vec<Notice>);

impl Notes {
    #[inline(never)]
    fn add(&mut self, field: &'static str, message: String) {
        self.0.push(Notice { field, message });
    }

    /// The common message: `field="what was given": why` and `tail`.
    #[inline(never)]
    fn refuse(&mut self, field: &'static str, raw: &str, why: &dyn std::fmt::Display, tail: &str) {
        self.add(field, format!("{field}={}: {why}{tail}", quoted(raw)));
    }

    /// A `1`/`0` field.
    #[inline(never)]
    fn flag(&mut self, field: &'static str, raw: &str, hint: &str) -> Option<bool> {
        match raw.trim() {
            "1" => Some(true),
            "0" => Some(false),
            other => {
                self.refuse(field, other, &hint, "");
                None
            }
        }
    }

    /// A field that names one of `names`: its index.
    #[inline(never)]
    fn choice(
        &mut self,
        field: &'static str,
        raw: &str,
        names: &[&str],
        hint: &str,
    ) -> Option<usize> {
        let other = raw.trim();
        let found = names.iter().position(|n| *n == other);
        if found.is_none() {
            self.refuse(field, other, &hint, "");
        }
        found
    }

    /// Milliseconds (up to three decimals) within `range` microseconds.
    #[inline(never)]
    fn millis(
        &mut self,
        field: &'static str,
        raw: &str,
        range: std::ops::RangeInclusive<u64>,
        hint: &str,
    ) -> Option<Span> {
        match parse_millis(raw) {
            Some(us) if range.contains(&us) => Some(Span(us)),
            _ => {
                self.refuse(field, raw, &hint, "");
                None
            }
        }
    }

    /// A whole number from `min` to [`MAX_LIMIT`].
    #[inline(never)]
    fn count(&mut self, field: &'static str, raw: &str, min: u64) -> Option<u64> {
        match raw.trim().parse::<u64>() {
            Ok(n) if (min..=MAX_LIMIT).contains(&n) => Some(n),
            _ => {
                self.refuse(
                    field,
                    raw,
                    &format_args!("a whole number from {min} to {MAX_LIMIT}"),
                    "; using the default.",
                );
                None
            }
        }
    }

    /// A region code.
    #[inline(never)]
    fn region(&mut self, field: &'static str, raw: &str) -> Option<Region> {
        let found = Region::from_code(raw.trim());
        if found.is_none() {
            self.refuse(
                field,
                raw,
                &"not a known region (fra, iad, gru, sin, syd, nrt).",
                "",
            );
        }
        found
    }

    /// `start-end` in seconds, start before end.
    #[inline(never)]
    fn period(&mut self, field: &'static str, raw: &str) -> Option<(Span, Span)> {
        let parsed = raw
            .split_once('-')
            .and_then(|(a, b)| Some((parse_seconds(a).ok()?, parse_seconds(b).ok()?)));
        match parsed {
            Some((start, end)) if start < end => Some((Span(start), Span(end))),
            _ => {
                self.refuse(
                    field,
                    raw,
                    &format_args!("write it as start-end in seconds, e.g. {field}=20-30"),
                    "; none scheduled.",
                );
                None
            }
        }
    }
}

/// The value of field `name` in `pairs`; the last occurrence of a field wins, as in most servers.
#[inline(never)]
fn field_value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Reads the page state from a URL query.
pub fn parse_query(query: &str) -> Parsed {
    let mut state = LabState::default();
    let mut notes = Notes(Vec::new());
    let pairs = query_pairs(query);
    let get = |name: &str| field_value(&pairs, name);

    if let Some(raw) = get("limit") {
        match raw.trim().parse::<u64>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => state.settings.limit = n,
            Ok(0) => notes.add(
                "limit",
                "limit=0: the limit must be at least 1 request; using the default, 5.".into(),
            ),
            Ok(_) => notes.refuse(
                "limit",
                raw,
                &format_args!("the largest limit is {MAX_LIMIT}"),
                "; using the default, 5.",
            ),
            Err(_) => notes.refuse(
                "limit",
                raw,
                &"the limit must be a whole number of requests, like 5",
                "; using the default, 5.",
            ),
        }
    }

    if let Some(raw) = get("window") {
        match parse_seconds(raw) {
            Ok(us) if us >= MIN_WINDOW.micros() && us <= MAX_WINDOW.micros() => {
                state.settings.window = Span(us)
            }
            Ok(0) => notes.add(
                "window",
                "window=0: the window must be longer than 0 seconds; using the default, 10 s."
                    .into(),
            ),
            Ok(_) => notes.refuse(
                "window",
                raw,
                &"the window must be between 0.001 and 86400 seconds",
                "; using the default, 10 s.",
            ),
            Err(e) => notes.refuse("window", raw, &e, "; using the default, 10 s."),
        }
    }

    let mut pattern_field = get("pattern");
    let trace = get("trace");
    if trace.is_some_and(|raw| raw.trim() == STORED_TRACE) {
        state.trace_in_storage = true;
        pattern_field = None;
    } else if let Some(raw) = trace {
        match parse_trace_list(raw) {
            Ok(points) => {
                state.pattern = Pattern::from_points(points);
                if pattern_field.is_some_and(|p| p != "trace") {
                    notes.add(
                        "pattern",
                        "trace= was given, so pattern= is ignored: the page shows your trace."
                            .into(),
                    );
                }
                pattern_field = None;
            }
            Err(message) => {
                notes.add(
                    "trace",
                    format!("trace: {message}; showing the default pattern instead."),
                );
                if pattern_field == Some("trace") {
                    pattern_field = None;
                }
            }
        }
    }
    if let Some(raw) = pattern_field {
        match raw {
            "edge" => state.pattern = Pattern::Edge,
            "steady" => state.pattern = Pattern::Steady,
            "double" => state.pattern = Pattern::Double,
            "burst-trickle" => state.pattern = Pattern::BurstTrickle,
            "retry-storm" => state.pattern = Pattern::RetryStorm,
            "poisson" => state.pattern = Pattern::Poisson { seed: 1 },
            "several-keys" => state.pattern = Pattern::SeveralKeys,
            "clicks" => state.pattern = Pattern::Trace(Default::default()),
            "trace" => notes.add("pattern", "pattern=trace needs a trace= list of request times; using the default, edge.".into()),
            other => notes.refuse(
                "pattern",
                other,
                &"not a known pattern (edge, steady, double, burst-trickle, retry-storm, poisson, several-keys, clicks, trace); using the default, edge.",
                "",
            ),
        }
    }

    // The page's form sends one `algo=` per ticked box; links use the `algos=` list.
    let ticked: Vec<&str> = pairs
        .iter()
        .filter(|(k, _)| k == "algo")
        .map(|(_, v)| v.as_str())
        .collect();
    let algos_field = get("algos")
        .filter(|v| !v.is_empty() || ticked.is_empty())
        .map(str::to_string);
    let algos_field = algos_field.or_else(|| (!ticked.is_empty()).then(|| ticked.join(",")));
    if let Some(raw) = algos_field.as_deref() {
        let mut chosen: Vec<Algorithm> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        for name in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match Algorithm::from_slug(name) {
                Some(a) if !chosen.contains(&a) => chosen.push(a),
                Some(_) => {}
                None => unknown.push(quoted(name)),
            }
        }
        if !unknown.is_empty() {
            notes.add(
                "algos",
                format!(
                    "algos: {} not known (use fixed, sliding-log, sliding-counter, token-bucket, gcra, leaky-bucket, nginx, governor, redis-cell, upstash-fixed, upstash-sliding, upstash-token, envoy or cf-binding).",
                    unknown.join(", ")
                ),
            );
        }
        if chosen.is_empty() {
            if unknown.is_empty() {
                notes.add(
                    "algos",
                    "algos= is empty; showing the six algorithms.".into(),
                );
            }
        } else {
            state.algorithms = Algorithm::in_row_order(&chosen);
        }
    }

    parse_tuning(&pairs, &mut state.settings, &mut notes);
    for field in FIELDS {
        if let Some(raw) = get(field) {
            if let Err(accepts) = state.settings.products.set(field, raw) {
                notes.refuse(field, raw, &accepts, "; using the default.");
            }
        }
    }
    parse_durable(&pairs, &mut state.durable, &mut notes);
    if let Some(raw) = get("embed") {
        if let Some(on) = notes.flag("embed", raw, "use embed=1 for the compact view.") {
            state.embed = on;
        }
    }
    if let Some(raw) = get("theme") {
        if let Some(i) = notes.choice(
            "theme",
            raw,
            &["auto", "light", "dark"],
            "use light, dark or auto.",
        ) {
            state.theme = [Theme::Auto, Theme::Light, Theme::Dark][i];
        }
    }
    if let Pattern::Poisson { seed } = &mut state.pattern {
        *seed = state.durable.seed;
    }

    Parsed {
        state,
        notices: notes.0,
    }
}

/// The per-algorithm knobs: token bucket capacity and refill, GCRA burst, leaky bucket burst and
/// delay. Each is optional; unset, it follows the limit and window.
fn parse_tuning(pairs: &[(String, String)], s: &mut Settings, notes: &mut Notes) {
    let get = |name: &str| field_value(pairs, name);
    if let Some(raw) = get("capacity") {
        s.capacity = notes.count("capacity", raw, 1).or(s.capacity);
    }
    if let Some(raw) = get("refill") {
        match Rate::parse_per_second(raw) {
            Ok(rate) => s.refill = Some(rate),
            Err(e) => notes.refuse("refill", raw, &e, "; using limit per window."),
        }
    }
    if let Some(raw) = get("burst") {
        s.gcra_burst = notes.count("burst", raw, 1).or(s.gcra_burst);
    }
    if let Some(raw) = get("leak-burst") {
        s.leak_burst = notes.count("leak-burst", raw, 0).or(s.leak_burst);
    }
    if let Some(raw) = get("leak-delay") {
        match raw.trim() {
            "nodelay" => s.leak_delay = LeakDelay::NoDelay,
            other => {
                if let Some(n) = notes.count("leak-delay", other, 0) {
                    s.leak_delay = LeakDelay::After(n);
                }
            }
        }
    }
    if let LeakDelay::After(n) = s.leak_delay {
        if n > s.leak_burst() {
            notes.add("leak-delay", format!("leak-delay={n} is more than the leaky bucket's burst ({}); serving the whole burst at once.", s.leak_burst()));
            s.leak_delay = LeakDelay::NoDelay;
        }
    }
}

/// Milliseconds with up to three decimals ("120", "0.25"), as microseconds.
fn parse_millis(text: &str) -> Option<u64> {
    let scaled = parse_seconds(text).ok()?; // the number × 10^6
    (scaled % 1000 == 0).then_some(scaled / 1000)
}

fn parse_durable(pairs: &[(String, String)], d: &mut DurableParams, notes: &mut Notes) {
    let get = |name: &str| field_value(pairs, name);
    let defaults = DurableParams::default();
    if let Some(raw) = get("do") {
        if let Some(on) = notes.flag(
            "do",
            raw,
            "use do=1 to show the Durable Object row, or do=0.",
        ) {
            d.enabled = on;
        }
    }
    if let Some(raw) = get("do-algo") {
        match Algorithm::from_slug(raw.trim()) {
            Some(a) if !a.is_product() => d.algorithm = a,
            _ => notes.refuse(
                "do-algo",
                raw,
                &"the object runs one of the six algorithms (fixed, sliding-log, sliding-counter, token-bucket, gcra, leaky-bucket); it runs the sliding log.",
                "",
            ),
        }
    }
    if let Some(raw) = get("from") {
        let regions: Vec<Region> = raw
            .split(',')
            .filter(|c| !c.trim().is_empty())
            .filter_map(|c| notes.region("from", c))
            .collect();
        if !regions.is_empty() {
            d.from = regions.into_iter().take(12).collect();
        }
    }
    if let Some(raw) = get("cache") {
        if let Some(on) = notes.flag(
            "cache",
            raw,
            "use cache=1 for the first-tier cache, or cache=0.",
        ) {
            d.cache = on;
        }
    }
    let period = get("period").map(|raw| {
        notes
            .choice(
                "period",
                raw,
                &["10", "60"],
                "the binding's period can only be 10 or 60 seconds; using 10.",
            )
            .map(|i| [10, 60][i])
    });
    if let Some(raw) = get("tier") {
        match notes.choice(
            "tier",
            raw,
            &["do", "binding"],
            "use do (a Durable Object) or binding (the Rate Limiting binding).",
        ) {
            Some(0) => d.tier = Tier::DurableObject,
            Some(_) => {
                d.tier = Tier::Binding {
                    period_secs: period.flatten().unwrap_or(10),
                }
            }
            None => {}
        }
    }
    if let Some(raw) = get("home") {
        if let Some(r) = notes.region("home", raw) {
            d.home = Some(r);
        }
    }
    if let Some(raw) = get("timeout") {
        d.timeout = notes
            .millis(
                "timeout",
                raw,
                1_000..=60_000_000,
                "the timeout is in milliseconds, 1 to 60000; using 120 ms.",
            )
            .unwrap_or(d.timeout);
    }
    if let Some(raw) = get("fail") {
        if let Some(i) = notes.choice(
            "fail",
            raw,
            &["open", "closed"],
            "use fail=open or fail=closed; failing open.",
        ) {
            d.fail = [FailMode::Open, FailMode::Closed][i];
        }
    }
    if let Some(raw) = get("closed-routes") {
        // Route names come from a CSV's route column, so they hold no comma.
        d.closed_routes = raw
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .take(64)
            .map(|r| r.chars().take(200).collect())
            .collect();
    }
    if let Some(raw) = get("service") {
        d.service = notes
            .millis(
                "service",
                raw,
                1..=10_000_000,
                "the service time is in milliseconds, 0.001 to 10000; using 0.25 ms.",
            )
            .unwrap_or(d.service);
    }
    if let Some(raw) = get("persist") {
        if let Some(on) = notes.flag("persist", raw, "use persist=1 or persist=0; persisting.") {
            d.persist = on;
        }
    }
    if let Some(raw) = get("evict") {
        match parse_seconds(raw) {
            Ok(us) if (1_000..=86_400_000_000).contains(&us) => d.evict = Span(us),
            _ => notes.refuse(
                "evict",
                raw,
                &"idle seconds before eviction, 0.001 to 86400; using 60 s.",
                "",
            ),
        }
    }
    if let Some(raw) = get("outage") {
        d.outage = notes.period("outage", raw);
    }
    if let Some(raw) = get("slow") {
        d.slow = notes.period("slow", raw);
    }
    if let Some(raw) = get("evict-at") {
        match parse_seconds(raw) {
            Ok(us) => d.evict_at = Some(Span(us)),
            Err(e) => notes.refuse("evict-at", raw, &e, "; no eviction scheduled."),
        }
    }
    if let Some(raw) = get("jitter") {
        d.jitter = notes
            .millis(
                "jitter",
                raw,
                0..=1_000_000,
                "milliseconds of extra delay per hop, 0 to 1000; using 5 ms.",
            )
            .unwrap_or(d.jitter);
    }
    if let Some(raw) = get("shards") {
        match raw.trim().parse::<u32>() {
            Ok(n) if (1..=64).contains(&n) => d.shards = Some(n),
            _ if raw.trim() == "seed" => d.shards = None,
            _ => notes.refuse("shards", raw, &"a whole number from 1 to 64, or seed (the seed's rule by key prefix); using one object per key.", ""),
        }
    }
    if let Some(raw) = get("shard-by") {
        if let Some(i) = notes.choice(
            "shard-by",
            raw,
            &["key", "request"],
            "use key or request; sharding by key.",
        ) {
            d.shard_by = [ShardBy::Key, ShardBy::Request][i];
        }
    }
    if let Some(raw) = get("placement") {
        if let Some(i) = notes.choice(
            "placement",
            raw,
            &["first", "smart"],
            "use first or smart; placing at the first caller.",
        ) {
            d.placement = [Placement::First, Placement::Smart][i];
        }
    }
    if let Some(raw) = get("seed") {
        match raw.trim().parse::<u64>() {
            Ok(n) => d.seed = n,
            Err(_) => notes.refuse(
                "seed",
                raw,
                &format_args!("a whole number, 0 or more; using {}.", defaults.seed),
                "",
            ),
        }
    }
}

/// The Durable Object fields as (name, value) pairs, defaults left out: what a form that does not
/// show these knobs must carry along as hidden fields.
pub fn durable_pairs(d: &DurableParams) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    durable_query(d, &mut parts);
    parts
        .into_iter()
        .filter_map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// Adds `name=value` to a query's fields (one shared copy of the formatting).
#[inline(never)]
fn put(parts: &mut Vec<String>, name: &str, value: &dyn std::fmt::Display) {
    parts.push(format!("{name}={value}"));
}

/// Seconds (from microseconds) as the link writes them: `start-end` for a period.
fn period_text((start, end): (Span, Span)) -> String {
    format!(
        "{}-{}",
        format_seconds(start.micros()),
        format_seconds(end.micros())
    )
}

/// The Durable Object fields of a query, defaults left out.
fn durable_query(d: &DurableParams, parts: &mut Vec<String>) {
    let defaults = DurableParams::default();
    // Milliseconds, from microseconds.
    let millis = |span: Span| format_seconds(span.micros() * 1000);
    if d.enabled {
        put(parts, "do", &1);
    }
    if d.algorithm != defaults.algorithm {
        put(parts, "do-algo", &d.algorithm.slug());
    }
    if d.from != defaults.from {
        let codes: Vec<&str> = d.from.iter().map(|r| r.code()).collect();
        put(parts, "from", &codes.join(","));
    }
    if d.cache {
        put(parts, "cache", &1);
    }
    if let Tier::Binding { period_secs } = d.tier {
        put(parts, "tier", &"binding");
        if period_secs != 10 {
            put(parts, "period", &period_secs);
        }
    }
    if let Some(home) = d.home {
        put(parts, "home", &home.code());
    }
    if d.timeout != defaults.timeout {
        put(parts, "timeout", &millis(d.timeout));
    }
    if d.fail != defaults.fail {
        put(parts, "fail", &d.fail.slug());
    }
    if !d.closed_routes.is_empty() {
        let names: Vec<String> = d.closed_routes.iter().map(|r| percent_encode(r)).collect();
        put(parts, "closed-routes", &names.join(","));
    }
    if d.service != defaults.service {
        put(parts, "service", &millis(d.service));
    }
    if d.persist != defaults.persist {
        put(parts, "persist", &u8::from(d.persist));
    }
    if d.evict != defaults.evict {
        put(parts, "evict", &format_seconds(d.evict.micros()));
    }
    if d.jitter != defaults.jitter {
        put(parts, "jitter", &millis(d.jitter));
    }
    if let Some(slow) = d.slow {
        put(parts, "slow", &period_text(slow));
    }
    if let Some(at) = d.evict_at {
        put(parts, "evict-at", &format_seconds(at.micros()));
    }
    if let Some(outage) = d.outage {
        put(parts, "outage", &period_text(outage));
    }
    if d.shards != defaults.shards {
        put(
            parts,
            "shards",
            &d.shards
                .map_or_else(|| "seed".to_string(), |n| n.to_string()),
        );
    }
    if d.shard_by != defaults.shard_by {
        put(parts, "shard-by", &d.shard_by.slug());
    }
    if d.placement != defaults.placement {
        put(parts, "placement", &d.placement.slug());
    }
    if d.seed != defaults.seed {
        put(parts, "seed", &d.seed);
    }
}

/// The longest key accepted in a trace.
pub const MAX_KEY_LEN: usize = 100;

/// Parses `trace=`: comma-separated seconds, each optionally followed by `@key`
/// (`1.5@tenant:a`); items without a key belong to the default key. The whole list is refused on
/// the first bad item, with its position, so a typo never silently drops a request.
pub fn parse_trace_list(raw: &str) -> Result<Vec<Point>, String> {
    parse_trace_items(raw, MAX_TRACE_IN_URL)
}

/// A trace list as [`parse_trace_list`] reads it, with room for up to `max` items (the page's
/// storage holds longer lists than a link). An item is `time[*cost][@key[@region[@route]]]`:
/// `600*17@k` is a request for 17 at 600 s from key `k`.
pub fn parse_trace_items(raw: &str, max: usize) -> Result<Vec<Point>, String> {
    let items: Vec<&str> = raw.split(',').map(str::trim).collect();
    if items.iter().all(|s| s.is_empty()) {
        return Err("the list of request times is empty".into());
    }
    if items.len() > max {
        return Err(format!(
            "{} request times is more than a link can carry ({max} at most)",
            items.len()
        ));
    }
    let mut points = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if item.is_empty() && i + 1 == items.len() {
            continue; // a trailing comma
        }
        let mut parts = item.splitn(4, '@');
        let head = parts.next().unwrap_or_default();
        let (time_text, cost) = match head.split_once('*') {
            Some((time, cost)) => (
                time,
                parse_cost(cost).map_err(|e| format!("item {} of the list: {e}", i + 1))?,
            ),
            None => (head, 1),
        };
        let key = parts.next().map(str::trim).unwrap_or(DEFAULT_KEY);
        if key.is_empty() || key.chars().count() > MAX_KEY_LEN || key.chars().any(char::is_control)
        {
            return Err(format!("item {} of the list: the key after @ must be 1 to {MAX_KEY_LEN} printable characters", i + 1));
        }
        let at =
            parse_seconds(time_text).map_err(|e| format!("item {} of the list: {e}", i + 1))?;
        let origin = match parts.next().map(str::trim).filter(|r| !r.is_empty()) {
            Some(code) => Some(Region::from_code(code).ok_or_else(|| format!("item {} of the list: \"{code}\" is not a region (fra, iad, gru, sin, syd, nrt)", i + 1))?),
            None => None,
        };
        let route = parts
            .next()
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        points.push(Point {
            at: Time(at),
            key: key.to_string(),
            origin,
            route,
            cost,
        });
    }
    Ok(points)
}

/// The most a request of a person's traffic may cost: the largest limit the lab takes.
pub const MAX_COST: u32 = 1_000_000;

/// A request's cost as a trace item or a CSV line gives it: a whole number, 1 to [`MAX_COST`].
pub fn parse_cost(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|c| (1..=MAX_COST).contains(c))
        .ok_or_else(|| {
            format!(
                "a request's cost must be a whole number from 1 to {MAX_COST}, not \"{}\"",
                text.trim()
            )
        })
}

/// A person's trace as the `trace=` list (`8,8.398@tenant:a,9@tenant:a@syd@POST%20%2Flogin`,
/// names percent-encoded), or `None` for a preset or an empty trace. The page keeps a long trace
/// in its storage in this form.
pub fn trace_list(pattern: &Pattern) -> Option<String> {
    trace_list_within(pattern, usize::MAX)
}

/// [`trace_list`], or `None` as soon as the text would pass `max_chars` (so that a trace too
/// large to keep costs little to find out).
pub fn trace_list_within(pattern: &Pattern, max_chars: usize) -> Option<String> {
    let mut out = String::new();
    let mut push = |p: &Point| {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(&format_seconds(p.at.micros()));
        if p.cost != 1 {
            out.push('*');
            out.push_str(&p.cost.to_string());
        }
        if p.key != DEFAULT_KEY || p.origin.is_some() || p.route.is_some() {
            out.push('@');
            out.push_str(&percent_encode(&p.key));
        }
        if p.origin.is_some() || p.route.is_some() {
            out.push('@');
            out.push_str(p.origin.map(Region::code).unwrap_or_default());
        }
        if let Some(route) = &p.route {
            out.push('@');
            out.push_str(&percent_encode(route));
        }
        out.len() <= max_chars
    };
    let fits = match pattern {
        Pattern::Trace(times) => times.iter().all(|&t| push(&Point::new(t, DEFAULT_KEY))),
        Pattern::Keyed(points) => points.iter().all(&mut push),
        _ => return None,
    };
    (fits && !out.is_empty()).then_some(out)
}

/// Reads a trace the page kept in its storage (written by [`trace_list`]), up to the importer's
/// line limit.
pub fn parse_stored_trace(text: &str) -> Result<Vec<Point>, String> {
    parse_trace_items(&percent_decode(text), super::import::MAX_LINES)
}

/// Writes the state as a query (without `?`), fields in a fixed order, defaults left out.
pub fn to_query(state: &LabState) -> String {
    let defaults = LabState::default();
    let mut parts: Vec<String> = Vec::new();
    let parts = &mut parts;
    if state.settings.limit != defaults.settings.limit {
        put(parts, "limit", &state.settings.limit);
    }
    if state.settings.window != defaults.settings.window {
        put(
            parts,
            "window",
            &format_seconds(state.settings.window.micros()),
        );
    }
    match &state.pattern {
        // Not yet brought back from storage: the link still says where the trace is.
        _ if state.trace_in_storage => put(parts, "trace", &STORED_TRACE),
        Pattern::Edge => {}
        pattern if pattern.given_len() > MAX_REQUESTS_IN_LINK => put(parts, "trace", &STORED_TRACE),
        pattern => match trace_list(pattern) {
            Some(list) => put(parts, "trace", &list),
            None => put(parts, "pattern", &pattern.slug()),
        },
    }
    if state.algorithms != defaults.algorithms {
        let list: Vec<&str> = state.algorithms.iter().map(|a| a.slug()).collect();
        put(parts, "algos", &list.join(","));
    }
    let tuning = &state.settings;
    if let Some(c) = tuning.capacity {
        put(parts, "capacity", &c);
    }
    if let Some(rate) = tuning.refill {
        put(parts, "refill", &rate.per_second_text());
    }
    if let Some(b) = tuning.gcra_burst {
        put(parts, "burst", &b);
    }
    if let Some(b) = tuning.leak_burst {
        put(parts, "leak-burst", &b);
    }
    match tuning.leak_delay {
        LeakDelay::After(0) => {}
        LeakDelay::After(n) => put(parts, "leak-delay", &n),
        LeakDelay::NoDelay => put(parts, "leak-delay", &"nodelay"),
    }
    for (field, value) in tuning.products.pairs() {
        put(parts, field, &value);
    }
    durable_query(&state.durable, parts);
    if state.embed {
        put(parts, "embed", &1);
    }
    if state.theme != Theme::Auto {
        put(parts, "theme", &state.theme.slug());
    }
    parts.join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_query_gives_the_defaults_and_no_message() {
        let parsed = parse_query("");
        assert_eq!(parsed.state, LabState::default());
        assert!(parsed.notices.is_empty());
    }

    #[test]
    fn each_bad_field_gets_a_specific_message_and_its_default_while_the_rest_applies() {
        let parsed = parse_query("?limit=0&window=abc&pattern=steady");
        assert_eq!(parsed.state.settings.limit, 5);
        assert_eq!(parsed.state.settings.window, Span::from_secs(10));
        assert_eq!(parsed.state.pattern, Pattern::Steady);
        let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
        assert_eq!(fields, ["limit", "window"]);
        assert!(parsed.notices[0].message.contains("at least 1"));
        assert!(parsed.notices[1]
            .message
            .contains("\"abc\" is not a number"));
    }

    #[test]
    fn a_malformed_trace_names_the_bad_item_and_falls_back_to_the_default_pattern() {
        let parsed = parse_query("trace=1,2,x,4");
        assert_eq!(parsed.state.pattern, Pattern::Edge);
        assert_eq!(parsed.notices.len(), 1);
        assert!(
            parsed.notices[0].message.contains("item 3"),
            "{}",
            parsed.notices[0].message
        );
    }

    #[test]
    fn a_trace_implies_pattern_trace_with_exact_times() {
        let parsed = parse_query("trace=0.5,1.25,9.592");
        assert_eq!(
            parsed.state.pattern,
            Pattern::Trace(vec![Time(500_000), Time(1_250_000), Time(9_592_000)].into())
        );
        assert!(parsed.notices.is_empty());
    }

    #[test]
    fn a_trace_item_may_name_its_cost_and_the_cost_survives_the_round_trip() {
        let points = parse_trace_list("0@k,600*17@k,601*2").unwrap();
        assert_eq!(
            points.iter().map(|p| p.cost).collect::<Vec<_>>(),
            [1, 17, 2]
        );
        assert_eq!(points[1].key, "k");
        assert_eq!(points[2].key, DEFAULT_KEY);
        let pattern = Pattern::from_points(points.clone());
        let list = trace_list(&pattern).unwrap();
        assert_eq!(list, "0@k,600*17@k,601*2");
        assert_eq!(parse_trace_list(&list).unwrap(), points);
    }

    #[test]
    fn a_cost_that_is_not_a_whole_number_from_one_to_a_million_is_refused_by_item() {
        for bad in ["5*0", "5*", "5*1.5", "5*1000001", "5*-3"] {
            let message = parse_trace_list(&format!("1,{bad}")).unwrap_err();
            assert!(
                message.starts_with("item 2 of the list: a request's cost"),
                "{bad}: {message}"
            );
        }
    }

    #[test]
    fn trace_items_may_name_their_key_and_keys_survive_the_round_trip() {
        let parsed = parse_query("trace=0,1@tenant:a,2@ip:10.0.0.1,3@odd%20key%2Fx");
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let Pattern::Keyed(points) = &parsed.state.pattern else {
            panic!("a keyed trace")
        };
        assert_eq!(points[0], Point::new(Time::ZERO, DEFAULT_KEY));
        assert_eq!(points[3], Point::new(Time::from_secs(3), "odd key/x"));
        assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
        assert!(parse_query("trace=1@").notices[0]
            .message
            .contains("key after @"));
    }

    #[test]
    fn trace_items_may_name_their_region_and_route_and_the_link_keeps_them_with_the_closed_routes()
    {
        let parsed = parse_query("trace=0@a@syd@POST%20%2Flogin,1@a@@GET%20%2F,2@b@fra&do=1&closed-routes=POST%20%2Flogin");
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let Pattern::Keyed(points) = &parsed.state.pattern else {
            panic!("a keyed trace")
        };
        assert_eq!(
            points[0],
            Point {
                at: Time::ZERO,
                key: "a".into(),
                origin: Some(Region::Sydney),
                route: Some("POST /login".into()),
                cost: 1,
            }
        );
        assert_eq!(
            points[1],
            Point {
                at: Time::from_secs(1),
                key: "a".into(),
                origin: None,
                route: Some("GET /".into()),
                cost: 1,
            }
        );
        assert_eq!(
            points[2],
            Point {
                at: Time::from_secs(2),
                key: "b".into(),
                origin: Some(Region::Frankfurt),
                route: None,
                cost: 1,
            }
        );
        assert_eq!(parsed.state.durable.closed_routes, ["POST /login"]);
        let query = to_query(&parsed.state);
        assert_eq!(query, "trace=0@a@syd@POST%20%2Flogin,1@a@@GET%20%2F,2@b@fra&do=1&closed-routes=POST%20%2Flogin");
        assert_eq!(parse_query(&query).state, parsed.state);
        assert!(parse_query("trace=1@a@mars").notices[0]
            .message
            .contains("\"mars\" is not a region"));
    }

    #[test]
    fn percent_encoded_commas_and_plus_signs_are_understood() {
        let parsed = parse_query("trace=1%2C2%2C3&algos=fixed%2Cgcra");
        assert_eq!(
            parsed.state.pattern,
            Pattern::Trace(vec![Time::from_secs(1), Time::from_secs(2), Time::from_secs(3)].into())
        );
        assert_eq!(
            parsed.state.algorithms,
            [Algorithm::FixedWindow, Algorithm::Gcra]
        );
        assert_eq!(percent_decode("a+b%20c%zz%"), "a b c%zz%");
    }

    #[test]
    fn the_forms_one_field_per_ticked_algorithm_is_understood() {
        let parsed = parse_query("limit=5&algo=gcra&algo=fixed");
        assert_eq!(
            parsed.state.algorithms,
            [Algorithm::FixedWindow, Algorithm::Gcra]
        );
        assert!(parsed.notices.is_empty());
    }

    #[test]
    fn unknown_algorithms_are_named_and_known_ones_kept() {
        let parsed = parse_query("algos=gcra,bogus,fixed");
        assert_eq!(
            parsed.state.algorithms,
            [Algorithm::FixedWindow, Algorithm::Gcra]
        );
        assert!(parsed.notices[0].message.contains("\"bogus\""));
    }

    #[test]
    fn the_state_survives_a_round_trip_through_the_query() {
        let state = LabState {
            settings: Settings {
                limit: 7,
                window: Span::from_millis(2_500),
                ..Settings::default()
            },
            pattern: Pattern::Trace(vec![Time(1), Time::from_secs(3)].into()),
            algorithms: vec![Algorithm::SlidingLog, Algorithm::LeakyBucket],
            ..LabState::default()
        };
        let query = to_query(&state);
        assert_eq!(
            query,
            "limit=7&window=2.5&trace=0.000001,3&algos=sliding-log,leaky-bucket"
        );
        assert_eq!(parse_query(&query).state, state);
    }

    #[test]
    fn a_trace_too_long_for_a_link_is_written_as_stored_and_reads_back_from_storage() {
        let points: Vec<Point> = (0..MAX_REQUESTS_IN_LINK as u64 + 1)
            .map(|i| Point::new(Time(i * 1000), if i % 2 == 0 { "a b" } else { DEFAULT_KEY }))
            .collect();
        let state = LabState {
            pattern: Pattern::from_points(points.clone()),
            ..LabState::default()
        };
        assert_eq!(to_query(&state), "trace=stored");
        let parsed = parse_query("trace=stored&limit=3");
        assert!(parsed.state.trace_in_storage && parsed.notices.is_empty());
        assert_eq!(parsed.state.settings.limit, 3);
        // Found by the fuzz target: until the page brings the trace back, the link keeps saying
        // where it is (writing it back is a fixed point).
        assert_eq!(to_query(&parsed.state), "limit=3&trace=stored");
        let kept = trace_list(&state.pattern).unwrap();
        assert!(
            kept.starts_with("0@a%20b,0.001,0.002@a%20b"),
            "{}",
            &kept[..40]
        );
        assert_eq!(parse_stored_trace(&kept).unwrap(), points);
        assert_eq!(
            trace_list_within(&state.pattern, kept.len()).as_deref(),
            Some(kept.as_str())
        );
        assert_eq!(trace_list_within(&state.pattern, kept.len() - 1), None);
        // A link-sized trace still goes in the link.
        let short = LabState {
            pattern: Pattern::from_points(points[..3].to_vec()),
            ..LabState::default()
        };
        assert_eq!(to_query(&short), "trace=0@a%20b,0.001,0.002@a%20b");
    }

    #[test]
    fn product_profiles_and_their_own_fields_round_trip_through_the_link() {
        let query = "algos=fixed,nginx,upstash-sliding,cf-binding&nginx-rate=30r/m&nginx-delay=nodelay&upstash-cache=off&cf-period=60";
        let parsed = parse_query(query);
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let state = parsed.state;
        assert_eq!(
            state.algorithms,
            [
                Algorithm::FixedWindow,
                Algorithm::Nginx,
                Algorithm::UpstashSliding,
                Algorithm::CfBinding
            ]
        );
        assert_eq!(state.settings.products.cf_period, Some(60));
        assert_eq!(to_query(&state), query);
    }

    #[test]
    fn a_bad_product_field_is_named_with_what_it_accepts_and_the_rest_applies() {
        let parsed = parse_query("algos=cf-binding&cf-period=30&cf-limit=7&do-algo=nginx");
        let messages: Vec<&str> = parsed.notices.iter().map(|n| n.message.as_str()).collect();
        assert!(
            messages[0].starts_with("cf-period=\"30\": 10 or 60"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("one of the six algorithms"),
            "{messages:?}"
        );
        assert_eq!(parsed.state.settings.products.cf_limit, Some(7));
        assert_eq!(parsed.state.settings.products.cf_period, None);
        assert_eq!(parsed.state.durable.algorithm, Algorithm::SlidingLog);
    }

    #[test]
    fn faults_and_jitter_are_read_and_written_back() {
        let query = "do=1&jitter=20&slow=10-20.5&evict-at=30&outage=40-45";
        let parsed = parse_query(query);
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let d = &parsed.state.durable;
        assert_eq!(
            (d.jitter, d.slow, d.evict_at),
            (
                Span::from_millis(20),
                Some((Span::from_secs(10), Span::from_millis(20_500))),
                Some(Span::from_secs(30))
            )
        );
        assert_eq!(to_query(&parsed.state), query);
        let config = d.sim_config(&parsed.state.settings, &[]);
        assert_eq!(config.jitter, Span::from_millis(20));
        assert_eq!(config.faults.len(), 3);
        let bad = parse_query("do=1&slow=9-3&jitter=-1&evict-at=x");
        let fields: Vec<&str> = bad.notices.iter().map(|n| n.field).collect();
        assert_eq!(fields, ["slow", "evict-at", "jitter"]);
    }

    #[test]
    fn the_durable_object_fields_are_read_and_written_back() {
        let query = "do=1&from=fra&home=gru&timeout=300&fail=closed&service=0.5&persist=0&evict=30&outage=20-30.5&shards=4&shard-by=request&placement=smart&seed=7";
        let parsed = parse_query(query);
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let d = &parsed.state.durable;
        assert!(d.enabled);
        assert_eq!(
            (d.from.clone(), d.home),
            (vec![Region::Frankfurt], Some(Region::SaoPaulo))
        );
        assert_eq!((d.timeout, d.service), (Span::from_millis(300), Span(500)));
        assert_eq!(
            (d.fail, d.persist, d.evict),
            (FailMode::Closed, false, Span::from_secs(30))
        );
        assert_eq!(
            d.outage,
            Some((Span::from_secs(20), Span::from_millis(30_500)))
        );
        assert_eq!(
            (d.shards, d.shard_by, d.placement, d.seed),
            (Some(4), ShardBy::Request, Placement::Smart, 7)
        );
        assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
    }

    #[test]
    fn one_object_per_key_is_the_default_and_shards_seed_is_the_seeds_prefix_rule() {
        assert_eq!(parse_query("do=1").state.durable.shards, Some(1));
        assert_eq!(
            parse_query("do=1&shards=1").state,
            parse_query("do=1").state
        );
        assert!(!to_query(&parse_query("do=1&shards=1").state).contains("shards"));
        let seed = parse_query("do=1&shards=seed");
        assert!(seed.notices.is_empty(), "{:?}", seed.notices);
        assert_eq!(seed.state.durable.shards, None);
        assert!(to_query(&seed.state).contains("shards=seed"));
        assert_eq!(parse_query(&to_query(&seed.state)).state, seed.state);
        let config = seed.state.durable.sim_config(&seed.state.settings, &[]);
        assert_eq!(config.shards.shards_for("tenant:demo"), 4);
        assert!(parse_query("do=1&shards=prefix").notices[0]
            .message
            .contains("or seed"));
    }

    #[test]
    fn several_origins_the_cache_and_the_binding_round_trip() {
        let parsed = parse_query("do=1&from=fra,syd,nrt&cache=1&tier=binding&period=60");
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let d = &parsed.state.durable;
        assert_eq!(d.from, [Region::Frankfurt, Region::Sydney, Region::Tokyo]);
        assert!(d.cache);
        assert_eq!(d.tier, Tier::Binding { period_secs: 60 });
        assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
        assert!(parse_query("tier=binding&period=30").notices[0]
            .message
            .contains("10 or 60"));
    }

    #[test]
    fn bad_durable_object_fields_each_get_a_message() {
        let parsed = parse_query("do=yes&from=mars&timeout=0&fail=maybe&outage=30-20&shards=0&shard-by=x&placement=y&seed=-1&service=abc&evict=0");
        let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
        assert_eq!(
            fields,
            [
                "do",
                "from",
                "timeout",
                "fail",
                "service",
                "evict",
                "outage",
                "shards",
                "shard-by",
                "placement",
                "seed"
            ]
        );
        assert_eq!(parsed.state.durable, DurableParams::default());
    }

    #[test]
    fn the_per_algorithm_knobs_embed_and_theme_round_trip() {
        let parsed = parse_query(
            "capacity=8&refill=0.25&burst=3&leak-burst=6&leak-delay=2&embed=1&theme=dark",
        );
        assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
        let s = &parsed.state.settings;
        assert_eq!(
            (s.capacity, s.gcra_burst, s.leak_burst, s.leak_delay),
            (Some(8), Some(3), Some(6), LeakDelay::After(2))
        );
        assert_eq!(s.refill, Some(Rate::parse_per_second("0.25").unwrap()));
        assert!(parsed.state.embed);
        assert_eq!(parsed.state.theme, Theme::Dark);
        assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
        let nodelay = parse_query("leak-delay=nodelay").state;
        assert_eq!(parse_query(&to_query(&nodelay)).state, nodelay);
    }

    #[test]
    fn bad_knobs_get_messages_and_defaults() {
        let parsed = parse_query("capacity=0&refill=-1&burst=x&leak-delay=99");
        let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
        assert_eq!(fields, ["capacity", "refill", "burst", "leak-delay"]);
        assert!(parsed.notices[1].message.contains("negative"));
        assert_eq!(
            parsed.state.settings.leak_delay,
            LeakDelay::NoDelay,
            "a delay above the burst means serve the whole burst"
        );
    }

    #[test]
    fn every_preset_round_trips_through_the_query() {
        for pattern in Pattern::presets(7) {
            let mut state = LabState {
                pattern,
                ..LabState::default()
            };
            state.durable.seed = 7;
            assert_eq!(
                parse_query(&to_query(&state)).state,
                state,
                "{}",
                to_query(&state)
            );
        }
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_range() {
        assert!(parse_query("limit=1000001").notices[0]
            .message
            .contains("1000000"));
        assert!(parse_query("window=0.0001").notices[0]
            .message
            .contains("0.001 and 86400"));
        assert!(parse_query("window=-3").notices[0]
            .message
            .contains("negative"));
        assert!(parse_query("limit=-1").notices[0]
            .message
            .contains("whole number"));
    }
}
