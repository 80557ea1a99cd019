//! Reading express-rate-limit's own options into its row's settings (`profiles::config_text`):
//! the object passed to `rateLimit({ ... })` (also `new RateLimit(...)`, a name the module was
//! imported as, `rateLimit(options)` with `const options = { ... }` in the text, or a bare
//! `{ windowMs, limit, ... }` object), read as the library's `parseOptions` reads it.
//!
//! Sources: express-rate-limit 8.7.5 as installed from npm (`dist/index.cjs`: `parseOptions`,
//! `knownOptions`, the middleware, the `SECOND`/`MINUTE`/`HOUR`/`DAY` constants) and the
//! repository express-rate-limit/express-rate-limit at 8.6.2 (`readme.md`,
//! `docs/quickstart/usage.mdx`, `docs/reference/configuration.mdx`). What the library does with
//! each option:
//! - `limit` is `max ?? 5` overridden by `limit` when given (`undefined` counts as not given,
//!   `omitUndefinedProperties`); a function of the request has no number the lab could run.
//! - `windowMs` defaults to 60000; the memory store flags values outside 1 to 2^31 - 1.
//! - `standardHeaders` defaults to `false`, `true` is `'draft-6'`; any other draft is flagged and
//!   sends none, yet still adds `Retry-After` (a truthy option), which the lab cannot show.
//! - `legacyHeaders` defaults to `headers ?? true` (`headers`, its name before v6).
//! - `statusCode` defaults to 429.
//! - Every other option is known to the library but not run by the lab, or unknown (the library
//!   logs `ERR_ERL_UNKNOWN_OPTION` and goes on): each is named in a note.
//!
//! Numbers may be written as JavaScript arithmetic (`15 * 60 * 1000`, `1e3`, `3 * HOUR`), or as
//! a name the text defines (`const WINDOW = 60_000`).

use crate::core::config::MAX_COUNT;
use crate::core::profiles::config_text::script::{
    blank_comments, closing, definition, entries, has_word, is_identifier, is_identifier_char,
    js_number, Entry, Value,
};
use crate::core::profiles::config_text::{
    arithmetic, line_of, unquote, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;
use crate::core::time::Span;

use super::{
    ExpressRateLimitParams, StandardHeaders, DRAFT_VERSION_ERROR, MAX_WINDOW_MS, STATUS_CODE_ERROR,
};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "the options of `rateLimit({ windowMs, limit })`",
};

/// The options the library knows (`knownOptions` in `parseOptions`), besides the three express
/// slow-down ones it lets pass.
const KNOWN_OPTIONS: &[&str] = &[
    "windowMs",
    "limit",
    "message",
    "statusCode",
    "legacyHeaders",
    "standardHeaders",
    "identifier",
    "retryAfter",
    "requestPropertyName",
    "skipFailedRequests",
    "skipSuccessfulRequests",
    "keyGenerator",
    "ipv6Subnet",
    "handler",
    "skip",
    "requestWasSuccessful",
    "store",
    "validate",
    "headers",
    "max",
    "passOnStoreError",
    "logger",
    "draft_polli_ratelimit_headers",
    "delayAfter",
    "delayMs",
    "maxDelayMs",
];

/// The time constants the module exports (`SECOND = 1e3`, `MINUTE = 60 * SECOND`, ...).
const TIME_CONSTANTS: &[(&str, f64)] = &[
    ("SECOND", 1_000.0),
    ("MINUTE", 60_000.0),
    ("HOUR", 3_600_000.0),
    ("DAY", 86_400_000.0),
];

fn recognises(text: &str) -> bool {
    let code = blank_comments(text);
    // Upstash's `Ratelimit.slidingWindow(...)` and its package are another product's words.
    if code.contains("Ratelimit.") || code.contains("@upstash/ratelimit") {
        return false;
    }
    has_word(&code, "windowMs")
        || code.contains("express-rate-limit")
        || !limiter_calls(&code).is_empty()
}

