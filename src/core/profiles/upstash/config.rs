//! Reading `@upstash/ratelimit`'s own code into its rows' settings (`profiles::config_text`):
//! `new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(tokens, window), timeout,
//! ephemeralCache, ... })`, with `Ratelimit.slidingWindow(tokens, window)` or
//! `Ratelimit.tokenBucket(refillRate, interval, maxTokens)` as the limiter, which also picks the
//! row (`upstash-fixed`, `upstash-sliding`, `upstash-token`).
//!
//! Sources: @upstash/ratelimit 2.2.0 as installed from npm (`dist/index.js`: `ms()` of
//! `src/duration.ts`, the `Ratelimit` constructor, `RegionRatelimit`'s static algorithms) and its
//! `README.md`; upstash/ratelimit-js at 5b5448a (`src/single.ts`, `examples/`, `skills/*.md`),
//! whose `ms()` is older than the release (whole numbers only, no `w`): the reader follows the
//! release, which reads everything the older one did the same. What the library does:
//! - A duration is read by `ms()`: `/^(\d+(?:\.\d+)?)\s?(ms|s|m|h|d|w)$/` (digits with an
//!   optional fraction, at most one white space, then the unit), its number times the unit's
//!   milliseconds rounded by `Math.round`; anything else throws "Unable to parse window size",
//!   and a result under 1 ms throws "Window size must be at least 1 ms".
//! - `timeout` defaults to 5000 ms; the race runs only when `timeout > 0`, so 0 or less turns it
//!   off.
//! - `ephemeralCache`: a `Map` is the cache, `undefined` (left out) makes a new `Map`, and any
//!   other value, `false` as documented, leaves the client without one.
//! - `prefix`, `analytics`, `enableProtection`, `denyListThreshold`, `dynamicLimits` and
//!   `enableTelemetry` change no verdict the lab runs, and are named in a note.
//! - `MultiRegionRatelimit` keeps a count in every region and merges them; the lab runs the
//!   single-region `Ratelimit` only: it is named in a note, or refused when it is the only one.
//!
//! The Redis round trip (`upstash-latency`) is the network, which no config says: it is set to
//! the profile's default, an instant Redis. The fields of the algorithms the config does not use
//! (the bucket's for a window, the window's for a bucket) are left unset: the product has no
//! default for them.

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::profiles::config_text::script::{
    blank_comments, closing, definition, entries, entries_split, has_word, is_identifier,
    is_identifier_char, js_number, Value,
};
use crate::core::profiles::config_text::{arithmetic, line_of, ConfigOf, FromConfig, Unreadable};
use crate::core::profiles::ProductSettings;
use crate::core::time::{Span, MICROS_PER_MILLI};

use super::{UpstashKind, DEFAULT_TIMEOUT};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`new Ratelimit({ limiter: Ratelimit.slidingWindow(10, \"10 s\") })`, with `fixedWindow` or `tokenBucket`",
};

/// The algorithms as the code names them.
const ALGORITHMS: &[(&str, Option<UpstashKind>)] = &[
    ("fixedWindow", Some(UpstashKind::FixedWindow)),
    ("slidingWindow", Some(UpstashKind::SlidingWindow)),
    ("tokenBucket", Some(UpstashKind::TokenBucket)),
    // Kept in the client's memory alone, with Redis updated after: not one of the lab's rows.
    ("cachedFixedWindow", None),
];

/// `setTimeout`'s largest delay: past it Node runs the timer after 1 ms.
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

fn recognises(text: &str) -> bool {
    let code = blank_comments(text);
    code.contains("@upstash/ratelimit")
        || ALGORITHMS
            .iter()
            .any(|(method, _)| code.contains(&format!("Ratelimit.{method}")))
        || has_word(&code, "MultiRegionRatelimit")
        || constructor_calls(&code).next().is_some()
}

