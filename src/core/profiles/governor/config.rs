//! Reading governor's own Rust code into its row's settings (`profiles::config_text`): the
//! `Quota` a person builds (`Quota::per_second(nonzero!(50u32))`, `per_minute`, `per_hour`,
//! `with_period(Duration::from_millis(100)).unwrap()`, the deprecated `Quota::new`, each with an
//! optional `.allow_burst(...)`), on its own or inside `RateLimiter::direct(...)`/`keyed(...)`.
//!
//! The arithmetic is governor's own (governor 0.10.4, `src/quota.rs`): `per_second(n)` replenishes
//! one cell every `1 s / n` in whole nanoseconds, the remainder dropped, with a burst of `n` (and
//! likewise per 60 s and per 3600 s); `with_period(d)` is a burst of 1 and `None` for a zero `d`;
//! `new(b, d)` is `d / b` (a `Duration` divided by a `u32`, also truncated) with a burst of `b`;
//! `allow_burst(b)` replaces the burst. The counts are `NonZeroU32`s, written with the
//! `nonzero!` macro or `NonZeroU32::new(n)`, and the durations `std::time::Duration`s, computed
//! here with std's own `Duration` so that `from_secs_f64` rounds as the person's program does.
//!
//! The lab keeps governor's replenish interval in whole nanoseconds, as governor does
//! (`governor-period`, seconds to nine decimals): `per_second(7)` is 142,857,142 ns exactly.

use std::time::Duration;

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::profiles::config_text::{
    arithmetic, line_of, lines_without_comments, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;

use super::Fields;

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`Quota::per_second(...)`, `per_minute`, `per_hour`, `with_period(...)`, `.allow_burst(...)`",
};

/// The constructors of a `Quota`, and the length of time each spreads its count over.
const CONSTRUCTORS: [&str; 5] = [
    "Quota::per_second",
    "Quota::per_minute",
    "Quota::per_hour",
    "Quota::with_period",
    "Quota::new",
];

/// How deep a name may refer to another name (`let burst = n; let n = 5;`) before the reader
/// gives up.
const MOST_NAMES: usize = 8;

fn recognises(text: &str) -> bool {
    let code = without_comments(text);
    CONSTRUCTORS
        .iter()
        .any(|name| !constructor_calls(&code, name).is_empty())
}

