//! Reading .NET's `System.Threading.RateLimiting` options, as ASP.NET Core's rate-limiting
//! middleware is configured with them, into the row they run (`profiles::config_text`).
//!
//! Forms read (from the ASP.NET Core article "Rate limiting middleware in ASP.NET Core",
//! learn.microsoft.com aspnetcore/performance/rate-limit, and its samples in dotnet/AspNetCore.Docs
//! `aspnetcore/performance/rate-limit/samples/Program.cs`; the options classes as `mod.rs` cites
//! them from dotnet/runtime):
//! - C#: `options.AddFixedWindowLimiter(policyName: "fixed", options => { options.PermitLimit = 4;
//!   options.Window = TimeSpan.FromSeconds(12); .. })`, `AddSlidingWindowLimiter`,
//!   `AddTokenBucketLimiter`; `new FixedWindowRateLimiterOptions { PermitLimit = 4, .. }` (also
//!   inside `RateLimitPartition.GetFixedWindowLimiter(..)`), and the preview API's named
//!   constructor arguments (`new FixedWindowRateLimiterOptions(permitLimit: 4, window: ..)`);
//! - `TimeSpan.FromSeconds/FromMilliseconds/FromMinutes/FromHours/FromDays/FromTicks(x)`,
//!   `new TimeSpan(h, m, s)` and its other constructors, `TimeSpan.Parse("00:00:10")`;
//! - `appsettings.json` sections holding the same keys, numbers of seconds for `Window` and
//!   `ReplenishmentPeriod` (the article's `MyRateLimitOptions`) or TimeSpan strings.
//!
//! An option left out is the options class's own default (`QueueLimit` 0, `QueueProcessingOrder`
//! `OldestFirst`, `AutoReplenishment` true); `PermitLimit`/`TokenLimit`, `Window`/
//! `ReplenishmentPeriod`, `SegmentsPerWindow` and `TokensPerPeriod` have none the limiter accepts
//! (0 and `TimeSpan.Zero` are refused by its constructor), so a config without them is refused.

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::profiles::config_text::{
    arithmetic, line_of, whole_number, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;
use crate::core::time::Span;

use super::{Fields, QueueProcessingOrder, TICKS_PER_MICRO};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "the options (`PermitLimit`, `Window`, `TokenLimit`, ...) in C# or `appsettings.json`",
};

/// The option keys, as the options classes spell them.
const KEYS: [&str; 9] = [
    "PermitLimit",
    "Window",
    "SegmentsPerWindow",
    "TokenLimit",
    "TokensPerPeriod",
    "ReplenishmentPeriod",
    "QueueLimit",
    "QueueProcessingOrder",
    "AutoReplenishment",
];

fn recognises(text: &str) -> bool {
    [
        "PermitLimit",
        "permitLimit",
        "TokenLimit",
        "TokensPerPeriod",
        "SegmentsPerWindow",
        "WindowLimiter",
        "TokenBucketLimiter",
        "RateLimiterOptions",
        "System.Threading.RateLimiting",
    ]
    .iter()
    .any(|w| text.contains(w))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Fixed,
    Sliding,
    Token,
    Concurrency,
}

impl Kind {
    fn row(self) -> &'static str {
        match self {
            Kind::Fixed => "dotnet-fixed",
            Kind::Sliding => "dotnet-sliding",
            Kind::Token => "dotnet-token",
            Kind::Concurrency => "dotnet-concurrency",
        }
    }

    fn class(self) -> &'static str {
        match self {
            Kind::Fixed => "FixedWindowRateLimiter",
            Kind::Sliding => "SlidingWindowRateLimiter",
            Kind::Token => "TokenBucketRateLimiter",
            Kind::Concurrency => "ConcurrencyLimiter",
        }
    }
}

/// The words that name a limiter's kind: a call whose parentheses hold its options, or an
/// options class whose initializer or constructor follows it.
const KIND_WORDS: [(&str, Kind, bool); 12] = [
    ("AddFixedWindowLimiter", Kind::Fixed, true),
    ("GetFixedWindowLimiter", Kind::Fixed, true),
    ("FixedWindowRateLimiterOptions", Kind::Fixed, false),
    ("AddSlidingWindowLimiter", Kind::Sliding, true),
    ("GetSlidingWindowLimiter", Kind::Sliding, true),
    ("SlidingWindowRateLimiterOptions", Kind::Sliding, false),
    ("AddTokenBucketLimiter", Kind::Token, true),
    ("GetTokenBucketLimiter", Kind::Token, true),
    ("TokenBucketRateLimiterOptions", Kind::Token, false),
    ("AddConcurrencyLimiter", Kind::Concurrency, true),
    ("GetConcurrencyLimiter", Kind::Concurrency, true),
    ("ConcurrencyLimiterOptions", Kind::Concurrency, false),
];