/// An algorithm call: `Ratelimit.slidingWindow(10, "10 s")`.
struct AlgorithmCall {
    method: &'static str,
    kind: Option<UpstashKind>,
    at: usize,
    open: usize,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = blank_comments(text);
    let multi_region = code
        .match_indices("MultiRegionRatelimit")
        .find(|(at, _)| word_at(&code, *at, "MultiRegionRatelimit"))
        .map(|(at, _)| line_of(&code, at));
    let found = algorithm_calls(&code);
    let Some(first) = found.first() else {
        return Err(match (multi_region, constructor_calls(&code).next()) {
            (Some(line), _) => Unreadable::at(
                text,
                line,
                "`MultiRegionRatelimit` keeps a count in each region and merges them later; the lab runs the single-region `Ratelimit` only",
            ),
            (None, Some((at, _))) => Unreadable::at(
                text,
                line_of(&code, at),
                "`new Ratelimit(...)` whose `limiter` is not written as `Ratelimit.fixedWindow(...)`, `Ratelimit.slidingWindow(...)` or `Ratelimit.tokenBucket(...)`",
            ),
            (None, None) => Unreadable::whole(
                "no `Ratelimit.fixedWindow(...)`, `Ratelimit.slidingWindow(...)` or `Ratelimit.tokenBucket(...)` in the text",
            ),
        });
    };
    let line = line_of(&code, first.at);
    let Some(kind) = first.kind else {
        return Err(Unreadable::at(
            text,
            line,
            format!("`Ratelimit.{}` counts in the client's memory and writes to Redis after; the lab runs `fixedWindow`, `slidingWindow` and `tokenBucket`", first.method),
        ));
    };
    let close = closing(&code, first.open).ok_or_else(|| {
        Unreadable::at(
            text,
            line,
            format!("the `Ratelimit.{}(` call is never closed", first.method),
        )
    })?;
    let args = arguments(&code, first.open + 1, close);
    let wanted = if kind == UpstashKind::TokenBucket {
        3
    } else {
        2
    };
    if args.len() != wanted {
        let names = if wanted == 3 {
            "refillRate, interval, maxTokens"
        } else {
            "tokens, window"
        };
        return Err(Unreadable::at(
            text,
            line,
            format!(
                "`Ratelimit.{}` takes ({names}); this call has {} argument{}",
                first.method,
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    let mut fields = super::Fields::default();
    match kind {
        UpstashKind::FixedWindow | UpstashKind::SlidingWindow => {
            fields.tokens = Some(count_of(text, &code, &args[0], "tokens")?);
            fields.window = Some(duration_of(text, &code, &args[1], "window")?);
        }
        UpstashKind::TokenBucket => {
            fields.refill = Some(count_of(text, &code, &args[0], "refillRate")?);
            fields.interval = Some(duration_of(text, &code, &args[1], "interval")?);
            fields.max = Some(count_of(text, &code, &args[2], "maxTokens")?);
        }
    }

    let mut notes = Vec::new();
    if let Some(multi) = multi_region {
        notes.push(format!("The `MultiRegionRatelimit` on line {multi} is not read: the lab runs the single-region `Ratelimit` only."));
    }
    for other in &found[1..] {
        notes.push(format!(
            "Another limiter, `Ratelimit.{}` on line {}, is in the text too; only the first, `Ratelimit.{}` on line {}, sets the row, since a row runs one limiter.",
            other.method,
            line_of(&code, other.at),
            first.method,
            line
        ));
    }

    // The `new Ratelimit({ ... })` around the limiter, or else the text's first one.
    let constructors: Vec<(usize, usize)> = constructor_calls(&code).collect();
    let around = constructors
        .iter()
        .find(|(_, open)| closing(&code, *open).is_some_and(|c| *open < first.at && first.at < c))
        .or(constructors.first());
    let mut name = None;
    let mut timeout = None;
    let mut cache = None;
    if let Some(&(at, open)) = around {
        name = assigned_name(&code, at);
        let close = closing(&code, open).ok_or_else(|| {
            Unreadable::at(
                text,
                line_of(&code, at),
                "the `new Ratelimit(` call is never closed",
            )
        })?;
        let inside = code.get(open + 1..close).unwrap_or("");
        let object = inside.trim_start();
        let start = open + 1 + (inside.len() - object.len());
        let options = if object.starts_with('{') {
            closing(&code, start).map_or(Vec::new(), |end| entries(&code, start + 1, end))
        } else {
            Vec::new()
        };
        for entry in &options {
            let line = line_of(&code, entry.at);
            let value = match &entry.value {
                Value::Written(v) if v != "undefined" => v.as_str(),
                Value::Written(_) => continue,
                Value::Spread => {
                    notes.push(format!("`...{}` is spread into the options: the lab cannot see what it holds, so only the options written out are read.", entry.key));
                    continue;
                }
                Value::Method => {
                    notes.extend(option_note(&entry.key));
                    continue;
                }
            };
            match entry.key.as_str() {
                "timeout" => timeout = Some((line, value.to_string())),
                "ephemeralCache" => cache = Some((line, value.to_string())),
                "analytics" | "enableProtection" | "dynamicLimits" | "enableTelemetry"
                    if value == "false" => {}
                other => notes.extend(option_note(other)),
            }
        }
    }
    fields.timeout = Some(match timeout {
        Some((line, value)) => timeout_of(text, &code, line, &value, &mut notes)?,
        None => DEFAULT_TIMEOUT,
    });
    fields.cache = Some(match cache {
        Some((line, value)) => cache_of(text, &code, line, &value, &mut notes)?,
        None => true,
    });
    // Not a library option: the network, at the profile's default of an instant Redis.
    fields.latency = Some(Span::ZERO);

    let products = ProductSettings {
        upstash: fields,
        ..Default::default()
    };
    let row = match kind {
        UpstashKind::FixedWindow => "upstash-fixed",
        UpstashKind::SlidingWindow => "upstash-sliding",
        UpstashKind::TokenBucket => "upstash-token",
    };
    let mut from = FromConfig::new(row, products);
    from.name = name;
    from.notes = notes;
    Ok(from)
}

/// The sentence for an option the lab does not run.
fn option_note(key: &str) -> Option<String> {
    let why = match key {
        "redis" | "limiter" => return None,
        "prefix" => "only names the Redis keys, and changes no verdict",
        "analytics" => "records each call in Redis for Upstash's console, and changes no verdict",
        "enableProtection" | "denyListThreshold" => {
            "turns on Upstash's deny lists, which the lab does not model"
        }
        "dynamicLimits" => {
            "lets the limit be changed in Redis while running, which the lab does not model"
        }
        "enableTelemetry" => "only reports the SDK's version to Upstash",
        _ => {
            return Some(format!(
                "`{key}` is not an option of `Ratelimit` the lab knows, and is not read."
            ))
        }
    };
    Some(format!("`{key}` {why}."))
}

/// Every `new Ratelimit(`: where `new` is and where its `(` is.
fn constructor_calls(code: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    code.match_indices("new").filter_map(move |(at, _)| {
        if !word_at(code, at, "new") {
            return None;
        }
        let rest = code.get(at + 3..)?;
        let name = rest.trim_start();
        let after = name.strip_prefix("Ratelimit")?;
        if after.starts_with(is_identifier_char) {
            return None;
        }
        let args = after.trim_start();
        args.starts_with('(').then(|| (at, code.len() - args.len()))
    })
}

/// Every `Ratelimit.<algorithm>(`, in order.
fn algorithm_calls(code: &str) -> Vec<AlgorithmCall> {
    let mut found = Vec::new();
    for &(method, kind) in ALGORITHMS {
        let name = format!("Ratelimit.{method}");
        for (at, _) in code.match_indices(&name) {
            let before = code.get(..at).and_then(|b| b.chars().next_back());
            if before.is_some_and(|c| is_identifier_char(c) || c == '.') {
                continue;
            }
            let rest = code.get(at + name.len()..).unwrap_or("");
            let args = rest.trim_start();
            if !args.starts_with('(') || rest.starts_with(is_identifier_char) {
                continue;
            }
            found.push(AlgorithmCall {
                method,
                kind,
                at,
                open: code.len() - args.len(),
            });
        }
    }
    found.sort_unstable_by_key(|c| c.at);
    found
}

/// A call's arguments between `start` and `end` (the `(`'s next byte and the `)`), each with
/// where it starts, split at commas outside brackets and quotes.
fn arguments(code: &str, start: usize, end: usize) -> Vec<(usize, String)> {
    entries_split(code, start, end)
        .into_iter()
        .filter(|(_, piece)| !piece.is_empty())
        .collect()
}

/// `tokens`, `refillRate` or `maxTokens`: a whole number from 1 to the lab's largest count.
fn count_of(text: &str, code: &str, arg: &(usize, String), what: &str) -> Result<u64, Unreadable> {
    let (at, value) = arg;
    let line = line_of(code, *at);
    let n = number(code, value, 0).ok_or_else(|| {
        Unreadable::at(
            text,
            line,
            format!("`{what}` is `{value}`, not a number the lab can work out from the text"),
        )
    })?;
    if n.fract() != 0.0 || n < 1.0 {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{what}` is {value}: the lab reads a whole number from 1 up"),
        ));
    }
    if n > MAX_COUNT as f64 {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{what}` is {value}, more than the lab's largest count, {MAX_COUNT}"),
        ));
    }
    Ok(n as u64)
}

/// A `Duration` argument, read as `ms()` reads it.
fn duration_of(
    text: &str,
    code: &str,
    arg: &(usize, String),
    what: &str,
) -> Result<Span, Unreadable> {
    let (at, value) = arg;
    let line = line_of(code, *at);
    let literal = string_value(code, value, 0).ok_or_else(|| {
        Unreadable::at(text, line, format!("`{what}` is `{value}`, not a duration string such as \"10 s\" the lab can find in the text"))
    })?;
    let ms = duration_ms(&literal).map_err(|why| Unreadable::at(text, line, why))?;
    if ms as u128 * u128::from(MICROS_PER_MILLI) > u128::from(MAX_WINDOW.micros()) {
        return Err(Unreadable::at(
            text,
            line,
            format!("\"{literal}\" is longer than the lab's longest window, 366 days"),
        ));
    }
    Ok(Span::from_millis(ms))
}

/// `ms()` of `src/duration.ts`: the milliseconds of "10 s", "10s", "1.5 m", "100 ms", "1 w".
fn duration_ms(d: &str) -> Result<u64, String> {
    let unparsed = || {
        format!("\"{d}\" is no duration `ms()` reads (\"Unable to parse window size\"): a number, at most one space, then ms, s, m, h, d or w")
    };
    let whole = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
    if whole == 0 {
        return Err(unparsed());
    }
    let mut end = whole;
    if let Some(fraction) = d.get(whole..).and_then(|r| r.strip_prefix('.')) {
        let digits = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        if digits == 0 {
            return Err(unparsed());
        }
        end = whole + 1 + digits;
    }
    let number: f64 = d
        .get(..end)
        .and_then(|n| n.parse().ok())
        .ok_or_else(unparsed)?;
    let mut unit = d.get(end..).unwrap_or("");
    if let Some(space) = unit.chars().next().filter(|c| is_js_space(*c)) {
        unit = unit.get(space.len_utf8()..).unwrap_or("");
    }
    let multiplier = match unit {
        "ms" => 1.0,
        "s" => 1e3,
        "m" => 1e3 * 60.0,
        "h" => 1e3 * 60.0 * 60.0,
        "d" => 1e3 * 60.0 * 60.0 * 24.0,
        "w" => 1e3 * 60.0 * 60.0 * 24.0 * 7.0,
        _ => return Err(unparsed()),
    };
    let result = js_round(number * multiplier);
    if result < 1.0 {
        return Err(format!("\"{d}\" is under 1 ms once rounded: `ms()` refuses it (\"Window size must be at least 1 ms\")"));
    }
    if result > u64::MAX as f64 / 2.0 {
        return Err(format!(
            "\"{d}\" is longer than the lab's longest window, 366 days"
        ));
    }
    Ok(result as u64)
}

/// JavaScript's `Math.round`: to the nearest whole number, halves upward.
fn js_round(x: f64) -> f64 {
    let floor = x.floor();
    if x - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// JavaScript's `\s`: the white space and line breaks a regular expression's `\s` matches.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// A string literal's text (`"10 s"`, `'1 m'`, a template with no `${}`), following a name the
/// text defines.
fn string_value(code: &str, value: &str, depth: usize) -> Option<String> {
    let value = value.trim();
    let value = value.strip_suffix("as const").map_or(value, str::trim_end);
    for q in ['"', '\'', '`'] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            if inner.contains(q) || inner.contains('\\') || (q == '`' && inner.contains("${")) {
                return None;
            }
            return Some(inner.to_string());
        }
    }
    if depth < 4 && is_identifier(value) {
        let (_, defined) = definition(code, value)?;
        return string_value(code, defined, depth + 1);
    }
    None
}

/// `timeout`: whole milliseconds; 0 or less turns it off.
fn timeout_of(
    text: &str,
    code: &str,
    line: usize,
    value: &str,
    notes: &mut Vec<String>,
) -> Result<Span, Unreadable> {
    let n = number(code, value, 0).ok_or_else(|| {
        Unreadable::at(text, line, format!("`timeout: {value}` is not a number of milliseconds the lab can work out from the text"))
    })?;
    if n <= 0.0 {
        if n < 0.0 {
            notes.push(format!(
                "`timeout: {value}` is below 0, which turns the timeout off as 0 does."
            ));
        }
        return Ok(Span::ZERO);
    }
    if n.fract() != 0.0 {
        return Err(Unreadable::at(text, line, format!("`timeout: {value}` is not a whole number of milliseconds; the lab reads whole milliseconds")));
    }
    if n > MAX_TIMEOUT_MS {
        return Err(Unreadable::at(text, line, format!("`timeout: {value}` is more than {MAX_TIMEOUT_MS} ms, which Node runs after 1 ms instead")));
    }
    Ok(Span::from_millis(n as u64))
}

/// `ephemeralCache`: on for a `Map`, off for anything else (`false`).
fn cache_of(
    text: &str,
    code: &str,
    line: usize,
    value: &str,
    notes: &mut Vec<String>,
) -> Result<bool, Unreadable> {
    let is_map = |v: &str| {
        v.trim_start()
            .strip_prefix("new")
            .is_some_and(|r| r.trim_start().starts_with("Map"))
    };
    let mut v = value.trim().to_string();
    for _ in 0..4 {
        if !is_identifier(&v) || matches!(v.as_str(), "true" | "false" | "null" | "undefined") {
            break;
        }
        match definition(code, &v) {
            Some((_, defined)) => v = defined.trim().to_string(),
            None => {
                return Err(Unreadable::at(text, line, format!("`ephemeralCache: {value}`: the text does not say whether `{v}` is a `Map` (the cache) or `false` (none)")));
            }
        }
    }
    if is_map(&v) {
        return Ok(true);
    }
    match v.as_str() {
        "false" => Ok(false),
        "undefined" => Ok(true),
        _ => {
            notes.push(format!("`ephemeralCache: {value}` is not a `Map`, so the client keeps no cache, as with `false`."));
            Ok(false)
        }
    }
}

/// The name a value at `at` is assigned to on its line (`const ratelimit = new Ratelimit(`).
fn assigned_name(code: &str, at: usize) -> Option<String> {
    let before = code.get(..at)?;
    let line = before.rsplit('\n').next().unwrap_or(before).trim_end();
    let left = line.strip_suffix('=')?;
    if left.ends_with(['=', '!', '<', '>']) {
        return None;
    }
    let left = left.split(':').next().unwrap_or(left).trim_end();
    let start = left
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_identifier_char(*c))
        .last()
        .map(|(i, _)| i)?;
    let word = left.get(start..)?;
    is_identifier(word).then(|| word.to_string())
}