/// One `Quota` built in the code: where, its interval and burst, and the name it is bound to.
struct Quota {
    line: usize,
    replenish_ns: u128,
    burst: u64,
    name: Option<String>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = without_comments(text);
    let mut found: Vec<(usize, &str, Call)> = Vec::new();
    for name in CONSTRUCTORS {
        for call in constructor_calls(&code, name) {
            found.push((call.at, name, call));
        }
    }
    found.sort_unstable_by_key(|(at, _, _)| *at);
    if found.is_empty() {
        return Err(Unreadable::whole(
            "no governor quota in it: expected `Quota::per_second(...)`, `Quota::per_minute(...)`, `Quota::per_hour(...)` or `Quota::with_period(...)`",
        ));
    }
    let quotas = found
        .iter()
        .map(|(_, name, call)| quota(text, &code, name, call))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &quotas[0];
    let most_ns = MAX_WINDOW.micros().saturating_mul(1_000);
    if first.replenish_ns == 0 || first.replenish_ns > u128::from(most_ns) {
        return Err(Unreadable::at(
            text,
            first.line,
            format!(
                "this quota replenishes one cell every {} ns; the lab's interval runs from 1 ns to 366 days",
                first.replenish_ns
            ),
        ));
    }
    if first.burst > MAX_COUNT {
        return Err(Unreadable::at(
            text,
            first.line,
            format!(
                "a burst of {} is more than the lab's largest, {MAX_COUNT}",
                first.burst
            ),
        ));
    }
    let products = ProductSettings {
        governor: Fields {
            period_ns: u64::try_from(first.replenish_ns).ok(),
            burst: Some(first.burst),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new("governor", products);
    from.name = first.name.clone();
    for other in &quotas[1..] {
        from.notes.push(format!(
            "Another quota is built on line {}{}; only the first, on line {}, sets the row.",
            other.line,
            other
                .name
                .as_ref()
                .map(|n| format!(" (`{n}`)"))
                .unwrap_or_default(),
            first.line
        ));
    }
    Ok(from)
}

/// The quota built by `call` of constructor `name`, with the `.allow_burst(...)` chained on it.
fn quota(text: &str, code: &str, name: &str, call: &Call) -> Result<Quota, Unreadable> {
    let at_line = |why: String| Unreadable::at(text, call.line, why);
    let args: Vec<&str> = call.args.iter().map(String::as_str).collect();
    let (replenish_ns, mut burst) = match (name, args.as_slice()) {
        ("Quota::per_second" | "Quota::per_minute" | "Quota::per_hour", [count]) => {
            let n = non_zero(code, count, 0).map_err(at_line)?;
            let over_s: u128 = match name {
                "Quota::per_second" => 1,
                "Quota::per_minute" => 60,
                _ => 3600,
            };
            // governor: `Duration::from_secs(s).as_nanos() / n`, the remainder dropped.
            (over_s * 1_000_000_000 / u128::from(n), n)
        }
        ("Quota::with_period", [period]) => {
            let d = duration(code, period, 0).map_err(at_line)?;
            if d.is_zero() {
                return Err(at_line(format!(
                    "`Quota::with_period({period})` is a zero period, for which governor returns None"
                )));
            }
            (d.as_nanos(), 1)
        }
        ("Quota::new", [count, all_per]) => {
            let n = non_zero(code, count, 0).map_err(at_line)?;
            let d = duration(code, all_per, 0).map_err(at_line)?;
            if d.is_zero() {
                return Err(at_line(format!(
                    "`Quota::new` with the zero duration `{all_per}`, for which governor returns None"
                )));
            }
            let n32 = u32::try_from(n).unwrap_or(u32::MAX);
            ((d / n32).as_nanos(), n)
        }
        _ => {
            return Err(at_line(format!(
                "`{name}` takes {}, not {} argument(s)",
                if name == "Quota::new" {
                    "two arguments"
                } else {
                    "one argument"
                },
                args.len()
            )))
        }
    };
    for link in chained(code, call.end) {
        if link.method == "allow_burst" {
            let line = line_of(code, link.at);
            let [b] = link.args.as_slice() else {
                return Err(Unreadable::at(
                    text,
                    line,
                    "`allow_burst` takes one argument, a NonZeroU32",
                ));
            };
            burst = non_zero(code, b, 0).map_err(|why| Unreadable::at(text, line, why))?;
        }
    }
    Ok(Quota {
        line: call.line,
        replenish_ns,
        burst,
        name: bound_name(code, call.at),
    })
}

/// The value of a `NonZeroU32` as written: `nonzero!(50u32)`, `NonZeroU32::new(5).unwrap()`,
/// `NonZeroU32::new_unchecked(5)`, `NonZeroU32::MIN`, or a name bound to one of those.
fn non_zero(code: &str, written: &str, depth: usize) -> Result<u64, String> {
    let w = strip_unsafe(written.trim());
    let w = strip_unwrap(w);
    let inner = [
        "nonzero!",
        "NonZeroU32::new_unchecked",
        "NonZeroU32::new",
        "NonZero::new",
    ]
    .iter()
    .find_map(|prefix| {
        let rest = w.strip_prefix(prefix)?.trim_start();
        let (args, end) = call_arguments(rest, 0)?;
        (end == rest.len() && args.len() == 1).then(|| args[0].clone())
    });
    let value = match (inner, w) {
        (Some(inner), _) => number(code, &inner, depth)?,
        (None, "NonZeroU32::MIN" | "NonZero::<u32>::MIN") => 1.0,
        (None, "NonZeroU32::MAX" | "NonZero::<u32>::MAX") => f64::from(u32::MAX),
        (None, name) if is_name(name) => {
            let bound = bound_value(code, name, depth)?;
            return non_zero(code, &bound, depth + 1);
        }
        _ => {
            return Err(format!(
                "`{written}` is not a count the lab can read; write it as `nonzero!(50u32)` or `NonZeroU32::new(50).unwrap()`"
            ))
        }
    };
    if value == 0.0 {
        return Err(format!(
            "`{written}` is 0, and governor's counts are NonZeroU32s, which cannot be 0"
        ));
    }
    if value.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&value) {
        return Err(format!(
            "`{written}` is not a whole number from 1 to {} (a NonZeroU32)",
            u32::MAX
        ));
    }
    Ok(value as u64)
}

/// A number as written (`50u32`, `60 * 60`, `1_000`), or a name bound to one.
fn number(code: &str, written: &str, depth: usize) -> Result<f64, String> {
    let w = written.trim();
    if let Some(value) = arithmetic(w) {
        return Ok(value);
    }
    if is_name(w) {
        let bound = bound_value(code, w, depth)?;
        return number(code, &bound, depth + 1);
    }
    Err(format!("`{w}` is not a number the lab can read"))
}

/// A `std::time::Duration` as written: `Duration::from_secs(1)`, `from_millis`, `from_micros`,
/// `from_nanos`, `from_mins`, `from_hours`, `from_secs_f64`, `from_secs_f32`,
/// `Duration::new(s, ns)`, `Duration::ZERO`, or a name bound to one.
fn duration(code: &str, written: &str, depth: usize) -> Result<Duration, String> {
    let w = written.trim();
    // `std::time::Duration::from_secs` and `core::time::Duration::...` are the same.
    let w = w.find("Duration::").map_or(w, |at| {
        let path = &w[..at];
        if path
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            &w[at..]
        } else {
            w
        }
    });
    if w == "Duration::ZERO" {
        return Ok(Duration::ZERO);
    }
    if is_name(w) {
        let bound = bound_value(code, w, depth)?;
        return duration(code, &bound, depth + 1);
    }
    let unreadable = || {
        format!(
            "`{written}` is not a duration the lab can read; write it as `Duration::from_millis(100)`, `from_secs`, `from_micros` or `from_nanos`"
        )
    };
    let Some(rest) = w.strip_prefix("Duration::") else {
        return Err(unreadable());
    };
    let name_end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (method, after) = rest.split_at(name_end);
    let after = after.trim_start();
    let Some((args, end)) = call_arguments(after, 0) else {
        return Err(unreadable());
    };
    if end != after.len() {
        return Err(unreadable());
    }
    let whole = |arg: &str| -> Result<u64, String> {
        let v = number(code, arg, depth)?;
        if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
            Ok(v as u64)
        } else {
            Err(format!(
                "`{arg}` is not a whole number of {method}'s unit (a u64)"
            ))
        }
    };
    let overflow = || format!("`{written}` overflows a Duration");
    match (method, args.as_slice()) {
        ("from_secs", [n]) => Ok(Duration::from_secs(whole(n)?)),
        ("from_millis", [n]) => Ok(Duration::from_millis(whole(n)?)),
        ("from_micros", [n]) => Ok(Duration::from_micros(whole(n)?)),
        ("from_nanos", [n]) => Ok(Duration::from_nanos(whole(n)?)),
        ("from_mins", [n]) => whole(n)?
            .checked_mul(60)
            .map(Duration::from_secs)
            .ok_or_else(overflow),
        ("from_hours", [n]) => whole(n)?
            .checked_mul(3600)
            .map(Duration::from_secs)
            .ok_or_else(overflow),
        ("from_secs_f64", [x]) => Duration::try_from_secs_f64(number(code, x, depth)?)
            .map_err(|_| format!("`{written}` is negative, not finite or overflows a Duration")),
        ("from_secs_f32", [x]) => Duration::try_from_secs_f32(number(code, x, depth)? as f32)
            .map_err(|_| format!("`{written}` is negative, not finite or overflows a Duration")),
        ("new", [s, ns]) => {
            let (s, ns) = (whole(s)?, whole(ns)?);
            let ns = u32::try_from(ns).map_err(|_| overflow())?;
            Duration::from_secs(s)
                .checked_add(Duration::from_nanos(u64::from(ns)))
                .ok_or_else(overflow)
        }
        _ => Err(unreadable()),
    }
}

