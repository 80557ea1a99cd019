//! Reading a Python program that uses `limits` (or Flask-Limiter, built on it) into the row it
//! runs (`profiles::config_text`).
//!
//! What is read, from limits 5.8.0 (`limits/util.py`: `SINGLE_EXPR`, `EXPR`, `SEPARATORS`,
//! `parse`, `parse_many`, `granularity_from_string`; `limits/limits.py`: `RateLimitItem`, its
//! subclasses and `check_granularity_string`; `limits/strategies.py`: `STRATEGIES`) and
//! Flask-Limiter 4.1 (`flask_limiter/_extension.py`: `Limiter.__init__`/`init_app`, whose strategy
//! defaults to `"fixed-window"`, and `__evaluate_limits`):
//! - rate strings, `"10/minute"`, `"5 per 10 seconds"`, `"10/hour;100/day, 500/7days"`, wherever
//!   the program writes one as a string (`parse(..)`, `parse_many(..)`, `@limiter.limit(..)`,
//!   `default_limits=[..]`, `RATELIMIT_DEFAULT = ..`), or the text alone;
//! - `RateLimitItemPerMinute(10)`, `RateLimitItemPerSecond(5, 10)` (amount, multiples);
//! - the strategy: a class name (`FixedWindowRateLimiter`, `MovingWindowRateLimiter`,
//!   `SlidingWindowCounterRateLimiter`, also as `limits.strategies.X`) or Flask-Limiter's
//!   `strategy="moving-window"` / `RATELIMIT_STRATEGY = "sliding-window-counter"`.
//!
//! Several limits on the same requests (one `parse_many` string, a Flask-Limiter limit string or
//! `default_limits` list): Flask-Limiter hits them one after the other in the order of
//! `sorted(limits)`, which compares only the granularity's seconds (a stable sort), and stops at
//! the first refusal (`fail_on_first_breach`, on by default): the lab's `Spend::All`, the first
//! checked being the row. `limits` alone leaves combining them to the caller; the reader then
//! takes them in the order written, and says so.

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::config::{MAX_LAB_LIMIT, MAX_LAB_WINDOW};
use crate::core::profiles::config_text::{
    calls, line_of, unquote, whole_number, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;
use crate::core::second_limit::{SecondKey, SecondLimit, Spend};
use crate::core::time::Span;

use super::{Fields, Granularity, PyLimitsParams};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "rate strings (`\"10/minute\"`, `\"5 per 10 seconds\"`) with the strategy's name",
};

/// The strategy classes, their Flask-Limiter names and their rows.
const STRATEGIES: [(&str, &str, &str); 3] = [
    ("FixedWindowRateLimiter", "fixed-window", "limits-fixed"),
    ("MovingWindowRateLimiter", "moving-window", "limits-moving"),
    (
        "SlidingWindowCounterRateLimiter",
        "sliding-window-counter",
        "limits-sliding",
    ),
];

/// Words only a program using `limits` or Flask-Limiter writes.
const OWN_WORDS: [&str; 12] = [
    "RateLimitItemPer",
    "from limits",
    "import limits",
    "limits.parse",
    "parse_many(",
    "flask_limiter",
    "RATELIMIT_",
    "default_limits",
    "MovingWindowRateLimiter",
    "SlidingWindowCounterRateLimiter",
    "strategies.FixedWindowRateLimiter",
    "MemoryStorage(",
];

/// Words of .NET's `System.Threading.RateLimiting`, whose class names `limits` shares.
const DOTNET_WORDS: [&str; 5] = [
    "RateLimiterOptions",
    "PermitLimit",
    "TimeSpan",
    "System.Threading",
    "new FixedWindowRateLimiter",
];

fn recognises(text: &str) -> bool {
    if DOTNET_WORDS.iter().any(|w| text.contains(w)) {
        return false;
    }
    let own = OWN_WORDS.iter().any(|w| text.contains(w))
        || (text.contains("FixedWindowRateLimiter(") && text.contains("parse("));
    own || rate_string(unquote(text.trim()).as_str()).is_some()
}

/// A string literal of the program: where it starts (its quote, or its prefix letter), the
/// line, and what it holds as written (escapes left as they are).
#[derive(Clone, Debug)]
struct Literal {
    at: usize,
    /// Just after its closing quote.
    end: usize,
    line: usize,
    value: String,
}