/// Whether `word` stands whole at `at` in `code`.
fn word_at(code: &str, at: usize, word: &str) -> bool {
    let before = code.get(..at).and_then(|b| b.chars().next_back());
    let after = code.get(at + word.len()..).and_then(|a| a.chars().next());
    !before.is_some_and(is_identifier_char) && !after.is_some_and(is_identifier_char)
}

/// The number a JavaScript expression makes: numbers as JavaScript writes them (`60_000`, `1e3`,
/// `0x10`), `+ - * /` and brackets, and names the text defines,
/// computed in doubles as JavaScript does.
fn number(code: &str, expr: &str, depth: usize) -> Option<f64> {
    if depth > 4 {
        return None;
    }
    let mut plain = String::new();
    let chars: Vec<char> = expr.trim().chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || chars[i] == '_'
                    || ((chars[i] == '+' || chars[i] == '-')
                        && matches!(chars[i - 1], 'e' | 'E')
                        && !chars[start..i].iter().any(|c| *c == 'x' || *c == 'X')))
            {
                i += 1;
            }
            let literal: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            plain.push_str(&format!("({})", js_number(&literal)?));
        } else if is_identifier_char(c) {
            let start = i;
            while i < chars.len() && (is_identifier_char(chars[i]) || chars[i] == '.') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            let (_, defined) = definition(code, &name)?;
            let value = number(code, defined, depth + 1)?;
            plain.push_str(&format!("({value})"));
        } else if "+-*/() \t\r\n".contains(c) {
            if c == '*' && chars.get(i + 1) == Some(&'*') {
                return None;
            }
            plain.push(c);
            i += 1;
        } else {
            return None;
        }
    }
    let value = arithmetic(&plain)?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::RowSettings;

    fn fields(text: &str) -> super::super::Fields {
        read(text).unwrap().products.upstash
    }

    fn refusal(text: &str) -> Unreadable {
        read(text).unwrap_err()
    }

    // @upstash/ratelimit 2.2.0 (npm), README.md "Basic Usage".
    const README: &str = r#"import { Ratelimit } from "@upstash/ratelimit"; // for deno: see above