/// `unsafe { x }` as `x`.
fn strip_unsafe(w: &str) -> &str {
    w.strip_prefix("unsafe")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('{'))
        .and_then(|r| r.trim_end().strip_suffix('}'))
        .map_or(w, str::trim)
}

/// `x.unwrap()`, `x.expect("...")` and `x?` as `x`.
fn strip_unwrap(w: &str) -> &str {
    let mut w = w.trim();
    loop {
        let before = w;
        if let Some(r) = w.strip_suffix('?') {
            w = r.trim_end();
        }
        if let Some(r) = w.strip_suffix(".unwrap()") {
            w = r.trim_end();
        }
        if let Some(open) = w.rfind(".expect(") {
            if w.ends_with(')')
                && call_arguments(&w[open + 7..], 0).map(|(_, e)| e) == Some(w.len() - open - 7)
            {
                w = w[..open].trim_end();
            }
        }
        if w == before {
            return w;
        }
    }
}

/// Whether `w` is a plain Rust name (`burst`, `BURST`, `self.burst` is not one).
fn is_name(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The expression a name is bound to by `let name = ...;`, `let name: T = ...;`,
/// `const NAME: T = ...;` or `static NAME: T = ...;` (the first such binding in the code).
fn bound_value(code: &str, name: &str, depth: usize) -> Result<String, String> {
    if depth >= MOST_NAMES {
        return Err(format!(
            "`{name}` refers to names too deeply for the lab to follow"
        ));
    }
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let before = code[..at].trim_end();
        let word_before = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let word_after = code[from..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if word_before || word_after {
            continue;
        }
        let binds = ["let", "let mut", "const", "static", "static mut"]
            .iter()
            .any(|kw| {
                before.strip_suffix(kw).is_some_and(|b| {
                    b.chars()
                        .next_back()
                        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                })
            });
        if !binds {
            continue;
        }
        let rest = &code[from..];
        let Some(eq) = top_level(rest, '=') else {
            continue;
        };
        let value = &rest[eq + 1..];
        let end = top_level(value, ';').unwrap_or(value.len());
        return Ok(value[..end].trim().to_string());
    }
    Err(format!(
        "`{name}` is not bound to a value in the text (`let {name} = ...;`)"
    ))
}

/// The first `wanted` outside brackets and quotes in `text`, stopping at a `;` (a `=` belongs to
/// its own statement).
fn top_level(text: &str, wanted: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (at, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' | ']' | '}' => return None,
                c if c == wanted && depth == 0 => {
                    // `==`, `=>`, `<=` are no binding.
                    let next = text[at + c.len_utf8()..].chars().next();
                    if c == '=' && matches!(next, Some('=' | '>')) {
                        continue;
                    }
                    return Some(at);
                }
                ';' if depth == 0 => return None,
                _ => {}
            },
        }
    }
    None
}