/// The program with its comments blanked out (every byte kept, so offsets stay), and its string
/// literals.
fn lex(text: &str) -> (String, Vec<Literal>) {
    let mut code = String::with_capacity(text.len());
    let mut literals = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '#' => {
                code.push(' ');
                while let Some(&(_, c)) = chars.peek() {
                    if c == '\n' {
                        break;
                    }
                    for _ in 0..c.len_utf8() {
                        code.push(' ');
                    }
                    chars.next();
                }
            }
            '"' | '\'' => {
                let triple = text[at..].starts_with(&c.to_string().repeat(3));
                let quote_len = if triple { 3 } else { 1 };
                let body_start = at + quote_len;
                let closing = c.to_string().repeat(quote_len);
                let mut end = text.len();
                let mut escaped = false;
                for (i, d) in text[body_start..].char_indices() {
                    if escaped {
                        escaped = false;
                        continue;
                    }
                    if d == '\\' {
                        escaped = true;
                    } else if text[body_start + i..].starts_with(&closing) || (!triple && d == '\n')
                    {
                        end = body_start + i;
                        break;
                    }
                }
                let stop = (end + quote_len).min(text.len());
                literals.push(Literal {
                    at,
                    end: stop,
                    line: line_of(text, at),
                    value: text[body_start..end].to_string(),
                });
                // The literal stays in the code as written, so that calls read their arguments.
                code.push_str(&text[at..stop]);
                while chars.peek().is_some_and(|&(i, _)| i < stop) {
                    chars.next();
                }
            }
            _ => code.push(c),
        }
    }
    (code, literals)
}

/// One rate limit item: `amount` per `multiples` `granularity`, where the program writes it.
#[derive(Clone, Debug, PartialEq)]
struct Item {
    amount: u64,
    /// As written; the library takes 0 (and `None`) as 1.
    multiples: u64,
    granularity: Granularity,
    line: usize,
}

impl Item {
    fn params(&self) -> PyLimitsParams {
        PyLimitsParams::new(self.amount, self.multiples.max(1), self.granularity)
    }

    /// `repr(item)`: "10 per 1 minute".
    fn describe(&self) -> String {
        self.params().item_repr()
    }
}

/// One limit of a rate string: amount, multiples as written, granularity.
type Parsed = (u64, u64, Granularity);

/// A rate string's limits as `parse_many` reads them, `None` when `EXPR` does not match it all;
/// a granularity no `RateLimitItem` has is `Err` naming it (the library's `ValueError`).
fn rate_string(text: &str) -> Option<Result<Vec<Parsed>, String>> {
    let mut items = Vec::new();
    let mut rest = text;
    loop {
        let (item, after) = single_expr(rest)?;
        items.push(item);
        // `EXPR` joins them with `(:?[,;|])`: an optional `:` before the separator.
        let after = after.strip_prefix(':').unwrap_or(after);
        match after.strip_prefix([',', ';', '|']) {
            Some(next) => rest = next,
            None if after.is_empty() || after == "\n" => break,
            None => return None,
        }
    }
    let mut out = Vec::new();
    for (amount, multiples, word) in items {
        let Some(granularity) = granularity_of(word) else {
            return Some(Err(format!("no granularity matched for `{word}`")));
        };
        let Ok(amount) = amount.parse::<u64>() else {
            return Some(Err(format!(
                "the amount {amount} is more than the lab holds"
            )));
        };
        let multiples = match multiples {
            Some(m) => match m.parse::<u64>() {
                Ok(m) => m,
                Err(_) => return Some(Err(format!("the multiple {m} is more than the lab holds"))),
            },
            None => 1,
        };
        out.push((amount, multiples, granularity));
    }
    Some(Ok(out))
}

/// `check_granularity_string`: the name or the name with an `s`, any case.
fn granularity_of(word: &str) -> Option<Granularity> {
    let lower = word.to_ascii_lowercase();
    Granularity::ALL
        .into_iter()
        .find(|g| lower == g.name() || lower == format!("{}s", g.name()))
}

/// `SINGLE_EXPR` at the start of `text`: `\s*([0-9]+)\s*(/|\s*per\s*)\s*([0-9]+)?\s*([a-z]+)\s*`
/// (case-insensitive); the amount, the multiple, the word and what follows.
#[allow(clippy::type_complexity)]
fn single_expr(text: &str) -> Option<((&str, Option<&str>, &str), &str)> {
    let space = |s: &str| s.trim_start_matches(char::is_whitespace).len();
    let skip = |s: &str| -> usize { s.len() - space(s) };
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let mut at = skip(text);
    let n = digits(&text[at..]);
    if n == 0 {
        return None;
    }
    let amount = &text[at..at + n];
    at += n;
    at += skip(&text[at..]);
    if text[at..].starts_with('/') {
        at += 1;
    } else if text[at..]
        .get(..3)
        .is_some_and(|w| w.eq_ignore_ascii_case("per"))
    {
        at += 3;
    } else {
        return None;
    }
    at += skip(&text[at..]);
    let m = digits(&text[at..]);
    let multiples = (m > 0).then(|| &text[at..at + m]);
    at += m;
    at += skip(&text[at..]);
    let w = text[at..]
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .count();
    if w == 0 {
        return None;
    }
    let word = &text[at..at + w];
    at += w;
    at += skip(&text[at..]);
    Some(((amount, multiples, word), &text[at..]))
}

/// The name of the call whose argument list `code[..at]` ends inside, right after its `(`:
/// `limits.parse` for `limits.parse("1/minute")`.
fn call_before(code: &str, at: usize) -> Option<&str> {
    let before = code.get(..at)?.trim_end().strip_suffix('(')?.trim_end();
    Some(trailing(before, |c| {
        c.is_alphanumeric() || c == '_' || c == '.'
    }))
}