import { Redis } from "@upstash/redis"; // see below for cloudflare and fastly adapters

// Create a new ratelimiter, that allows 10 requests per 10 seconds
const ratelimit = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.slidingWindow(10, "10 s"),
  analytics: true,
  /**
   * Optional prefix for the keys used in redis. This is useful if you want to share a redis
   * instance with other applications and want to avoid key collisions. The default prefix is
   * "@upstash/ratelimit"
   */
  prefix: "@upstash/ratelimit",
});

// Use a constant string to limit all requests with a single ratelimit
// Or use a userID, apiKey or ip address for individual limits.
const identifier = "api";
const { success } = await ratelimit.limit(identifier);
"#;

    // @upstash/ratelimit 2.2.0 (npm), README.md "Telemetry".
    const TELEMETRY: &str = r#"const ratelimit = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.slidingWindow(10, "10 s"),
  enableTelemetry: false,
});"#;

    // upstash/ratelimit-js 5b5448a, skills/algorithms.md, "Fixed Window" example.
    const FIXED_AND_MULTI_REGION: &str = r#"// 10 requests per 10 seconds
const regional = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.fixedWindow(10, "10 s"),
});

const multi = new MultiRegionRatelimit({
  redis: [new Redis({/* auth */}), new Redis({/* auth */})],
  limiter: MultiRegionRatelimit.fixedWindow(10, "10 s"),
});"#;

    // upstash/ratelimit-js 5b5448a, skills/algorithms.md, "Token Bucket" example.
    const TOKEN_BUCKET: &str = r#"// Bucket with max 10 tokens, refilling 5 tokens every 10s