/// The name the statement holding byte `at` binds (`let quota = `, `let mut lim =
/// RateLimiter::direct(`, `static LIMIT: Quota = `), if it starts with a binding.
fn bound_name(code: &str, at: usize) -> Option<String> {
    let start = code[..at].rfind([';', '{', '}']).map_or(0, |p| p + 1);
    let statement = code[start..at].trim_start();
    let rest = ["let mut ", "let ", "static mut ", "static ", "const "]
        .iter()
        .find_map(|kw| statement.strip_prefix(kw))?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    let after = rest[end..].trim_start();
    (!name.is_empty() && (after.starts_with('=') || after.starts_with(':')))
        .then(|| name.to_string())
}

/// A constructor's call: the line and offset of its name, its arguments, and the offset just
/// after its closing parenthesis.
struct Call {
    line: usize,
    at: usize,
    args: Vec<String>,
    end: usize,
}

/// Every call of `name` in `code` that is not part of a longer name (`MyQuota::new`).
fn constructor_calls(code: &str, name: &str) -> Vec<Call> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let word_before = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if word_before {
            continue;
        }
        let after = &code[from..];
        let skipped = after.len() - after.trim_start().len();
        if let Some((args, end)) = call_arguments(after.trim_start(), 0) {
            found.push(Call {
                line: line_of(code, at),
                at,
                args,
                end: from + skipped + end,
            });
        }
    }
    found
}

/// A method chained on an expression: `.allow_burst(b)`, `.unwrap()`.
struct Link {
    method: String,
    args: Vec<String>,
    at: usize,
}