/// The end of `text` made of the characters `keep` takes.
fn trailing(text: &str, keep: impl Fn(char) -> bool) -> &str {
    let start = text
        .char_indices()
        .rev()
        .find(|&(_, c)| !keep(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    &text[start..]
}

/// The key a value at `at` is given to: `strategy` in `strategy="moving-window"`,
/// `RATELIMIT_STRATEGY` in `RATELIMIT_STRATEGY = ".."` or `"RATELIMIT_STRATEGY": ".."`.
fn key_before(code: &str, at: usize) -> Option<&str> {
    let before = code.get(..at)?.trim_end();
    let before = before
        .strip_suffix('=')
        .filter(|b| !b.ends_with(['=', '!', '<', '>']))
        .or_else(|| before.strip_suffix(':'))?
        .trim_end();
    let before = before.strip_suffix(['"', '\'']).unwrap_or(before);
    Some(trailing(before, |c| c.is_alphanumeric() || c == '_')).filter(|k| !k.is_empty())
}

/// The variable a call starting at `at` is assigned to: `one_per_minute` in
/// `one_per_minute = parse("1/minute")`, on a line of its own.
fn assigned_to(code: &str, at: usize) -> Option<String> {
    let before = code.get(..at)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let assignment = before[line_start..].trim().strip_suffix('=')?.trim_end();
    let is_name = !assignment.is_empty()
        && !assignment.starts_with(|c: char| c.is_ascii_digit())
        && assignment.chars().all(|c| c.is_alphanumeric() || c == '_');
    is_name.then(|| assignment.to_string())
}

/// Where the call or literal at `at` begins, its call's name included.
fn call_start(code: &str, at: usize) -> usize {
    match call_before(code, at) {
        Some(name) => code[..at]
            .trim_end()
            .strip_suffix('(')
            .map_or(at, |b| b.trim_end().len() - name.len()),
        None => at,
    }
}

/// The keys whose value is a rate string or a list of them, in Flask-Limiter.
const LIMIT_KEYS: [&str; 6] = [
    "default_limits",
    "application_limits",
    "RATELIMIT_DEFAULT",
    "RATELIMIT_APPLICATION",
    "limit_value",
    "meta_limits",
];

/// The calls whose first argument is a rate string.
const LIMIT_CALLS: [&str; 4] = ["parse", "parse_many", "limit", "shared_limit"];

/// The byte ranges of the lists given to `default_limits=[..]` and the like: every rate string
/// in one of them limits the same requests.
fn limit_lists(code: &str) -> Vec<(usize, usize)> {
    let mut lists = Vec::new();
    for key in LIMIT_KEYS {
        let mut from = 0;
        while let Some(pos) = code[from..].find(key) {
            let at = from + pos + key.len();
            from = at;
            let rest = code[at..].trim_start_matches(['"', '\'']).trim_start();
            let Some(rest) = rest.strip_prefix(['=', ':']) else {
                continue;
            };
            let rest = rest.trim_start();
            if !rest.starts_with(['[', '(']) {
                continue;
            }
            let open = code.len() - rest.len();
            let mut depth = 0usize;
            let mut quote: Option<char> = None;
            for (i, c) in code[open..].char_indices() {
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None => match c {
                        '"' | '\'' => quote = Some(c),
                        '[' | '(' => depth += 1,
                        ']' | ')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                lists.push((open, open + i));
                                break;
                            }
                        }
                        _ => {}
                    },
                }
            }
        }
    }
    lists
}

/// The limits found, in groups that limit the same requests, each group in the order written.
struct Found {
    groups: Vec<Vec<Item>>,
    /// Items left out because `parse` reads only a string's first limit.
    parse_rest: Vec<(usize, String)>,
    /// The variable the first limit is assigned to.
    names: Vec<Option<String>>,
}