/// The text with its comments (`//`, `/* */`) blanked, every byte kept, so offsets and lines stay.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    let blank = |out: &mut String, c: char| {
        if c == '\n' {
            out.push('\n');
        } else {
            for _ in 0..c.len_utf8() {
                out.push(' ');
            }
        }
    };
    while let Some((at, c)) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some((_, d)) = chars.next() {
                        out.push(d);
                    }
                } else if c == q || c == '\n' {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if text[at..].starts_with("//") => {
                blank(&mut out, c);
                while let Some(&(_, d)) = chars.peek() {
                    if d == '\n' {
                        break;
                    }
                    blank(&mut out, d);
                    chars.next();
                }
            }
            None if text[at..].starts_with("/*") => {
                blank(&mut out, c);
                let mut last = ' ';
                for (_, d) in chars.by_ref() {
                    blank(&mut out, d);
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            None => out.push(c),
        }
    }
    out
}

/// The closing bracket matching the one at `open`, skipping strings.
fn closing(code: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in code.get(open..)?.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' => quote = Some(c),
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where `key` is set in `code[from..to]`: `Key = v`, `key: v` or `"Key": v` (any case, a whole
/// word, not `==`), with the value as written, up to its end.
fn option(code: &str, from: usize, to: usize, key: &str) -> Option<(usize, String)> {
    let lower = code.get(from..to)?.to_ascii_lowercase();
    let wanted = key.to_ascii_lowercase();
    let mut search = 0;
    while let Some(pos) = lower[search..].find(&wanted) {
        let at = search + pos;
        search = at + wanted.len();
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if lower[..at].chars().next_back().is_some_and(word)
            || lower[search..].chars().next().is_some_and(word)
        {
            continue;
        }
        let rest = &code[from + search..to];
        let rest = rest.strip_prefix('"').unwrap_or(rest).trim_start();
        let value = match rest.strip_prefix('=') {
            Some(v) if !v.starts_with('=') => v,
            Some(_) => continue,
            None => match rest.strip_prefix(':') {
                Some(v) => v,
                None => continue,
            },
        };
        let value = value.trim_start();
        let start = to - value.len();
        let mut depth = 0usize;
        let mut quote = false;
        let mut end = to;
        for (i, c) in value.char_indices() {
            match c {
                '"' => quote = !quote,
                _ if quote => {}
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ',' | ';' | '}' | ')' | ']' | '\n' if depth == 0 => {
                    end = start + i;
                    break;
                }
                _ => {}
            }
        }
        return Some((
            line_of(code, from + at),
            code[start..end].trim().to_string(),
        ));
    }
    None
}

/// One limiter's options: where they are written, their kind, and the limiter's name.
#[derive(Clone, Debug)]
struct Block {
    from: usize,
    to: usize,
    line: usize,
    kind: Option<Kind>,
    name: Option<String>,
}

/// Every block of options in the text, in order.
fn blocks(code: &str) -> Vec<Block> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let lower = code.to_ascii_lowercase();
    for key in KEYS {
        let lower_key = key.to_ascii_lowercase();
        for (at, _) in lower.match_indices(&lower_key) {
            let word_before = code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word_before
                || option(code, at, code.len(), key).is_none_or(|(l, _)| l != line_of(code, at))
            {
                continue;
            }
            // The innermost bracket around it.
            let mut depth = 0usize;
            let mut open = None;
            for (i, c) in code[..at].char_indices().rev() {
                match c {
                    ')' | '}' | ']' => depth += 1,
                    '(' | '{' | '[' if depth > 0 => depth -= 1,
                    '(' | '{' | '[' => {
                        open = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let (from, to) = match open.and_then(|o| Some((o, closing(code, o)?))) {
                Some(r) => r,
                None => (0, code.len()),
            };
            if !ranges.contains(&(from, to)) {
                ranges.push((from, to));
            }
        }
    }
    // A block inside another (a TimeSpan's parentheses) is part of it.
    let outer: Vec<(usize, usize)> = ranges
        .iter()
        .copied()
        .filter(|&(f, t)| {
            !ranges
                .iter()
                .any(|&(f2, t2)| (f2, t2) != (f, t) && f2 <= f && t <= t2)
        })
        .collect();
    let mut out: Vec<Block> = outer
        .into_iter()
        .map(|(from, to)| {
            let (kind, name) = kind_of(code, from);
            Block {
                from,
                to,
                line: line_of(code, from),
                kind,
                name,
            }
        })
        .collect();
    out.sort_unstable_by_key(|b| b.from);
    out
}

/// The kind named just before a block at `from` (its options class) or by the call around it,
/// and the policy's name when a call gives one.
fn kind_of(code: &str, from: usize) -> (Option<Kind>, Option<String>) {
    let mut best: Option<(usize, Kind)> = None;
    let mut name: Option<(usize, String)> = None;
    for (word, kind, is_call) in KIND_WORDS {
        for (at, _) in code[..from.min(code.len())].match_indices(word) {
            let after = &code[at + word.len()..];
            let open = at + word.len() + (after.len() - after.trim_start().len());
            let applies = if is_call {
                code[open..].starts_with('(')
                    && closing(code, open).is_some_and(|close| close >= from)
            } else {
                // `new XOptions {` or `new XOptions(` or `new XOptions() {` right before.
                let gap = code[at + word.len()..from].trim();
                gap.is_empty() || gap == "()"
            };
            if applies && best.is_none_or(|(b, _)| at > b) {
                best = Some((at, kind));
            }
            if applies && is_call && name.as_ref().is_none_or(|(b, _)| at > *b) {
                if let Some(n) = policy_name(code, open) {
                    name = Some((at, n));
                }
            }
        }
    }
    match best {
        Some((_, kind)) => (Some(kind), name.map(|(_, n)| n)),
        None => (None, section_name(code, from)),
    }
}

/// `policyName: "fixed"` or the call's first argument, a string or a variable set to one.
fn policy_name(code: &str, open: usize) -> Option<String> {
    let close = closing(code, open)?;
    let inside = &code[open + 1..close];
    let first = inside.split(',').next()?.trim();
    let value = first
        .strip_prefix("policyName:")
        .map(str::trim)
        .unwrap_or(first);
    if let Some(s) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return Some(s.to_string());
    }
    if !value.is_empty() && value.chars().all(|c| c.is_alphanumeric() || c == '_') {
        // `var fixedPolicy = "fixed";`
        let (_, v) = option(code, 0, open, value)?;
        return v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .map(str::to_string);
    }
    None
}

/// The JSON key of the object opening at `from`: `"MyRateLimitOptions": {`.
fn section_name(code: &str, from: usize) -> Option<String> {
    let before = code.get(..from)?.trim_end().strip_suffix(':')?.trim_end();
    let before = before.strip_suffix('"')?;
    let start = before.rfind('"')?;
    Some(before[start + 1..].to_string()).filter(|n| !n.is_empty())
}

/// A `TimeSpan` written in C# or JSON, in TimeSpan ticks; JSON numbers are seconds.
fn timespan(value: &str) -> Result<i128, String> {
    let v = value.trim();
    let number = |x: &str| -> Result<f64, String> {
        let x = x.trim();
        if x.contains('/') && !x.contains('.') {
            return Err(format!(
                "`{x}` divides whole numbers, which C# truncates: write the value"
            ));
        }
        arithmetic(x).ok_or_else(|| format!("`{x}` is not a number"))
    };
    // `Interval(value, scale)`: the double `value × scale`, truncated to whole ticks.
    let scaled = |x: &str, scale: f64| -> Result<i128, String> {
        let ticks = number(x)? * scale;
        if !ticks.is_finite() || ticks.abs() >= 9.2e18 {
            return Err("the TimeSpan overflows".to_string());
        }
        Ok(ticks.trunc() as i128)
    };
    for (method, scale) in [
        ("FromTicks", 1.0),
        ("FromMilliseconds", 1e4),
        ("FromSeconds", 1e7),
        ("FromMinutes", 6e8),
        ("FromHours", 3.6e10),
        ("FromDays", 8.64e11),
    ] {
        if let Some(rest) = v
            .strip_prefix("TimeSpan.")
            .and_then(|r| r.strip_prefix(method))
        {
            let inner = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("`{v}` is not read"))?;
            return scaled(inner, scale);
        }
    }
    if v == "TimeSpan.Zero" {
        return Ok(0);
    }
    if let Some(inner) = v
        .strip_prefix("new TimeSpan(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let parts: Vec<i128> = inner
            .split(',')
            .map(|p| whole_signed(p).ok_or_else(|| format!("`{}` is not a whole number", p.trim())))
            .collect::<Result<_, _>>()?;
        const S: i128 = 10_000_000;
        return match parts.as_slice() {
            [ticks] => Ok(*ticks),
            [h, m, s] => Ok((h * 3600 + m * 60 + s) * S),
            [d, h, m, s] => Ok((d * 86_400 + h * 3600 + m * 60 + s) * S),
            [d, h, m, s, ms] => Ok((d * 86_400 + h * 3600 + m * 60 + s) * S + ms * 10_000),
            _ => Err(format!("`{v}` is no TimeSpan constructor")),
        };
    }
    if let Some(inner) = v
        .strip_prefix("TimeSpan.Parse(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let s = inner.trim();
        let s = s
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .ok_or_else(|| format!("`{v}` is not read"))?;
        return parse_timespan(s).ok_or_else(|| format!("TimeSpan.Parse cannot read \"{s}\""));
    }
    if let Some(s) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        // The configuration binder reads a TimeSpan string with `TimeSpan.Parse`.
        return parse_timespan(s).ok_or_else(|| format!("TimeSpan.Parse cannot read \"{s}\""));
    }
    scaled(v, 1e7)
}

fn whole_signed(text: &str) -> Option<i128> {
    let v = arithmetic(text.trim())?;
    (v.fract() == 0.0 && v.abs() < 1e15).then_some(v as i128)
}

/// `TimeSpan.Parse`'s invariant form `[-][d.]hh:mm[:ss[.fffffff]]`, or `d` alone (days).
fn parse_timespan(s: &str) -> Option<i128> {
    let s = s.trim();
    let (sign, s) = match s.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, s),
    };
    let digits = |x: &str| -> Option<i128> {
        (!x.is_empty() && x.len() <= 10 && x.bytes().all(|b| b.is_ascii_digit()))
            .then(|| x.parse().ok())
            .flatten()
    };
    const S: i128 = 10_000_000;
    if !s.contains(':') {
        return Some(sign * digits(s)? * 86_400 * S);
    }
    let parts: Vec<&str> = s.split(':').collect();
    let (days, hours) = match parts.first()?.split_once('.') {
        Some((d, h)) => (digits(d)?, digits(h)?),
        None => (0, digits(parts.first()?)?),
    };
    let minutes = digits(parts.get(1)?)?;
    let (seconds, fraction) = match parts.get(2) {
        None => (0, 0),
        Some(p) => match p.split_once('.') {
            Some((sec, f)) if !f.is_empty() && f.len() <= 7 => {
                let padded = format!("{f:0<7}");
                (digits(sec)?, digits(&padded)?)
            }
            Some(_) => return None,
            None => (digits(p)?, 0),
        },
    };
    if parts.len() > 3 || hours > 23 || minutes > 59 || seconds > 59 {
        return None;
    }
    Some(sign * ((days * 86_400 + hours * 3600 + minutes * 60 + seconds) * S + fraction))
}