/// The methods chained on the expression ending at byte `end` of `code` (and `?`s between them).
fn chained(code: &str, end: usize) -> Vec<Link> {
    let mut links = Vec::new();
    let mut at = end;
    loop {
        let trimmed = code.get(at..).unwrap_or("").trim_start();
        if let Some(after) = trimmed.strip_prefix('?') {
            at = code.len() - after.len();
            continue;
        }
        let Some(after_dot) = trimmed.strip_prefix('.') else {
            return links;
        };
        let name_start = code.len() - after_dot.len();
        let name_len = after_dot
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after_dot.len());
        let method = &after_dot[..name_len];
        let after_name = &after_dot[name_len..];
        let open_at = code.len() - after_name.trim_start().len();
        match call_arguments(after_name.trim_start(), 0) {
            Some((args, len)) if !method.is_empty() => {
                links.push(Link {
                    method: method.to_string(),
                    args,
                    at: name_start,
                });
                at = open_at + len;
            }
            _ => return links,
        }
    }
}

/// When `text` starts with `(` (after `skip` bytes), the call's arguments split at the commas
/// outside brackets and quotes, and the offset just after the closing `)`.
fn call_arguments(text: &str, skip: usize) -> Option<(Vec<String>, usize)> {
    let body = text.get(skip..)?.strip_prefix('(')?;
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (at, c) in body.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' => {
                    let last = body[start..at].trim();
                    if !last.is_empty() {
                        args.push(last.to_string());
                    }
                    return Some((args, skip + 1 + at + 1));
                }
                ',' if depth == 0 => {
                    args.push(body[start..at].trim().to_string());
                    start = at + 1;
                }
                _ => {}
            },
        }
    }
    None
}