/// A call of the limiter: where its name is, the `(` after it, and the name it is assigned to.
struct LimiterCall {
    at: usize,
    open: usize,
    name: Option<String>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = blank_comments(text);
    let found = limiter_calls(&code);
    let mut notes = Vec::new();
    let (object, name) = match found.first() {
        Some(first) => {
            for other in &found[1..] {
                notes.push(format!(
                    "Another `rateLimit` call{} on line {} is in the text too; only the first{} on line {} sets the row, since a row runs one limiter.",
                    named(&other.name),
                    line_of(&code, other.at),
                    named(&first.name),
                    line_of(&code, first.at)
                ));
            }
            (options_of_call(text, &code, first)?, first.name.clone())
        }
        None => (bare_options(&code)?, None),
    };
    let options = match object {
        Some((start, end)) => entries(&code, start, end),
        None => Vec::new(),
    };
    let mut fields = super::Fields::default();
    let defaults = ExpressRateLimitParams::default();
    let mut limit = None;
    let mut max = None;
    let mut window_ms = None;
    let mut legacy = None;
    let mut headers = None;
    let mut standard = None;
    let mut status = None;
    for entry in &options {
        let line = line_of(&code, entry.at);
        let value = match &entry.value {
            Value::Spread => {
                notes.push(format!(
                    "`...{}` is spread into the options: the lab cannot see what it holds, so only the options written out are read.",
                    entry.key
                ));
                continue;
            }
            Value::Method => {
                if entry.key == "limit" || entry.key == "max" {
                    return Err(Unreadable::at(
                        text,
                        line,
                        format!(
                            "`{}` is a function of the request; the lab needs a number",
                            entry.key
                        ),
                    ));
                }
                notes.extend(option_note(&entry.key));
                continue;
            }
            Value::Written(v) => v.as_str(),
        };
        // `parseOptions` drops options whose value is `undefined`.
        if value == "undefined" {
            continue;
        }
        match entry.key.as_str() {
            "limit" => limit = Some((line, value)),
            "max" => max = Some((line, value)),
            "windowMs" => window_ms = Some((line, value)),
            "legacyHeaders" => legacy = Some((line, value)),
            "headers" => headers = Some((line, value)),
            "standardHeaders" => standard = Some((line, value)),
            "statusCode" => status = Some((line, value)),
            other => notes.extend(option_note(other)),
        }
    }

    // `limit: max ?? 5`, then the options spread over it: `limit` wins over `max`.
    if let (Some((line, _)), Some(_)) = (max, limit) {
        notes.push(format!(
            "`max` on line {line} is not used: `limit` is given too, and the library takes `limit`."
        ));
    }
    fields.limit = Some(match limit.or(max) {
        Some((line, value)) => count_of(text, &code, line, key_of(limit.is_some()), value)?,
        None => defaults.limit,
    });
    let window_ms = match window_ms {
        Some((line, value)) => window_of(text, &code, line, value)?,
        None => defaults.window_ms,
    };
    fields.window = Some(Span::from_millis(window_ms));
    fields.legacy = Some(match legacy.or(headers) {
        Some((line, value)) => {
            let key = if legacy.is_some() {
                "legacyHeaders"
            } else {
                "headers"
            };
            boolean_of(text, &code, line, key, value)?
        }
        None => defaults.legacy_headers,
    });
    fields.headers = Some(match standard {
        Some((line, value)) => {
            let value = resolved(&code, value, 0);
            StandardHeaders::parse(&value)
                .map_err(|_| Unreadable::at(text, line, DRAFT_VERSION_ERROR))?
        }
        None => defaults.standard_headers,
    });
    fields.status = Some(match status {
        Some((line, value)) => status_of(text, &code, line, value)?,
        None => defaults.status_code,
    });

    let products = ProductSettings {
        express_rate_limit: fields,
        ..Default::default()
    };
    let mut from = FromConfig::new("express-rate-limit", products);
    from.name = name;
    from.notes = notes;
    Ok(from)
}

fn named(name: &Option<String>) -> String {
    name.as_ref().map_or(String::new(), |n| format!(", `{n}`,"))
}

fn key_of(limit_given: bool) -> &'static str {
    if limit_given {
        "limit"
    } else {
        "max"
    }
}

/// The sentence for an option the lab does not run.
fn option_note(key: &str) -> Option<String> {
    let why = match key {
        "keyGenerator" => "is not run: each of the lab's keys stands for what it would return",
        "ipv6Subnet" => "is not applied: each of the lab's keys stands for the key generator's result",
        "skip" => "is not run: every request of the lab counts",
        "message" => "is not sent: the lab shows a refusal's status and headers, not its body",
        "handler" => "is not run: a refusal is the library's default one, `statusCode` with its headers",
        "store" => "is not used: the lab runs the default memory store, and another store may count its windows differently",
        "skipSuccessfulRequests" | "skipFailedRequests" | "requestWasSuccessful" => {
            "is not modelled: the lab counts every request, whatever its response"
        }
        "identifier" => "is not modelled: the lab's draft-8 headers name the quota as the library does by default, `<limit>-in-<window>`",
        "retryAfter" => "is not modelled: the lab's `Retry-After` is the time left in the window, the library's default",
        "requestPropertyName" | "validate" | "logger" | "passOnStoreError" => {
            "changes no verdict the lab shows, and is not modelled"
        }
        "draft_polli_ratelimit_headers" => "was removed in version 7: the library warns and ignores it (`standardHeaders: 'draft-6'` is its new name)",
        "onLimitReached" => "was removed in version 7: the library warns and never calls it",
        "delayAfter" | "delayMs" | "maxDelayMs" => "belongs to express-slow-down: express-rate-limit ignores it",
        _ if !KNOWN_OPTIONS.contains(&key) => {
            return Some(format!(
                "`{key}` is not an option of express-rate-limit: the library logs ERR_ERL_UNKNOWN_OPTION for it and goes on without it."
            ))
        }
        _ => return None,
    };
    Some(format!("`{key}` {why}."))
}