/// What a block sets, read.
struct Options {
    fields: Fields,
    auto_replenishment: bool,
}

fn count_option(
    text: &str,
    code: &str,
    b: &Block,
    key: &str,
    min: u64,
) -> Result<Option<u64>, Unreadable> {
    let Some((line, value)) = option(code, b.from, b.to, key) else {
        return Ok(None);
    };
    let n = whole_number(value.trim_matches('"'), 0).ok_or_else(|| {
        Unreadable::at(
            text,
            line,
            format!("`{key}` is `{value}`, not a whole number"),
        )
    })?;
    if n < min {
        return Err(Unreadable::at(
            text,
            line,
            format!("{key} must be set to a value greater than {}.", min - 1),
        ));
    }
    if n > MAX_COUNT {
        return Err(Unreadable::at(
            text,
            line,
            format!("a {key} of {n} is more than the lab holds ({MAX_COUNT})"),
        ));
    }
    Ok(Some(n))
}

fn span_option(text: &str, code: &str, b: &Block, key: &str) -> Result<Option<Span>, Unreadable> {
    let Some((line, value)) = option(code, b.from, b.to, key) else {
        return Ok(None);
    };
    let ticks = timespan(&value).map_err(|why| Unreadable::at(text, line, why))?;
    if ticks <= 0 {
        return Err(Unreadable::at(
            text,
            line,
            format!("{key} must be set to a value greater than TimeSpan.Zero."),
        ));
    }
    let ticks = ticks as u128;
    if !ticks.is_multiple_of(u128::from(TICKS_PER_MICRO)) {
        return Err(Unreadable::at(
            text,
            line,
            format!("a {key} of {ticks} ticks is not a whole number of microseconds, which the lab's time counts in"),
        ));
    }
    let micros = ticks / u128::from(TICKS_PER_MICRO);
    if micros > u128::from(MAX_WINDOW.micros()) {
        return Err(Unreadable::at(
            text,
            line,
            format!("a {key} over 366 days is longer than the lab holds"),
        ));
    }
    Ok(Some(Span(micros as u64)))
}