/// The code without its `//` comments (doc comments included), line for line.
fn without_comments(text: &str) -> String {
    lines_without_comments(text, "//")
        .map(|(_, line)| line)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::RowSettings;
    use crate::core::time::Span;

    fn read_ok(text: &str) -> FromConfig {
        match read(text) {
            Ok(from) => from,
            Err(e) => panic!("{e}"),
        }
    }

    fn fields(text: &str) -> Fields {
        read_ok(text).products.governor
    }

    fn quota(period_us: u64, burst: u64) -> Fields {
        Fields {
            period_ns: Some(period_us * 1_000),
            burst: Some(burst),
        }
    }

    // governor 0.10.4, src/quota.rs, the `Quota` doc example: 50 cells per second.
    const QUOTA_DOC_PER_SECOND: &str = "let q = Quota::per_second(nonzero!(50u32));
assert_eq!(q, Quota::per_second(nonzero!(50u32)).allow_burst(nonzero!(50u32)));
assert_eq!(q.replenish_interval(), Duration::from_millis(20));";

    // governor 0.10.4, src/quota.rs, the `Quota` doc example: 2 per hour, bursting to 90.
    const QUOTA_DOC_PER_HOUR: &str =
        "let q = Quota::per_hour(nonzero!(2u32)).allow_burst(nonzero!(90u32));";

    // governor 0.10.4, src/quota.rs, `Quota::with_period`'s doc example: one per day, burst 10.
    const WITH_PERIOD_DOC: &str =
        "// Replenish one cell per day, with a burst capacity of 10 cells:
let _quota = Quota::with_period(Duration::from_secs(60 * 60 * 24))
    .unwrap()
    .allow_burst(nonzero!(10u32));";

    // governor 0.10.4, src/lib.rs, the crate's opening example.
    const LIB_DOC: &str = "use std::num::NonZeroU32;
use nonzero_ext::*;
use governor::{Quota, RateLimiter};

let mut lim = RateLimiter::direct(Quota::per_second(nonzero!(50u32))); // Allow 50 units per second
assert_eq!(Ok(()), lim.check());";

    // governor 0.10.4, src/_guide.rs, "Quotas".
    const GUIDE_QUOTA: &str = "use governor::Quota;\nQuota::per_second(nonzero!(20u32));";

    // governor 0.10.4, src/_guide.rs, "Constructing a keyed rate limiter".
    const GUIDE_KEYED: &str = "let lim = RateLimiter::keyed(Quota::per_second(nonzero!(50u32)));
lim.check_key(&\"cus_1\").unwrap(); // one key
lim.check_key(&\"cus_2\").unwrap(); // another!";

    const FIXTURES: [&str; 6] = [
        QUOTA_DOC_PER_SECOND,
        QUOTA_DOC_PER_HOUR,
        WITH_PERIOD_DOC,
        LIB_DOC,
        GUIDE_QUOTA,
        GUIDE_KEYED,
    ];

    #[test]
    fn the_documented_quotas_give_governors_own_interval_and_burst() {
        let per_second = read_ok(QUOTA_DOC_PER_SECOND);
        assert_eq!(per_second.row, "governor");
        assert_eq!(per_second.products.governor, quota(20_000, 50));
        assert_eq!(per_second.name.as_deref(), Some("q"));
        assert_eq!(per_second.notes.len(), 1, "{:?}", per_second.notes);
        assert_eq!(fields(QUOTA_DOC_PER_HOUR), quota(1_800_000_000, 90));
        assert_eq!(fields(WITH_PERIOD_DOC), quota(86_400_000_000, 10));
        let lib = read_ok(LIB_DOC);
        assert_eq!(lib.products.governor, quota(20_000, 50));
        assert_eq!(lib.name.as_deref(), Some("lim"));
        assert!(lib.notes.is_empty());
        assert_eq!(fields(GUIDE_QUOTA), quota(50_000, 20));
        assert_eq!(fields(GUIDE_KEYED), quota(20_000, 50));
    }

    #[test]
    fn the_settings_read_are_the_rows_whole_state_whatever_the_labs_limit() {
        let f = fields(QUOTA_DOC_PER_HOUR);
        for (limit, window) in [(1, Span::from_secs(1)), (7, Span::from_secs(60))] {
            let p = f.params(limit, window);
            assert_eq!(p.replenish_1_per_ns, 1_800_000_000_000);
            assert_eq!(p.burst, 90);
        }
    }

    #[test]
    fn a_per_minute_quota_truncates_to_whole_nanoseconds_as_governor_does() {
        // 60 s / 40 = 1.5 s exactly; 60 s / 7 = 8,571,428,571.43 ns, kept as 8,571,428,571.
        assert_eq!(
            fields("Quota::per_minute(NonZeroU32::new(40).unwrap())"),
            quota(1_500_000, 40)
        );
        let seven = fields("let q = Quota::per_minute(NonZeroU32::new(7).unwrap());");
        assert_eq!(seven.period_ns, Some(8_571_428_571));
        // 1 s / 3 = 333,333,333 ns, not 333,333 µs.
        let three = fields("Quota::per_second(nonzero!(3u32))");
        assert_eq!(three.period_ns, Some(333_333_333));
    }

    #[test]
    fn with_period_reads_every_duration_constructor() {
        let cases = [
            ("Duration::from_millis(100)", 100_000),
            ("Duration::from_secs(2)", 2_000_000),
            ("std::time::Duration::from_micros(250)", 250),
            ("Duration::from_nanos(5_000)", 5),
            ("Duration::from_secs_f64(0.3)", 300_000),
            ("Duration::new(1, 500_000_000)", 1_500_000),
            ("Duration::from_mins(2)", 120_000_000),
        ];
        for (d, us) in cases {
            let text = format!("let q = Quota::with_period({d}).unwrap();");
            assert_eq!(fields(&text), quota(us, 1), "{d}");
        }
    }

    #[test]
    fn the_deprecated_new_divides_the_duration_by_the_burst() {
        assert_eq!(
            fields("#[allow(deprecated)]\nlet q = Quota::new(nonzero!(50u32), Duration::from_secs(1)).unwrap();"),
            quota(20_000, 50)
        );
    }

    #[test]
    fn names_bound_to_counts_and_durations_are_followed() {
        let text = "const BURST: u32 = 12;
let burst = NonZeroU32::new(BURST).expect(\"above zero\");
let period = Duration::from_millis(250);
let quota = Quota::with_period(period)?.allow_burst(burst);";
        let from = read_ok(text);
        assert_eq!(from.products.governor, quota(250_000, 12));
        assert_eq!(from.name.as_deref(), Some("quota"));
    }

    #[test]
    fn a_zero_count_or_period_is_refused_as_governor_refuses_it() {
        let e = read("let q = Quota::per_second(nonzero!(0u32));").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.why.contains("cannot be 0"), "{e}");
        let e = read("\nlet q = Quota::with_period(Duration::from_secs(0)).unwrap();").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.why.contains("governor returns None"), "{e}");
        let e = read("let q = Quota::per_second(nonzero!(5u32))\n    .allow_burst(NonZeroU32::new(0).unwrap());").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.why.contains("cannot be 0"), "{e}");
    }

    #[test]
    fn what_the_reader_cannot_follow_is_refused_naming_its_line() {
        let e = read("let q = Quota::per_second(self.count);").unwrap_err();
        assert!(e.why.contains("is not a count the lab can read"), "{e}");
        let e = read("let q = Quota::with_period(interval()).unwrap();").unwrap_err();
        assert!(e.why.contains("is not a duration the lab can read"), "{e}");
        let e = read("let q = Quota::per_second(n);").unwrap_err();
        assert!(e.why.contains("`n` is not bound to a value"), "{e}");
        let e = read("let q = Quota::per_second(nonzero!(5u32), 2);").unwrap_err();
        assert!(e.why.contains("takes one argument"), "{e}");
        let e = read("let q = Quota::with_period(Duration::from_secs(40_000_000)).unwrap();")
            .unwrap_err();
        assert!(e.why.contains("from 1 ns to 366 days"), "{e}");
        let e =
            read("let q = Quota::per_second(nonzero!(5u32)).allow_burst(nonzero!(4000000000u32));")
                .unwrap_err();
        assert!(e.why.contains("more than the lab's largest"), "{e}");
        let e = read("fn main() {}").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no governor quota in it"), "{e}");
    }

    #[test]
    fn a_second_quota_is_noted_and_the_first_sets_the_row() {
        let text = "let api = Quota::per_second(nonzero!(10u32));\nlet login = Quota::per_minute(nonzero!(5u32));";
        let from = read_ok(text);
        assert_eq!(from.products.governor, quota(100_000, 10));
        assert_eq!(from.name.as_deref(), Some("api"));
        assert_eq!(
            from.notes,
            vec!["Another quota is built on line 2 (`login`); only the first, on line 1, sets the row."]
        );
        assert_eq!(from.second, None);
    }

    #[test]
    fn the_recogniser_says_no_to_the_other_products_configs() {
        let others = [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "token_bucket: { max_tokens: 10, tokens_per_fill: 1, fill_interval: 1s }",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
            "limiter := rate.NewLimiter(rate.Every(100*time.Millisecond), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "from limits import parse; parse(\"10/minute\")",
            "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
            "final RateLimiter rateLimiter = RateLimiter.create(2.0);",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        assert!(recognises(GUIDE_QUOTA));
        assert!(!recognises("// Quota::per_second(nonzero!(5u32))"));
    }

    #[test]
    fn no_prefix_of_a_fixture_makes_the_reader_panic() {
        for fixture in FIXTURES {
            for (at, _) in fixture.char_indices() {
                let _ = recognises(&fixture[..at]);
                let _ = read(&fixture[..at]);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_makes_the_reader_panic(text in "(Quota::|per_second|with_period|nonzero!|Duration::|from_secs|allow_burst|let q|=|[(){};?.,0-9a-z \"\n])*") {
            let _ = read(&text);
        }
    }

    #[test]
    fn the_rows_own_snippet_reads_back_to_the_same_quota() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut sets = vec![Fields::default()];
        for period_ns in [
            1,
            1_000,
            142_857_142,
            20_000_000,
            1_000_000_000,
            86_400_000_000_000,
        ] {
            for burst in [None, Some(1), Some(90), Some(MAX_COUNT)] {
                sets.push(Fields {
                    period_ns: Some(period_ns),
                    burst,
                });
            }
        }
        sets.push(Fields {
            period_ns: None,
            burst: Some(3),
        });
        let mut read_back = 0;
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for set in &sets {
                    let products = ProductSettings {
                        governor: set.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    assert!(written.nearest.is_none());
                    let want = products.governor.params(limit, window);
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "governor");
                    assert_eq!(from.products.governor.params(3, Span::from_secs(9)), want);
                    read_back += 1;
                }
            }
        }
        assert_eq!(read_back, 6 * 5 * 26);
    }
}