const ratelimit = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.tokenBucket(5, "10 s", 10),
  analytics: true,
});"#;

    // upstash/ratelimit-js 5b5448a, skills/features.md, "Ephemeral Cache" and "Timeout".
    const CACHE: &str = r#"const cache = new Map();
const ratelimit = new Ratelimit({
  limiter: Ratelimit.slidingWindow(10, "10 s"),
  ephemeralCache: cache,
});"#;
    const TIMEOUT: &str = r#"const ratelimit = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.slidingWindow(10, "10 s"),
  timeout: 1000,
});"#;

    // upstash/ratelimit-js 5b5448a, examples/nextjs-middleware/middleware.ts.
    const NEXTJS: &str = r#"import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { type NextFetchEvent, type NextRequest, NextResponse } from "next/server";

const ratelimit = new Ratelimit({
  redis: Redis.fromEnv(),
  limiter: Ratelimit.fixedWindow(10, "10s"),
  ephemeralCache: new Map(),
  prefix: "@upstash/ratelimit",
  analytics: true,
});"#;

    // upstash/ratelimit-js 5b5448a, examples/cloudflare-workers/src/index.ts (shortened).
    const CACHED_FIXED: &str = r#"const cache = new Map();
      const ratelimit = new Ratelimit({
        redis: Redis.fromEnv(env),
        limiter: Ratelimit.cachedFixedWindow(5, "5 s"),
        ephemeralCache: cache,
        analytics: true
      });"#;

    // upstash/ratelimit-js 5b5448a, src/single.ts, the `RegionRatelimit` doc comment: its
    // arguments are the wrong way round, which the library refuses too (`ms(10)` throws).
    const SWAPPED: &str = r#" const { limit } = new Ratelimit({
    redis: Redis.fromEnv(),
    limiter: Ratelimit.slidingWindow(
      "30 m", // interval of 30 minutes
      10,     // Allow 10 requests per window of 30 minutes
    )
 })"#;

    const FIXTURES: &[&str] = &[
        README,
        TELEMETRY,
        FIXED_AND_MULTI_REGION,
        TOKEN_BUCKET,
        CACHE,
        TIMEOUT,
        NEXTJS,
        CACHED_FIXED,
        SWAPPED,
    ];

    #[test]
    fn the_readmes_limiter_is_a_sliding_window_of_10_per_10_seconds_with_the_defaults() {
        let from = read(README).unwrap();
        assert_eq!(from.row, "upstash-sliding");
        assert_eq!(from.name.as_deref(), Some("ratelimit"));
        assert_eq!(
            from.products.upstash,
            super::super::Fields {
                tokens: Some(10),
                window: Some(Span::from_secs(10)),
                timeout: Some(Span::from_secs(5)),
                latency: Some(Span::ZERO),
                cache: Some(true),
                ..Default::default()
            }
        );
        assert_eq!(from.second, None);
        assert_eq!(from.notes.len(), 2, "{:?}", from.notes);
        assert!(from.notes[0].starts_with("`analytics` records"));
        assert!(from.notes[1].starts_with("`prefix` only names"));
        assert!(read(TELEMETRY).unwrap().notes.is_empty());
    }

    #[test]
    fn the_algorithm_picks_the_row() {
        let from = read(FIXED_AND_MULTI_REGION).unwrap();
        assert_eq!(from.row, "upstash-fixed");
        assert_eq!(from.name.as_deref(), Some("regional"));
        assert_eq!(
            from.notes,
            vec!["The `MultiRegionRatelimit` on line 7 is not read: the lab runs the single-region `Ratelimit` only.".to_string()]
        );
        let from = read(TOKEN_BUCKET).unwrap();
        assert_eq!(from.row, "upstash-token");
        let f = from.products.upstash;
        assert_eq!(
            (f.refill, f.interval, f.max, f.tokens, f.window),
            (Some(5), Some(Span::from_secs(10)), Some(10), None, None)
        );
        let f = fields(NEXTJS);
        assert_eq!(
            (f.tokens, f.window, f.cache),
            (Some(10), Some(Span::from_secs(10)), Some(true))
        );
    }

    #[test]
    fn the_timeout_and_the_cache_are_read_as_the_client_takes_them() {
        assert_eq!(fields(TIMEOUT).timeout, Some(Span::from_secs(1)));
        assert_eq!(fields(CACHE).cache, Some(true));
        let off = "new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), ephemeralCache: false, timeout: 0 })";
        assert_eq!(
            (fields(off).cache, fields(off).timeout),
            (Some(false), Some(Span::ZERO))
        );
        let from = read("new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), ephemeralCache: true, timeout: -5 })").unwrap();
        assert_eq!(
            (from.products.upstash.cache, from.products.upstash.timeout),
            (Some(false), Some(Span::ZERO))
        );
        assert_eq!(from.notes.len(), 2, "{:?}", from.notes);
        assert!(from.notes[0].contains("turns the timeout off"));
        assert!(from.notes[1].contains("is not a `Map`"));
        assert_eq!(fields("new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), ephemeralCache: undefined })").cache, Some(true));
    }

    #[test]
    fn durations_are_read_as_the_librarys_ms_reads_them() {
        for (d, ms) in [
            ("10 s", 10_000),
            ("10s", 10_000),
            ("1 m", 60_000),
            ("100 ms", 100),
            ("1 h", 3_600_000),
            ("1 d", 86_400_000),
            ("1 w", 604_800_000),
            ("1.5 s", 1_500),
            ("0.5 ms", 1),
            ("1.0005 s", 1_001),
            ("10\ts", 10_000),
        ] {
            assert_eq!(duration_ms(d), Ok(ms), "{d}");
        }
        for d in [
            "10  s", "10 sec", "s", "-1 s", "1.s", ".5 s", "10 S", "10", " 10 s", "1e3 ms",
        ] {
            assert!(
                duration_ms(d)
                    .unwrap_err()
                    .contains("Unable to parse window size"),
                "{d}"
            );
        }
        assert!(duration_ms("0 s").unwrap_err().contains("at least 1 ms"));
        assert!(duration_ms("0.4 ms").unwrap_err().contains("at least 1 ms"));
    }

    #[test]
    fn each_kind_of_unreadable_limiter_is_refused_naming_its_line() {
        let cases: &[(&str, usize, &str)] = &[
            (SWAPPED, 4, "`tokens` is `\"30 m\"`, not a number the lab can work out from the text"),
            (CACHED_FIXED, 4, "`Ratelimit.cachedFixedWindow` counts in the client's memory and writes to Redis after; the lab runs `fixedWindow`, `slidingWindow` and `tokenBucket`"),
            ("const multi = new MultiRegionRatelimit({\n  limiter: MultiRegionRatelimit.slidingWindow(10, \"10 s\"),\n});", 1, "`MultiRegionRatelimit` keeps a count in each region and merges them later; the lab runs the single-region `Ratelimit` only"),
            ("new Ratelimit({\n  limiter: Ratelimit.fixedWindow(10, \"10 sec\"),\n})", 2, "\"10 sec\" is no duration `ms()` reads (\"Unable to parse window size\"): a number, at most one space, then ms, s, m, h, d or w"),
            ("Ratelimit.fixedWindow(10, \"0 s\")", 1, "\"0 s\" is under 1 ms once rounded: `ms()` refuses it (\"Window size must be at least 1 ms\")"),
            ("Ratelimit.fixedWindow(10, \"53 w\")", 1, "\"53 w\" is longer than the lab's longest window, 366 days"),
            ("Ratelimit.fixedWindow(10, windowSize)", 1, "`window` is `windowSize`, not a duration string such as \"10 s\" the lab can find in the text"),
            ("Ratelimit.fixedWindow(0, \"1 s\")", 1, "`tokens` is 0: the lab reads a whole number from 1 up"),
            ("Ratelimit.tokenBucket(0.5, \"1 s\", 10)", 1, "`refillRate` is 0.5: the lab reads a whole number from 1 up"),
            ("Ratelimit.tokenBucket(1, \"1 s\", 2e9)", 1, "`maxTokens` is 2e9, more than the lab's largest count, 1000000000"),
            ("Ratelimit.tokenBucket(1, \"1 s\")", 1, "`Ratelimit.tokenBucket` takes (refillRate, interval, maxTokens); this call has 2 arguments"),
            ("Ratelimit.fixedWindow(10)", 1, "`Ratelimit.fixedWindow` takes (tokens, window); this call has 1 argument"),
            ("new Ratelimit({\n  limiter: Ratelimit.fixedWindow(1, \"1 s\"),\n  timeout: 1.5,\n})", 3, "`timeout: 1.5` is not a whole number of milliseconds; the lab reads whole milliseconds"),
            ("new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), timeout: 2 ** 31 })", 1, "`timeout: 2 ** 31` is not a number of milliseconds the lab can work out from the text"),
            ("new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), timeout: 3000000000 })", 1, "`timeout: 3000000000` is more than 2147483647 ms, which Node runs after 1 ms instead"),
            ("new Ratelimit({ limiter: Ratelimit.fixedWindow(1, \"1 s\"), ephemeralCache: someCache })", 1, "`ephemeralCache: someCache`: the text does not say whether `someCache` is a `Map` (the cache) or `false` (none)"),
            ("\nconst r = new Ratelimit({ redis, limiter })", 2, "`new Ratelimit(...)` whose `limiter` is not written as `Ratelimit.fixedWindow(...)`, `Ratelimit.slidingWindow(...)` or `Ratelimit.tokenBucket(...)`"),
            ("Ratelimit.slidingWindow(10, \"10 s\"", 1, "the `Ratelimit.slidingWindow(` call is never closed"),
        ];
        for (text, line, why) in cases {
            let e = refusal(text);
            assert_eq!((e.line, e.why.as_str()), (*line, *why), "{text}");
        }
        let e = refusal("import x from 'y'");
        assert_eq!(e.line, 0);
    }

    #[test]
    fn a_duration_or_count_named_in_the_text_is_followed() {
        let text = "const WINDOW = \"1 m\";\nconst TOKENS = 6 * 10;\nexport const limiter = new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(TOKENS, WINDOW) });";
        let from = read(text).unwrap();
        assert_eq!(from.name.as_deref(), Some("limiter"));
        assert_eq!(
            (from.products.upstash.tokens, from.products.upstash.window),
            (Some(60), Some(Span::from_secs(60)))
        );
    }

    #[test]
    fn the_first_of_several_limiters_sets_the_row_and_the_others_are_named() {
        let text = "const a = new Ratelimit({ redis, limiter: Ratelimit.tokenBucket(1, \"1 s\", 5) });\nconst b = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(100, \"1 h\"), timeout: 10 });";
        let from = read(text).unwrap();
        assert_eq!(from.row, "upstash-token");
        assert_eq!(from.name.as_deref(), Some("a"));
        // The timeout is the first limiter's own (left out: 5 s), not the second's.
        assert_eq!(from.products.upstash.timeout, Some(Span::from_secs(5)));
        assert_eq!(from.notes, vec!["Another limiter, `Ratelimit.slidingWindow` on line 2, is in the text too; only the first, `Ratelimit.tokenBucket` on line 1, sets the row, since a row runs one limiter.".to_string()]);
    }

    #[test]
    fn it_recognises_its_own_words_and_no_other_products() {
        for own in [README, TOKEN_BUCKET, "Ratelimit.fixedWindow(1, \"1 s\")"] {
            assert!(recognises(own), "{own}");
        }
        for other in OTHER_PRODUCTS {
            assert!(!recognises(other), "{other}");
        }
    }

    /// One line of each other product's config.
    const OTHER_PRODUCTS: &[&str] = &[
        "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
        "let lim = RateLimiter::direct(Quota::per_second(nonzero!(50u32)));",
        "CL.THROTTLE user123 15 30 60 1",
        "- name: envoy.filters.http.local_ratelimit\n  token_bucket: { max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s }",
        "[[ratelimits]]\nname = \"MY_RATE_LIMITER\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
        "{ \"ratelimits\": [{ \"name\": \"L\", \"namespace_id\": \"1001\", \"simple\": { \"limit\": 100, \"period\": 60 } }] }",
        "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
        "app.use(rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 }))",
        "from limits import parse; item = parse(\"10/minute\")",
        "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
        "{ \"RateLimiting\": { \"PermitLimit\": 4, \"Window\": \"00:00:12\", \"QueueLimit\": 2 } }",
        "RateLimiter limiter = RateLimiter.create(5.0);",
    ];

    #[test]
    fn no_text_cut_anywhere_makes_the_reader_panic() {
        for fixture in FIXTURES.iter().chain(OTHER_PRODUCTS) {
            for (at, _) in fixture.char_indices() {
                let cut = &fixture[..at];
                let _ = recognises(cut);
                let _ = read(cut);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_at_all_makes_the_reader_panic(text in "[ -~\\n\\t{}()\\[\\]'\"`/*é\u{2028}]{0,80}") {
            let _ = recognises(&text);
            let _ = read(&text);
            let _ = duration_ms(&text);
            let _ = read(&format!("new Ratelimit({{ limiter: Ratelimit.tokenBucket({text}"));
        }
    }

    #[test]
    fn each_rows_own_snippet_reads_back_as_the_same_limiter() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut variants = vec![super::super::Fields::default()];
        for timeout in [
            Span::ZERO,
            Span::from_millis(1),
            Span::from_secs(5),
            Span::from_secs(3600),
        ] {
            for cache in [false, true] {
                variants.push(super::super::Fields {
                    timeout: Some(timeout),
                    cache: Some(cache),
                    ..Default::default()
                });
            }
        }
        variants.push(super::super::Fields {
            tokens: Some(MAX_COUNT),
            window: Some(Span::from_millis(1)),
            refill: Some(1),
            interval: Some(MAX_WINDOW),
            max: Some(3),
            ..Default::default()
        });
        variants.push(super::super::Fields {
            tokens: Some(1),
            window: Some(Span::from_millis(1500)),
            refill: Some(MAX_COUNT),
            interval: Some(Span::from_millis(7)),
            max: Some(MAX_COUNT),
            ..Default::default()
        });
        let rows = [
            (
                "upstash-fixed",
                "Upstash fixedWindow",
                UpstashKind::FixedWindow,
            ),
            (
                "upstash-sliding",
                "Upstash slidingWindow",
                UpstashKind::SlidingWindow,
            ),
            (
                "upstash-token",
                "Upstash tokenBucket",
                UpstashKind::TokenBucket,
            ),
        ];
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for variant in &variants {
                    for (slug, label, kind) in rows {
                        let products = ProductSettings {
                            upstash: variant.clone(),
                            ..Default::default()
                        };
                        let s = RowSettings {
                            limit,
                            window,
                            products: &products,
                        };
                        let written = super::super::snippet::write(label, kind, &s);
                        let wanted = match &written.nearest {
                            Some(n) => n.products.upstash.params(kind, s.limit, s.window),
                            None => s.products.upstash.params(kind, s.limit, s.window),
                        };
                        let from =
                            read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                        assert_eq!(from.row, slug);
                        let got = from.products.upstash.params(kind, 3, Span::from_secs(7));
                        assert_eq!(got, wanted, "{}", written.text);
                        assert!(recognises(&written.text));
                    }
                }
            }
        }
    }
}