fn read_options(text: &str, code: &str, b: &Block, kind: Kind) -> Result<Options, Unreadable> {
    let (limit_key, window_key) = match kind {
        Kind::Token => ("TokenLimit", "ReplenishmentPeriod"),
        _ => ("PermitLimit", "Window"),
    };
    let required = |what: &str| {
        Unreadable::at(
            text,
            b.line,
            format!(
                "the {} options set no `{what}`, which has no default the limiter accepts",
                kind.class()
            ),
        )
    };
    let limit = count_option(text, code, b, limit_key, 1)?.ok_or_else(|| required(limit_key))?;
    let window = span_option(text, code, b, window_key)?.ok_or_else(|| required(window_key))?;
    let segments = count_option(text, code, b, "SegmentsPerWindow", 1)?;
    let per_period = count_option(text, code, b, "TokensPerPeriod", 1)?;
    if kind == Kind::Sliding && segments.is_none() {
        return Err(required("SegmentsPerWindow"));
    }
    if kind == Kind::Token && per_period.is_none() {
        return Err(required("TokensPerPeriod"));
    }
    let queue = count_option(text, code, b, "QueueLimit", 0)?.unwrap_or(0);
    let order = match option(code, b.from, b.to, "QueueProcessingOrder") {
        None => QueueProcessingOrder::OldestFirst,
        Some((line, v)) => {
            let v = v.trim_matches('"');
            let v = v.strip_prefix("QueueProcessingOrder.").unwrap_or(v);
            match v {
                "OldestFirst" | "0" => QueueProcessingOrder::OldestFirst,
                "NewestFirst" | "1" => QueueProcessingOrder::NewestFirst,
                _ => {
                    return Err(Unreadable::at(
                        text,
                        line,
                        format!("`QueueProcessingOrder` is `{v}`: OldestFirst or NewestFirst"),
                    ))
                }
            }
        }
    };
    let auto_replenishment = match option(code, b.from, b.to, "AutoReplenishment") {
        None => true,
        Some((line, v)) => match v.trim_matches('"').to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(Unreadable::at(
                    text,
                    line,
                    format!("`AutoReplenishment` is `{v}`, not true or false"),
                ))
            }
        },
    };
    Ok(Options {
        fields: Fields {
            limit: Some(limit),
            window: Some(window),
            segments,
            per_period,
            queue: Some(queue),
            order: Some(order),
        },
        auto_replenishment,
    })
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = without_comments(text);
    let all = blocks(&code);
    let mut notes = Vec::new();
    let Some(first) = all.iter().find(|b| b.kind != Some(Kind::Concurrency)) else {
        return Err(match all.first() {
            Some(b) => Unreadable::at(
                text,
                b.line,
                "the concurrency limiter limits requests in flight, not requests over time; the lab does not model it",
            ),
            None => Unreadable::whole(
                "no limiter options in it: expected `PermitLimit` and `Window` (or `TokenLimit`, `TokensPerPeriod` and `ReplenishmentPeriod`) in C# or appsettings.json",
            ),
        });
    };
    let kind = match first.kind {
        Some(kind) => kind,
        None => {
            let has = |key: &str| option(&code, first.from, first.to, key).is_some();
            let (kind, why) = if has("TokenLimit") || has("TokensPerPeriod") {
                (Kind::Token, "it sets `TokenLimit`/`TokensPerPeriod`")
            } else if has("SegmentsPerWindow") {
                (Kind::Sliding, "it sets `SegmentsPerWindow`")
            } else {
                (
                    Kind::Fixed,
                    "it sets neither `SegmentsPerWindow` nor `TokenLimit`",
                )
            };
            notes.push(format!(
                "No limiter is named, so the options are taken as a {}'s: {why}.",
                kind.class()
            ));
            if has("Window") || has("ReplenishmentPeriod") {
                notes.push(
                    "A number for `Window` or `ReplenishmentPeriod` is read as seconds, as the ASP.NET Core article's `MyRateLimitOptions` passes it to `TimeSpan.FromSeconds`.".to_string(),
                );
            }
            kind
        }
    };
    let options = read_options(text, &code, first, kind)?;
    if !options.auto_replenishment {
        let line =
            option(&code, first.from, first.to, "AutoReplenishment").map_or(first.line, |(l, _)| l);
        return Err(Unreadable::at(
            text,
            line,
            "with `AutoReplenishment = false` permits come back only when the application calls `TryReplenish`; the lab runs `AutoReplenishment = true`",
        ));
    }
    let fields = options.fields;
    let built = match kind {
        Kind::Sliding => fields.sliding(1, Span::from_secs(1)).build(),
        Kind::Token => fields.token(1, Span::from_secs(1)).build(),
        _ => fields.fixed(1, Span::from_secs(1)).build(),
    };
    if let Err(e) = built {
        return Err(Unreadable::at(text, first.line, e.to_string()));
    }
    let first_name = first
        .name
        .as_ref()
        .map_or_else(|| kind.class().to_string(), |n| format!("`{n}`"));
    for other in all.iter().filter(|b| b.from != first.from) {
        let what = other.kind.map_or("limiter", Kind::class);
        let named = other
            .name
            .as_ref()
            .map_or_else(String::new, |n| format!(" `{n}`"));
        notes.push(format!(
            "The {what}{named} (line {}) is set up too; the first, {first_name}, sets the row.",
            other.line
        ));
    }
    if code.contains("CreateChained") {
        notes.push(
            "`CreateChained` combines several limiters; the lab runs only the first one read."
                .to_string(),
        );
    }
    let products = ProductSettings {
        dotnet: fields,
        ..ProductSettings::default()
    };
    Ok(FromConfig {
        row: kind.row(),
        name: first.name.clone(),
        products,
        second: None,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::dotnet::{FIXED_ROW, SLIDING_ROW, TOKEN_ROW};
    use crate::core::profiles::{RowSettings, SnippetOf};

    fn reads(text: &str) -> FromConfig {
        match read(text) {
            Ok(r) => r,
            Err(e) => panic!("{e}\n{text}"),
        }
    }

    fn refusal(text: &str) -> Unreadable {
        read(text).expect_err(text)
    }

    fn fields(
        limit: u64,
        window: Span,
        segments: Option<u64>,
        per_period: Option<u64>,
        queue: u64,
    ) -> Fields {
        Fields {
            limit: Some(limit),
            window: Some(window),
            segments,
            per_period,
            queue: Some(queue),
            order: Some(QueueProcessingOrder::OldestFirst),
        }
    }

    // ASP.NET Core docs, "Rate limiting middleware in ASP.NET Core" (learn.microsoft.com,
    // aspnetcore/performance/rate-limit), "Fixed window limiter" sample.
    const DOCS_FIXED: &str = r#"using Microsoft.AspNetCore.RateLimiting;
using System.Threading.RateLimiting;

var builder = WebApplication.CreateBuilder(args);

builder.Services.AddRateLimiter(_ => _
    .AddFixedWindowLimiter(policyName: "fixed", options =>
    {
        options.PermitLimit = 4;
        options.Window = TimeSpan.FromSeconds(12);
        options.QueueProcessingOrder = QueueProcessingOrder.OldestFirst;
        options.QueueLimit = 2;
    }));
"#;

    // dotnet/AspNetCore.Docs db6f8d1, aspnetcore/performance/rate-limit/samples/Program.cs,
    // `snippet_fixed` (the preview API's constructor with named arguments).
    const DOCS_PREVIEW_FIXED: &str = r#"app.UseRateLimiter(new RateLimiterOptions()
    .AddFixedWindowLimiter(policyName: "fixed",
          new FixedWindowRateLimiterOptions(permitLimit: 4,
          window: TimeSpan.FromSeconds(12),
          queueProcessingOrder: QueueProcessingOrder.OldestFirst,
          queueLimit: 2)));
"#;

    // ASP.NET Core docs, the same article, `appsettings.json` of the `MyRateLimitOptions` sample.
    const DOCS_APPSETTINGS: &str = r#"{
  "MyRateLimitOptions": {
    "PermitLimit": 4,
    "Window": 12,
    "ReplenishmentPeriod": 2,
    "QueueLimit": 2,
    "SegmentsPerWindow": 8,
    "TokenLimit": 8,
    "TokenLimit2": 12,
    "TokensPerPeriod": 4,
    "AutoReplenishment": true
  }
}"#;

    // ASP.NET Core docs, the same article, "Sliding window limiter" and "Token bucket limiter"
    // samples, with the option values of its `MyRateLimitOptions` written in.
    const DOCS_SLIDING: &str = r#"builder.Services.AddRateLimiter(_ => _
    .AddSlidingWindowLimiter(policyName: slidingPolicy, options =>
    {
        options.PermitLimit = 4;
        options.Window = TimeSpan.FromSeconds(12);
        options.SegmentsPerWindow = 8;
        options.QueueProcessingOrder = QueueProcessingOrder.OldestFirst;
        options.QueueLimit = 2;
    }));