/// `limit` (or `max`): a whole number from 0 to the lab's largest count.
fn count_of(
    text: &str,
    code: &str,
    line: usize,
    key: &str,
    value: &str,
) -> Result<u64, Unreadable> {
    if is_function(value) {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{key}` is a function of the request; the lab needs a number"),
        ));
    }
    let n = number(code, value, 0).ok_or_else(|| not_a_number(text, line, key, value))?;
    if n.fract() != 0.0 || n < 0.0 {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{key}: {value}` is not a whole number of requests from 0 up"),
        ));
    }
    if n > MAX_COUNT as f64 {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{key}: {value}` is more than the lab's largest limit, {MAX_COUNT}"),
        ));
    }
    Ok(n as u64)
}

/// `windowMs`: whole milliseconds from 1 to 2^31 - 1, as the memory store takes them.
fn window_of(text: &str, code: &str, line: usize, value: &str) -> Result<u64, Unreadable> {
    let n = number(code, value, 0).ok_or_else(|| not_a_number(text, line, "windowMs", value))?;
    if !(1.0..=MAX_WINDOW_MS as f64).contains(&n) {
        return Err(Unreadable::at(
            text,
            line,
            format!("`windowMs: {value}` is {n} ms: the memory store takes 1 to {MAX_WINDOW_MS} ms (ERR_ERL_WINDOW_MS)"),
        ));
    }
    if n.fract() != 0.0 {
        return Err(Unreadable::at(
            text,
            line,
            format!("`windowMs: {value}` is {n} ms, not a whole number of milliseconds; the lab reads whole milliseconds"),
        ));
    }
    Ok(n as u64)
}

fn status_of(text: &str, code: &str, line: usize, value: &str) -> Result<u16, Unreadable> {
    match number(code, value, 0) {
        Some(n) if n.fract() == 0.0 && (100.0..=999.0).contains(&n) => Ok(n as u16),
        Some(_) => Err(Unreadable::at(text, line, STATUS_CODE_ERROR)),
        None => Err(not_a_number(text, line, "statusCode", value)),
    }
}

fn boolean_of(
    text: &str,
    code: &str,
    line: usize,
    key: &str,
    value: &str,
) -> Result<bool, Unreadable> {
    match resolved(code, value, 0).as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(Unreadable::at(
            text,
            line,
            format!("`{key}: {value}` is not `true` or `false`"),
        )),
    }
}

fn not_a_number(text: &str, line: usize, key: &str, value: &str) -> Unreadable {
    Unreadable::at(
        text,
        line,
        format!("`{key}: {value}` is not a number the lab can work out from the text"),
    )
}

/// The names the limiter is called by: `rateLimit` and `RateLimit` (the module's own), and any
/// name the text imports it as (`import limiter from 'express-rate-limit'`,
/// `const limiter = require('express-rate-limit')`, `{ rateLimit as limiter }`).
fn call_names(code: &str) -> Vec<String> {
    let mut names = vec!["rateLimit".to_string(), "RateLimit".to_string()];
    for line in code.lines() {
        if !line.contains("express-rate-limit") {
            continue;
        }
        let head = line
            .split("express-rate-limit")
            .next()
            .unwrap_or("")
            .trim_start();
        let head = head
            .strip_prefix("import")
            .or_else(|| head.strip_prefix("const"))
            .or_else(|| head.strip_prefix("let"))
            .or_else(|| head.strip_prefix("var"))
            .unwrap_or("");
        let head = head.split(['=', '\'', '"']).next().unwrap_or("");
        let head = head.trim().trim_end_matches("from").trim();
        // The default import: `import limiter from`, `import limiter, { ... } from`, `const limiter =`.
        let default = head.split([',', '{']).next().unwrap_or("").trim();
        if is_identifier(default) {
            names.push(default.to_string());
        }
        // A renamed import: `{ rateLimit as limiter }`, `{ rateLimit: limiter }`, `{ default as x }`.
        if let (Some(open), Some(close)) = (head.find('{'), head.find('}')) {
            for part in head.get(open + 1..close).unwrap_or("").split(',') {
                let mut words = part
                    .split([' ', ':'])
                    .filter(|w| !w.is_empty() && *w != "as");
                if let (Some(from), Some(to)) = (words.next(), words.next()) {
                    if (from == "rateLimit" || from == "default") && is_identifier(to) {
                        names.push(to.to_string());
                    }
                }
            }
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    unique
}

/// Every call of the limiter in `code`, in order.
fn limiter_calls(code: &str) -> Vec<LimiterCall> {
    let mut found = Vec::new();
    for name in call_names(code) {
        let mut from = 0;
        while let Some(pos) = code.get(from..).and_then(|rest| rest.find(&name)) {
            let at = from + pos;
            from = at + name.len();
            let before = code.get(..at).and_then(|b| b.chars().next_back());
            if before.is_some_and(|c| is_identifier_char(c) || c == '.') {
                continue;
            }
            let rest = code.get(from..).unwrap_or("");
            let after = rest.trim_start();
            if !after.starts_with('(') {
                continue;
            }
            // `function rateLimit(...)` defines a function of that name; it is no call.
            if code
                .get(..at)
                .unwrap_or("")
                .trim_end()
                .ends_with("function")
            {
                continue;
            }
            found.push(LimiterCall {
                at,
                open: from + (rest.len() - after.len()),
                name: assigned_name(code, at),
            });
        }
    }
    found.sort_unstable_by_key(|c| c.at);
    found
}

/// The name a value at `at` is assigned to on its line: `const apiLimiter = rateLimit(` or
/// `export const apiLimiter: RateLimitRequestHandler = rateLimit(`, or the property it is given
/// to: `login: rateLimit(`.
fn assigned_name(code: &str, at: usize) -> Option<String> {
    let before = code.get(..at)?;
    let line = before.rsplit('\n').next().unwrap_or(before).trim_end();
    let line = line.strip_suffix("new").unwrap_or(line).trim_end();
    let left = if let Some(left) = line.strip_suffix('=') {
        if left.ends_with(['=', '!', '<', '>']) {
            return None;
        }
        // A type annotation goes after the name.
        left.split(':').next().unwrap_or(left)
    } else {
        line.strip_suffix(':')?
    };
    let word: String = left
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| is_identifier_char(*c))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (!word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit())).then_some(word)
}

/// The inside of a call's options object (from just after its `{` to its `}`), `None` for a call
/// with no options.
fn options_of_call(
    text: &str,
    code: &str,
    call: &LimiterCall,
) -> Result<Option<(usize, usize)>, Unreadable> {
    let line = line_of(code, call.at);
    let unclosed = || Unreadable::at(text, line, "the `rateLimit(` call is never closed");
    let close = closing(code, call.open).ok_or_else(unclosed)?;
    let inside = code.get(call.open + 1..close).unwrap_or("");
    let argument = inside.trim_start();
    let start = call.open + 1 + (inside.len() - argument.len());
    let argument = argument.trim_end();
    if argument.is_empty() || argument == "undefined" {
        return Ok(None);
    }
    if argument.starts_with('{') {
        let end = closing(code, start).ok_or_else(unclosed)?;
        return Ok(Some((start + 1, end)));
    }
    if is_identifier(argument) {
        return match definition(code, argument) {
            Some((at, value)) if value.starts_with('{') => {
                let end = closing(code, at).ok_or_else(|| {
                    Unreadable::at(text, line_of(code, at), "the options object is never closed")
                })?;
                Ok(Some((at + 1, end)))
            }
            _ => Err(Unreadable::at(
                text,
                line,
                format!("`rateLimit({argument})`: the text does not define `{argument}` as an object of options"),
            )),
        };
    }
    Err(Unreadable::at(
        text,
        line,
        format!("`rateLimit({argument})`: the lab reads an options object written as `{{ ... }}`"),
    ))
}

/// The inside of the first object in the text that holds one of the limiter's options, or, with
/// no braces at all, the whole text taken as the object's inside.
fn bare_options(code: &str) -> Result<Option<(usize, usize)>, Unreadable> {
    let is_option = |e: &Entry| matches!(e.key.as_str(), "windowMs" | "limit" | "max");
    for (open, c) in code.char_indices() {
        if c != '{' {
            continue;
        }
        if let Some(close) = closing(code, open) {
            if entries(code, open + 1, close).iter().any(is_option) {
                return Ok(Some((open + 1, close)));
            }
        }
    }
    if !code.contains('{') && entries(code, 0, code.len()).iter().any(is_option) {
        // Written with no braces: `windowMs: 60000, limit: 10`; the object's inside is the text.
        return Ok(Some((0, code.len())));
    }
    Err(Unreadable::whole(
        "no `rateLimit({ ... })` call and no object with `windowMs`, `limit` or `max` in the text",
    ))
}

/// Whether a value is a function: an arrow function, `function`, or `async` one.
fn is_function(value: &str) -> bool {
    let v = value.trim_start();
    v.starts_with("function") || v.starts_with("async") || v.contains("=>")
}

/// A value with a name the text defines replaced by its definition (`HEADERS` for
/// `const HEADERS = 'draft-7'`), unquoted.
fn resolved(code: &str, value: &str, depth: usize) -> String {
    let value = value.trim();
    if depth < 4 && is_identifier(value) && !matches!(value, "true" | "false") {
        if let Some((_, defined)) = definition(code, value) {
            return resolved(code, defined, depth + 1);
        }
    }
    unquote(value)
}

/// The number a JavaScript expression makes: numbers as JavaScript writes them (`60_000`, `1e3`,
/// `0x10`), `+ - * /` and brackets, and names the text defines or the module exports (`HOUR`),
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
            let value = match definition(code, &name) {
                Some((_, defined)) => number(code, defined, depth + 1)?,
                None => TIME_CONSTANTS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)?,
            };
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
        read(text).unwrap().products.express_rate_limit
    }

    fn refusal(text: &str) -> Unreadable {
        read(text).unwrap_err()
    }

    // express-rate-limit/express-rate-limit 8.6.2, readme.md "Usage" (the same in the npm
    // package's readme.md, 8.7.5).
    const README: &str = "import { rateLimit } from 'express-rate-limit'

const limiter = rateLimit({
	windowMs: 15 * 60 * 1000, // 15 minutes
	limit: 100, // Limit each IP to 100 requests per `window` (here, per 15 minutes).
	standardHeaders: 'draft-8', // draft-6: `RateLimit-*` headers; draft-7 & draft-8: combined `RateLimit` header
	legacyHeaders: false, // Disable the `X-RateLimit-*` headers.
	ipv6Subnet: 56, // Set to 60 or 64 to be less aggressive, or 52 or 48 to be more aggressive
	// store: ... , // Redis, Memcached, etc. See below.
})

// Apply the rate limiting middleware to all requests.
app.use(limiter)
";

    // express-rate-limit/express-rate-limit 8.6.2, docs/quickstart/usage.mdx.
    const USAGE: &str = "const limiter = rateLimit({
	windowMs: 15 * 60 * 1000, // 15 minutes
	limit: 100, // Limit each IP to 100 requests per `window` (here, per 15 minutes)
	standardHeaders: true, // Return rate limit info in the `RateLimit-*` headers
	legacyHeaders: false, // Disable the `X-RateLimit-*` headers
	ipv6Subnet: 56, // Set to 60 or 64 to be less aggressive, or 52 or 48 to be more aggressive
})";

    // express-rate-limit/express-rate-limit 8.6.2, docs/reference/configuration.mdx, "Time
    // constants" (both examples).
    const THREE_HOURS: &str = "import { rateLimit, HOUR } from 'express-rate-limit'

const limiter = rateLimit({
	windowMs: 3 * HOUR,
	// ...
})";
    const MINUTE_AND_A_HALF: &str = "import { rateLimit, MINUTE, SECOND } from 'express-rate-limit'

const limiter = rateLimit({
	windowMs: 1 * MINUTE + 30 * SECOND,
	// ...
})";

    // express-rate-limit/express-rate-limit 8.6.2, docs/reference/configuration.mdx, `limit`.
    const LIMIT_FUNCTION: &str = "const isPremium = async (user) => {
	// ...
}

const limiter = rateLimit({
	// ...
	limit: async (req, res) => {
		if (await isPremium(req.user)) return 10
		else return 5
	},
})";

    // express-rate-limit/express-rate-limit 8.6.2, docs/reference/configuration.mdx, `message`.
    const MESSAGE: &str = "app.use(
	rateLimit({
		message: { error: 'Too many requests, please try again later.' },
		// ...
	}),
)";

    // express-rate-limit/express-rate-limit 8.6.2, docs/reference/configuration.mdx,
    // `keyGenerator`, `skip` and `validate`.
    const KEY_GENERATOR: &str = "import { rateLimit, ipKeyGenerator } from 'express-rate-limit'

const limiter = rateLimit({
	// ...
	keyGenerator: (req, res) => ipKeyGenerator(req.ip),
})";
    const SKIP: &str = "const allowlist = ['192.168.0.56', '192.168.0.21']

const limiter = rateLimit({
	// ...
	skip: (req, res) => allowlist.includes(req.ip),
})";
    const VALIDATE: &str = "const limiter = rateLimit({
	validate: {
		xForwardedForHeader: false,
		default: true,
	},
	// ...
})";

    const FIXTURES: &[&str] = &[
        README,
        USAGE,
        THREE_HOURS,
        MINUTE_AND_A_HALF,
        LIMIT_FUNCTION,
        MESSAGE,
        KEY_GENERATOR,
        SKIP,
        VALIDATE,
    ];

    #[test]
    fn the_readmes_limiter_is_100_per_15_minutes_with_draft_8_headers() {
        let from = read(README).unwrap();
        assert_eq!(from.row, "express-rate-limit");
        assert_eq!(from.name.as_deref(), Some("limiter"));
        assert_eq!(
            from.products.express_rate_limit,
            super::super::Fields {
                limit: Some(100),
                window: Some(Span::from_secs(900)),
                headers: Some(StandardHeaders::Draft8),
                legacy: Some(false),
                status: Some(429),
            }
        );
        assert_eq!(from.second, None);
        assert_eq!(from.notes.len(), 1, "{:?}", from.notes);
        assert!(from.notes[0].starts_with("`ipv6Subnet` is not applied"));
    }

    #[test]
    fn standard_headers_true_is_draft_6() {
        assert_eq!(fields(USAGE).headers, Some(StandardHeaders::Draft6));
        assert_eq!(fields(USAGE).limit, Some(100));
    }

    #[test]
    fn the_modules_time_constants_make_the_window() {
        let three = fields(THREE_HOURS);
        assert_eq!(three.window, Some(Span::from_secs(3 * 3600)));
        let half = fields(MINUTE_AND_A_HALF);
        assert_eq!(half.window, Some(Span::from_secs(90)));
    }

    #[test]
    fn options_left_out_take_the_librarys_defaults() {
        let f = fields(THREE_HOURS);
        assert_eq!(f.limit, Some(5));
        assert_eq!(f.headers, Some(StandardHeaders::Off));
        assert_eq!(f.legacy, Some(true));
        assert_eq!(f.status, Some(429));
        let none = fields("app.use(rateLimit())");
        assert_eq!(none.window, Some(Span::from_secs(60)));
        assert_eq!(none.limit, Some(5));
    }

    #[test]
    fn a_limit_that_is_a_function_is_refused_naming_its_line() {
        let e = refusal(LIMIT_FUNCTION);
        assert_eq!(e.line, 7);
        assert_eq!(
            e.why,
            "`limit` is a function of the request; the lab needs a number"
        );
        let e = refusal("rateLimit({\n  max(req) { return 5 },\n})");
        assert_eq!(
            (e.line, e.why.as_str()),
            (
                2,
                "`max` is a function of the request; the lab needs a number"
            )
        );
    }

    #[test]
    fn options_the_lab_does_not_run_are_each_named_in_a_note() {
        let from = read(MESSAGE).unwrap();
        assert_eq!(from.name, None);
        assert!(
            from.notes[0].starts_with("`message` is not sent"),
            "{:?}",
            from.notes
        );
        assert!(read(KEY_GENERATOR).unwrap().notes[0].starts_with("`keyGenerator` is not run"));
        assert!(read(SKIP).unwrap().notes[0].starts_with("`skip` is not run"));
        assert!(read(VALIDATE).unwrap().notes[0].starts_with("`validate` changes no verdict"));
        let from = read(
            "rateLimit({ windowMS: 1000, store: new RedisStore({}), async handler(req, res) {}, ...base })",
        )
        .unwrap();
        assert_eq!(from.notes.len(), 4, "{:?}", from.notes);
        assert!(from.notes[0].contains("`windowMS` is not an option of express-rate-limit"));
        assert!(from.notes[1].starts_with("`store` is not used"));
        assert!(from.notes[2].starts_with("`handler` is not run"));
        assert!(from.notes[3].starts_with("`...base` is spread"));
    }

    #[test]
    fn the_older_max_is_read_and_limit_wins_over_it() {
        assert_eq!(
            fields("rateLimit({ windowMs: 60000, max: 7 })").limit,
            Some(7)
        );
        let from = read("rateLimit({\n  max: 7,\n  limit: 9,\n})").unwrap();
        assert_eq!(from.products.express_rate_limit.limit, Some(9));
        assert!(from.notes[0].starts_with("`max` on line 2 is not used"));
        // `limit: undefined` is dropped by the library, so `max` holds.
        assert_eq!(
            fields("rateLimit({ limit: undefined, max: 3 })").limit,
            Some(3)
        );
        assert_eq!(fields("rateLimit({ max: 0 })").limit, Some(0));
    }

    #[test]
    fn the_older_headers_option_sets_the_legacy_headers_unless_legacy_headers_is_given() {
        assert_eq!(fields("rateLimit({ headers: false })").legacy, Some(false));
        assert_eq!(
            fields("rateLimit({ headers: false, legacyHeaders: true })").legacy,
            Some(true)
        );
    }

    #[test]
    fn options_named_by_a_variable_and_numbers_defined_in_the_text_are_followed() {
        let text = "const WINDOW = 10 * 1e3; // ten seconds
const options = {
  windowMs: WINDOW,
  limit: 0x10,
  statusCode: 503,
  standardHeaders: 'draft-7',
};
export const apiLimiter: RateLimitRequestHandler = rateLimit(options);";
        let from = read(text).unwrap();
        assert_eq!(from.name.as_deref(), Some("apiLimiter"));
        let f = from.products.express_rate_limit;
        assert_eq!(f.window, Some(Span::from_secs(10)));
        assert_eq!(f.limit, Some(16));
        assert_eq!(f.status, Some(503));
        assert_eq!(f.headers, Some(StandardHeaders::Draft7));
    }

    #[test]
    fn a_bare_object_or_bare_options_are_read() {
        let f = fields("{\n  windowMs: 60_000,\n  limit: 10,\n}");
        assert_eq!((f.limit, f.window), (Some(10), Some(Span::from_secs(60))));
        let f = fields("windowMs: 2000, limit: 3");
        assert_eq!((f.limit, f.window), (Some(3), Some(Span::from_secs(2))));
    }

    #[test]
    fn a_module_imported_under_another_name_is_called_by_it() {
        let text = "const limiter = require('express-rate-limit');\napp.use(limiter({ windowMs: 5000, max: 2 }));";
        let f = fields(text);
        assert_eq!((f.limit, f.window), (Some(2), Some(Span::from_secs(5))));
        let text = "import { rateLimit as throttle } from 'express-rate-limit'\nconst api = throttle({ limit: 4 })";
        let from = read(text).unwrap();
        assert_eq!(
            (from.name.as_deref(), from.products.express_rate_limit.limit),
            (Some("api"), Some(4))
        );
    }

    #[test]
    fn the_default_export_required_as_rate_limit_is_one_name_for_one_call() {
        // The form of express-rate-limit's readme up to version 6.
        let text = "const rateLimit = require('express-rate-limit')\n\nconst limiter = rateLimit({\n\twindowMs: 15 * 60 * 1000,\n\tmax: 100,\n})";
        let from = read(text).unwrap();
        assert!(from.notes.is_empty(), "{:?}", from.notes);
        assert_eq!(from.products.express_rate_limit.limit, Some(100));
    }

    #[test]
    fn the_first_of_several_limiters_sets_the_row_and_the_others_are_named() {
        let text = "const apiLimiter = rateLimit({ windowMs: 60000, limit: 100 })
const loginLimiter = rateLimit({ windowMs: 3600000, limit: 5 })
app.use('/api', apiLimiter)
app.post('/login', loginLimiter)";
        let from = read(text).unwrap();
        assert_eq!(from.name.as_deref(), Some("apiLimiter"));
        assert_eq!(from.products.express_rate_limit.limit, Some(100));
        assert_eq!(from.second, None);
        assert_eq!(
            from.notes,
            vec!["Another `rateLimit` call, `loginLimiter`, on line 2 is in the text too; only the first, `apiLimiter`, on line 1 sets the row, since a row runs one limiter.".to_string()]
        );
    }

    #[test]
    fn each_kind_of_unreadable_value_is_refused_naming_its_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("rateLimit({\n  windowMs: 0,\n})", 2, "`windowMs: 0` is 0 ms: the memory store takes 1 to 2147483647 ms (ERR_ERL_WINDOW_MS)"),
            ("rateLimit({\n  windowMs: 30 * 24 * 60 * 60 * 1000,\n})", 2, "`windowMs: 30 * 24 * 60 * 60 * 1000` is 2592000000 ms: the memory store takes 1 to 2147483647 ms (ERR_ERL_WINDOW_MS)"),
            ("rateLimit({ windowMs: 1500.5 })", 1, "`windowMs: 1500.5` is 1500.5 ms, not a whole number of milliseconds; the lab reads whole milliseconds"),
            ("rateLimit({\n  windowMs: process.env.WINDOW,\n})", 2, "`windowMs: process.env.WINDOW` is not a number the lab can work out from the text"),
            ("rateLimit({ limit: 2.5 })", 1, "`limit: 2.5` is not a whole number of requests from 0 up"),
            ("rateLimit({ limit: -1 })", 1, "`limit: -1` is not a whole number of requests from 0 up"),
            ("rateLimit({ limit: 2e9 })", 1, "`limit: 2e9` is more than the lab's largest limit, 1000000000"),
            ("rateLimit({ max: (req) => 5 })", 1, "`max` is a function of the request; the lab needs a number"),
            ("rateLimit({ standardHeaders: 'draft-9' })", 1, DRAFT_VERSION_ERROR),
            ("rateLimit({ legacyHeaders: 1 })", 1, "`legacyHeaders: 1` is not `true` or `false`"),
            ("rateLimit({ statusCode: 1000 })", 1, STATUS_CODE_ERROR),
            ("rateLimit({ statusCode: code })", 1, "`statusCode: code` is not a number the lab can work out from the text"),
            ("app.use(rateLimit(opts))", 1, "`rateLimit(opts)`: the text does not define `opts` as an object of options"),
            ("app.use(rateLimit(makeOptions()))", 1, "`rateLimit(makeOptions())`: the lab reads an options object written as `{ ... }`"),
            ("\napp.use(rateLimit({ windowMs: 1000 }", 2, "the `rateLimit(` call is never closed"),
        ];
        for (text, line, why) in cases {
            let e = refusal(text);
            assert_eq!((e.line, e.why.as_str()), (*line, *why), "{text}");
        }
        let e = refusal("const x = 1;");
        assert_eq!(e.line, 0);
        assert!(
            e.why.starts_with("no `rateLimit({ ... })` call"),
            "{}",
            e.why
        );
    }

    #[test]
    fn it_recognises_its_own_words_and_no_other_products() {
        for own in [README, "rateLimit({ limit: 5 })", "{ windowMs: 1000 }"] {
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
        "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
        "- name: envoy.filters.http.local_ratelimit\n  token_bucket: { max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s }",
        "[[ratelimits]]\nname = \"MY_RATE_LIMITER\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
        "{ \"ratelimits\": [{ \"name\": \"L\", \"namespace_id\": \"1001\", \"simple\": { \"limit\": 100, \"period\": 60 } }] }",
        "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
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
        fn no_text_at_all_makes_the_reader_panic(text in "[ -~\\n\\t{}()\\[\\]'\"`/*éλ]{0,80}") {
            let _ = recognises(&text);
            let _ = read(&text);
            let _ = read(&format!("rateLimit({{ windowMs: {text}"));
        }
    }

    #[test]
    fn the_rows_own_snippet_reads_back_as_the_same_limiter() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut variants = vec![super::super::Fields::default()];
        for headers in [
            StandardHeaders::Off,
            StandardHeaders::Draft6,
            StandardHeaders::Draft7,
            StandardHeaders::Draft8,
        ] {
            for legacy in [false, true] {
                variants.push(super::super::Fields {
                    headers: Some(headers),
                    legacy: Some(legacy),
                    ..Default::default()
                });
            }
        }
        for status in [100, 200, 429, 503, 999] {
            variants.push(super::super::Fields {
                status: Some(status),
                limit: Some(0),
                window: Some(Span::from_millis(1)),
                ..Default::default()
            });
        }
        variants.push(super::super::Fields {
            limit: Some(MAX_COUNT),
            window: Some(Span::from_millis(MAX_WINDOW_MS)),
            ..Default::default()
        });
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for variant in &variants {
                    let products = ProductSettings {
                        express_rate_limit: variant.clone(),
                        ..Default::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    let wanted = match &written.nearest {
                        Some(n) => n.products.express_rate_limit.params(s.limit, s.window),
                        None => s.products.express_rate_limit.params(s.limit, s.window),
                    };
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "express-rate-limit");
                    let got = from
                        .products
                        .express_rate_limit
                        .params(3, Span::from_secs(7));
                    assert_eq!(got, wanted, "{}", written.text);
                    assert!(recognises(&written.text));
                }
            }
        }
    }
}