fn items(text: &str, code: &str, literals: &[Literal]) -> Result<Found, Unreadable> {
    let lists = limit_lists(code);
    // (position, group key, items, name)
    let mut found: Vec<(usize, usize, Vec<Item>, Option<String>)> = Vec::new();
    let mut parse_rest = Vec::new();
    for lit in literals {
        let call = call_before(code, lit.at);
        let call_word = call.map(|c| c.rsplit('.').next().unwrap_or(c));
        let in_list = lists
            .iter()
            .position(|&(open, close)| open < lit.at && lit.at < close);
        let key = key_before(code, lit.at);
        let rate_position = call_word.is_some_and(|w| LIMIT_CALLS.contains(&w))
            || in_list.is_some()
            || key.is_some_and(|k| LIMIT_KEYS.contains(&k));
        let parsed = match rate_string(&lit.value) {
            Some(Ok(parsed)) => parsed,
            Some(Err(why)) => return Err(Unreadable::at(text, lit.line, why)),
            None if rate_position => {
                return Err(Unreadable::at(
                    text,
                    lit.line,
                    format!("couldn't parse rate limit string `{}`", lit.value),
                ))
            }
            None => continue,
        };
        let mut parsed: Vec<Item> = parsed
            .into_iter()
            .map(|(amount, multiples, granularity)| Item {
                amount,
                multiples,
                granularity,
                line: lit.line,
            })
            .collect();
        if call_word == Some("parse") && parsed.len() > 1 {
            for extra in parsed.split_off(1) {
                parse_rest.push((extra.line, extra.describe()));
            }
        }
        let group = match in_list {
            Some(list) => usize::MAX - list,
            None => lit.at,
        };
        let name = assigned_to(code, call_start(code, lit.at));
        match found.iter_mut().find(|(_, g, _, _)| *g == group) {
            Some((_, _, items, _)) => items.extend(parsed),
            None => found.push((lit.at, group, parsed, name)),
        }
    }
    for g in Granularity::ALL {
        let class = format!("RateLimitItemPer{}", capitalised(g.name()));
        for call in calls(code, &class) {
            let (amount, multiples) = item_arguments(text, &class, &call.args, call.line)?;
            let name = assigned_to(code, call.at);
            found.push((
                call.at,
                call.at,
                vec![Item {
                    amount,
                    multiples,
                    granularity: g,
                    line: call.line,
                }],
                name,
            ));
        }
    }
    found.sort_unstable_by_key(|(at, _, _, _)| *at);
    let names = found.iter().map(|(_, _, _, n)| n.clone()).collect();
    Ok(Found {
        groups: found.into_iter().map(|(_, _, items, _)| items).collect(),
        parse_rest,
        names,
    })
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// `RateLimitItemPerX(amount, multiples=1, namespace=..)`'s amount and multiples.
fn item_arguments(
    text: &str,
    class: &str,
    args: &[String],
    line: usize,
) -> Result<(u64, u64), Unreadable> {
    let named = |key: &str| {
        args.iter().find_map(|a| {
            let (k, v) = a.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let positional: Vec<&String> = args.iter().filter(|a| !a.contains('=')).collect();
    let amount = named("amount").or_else(|| positional.first().map(|a| a.to_string()));
    let Some(amount) = amount else {
        return Err(Unreadable::at(
            text,
            line,
            format!("`{class}` without an amount"),
        ));
    };
    let amount = whole_number(&amount, 0).ok_or_else(|| {
        Unreadable::at(
            text,
            line,
            format!("`{class}`'s amount `{amount}` is not a whole number"),
        )
    })?;
    let multiples = named("multiples").or_else(|| positional.get(1).map(|a| a.to_string()));
    let multiples = match multiples.as_deref() {
        None | Some("None") => 1,
        Some(m) => whole_number(m, 0).ok_or_else(|| {
            Unreadable::at(
                text,
                line,
                format!("`{class}`'s multiples `{m}` is not a whole number"),
            )
        })?,
    };
    Ok((amount, multiples))
}

/// The strategies the program names, in order: (where, row slug, how it is named).
fn strategies(
    text: &str,
    code: &str,
    literals: &[Literal],
) -> Result<Vec<(usize, &'static str, String)>, Unreadable> {
    let mut named = Vec::new();
    for (class, _, row) in STRATEGIES {
        let mut from = 0;
        while let Some(pos) = code[from..].find(class) {
            let at = from + pos;
            from = at + class.len();
            let inside_literal = literals.iter().any(|l| l.at < at && at < l.end);
            let word_before = code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !inside_literal && !word_before {
                named.push((at, row, format!("`{class}`")));
            }
        }
    }
    for lit in literals {
        let key = key_before(code, lit.at);
        let by_key = key.is_some_and(|k| k == "strategy" || k == "RATELIMIT_STRATEGY");
        let by_index = code[..lit.at].trim_end().ends_with("STRATEGIES[");
        if !(by_key || by_index) {
            continue;
        }
        match STRATEGIES.iter().find(|(_, name, _)| *name == lit.value) {
            Some((_, name, row)) => named.push((lit.at, *row, format!("\"{name}\""))),
            None => {
                return Err(Unreadable::at(
                    text,
                    lit.line,
                    format!(
                        "no strategy is called `{}`: fixed-window, moving-window or sliding-window-counter",
                        lit.value
                    ),
                ))
            }
        }
    }
    named.sort_unstable_by_key(|(at, _, _)| *at);
    Ok(named)
}

/// Whether the program runs Flask-Limiter, which orders several limits and stops at the first
/// refusal.
fn flask_limiter(code: &str) -> bool {
    [
        "flask_limiter",
        "Limiter(",
        "RATELIMIT_",
        "default_limits",
        "@limiter.",
    ]
    .iter()
    .any(|w| code.contains(w))
}

/// `fail_on_first_breach=False` or `RATELIMIT_FAIL_ON_FIRST_BREACH = False`.
fn hits_every_limit(code: &str) -> bool {
    ["fail_on_first_breach", "RATELIMIT_FAIL_ON_FIRST_BREACH"]
        .iter()
        .any(|key| {
            code.match_indices(key).any(|(at, _)| {
                let rest = code[at + key.len()..]
                    .trim_start_matches(['"', '\''])
                    .trim_start();
                rest.strip_prefix(['=', ':'])
                    .is_some_and(|v| v.trim_start().starts_with("False"))
            })
        })
}

/// The lab's field holds the item, or the reason it cannot.
fn holdable(text: &str, item: &Item) -> Result<(), Unreadable> {
    if item.amount > MAX_COUNT {
        return Err(Unreadable::at(
            text,
            item.line,
            format!(
                "an amount of {} is more than the lab holds ({MAX_COUNT})",
                item.amount
            ),
        ));
    }
    let fits = item
        .params()
        .expiry()
        .is_some_and(|secs| item.multiples <= MAX_COUNT && Span::from_secs(secs) <= MAX_WINDOW);
    if !fits {
        return Err(Unreadable::at(
            text,
            item.line,
            format!(
                "a window of {} is longer than the lab holds (366 days)",
                item.describe()
            ),
        ));
    }
    Ok(())
}

/// The lab's second limit for `item` when it says it exactly: the row's product with
/// `Fields::default().params(count, window)` runs the same amount over the same window on the
/// same clock (the granularity's name only spells the window).
fn second_for(item: &Item, spend: Spend) -> Option<SecondLimit> {
    let given = item.params();
    let secs = given.expiry()?;
    let window = Span::from_secs(secs);
    if item.amount == 0 || item.amount > MAX_LAB_LIMIT || window > MAX_LAB_WINDOW {
        return None;
    }
    let lab = Fields::default().params(item.amount, window);
    let same = (lab.amount, lab.expiry(), lab.epoch) == (given.amount, given.expiry(), given.epoch);
    same.then_some(SecondLimit {
        count: item.amount,
        window,
        key: SecondKey::Same,
        spend,
    })
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let (code, literals) = lex(text);
    let mut literals = literals;
    // The text alone as a rate string: `10/hour;100/day`.
    if literals.is_empty() && rate_string(text.trim()).is_some() {
        let at = text.len() - text.trim_start().len();
        literals.push(Literal {
            at,
            end: text.len(),
            line: line_of(text, at),
            value: text.trim().to_string(),
        });
    }
    let strategies = strategies(text, &code, &literals)?;
    let found = items(text, &code, &literals)?;
    let Some(first_group) = found.groups.first() else {
        return Err(Unreadable::whole(
            "no rate limit in it: expected a rate string such as \"10/minute\" or \"5 per 10 seconds\", or RateLimitItemPerMinute(10)",
        ));
    };
    let mut notes = Vec::new();
    let row = match strategies.first() {
        Some((_, row, _)) => *row,
        None => {
            notes.push(
                "No strategy is named: limits itself has no default, so the row is Flask-Limiter's default, the fixed window (\"fixed-window\").".to_string(),
            );
            "limits-fixed"
        }
    };
    if let Some((_, _, first_name)) = strategies.first() {
        for (at, other, name) in &strategies[1..] {
            if *other != row {
                notes.push(format!(
                    "The strategy {name} (line {}) is named too; the first named, {first_name}, sets the row.",
                    line_of(text, *at)
                ));
            }
        }
    }
    let flask = flask_limiter(&code);
    let mut group = first_group.clone();
    if flask {
        // `sorted(limits, key=lambda x: x.limit)`: `RateLimitItem.__lt__` compares the
        // granularity's seconds only, and Python's sort is stable.
        group.sort_by_key(|i| i.granularity.seconds());
    }
    let first = group[0].clone();
    holdable(text, &first)?;
    let products = ProductSettings {
        python_limits: Fields {
            amount: Some(first.amount),
            multiples: Some(first.multiples.max(1)),
            per: Some(first.granularity),
        },
        ..ProductSettings::default()
    };
    if first.multiples == 0 {
        notes.push(format!(
            "A multiple of 0 (line {}) is taken as 1, as limits does.",
            first.line
        ));
    }
    let mut second = None;
    if let Some(next) = group.get(1) {
        let order = if flask {
            "Flask-Limiter checks them shortest granularity first, stopping at the first refusal"
        } else {
            "limits leaves combining them to the caller; the lab checks them in the order written, stopping at the first refusal, as Flask-Limiter does"
        };
        if flask && hits_every_limit(&code) {
            notes.push(format!(
                "The limit {} is not the lab's second limit: with fail_on_first_breach off, Flask-Limiter hits every limit even after one refuses, which the lab's second limit does not do.",
                next.describe()
            ));
        } else if let Some(limit) = second_for(next, Spend::All) {
            second = Some(limit);
            notes.push(format!(
                "{} and {} limit the same requests: {order}; the first is the row, the second the lab's second limit.",
                first.describe(),
                next.describe()
            ));
        } else {
            notes.push(format!(
                "The limit {} (line {}) also applies, but the lab's second limit cannot run it (it holds 1 to {MAX_LAB_LIMIT} per at most a day); only {} is run.",
                next.describe(),
                next.line,
                first.describe()
            ));
        }
        for rest in &group[2..] {
            notes.push(format!(
                "The limit {} (line {}) also applies; the lab runs at most two limits, so it is left out.",
                rest.describe(),
                rest.line
            ));
        }
    }
    for (line, extra) in &found.parse_rest {
        notes.push(format!(
            "`parse` reads only a string's first limit: {extra} (line {line}) is not part of it."
        ));
    }
    for other in found.groups[1..].iter().flatten() {
        notes.push(format!(
            "The limit {} (line {}) is another limit in the program; the first one, {}, sets the row.",
            other.describe(),
            other.line,
            first.describe()
        ));
    }
    for backend in [
        "RedisStorage",
        "MemcachedStorage",
        "MongoDbStorage",
        "redis://",
        "memcached://",
        "mongodb://",
    ] {
        if code.contains(backend) {
            notes.push(format!(
                "The program uses {backend}; the lab runs limits' in-memory storage (MemoryStorage), whose timing may differ."
            ));
            break;
        }
    }
    let name = found.names.first().cloned().flatten();
    Ok(FromConfig {
        row,
        name,
        products,
        second,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::python_limits::{FIXED_ROW, MOVING_ROW, SLIDING_ROW};
    use crate::core::profiles::{RowSettings, SnippetOf};

    fn fields(amount: u64, multiples: u64, per: Granularity) -> Fields {
        Fields {
            amount: Some(amount),
            multiples: Some(multiples),
            per: Some(per),
        }
    }

    fn reads(text: &str) -> FromConfig {
        match read(text) {
            Ok(r) => r,
            Err(e) => panic!("{e}\n{text}"),
        }
    }

    fn refusal(text: &str) -> Unreadable {
        read(text).expect_err(text)
    }

    // limits 5.8.0, README.rst, "Dive right in" (the strategy and the two limits, joined).
    const README: &str = r#"from limits import storage
backend = storage.MemoryStorage()
from limits import strategies
strategy = strategies.MovingWindowRateLimiter(backend)
# or fixed window
strategy = strategies.FixedWindowRateLimiter(backend)
# or sliding window
strategy = strategies.SlidingWindowCounterRateLimiter(backend)
from limits import parse
one_per_minute = parse("1/minute")
from limits import RateLimitItemPerSecond
one_per_second = RateLimitItemPerSecond(1, 1)
"#;

    // limits 5.8.0, doc/source/quickstart.rst, "Initialize a rate limiter" (sliding window tab)
    // and "Describe the rate limit".
    const QUICKSTART: &str = r#"from limits import strategies
limiter = strategies.SlidingWindowCounterRateLimiter(limits_storage)
from limits import parse
one_per_minute = parse("1/minute")
"#;

    // limits 5.8.0, doc/source/quickstart.rst, "Rate limit string notation", the examples.
    const NOTATION: [&str; 4] = [
        "10 per hour",
        "10/hour",
        "10/hour;100/day;2000 per year",
        "100/day, 500/7days",
    ];

    // Flask-Limiter 4.1.1 (alisaifee/flask-limiter 982f0ff), README.rst, "Add the rate limiter
    // to your flask app" (the storage comments shortened).
    const FLASK_README: &str = r#"from flask import Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

app = Flask(__name__)
limiter = Limiter(
    get_remote_address,
    app=app,
    default_limits=["2 per minute", "1 per second"],
    storage_uri="memory://",
    # Redis
    # storage_uri="redis://localhost:6379",
    strategy="fixed-window", # or "moving-window", or "sliding-window-counter"
)

@app.route("/slow")
@limiter.limit("1 per day")
def slow():
    return "24"
"#;

    #[test]
    fn the_readmes_example_runs_the_first_strategy_and_the_first_limit() {
        let r = reads(README);
        assert_eq!(r.row, "limits-moving");
        assert_eq!(r.products.python_limits, fields(1, 1, Granularity::Minute));
        assert_eq!(r.name.as_deref(), Some("one_per_minute"));
        assert_eq!(r.second, None);
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("`FixedWindowRateLimiter` (line 6)")));
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("1 per 1 second (line 12)")));
    }

    #[test]
    fn the_quickstarts_sliding_window_counter_reads_as_its_row() {
        let r = reads(QUICKSTART);
        assert_eq!(r.row, "limits-sliding");
        assert_eq!(r.products.python_limits, fields(1, 1, Granularity::Minute));
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }

    #[test]
    fn the_string_notations_examples_read_as_parse_many_does() {
        let one = reads(NOTATION[0]);
        assert_eq!(one.row, "limits-fixed");
        assert_eq!(one.products.python_limits, fields(10, 1, Granularity::Hour));
        assert!(one.notes[0].contains("Flask-Limiter's default"));
        assert_eq!(reads(NOTATION[1]).products, one.products);
        // 10/hour then 100/day: written order (no Flask-Limiter), the second exactly the lab's.
        let three = reads(NOTATION[2]);
        assert_eq!(
            three.products.python_limits,
            fields(10, 1, Granularity::Hour)
        );
        assert_eq!(
            three.second,
            Some(SecondLimit {
                count: 100,
                window: Span::from_secs(86_400),
                key: SecondKey::Same,
                spend: Spend::All,
            })
        );
        assert!(three.notes.iter().any(|n| n.contains("2000 per 1 year")));
        // 500 per 7 days is over the lab's second limit's day.
        let two = reads(NOTATION[3]);
        assert_eq!(two.products.python_limits, fields(100, 1, Granularity::Day));
        assert_eq!(two.second, None);
        assert!(two.notes.iter().any(|n| n.contains("500 per 7 day")));
    }

    #[test]
    fn flask_limiters_default_limits_are_checked_shortest_granularity_first() {
        let r = reads(FLASK_README);
        assert_eq!(r.row, "limits-fixed");
        assert_eq!(r.products.python_limits, fields(1, 1, Granularity::Second));
        assert_eq!(
            r.second,
            Some(SecondLimit {
                count: 2,
                window: Span::from_secs(60),
                key: SecondKey::Same,
                spend: Spend::All,
            })
        );
        assert!(r.notes.iter().any(|n| n.contains("1 per 1 day (line 17)")));
        assert!(
            !r.notes.iter().any(|n| n.contains("redis")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn flask_limiters_strategy_setting_picks_the_row() {
        let r = reads("RATELIMIT_STRATEGY = \"moving-window\"\nRATELIMIT_DEFAULT = \"100 per hour;10/minute\"");
        assert_eq!(r.row, "limits-moving");
        assert_eq!(r.products.python_limits, fields(10, 1, Granularity::Minute));
        assert_eq!(
            r.second.map(|s| (s.count, s.window)),
            Some((100, Span::from_secs(3600)))
        );
        let r = reads("limiter = Limiter(key, strategy='sliding-window-counter', default_limits=['5/second'])");
        assert_eq!(r.row, "limits-sliding");
        let r = reads("config = {\"RATELIMIT_STRATEGY\": \"moving-window\", \"RATELIMIT_DEFAULT\": \"5/second\"}");
        assert_eq!(r.row, "limits-moving");
    }

    #[test]
    fn with_fail_on_first_breach_off_the_second_limit_is_only_noted() {
        let r = reads(
            "Limiter(key, default_limits=['1/second', '10/minute'], fail_on_first_breach=False)",
        );
        assert_eq!(r.second, None);
        assert!(r.notes.iter().any(|n| n.contains("fail_on_first_breach")));
    }

    #[test]
    fn explicit_items_take_amount_and_multiples() {
        let r = reads("from limits import RateLimitItemPerSecond\nlimiter = MovingWindowRateLimiter(MemoryStorage())\nitem = RateLimitItemPerSecond(5, 10)");
        assert_eq!(r.row, "limits-moving");
        assert_eq!(r.products.python_limits, fields(5, 10, Granularity::Second));
        assert_eq!(r.name.as_deref(), Some("item"));
        let r = reads("limits.RateLimitItemPerMinute(10)");
        assert_eq!(r.products.python_limits, fields(10, 1, Granularity::Minute));
        let r = reads("limits.RateLimitItemPerHour(amount=3, multiples=None)");
        assert_eq!(r.products.python_limits, fields(3, 1, Granularity::Hour));
        let r = reads("limits.RateLimitItemPerDay(3, 0)");
        assert_eq!(r.products.python_limits, fields(3, 1, Granularity::Day));
    }

    #[test]
    fn the_notation_is_read_as_the_librarys_regular_expression_reads_it() {
        let per = |t: &str| reads(t).products.python_limits;
        assert_eq!(
            per("\"5 per 10 seconds\""),
            fields(5, 10, Granularity::Second)
        );
        assert_eq!(
            per("\"5 PER 2 Minutes\""),
            fields(5, 2, Granularity::Minute)
        );
        assert_eq!(per("\"5perminute\""), fields(5, 1, Granularity::Minute));
        assert_eq!(per("\"5/ 0 hours\""), fields(5, 1, Granularity::Hour));
        assert_eq!(per("\"0/second\""), fields(0, 1, Granularity::Second));
        assert_eq!(per("\"1/month\""), fields(1, 1, Granularity::Month));
        // `(:?[,;|])`: a colon may precede the separator.
        assert_eq!(
            reads("\"1/second:;2/minute\"").second.map(|s| s.count),
            Some(2)
        );
        let r = reads("limiter.hit(parse(\"1/second|2/minute\"), \"k\")");
        assert_eq!(r.second, None);
        assert!(r.notes.iter().any(|n| n.contains("`parse` reads only")));
    }

    #[test]
    fn unreadable_lines_are_named_with_the_reason() {
        let e = refusal("from limits import parse\nx = parse(\"10/fortnight\")");
        assert_eq!(
            (e.line, e.why.as_str()),
            (2, "no granularity matched for `fortnight`")
        );
        let e = refusal("import limits\nx = limits.parse(\"ten per minute\")");
        assert_eq!(
            (e.line, e.why.as_str()),
            (2, "couldn't parse rate limit string `ten per minute`")
        );
        let e = refusal("Limiter(key,\n  default_limits=[\"2 per minute\", \"many\"])");
        assert_eq!(e.line, 2);
        assert!(e.why.contains("`many`"));
        let e = refusal("Limiter(key, default_limits=['1/second'],\n strategy='leaky-bucket')");
        assert_eq!(e.line, 2);
        assert!(
            e.why.starts_with("no strategy is called `leaky-bucket`"),
            "{}",
            e.why
        );
        let e = refusal("x = RateLimitItemPerMinute(n)");
        assert_eq!(
            e.why,
            "`RateLimitItemPerMinute`'s amount `n` is not a whole number"
        );
        let e = refusal("x = RateLimitItemPerMinute(1, k)");
        assert_eq!(
            e.why,
            "`RateLimitItemPerMinute`'s multiples `k` is not a whole number"
        );
        let e = refusal("x = RateLimitItemPerMinute()");
        assert_eq!(e.why, "`RateLimitItemPerMinute` without an amount");
        let e = refusal("parse(\"5000000000/second\")");
        assert_eq!(
            e.why,
            "an amount of 5000000000 is more than the lab holds (1000000000)"
        );
        let e = refusal("parse(\"1 per 2 years\")");
        assert_eq!(
            e.why,
            "a window of 1 per 2 year is longer than the lab holds (366 days)"
        );
        let e = refusal(
            "from limits import strategies\nlimiter = strategies.FixedWindowRateLimiter(s)",
        );
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no rate limit in it"));
    }

    #[test]
    fn the_other_products_configs_are_not_taken_for_limits() {
        let others = [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "let q = Quota::per_second(nonzero!(5u32));",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "descriptors:\n  - key: generic_key\n    rate_limit:\n      unit: minute\n      requests_per_unit: 10",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nnamespace_id = \"1001\"\nsimple = { limit = 100, period = 60 }",
            "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "var limiter = new FixedWindowRateLimiter(new FixedWindowRateLimiterOptions { PermitLimit = 4, Window = TimeSpan.FromSeconds(12) });",
            "{ \"MyRateLimitOptions\": { \"PermitLimit\": 4, \"Window\": 12 } }",
            "RateLimiter limiter = RateLimiter.create(5.0);",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        for text in [
            README,
            QUICKSTART,
            FLASK_README,
            "10/hour;100/day",
            "\"5 per 10 seconds\"",
        ] {
            assert!(recognises(text), "{text}");
        }
    }

    #[test]
    fn no_prefix_of_a_fixture_panics() {
        let mut all = vec![README, QUICKSTART, FLASK_README];
        all.extend(NOTATION);
        all.push("x = RateLimitItemPerSecond(amount=5, multiples=2) # '\"\"\"");
        for text in all {
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
            let _ = recognises(&text);
        }
    }

    #[test]
    fn the_rows_own_snippets_read_back_to_the_same_item() {
        let rows: [(&str, SnippetOf); 3] = [
            (FIXED_ROW.slug, FIXED_ROW.snippet),
            (MOVING_ROW.slug, MOVING_ROW.snippet),
            (SLIDING_ROW.slug, SLIDING_ROW.snippet),
        ];
        let mut set = vec![Fields::default()];
        for g in Granularity::ALL {
            set.push(Fields {
                per: Some(g),
                ..Fields::default()
            });
        }
        set.push(Fields {
            amount: Some(0),
            ..Fields::default()
        });
        set.push(Fields {
            amount: Some(1_000_000_000),
            multiples: Some(3),
            per: None,
        });
        set.push(fields(7, 12, Granularity::Month));
        set.push(fields(7, 1, Granularity::Year));
        for (slug, snippet) in rows {
            let SnippetOf::Written { write, .. } = snippet else {
                panic!("{slug} writes no snippet");
            };
            for f in &set {
                for limit in [1, 2, 5, 7, 100, 1000] {
                    for window in [1_000_000, 10_000_000, 60_000_000, 500_000, 3_600_000_000] {
                        let window = Span(window);
                        let products = ProductSettings {
                            python_limits: f.clone(),
                            ..ProductSettings::default()
                        };
                        let s = RowSettings {
                            limit,
                            window,
                            products: &products,
                        };
                        if s.products
                            .python_limits
                            .params(limit, window)
                            .validate()
                            .is_err()
                        {
                            continue;
                        }
                        let written = write(&s);
                        let want = match &written.nearest {
                            Some(n) => n.products.python_limits.params(limit, window),
                            None => s.products.python_limits.params(limit, window),
                        };
                        let r = reads(&written.text);
                        assert_eq!(r.row, slug);
                        assert_eq!(
                            r.products.python_limits.params(3, Span::from_secs(9)),
                            want,
                            "{}",
                            written.text
                        );
                        assert_eq!(r.second, None);
                    }
                }
            }
        }
    }
}