var slidingPolicy = "sliding";
"#;
    const DOCS_TOKEN: &str = r#"var tokenPolicy = "token";
builder.Services.AddRateLimiter(_ => _
    .AddTokenBucketLimiter(policyName: tokenPolicy, options =>
    {
        options.TokenLimit = 8;
        options.QueueProcessingOrder = QueueProcessingOrder.OldestFirst;
        options.QueueLimit = 2;
        options.ReplenishmentPeriod = TimeSpan.FromSeconds(2);
        options.TokensPerPeriod = 4;
        options.AutoReplenishment = true;
    }));
"#;

    // The same article, "Limiter with OnRejected, RetryAfter, and GlobalLimiter": a partitioned
    // global limiter (values written in).
    const DOCS_PARTITIONED: &str = r#"builder.Services.AddRateLimiter(limiterOptions =>
{
    limiterOptions.GlobalLimiter = PartitionedRateLimiter.Create<HttpContext, IPAddress>(context =>
    {
        IPAddress? remoteIpAddress = context.Connection.RemoteIpAddress;
        return RateLimitPartition.GetTokenBucketLimiter
            (remoteIpAddress!, _ =>
                new TokenBucketRateLimiterOptions
                {
                    TokenLimit = 12,
                    QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
                    QueueLimit = 2,
                    ReplenishmentPeriod = TimeSpan.FromSeconds(2),
                    TokensPerPeriod = 4,
                    AutoReplenishment = true
                });
    });
    limiterOptions.AddConcurrencyLimiter(policyName: "get", options =>
    {
        options.PermitLimit = 2;
        options.QueueLimit = 2;
    });
});
"#;

    #[test]
    fn the_docs_fixed_window_sample_reads_as_its_policy() {
        let r = reads(DOCS_FIXED);
        assert_eq!(r.row, "dotnet-fixed");
        assert_eq!(r.name.as_deref(), Some("fixed"));
        assert_eq!(
            r.products.dotnet,
            fields(4, Span::from_secs(12), None, None, 2)
        );
        assert!(r.notes.is_empty(), "{:?}", r.notes);
        let r = reads(DOCS_PREVIEW_FIXED);
        assert_eq!(r.row, "dotnet-fixed");
        assert_eq!(r.name.as_deref(), Some("fixed"));
        assert_eq!(
            r.products.dotnet,
            fields(4, Span::from_secs(12), None, None, 2)
        );
    }

    #[test]
    fn the_docs_sliding_and_token_samples_read_with_their_policy_variables() {
        let r = reads(DOCS_SLIDING);
        assert_eq!(r.row, "dotnet-sliding");
        assert_eq!(
            r.name.as_deref(),
            None,
            "the variable is set after the call"
        );
        assert_eq!(
            r.products.dotnet,
            fields(4, Span::from_secs(12), Some(8), None, 2)
        );
        let r = reads(DOCS_TOKEN);
        assert_eq!(r.row, "dotnet-token");
        assert_eq!(r.name.as_deref(), Some("token"));
        assert_eq!(
            r.products.dotnet,
            fields(8, Span::from_secs(2), None, Some(4), 2)
        );
    }

    #[test]
    fn appsettings_keys_choose_the_limiter_and_say_so() {
        let r = reads(DOCS_APPSETTINGS);
        assert_eq!(r.row, "dotnet-token");
        assert_eq!(r.name.as_deref(), Some("MyRateLimitOptions"));
        assert_eq!(
            r.products.dotnet,
            fields(8, Span::from_secs(2), Some(8), Some(4), 2)
        );
        assert!(
            r.notes[0].contains("TokenBucketRateLimiter"),
            "{:?}",
            r.notes
        );
        let r = reads("{ \"Fixed\": { \"PermitLimit\": 4, \"Window\": \"00:00:10\" } }");
        assert_eq!(r.row, "dotnet-fixed");
        assert_eq!(r.products.dotnet.window, Some(Span::from_secs(10)));
        let r = reads("{ \"S\": { \"PermitLimit\": \"4\", \"Window\": \"1.00:00:00.5\", \"SegmentsPerWindow\": 3 } }");
        assert_eq!(r.row, "dotnet-sliding");
        assert_eq!(r.products.dotnet.window, Some(Span(86_400_500_000)));
    }

    #[test]
    fn a_partitioned_limiter_sets_the_row_and_the_concurrency_limiter_is_noted() {
        let r = reads(DOCS_PARTITIONED);
        assert_eq!(r.row, "dotnet-token");
        assert_eq!(
            r.products.dotnet,
            fields(12, Span::from_secs(2), None, Some(4), 2)
        );
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("ConcurrencyLimiter `get` (line 19)")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn timespans_are_read_in_every_form_csharp_writes() {
        let window = |w: &str| {
            let r = reads(&format!(
                "new FixedWindowRateLimiterOptions {{ PermitLimit = 1, Window = {w} }}"
            ));
            r.products.dotnet.window
        };
        assert_eq!(
            window("TimeSpan.FromSeconds(10)"),
            Some(Span::from_secs(10))
        );
        assert_eq!(
            window("TimeSpan.FromSeconds(0.5)"),
            Some(Span::from_millis(500))
        );
        assert_eq!(
            window("TimeSpan.FromMilliseconds(1500)"),
            Some(Span::from_millis(1500))
        );
        assert_eq!(window("TimeSpan.FromMinutes(1)"), Some(Span::from_secs(60)));
        assert_eq!(window("TimeSpan.FromHours(2)"), Some(Span::from_secs(7200)));
        assert_eq!(
            window("TimeSpan.FromDays(1)"),
            Some(Span::from_secs(86_400))
        );
        assert_eq!(
            window("TimeSpan.FromTicks(100000000)"),
            Some(Span::from_secs(10))
        );
        assert_eq!(window("new TimeSpan(0, 0, 10)"), Some(Span::from_secs(10)));
        assert_eq!(
            window("new TimeSpan(1, 0, 0, 0)"),
            Some(Span::from_secs(86_400))
        );
        assert_eq!(
            window("new TimeSpan(0, 0, 0, 1, 250)"),
            Some(Span::from_millis(1250))
        );
        assert_eq!(
            window("TimeSpan.Parse(\"00:01:30\")"),
            Some(Span::from_secs(90))
        );
        // `FromSeconds(double)` truncates `value × 10^7` to whole ticks: 0.1 × 10^7 is exact.
        assert_eq!(
            window("TimeSpan.FromSeconds(0.1)"),
            Some(Span::from_millis(100))
        );
        let r = reads("new SlidingWindowRateLimiterOptions { PermitLimit = 10, Window = TimeSpan.FromMinutes(1), SegmentsPerWindow = 6, QueueProcessingOrder = QueueProcessingOrder.NewestFirst }");
        assert_eq!(r.row, "dotnet-sliding");
        assert_eq!(
            r.products.dotnet.order,
            Some(QueueProcessingOrder::NewestFirst)
        );
        assert_eq!(r.products.dotnet.queue, Some(0));
    }

    #[test]
    fn unreadable_options_are_named_with_the_line_and_why() {
        let e = refusal(
            "AddFixedWindowLimiter(\"f\", o => {\n  o.Window = TimeSpan.FromSeconds(1);\n})",
        );
        assert_eq!((e.line, e.why.as_str()), (1, "the FixedWindowRateLimiter options set no `PermitLimit`, which has no default the limiter accepts"));
        let e = refusal("AddFixedWindowLimiter(\"f\", o => {\n  o.PermitLimit = 4;\n})");
        assert!(e.why.contains("no `Window`"), "{}", e.why);
        let e = refusal("AddSlidingWindowLimiter(\"s\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(1); })");
        assert!(e.why.contains("no `SegmentsPerWindow`"), "{}", e.why);
        let e = refusal("AddTokenBucketLimiter(\"t\", o => { o.TokenLimit = 4; o.ReplenishmentPeriod = TimeSpan.FromSeconds(1); })");
        assert!(e.why.contains("no `TokensPerPeriod`"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => {\n  o.PermitLimit = 0;\n  o.Window = TimeSpan.FromSeconds(1);\n})");
        assert_eq!(
            (e.line, e.why.as_str()),
            (2, "PermitLimit must be set to a value greater than 0.")
        );
        let e = refusal("AddFixedWindowLimiter(\"f\", o => {\n  o.PermitLimit = 1;\n  o.Window = TimeSpan.Zero;\n})");
        assert_eq!(
            (e.line, e.why.as_str()),
            (
                3,
                "Window must be set to a value greater than TimeSpan.Zero."
            )
        );
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = myOptions.PermitLimit; o.Window = TimeSpan.FromSeconds(1); })");
        assert_eq!(
            e.why,
            "`PermitLimit` is `myOptions.PermitLimit`, not a whole number"
        );
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromSeconds(w); })");
        assert_eq!(e.why, "`w` is not a number");
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromSeconds(1 / 2); })");
        assert!(e.why.contains("C# truncates"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromTicks(15); })");
        assert!(
            e.why.contains("not a whole number of microseconds"),
            "{}",
            e.why
        );
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromMilliseconds(0.5); })");
        assert!(e.why.contains("under 1 ms"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromDays(400); })");
        assert!(e.why.contains("longer than the lab holds"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 2000000000; o.Window = TimeSpan.FromSeconds(1); })");
        assert!(e.why.contains("more than the lab holds"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromSeconds(1); o.QueueProcessingOrder = Fifo; })");
        assert!(e.why.contains("OldestFirst or NewestFirst"), "{}", e.why);
        let e = refusal("AddFixedWindowLimiter(\"f\", o => { o.PermitLimit = 1; o.Window = TimeSpan.FromSeconds(1);\n o.AutoReplenishment = false; })");
        assert_eq!(e.line, 2);
        assert!(e.why.contains("TryReplenish"), "{}", e.why);
        let e = refusal("{ \"W\": { \"PermitLimit\": 1, \"Window\": \"1:2:3:4\" } }");
        assert!(e.why.contains("TimeSpan.Parse cannot read"), "{}", e.why);
        let e = refusal("options.AddConcurrencyLimiter(policyName: \"c\", options => {\n options.PermitLimit = 2; })");
        assert!(e.why.contains("concurrency limiter"), "{}", e.why);
        let e = refusal("using System.Threading.RateLimiting;");
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no limiter options in it"));
    }

    #[test]
    fn the_other_products_configs_are_not_taken_for_dotnet() {
        let others = [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "let q = Quota::per_second(nonzero!(5u32));",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "descriptors:\n  - key: generic_key\n    rate_limit:\n      unit: minute\n      requests_per_unit: 10",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
            "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "from limits import parse\nlimiter = MovingWindowRateLimiter(MemoryStorage())\nparse(\"10/minute\")",
            "RateLimiter limiter = RateLimiter.create(5.0);",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        for text in [
            DOCS_FIXED,
            DOCS_APPSETTINGS,
            DOCS_PARTITIONED,
            DOCS_PREVIEW_FIXED,
        ] {
            assert!(recognises(text), "{text}");
        }
    }

    #[test]
    fn no_prefix_of_a_fixture_panics() {
        for text in [
            DOCS_FIXED,
            DOCS_PREVIEW_FIXED,
            DOCS_APPSETTINGS,
            DOCS_SLIDING,
            DOCS_TOKEN,
            DOCS_PARTITIONED,
        ] {
            for (at, _) in text.char_indices() {
                let _ = read(&text[..at]);
                let _ = recognises(&text[..at]);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_panics(text in "\\PC{0,80}") {
            let _ = read(&text);
        }

        #[test]
        fn no_options_text_panics(text in "(PermitLimit|Window|TokenLimit|[{}()\":=,;. 0-9a-zé/*\n]){0,40}") {
            let _ = read(&text);
        }
    }

    #[test]
    fn the_rows_own_snippets_read_back_to_the_same_options() {
        let mut set = vec![Fields::default()];
        set.push(Fields {
            queue: Some(3),
            order: Some(QueueProcessingOrder::NewestFirst),
            ..Fields::default()
        });
        set.push(Fields {
            segments: Some(7),
            per_period: Some(2),
            ..Fields::default()
        });
        set.push(Fields {
            limit: Some(1_000_000_000),
            window: Some(Span(1_500)),
            ..Fields::default()
        });
        set.push(Fields {
            window: Some(Span::from_secs(366 * 86_400)),
            ..Fields::default()
        });
        for (slug, snippet) in [
            (FIXED_ROW.slug, FIXED_ROW.snippet),
            (SLIDING_ROW.slug, SLIDING_ROW.snippet),
            (TOKEN_ROW.slug, TOKEN_ROW.snippet),
        ] {
            let SnippetOf::Written { write, .. } = snippet else {
                panic!("{slug} writes no snippet");
            };
            for f in &set {
                for limit in [1, 2, 5, 7, 100, 1000] {
                    for window in [1_000_000, 10_000_000, 60_000_000, 500_000, 3_600_000_000] {
                        let window = Span(window);
                        let products = ProductSettings {
                            dotnet: f.clone(),
                            ..ProductSettings::default()
                        };
                        let s = RowSettings {
                            limit,
                            window,
                            products: &products,
                        };
                        let d = &s.products.dotnet;
                        let valid = match slug {
                            "dotnet-fixed" => d.fixed(limit, window).build().is_ok(),
                            "dotnet-sliding" => d.sliding(limit, window).build().is_ok(),
                            _ => d.token(limit, window).build().is_ok(),
                        };
                        if !valid {
                            continue;
                        }
                        let written = write(&s);
                        assert!(written.nearest.is_none());
                        let r = reads(&written.text);
                        assert_eq!(r.row, slug);
                        let (a, b) = (&r.products.dotnet, Span::from_secs(77));
                        match slug {
                            "dotnet-fixed" => assert_eq!(a.fixed(9, b), d.fixed(limit, window)),
                            "dotnet-sliding" => {
                                assert_eq!(a.sliding(9, b), d.sliding(limit, window))
                            }
                            _ => assert_eq!(a.token(9, b), d.token(limit, window)),
                        }
                    }
                }
            }
        }
    }
}
