//! Reading redis-cell's own command into its row's settings (`profiles::config_text`):
//! `CL.THROTTLE key max_burst count period [quantity]` (brandur/redis-cell 0.5.0, README.md
//! "Usage"; the arguments as `src/lib.rs` reads them), written as redis-cli takes it (any case,
//! after a `127.0.0.1:6379>` prompt or `redis-cli ...`), or in a client's code: the name quoted
//! and the arguments after it (`redis.call("CL.THROTTLE", KEYS[1], 15, 30, 60, 1)`,
//! `rdb.Do(ctx, "CL.THROTTLE", key, 15, 30, 60)`, `["CL.THROTTLE", key, "15", "30", "60"]`),
//! redis-rs's `cmd("CL.THROTTLE").arg(key).arg(15)...`, or a whole command in one string.
//!
//! As the module does: it takes 4 or 5 arguments after its name (else it answers its usage),
//! each number parsed as an `i64` (`parse_i64`: "Couldn't parse as integer"), and a rate whose
//! emission interval `period / count` is 0 ns is refused ("Zero rates are not supported"). In
//! code, a number may be written as the arithmetic the language computes (`60 * 60`). Values the
//! module takes but the lab's fields cannot hold (a negative `max_burst`, `count` or `period`,
//! or beyond the lab's bounds) are refused as such.
//!
//! `quantity` is the cost of each call; the lab's requests carry their own cost (a request of
//! cost `c` is the call with quantity `c`), so a quantity other than 1 is named in a note and not
//! applied. Several calls: the first sets the row and the others are named; redis-cell cannot
//! say whether two calls limit the same requests, so no second limit is read.

use crate::core::config::MAX_WINDOW;
use crate::core::profiles::config_text::{
    arithmetic, before_comment, line_of, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::ProductSettings;
use crate::core::time::{Span, MICROS_PER_SEC};

use super::{Fields, RedisCell, RedisCellParams};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`CL.THROTTLE key max_burst count period [quantity]`",
};

const NAME: &str = "cl.throttle";

/// redis-cell's own word: the command `CL.THROTTLE`, in any case.
fn recognises(text: &str) -> bool {
    !occurrences(text).is_empty()
}

/// Where the command's name is written as a word, outside comments.
fn occurrences(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = lower.get(from..).and_then(|rest| rest.find(NAME)) {
        let at = from + pos;
        from = at + NAME.len();
        let before = lower[..at].chars().next_back();
        let after = lower[from..].chars().next();
        let part_of_word =
            |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if part_of_word(before) || part_of_word(after) {
            continue;
        }
        let line_start = lower[..at].rfind('\n').map_or(0, |n| n + 1);
        if !in_comment(&text[line_start..at]) {
            found.push(at);
        }
    }
    found
}

/// Whether what precedes the name on its line opens a comment: `#`, `//`, or Lua's `--` (not a
/// command-line option such as `--raw`).
fn in_comment(prefix: &str) -> bool {
    let cut = |marker: &str| before_comment(prefix, marker).len() < prefix.len();
    let lua = before_comment(prefix, "--");
    let lua_comment = lua.len() < prefix.len()
        && !prefix[lua.len() + 2..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '-');
    cut("#") || cut("//") || lua_comment
}

/// One argument as written: its text, whether it is a value the command receives as it stands
/// (a redis-cli word or a quoted string in code) rather than an expression, and its line.
#[derive(Clone, Debug, PartialEq)]
struct Arg {
    text: String,
    literal: bool,
    line: usize,
}

/// One `CL.THROTTLE` call: its line and its arguments after the name.
#[derive(Clone, Debug)]
struct Call {
    line: usize,
    args: Vec<Arg>,
}

/// The call starting at the name at `at`, or `None` where the name is only mentioned (in prose,
/// or a usage line with `<key>`).
fn call_at(text: &str, at: usize) -> Option<Call> {
    let line = line_of(text, at);
    let after = &text[at + NAME.len()..];
    let quote = text[..at]
        .chars()
        .next_back()
        .filter(|c| matches!(c, '"' | '\'' | '`'));
    let args = match quote {
        Some(q) if after.starts_with(q) => code_arguments(text, at + NAME.len() + q.len_utf8())?,
        Some(q) => {
            // The whole command in one string: `"CL.THROTTLE user123 15 30 60"`.
            let inside = after.split(q).next().unwrap_or("");
            words(inside.lines().next().unwrap_or(""), line)
        }
        None => words(after.lines().next().unwrap_or(""), line),
    };
    let usage = args
        .iter()
        .any(|a| a.literal && (a.text.starts_with('<') || a.text.starts_with('[')));
    (!args.is_empty() && !usage).then_some(Call { line, args })
}

/// A redis-cli line's words after the name, up to a comment: quotes hold spaces.
fn words(rest: &str, line: usize) -> Vec<Arg> {
    let rest = before_comment(before_comment(rest, "#"), "//");
    let mut out = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' || c == '\'' {
            chars.next();
            for n in chars.by_ref() {
                if n == c {
                    break;
                }
                word.push(n);
            }
        } else {
            while let Some(&n) = chars.peek() {
                if n.is_whitespace() {
                    break;
                }
                word.push(n);
                chars.next();
            }
        }
        out.push(Arg {
            text: word,
            literal: true,
            line,
        });
    }
    out
}

/// The arguments after a quoted name in code, from just after its closing quote at `from`: the
/// rest of the call's (or array's) arguments, or redis-rs's `.arg(..)` chain.
fn code_arguments(text: &str, from: usize) -> Option<Vec<Arg>> {
    let rest = text.get(from..)?;
    let trimmed = rest.trim_start();
    let start = from + (rest.len() - trimmed.len());
    if let Some(list) = trimmed.strip_prefix(',') {
        let list_start = start + 1;
        let (parts, _) = split_arguments(list)?;
        let args = parts
            .into_iter()
            .map(|(offset, part)| code_arg(text, list_start + offset, part))
            .collect();
        return Some(args);
    }
    let mut at = start + trimmed.strip_prefix(')').map(|_| 1)?;
    let mut args = Vec::new();
    loop {
        let rest = text.get(at..)?;
        let trimmed = rest.trim_start();
        let Some(inner) = trimmed.strip_prefix(".arg(") else {
            break;
        };
        let inner_start = at + (rest.len() - trimmed.len()) + ".arg(".len();
        let (parts, end) = split_arguments(inner)?;
        let [(offset, part)] = parts.as_slice() else {
            return None;
        };
        args.push(code_arg(text, inner_start + offset, part));
        at = inner_start + end + 1;
    }
    Some(args)
}

/// An argument written in code: a quoted string is the value the command receives; anything
/// else is an expression of the language.
fn code_arg(text: &str, at: usize, part: &str) -> Arg {
    let line = line_of(text, at);
    for q in ['"', '\'', '`'] {
        if let Some(inner) = part.strip_prefix(q).and_then(|p| p.strip_suffix(q)) {
            if part.len() >= 2 {
                return Arg {
                    text: inner.to_string(),
                    literal: true,
                    line,
                };
            }
        }
    }
    Arg {
        text: part.to_string(),
        literal: false,
        line,
    }
}

/// The arguments up to the `)` or `]` that closes the list, split at the commas outside brackets
/// and quotes, each with its offset (after its leading spaces) in `list`; and the offset of the
/// closing bracket. `None` when it never closes.
fn split_arguments(list: &str) -> Option<(Vec<(usize, &str)>, usize)> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let piece = |from: usize, to: usize| {
        let piece = &list[from..to];
        let lead = piece.len() - piece.trim_start().len();
        (from + lead, piece.trim())
    };
    for (at, c) in list.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' | ']' | '}' => {
                    if !list[start..at].trim().is_empty() {
                        parts.push(piece(start, at));
                    }
                    return Some((parts, at));
                }
                ',' if depth == 0 => {
                    parts.push(piece(start, at));
                    start = at + 1;
                }
                _ => {}
            },
        }
    }
    None
}

/// The command's arguments read as numbers: `(max_burst, count, period, quantity)`.
struct Throttle {
    key: Arg,
    max_burst: i64,
    count: i64,
    period: i64,
    quantity: i64,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let calls: Vec<Call> = occurrences(text)
        .into_iter()
        .filter_map(|at| call_at(text, at))
        .collect();
    let throttles = calls
        .iter()
        .map(|call| throttle(text, call))
        .collect::<Result<Vec<_>, _>>()?;
    let Some((first, others)) = throttles.split_first() else {
        return Err(Unreadable::whole(
            "no `CL.THROTTLE key max_burst count period` call in it",
        ));
    };
    let line = calls.first().map_or(0, |c| c.line);
    let params = settings(text, line, first)?;
    let products = ProductSettings {
        redis_cell: Fields {
            burst: Some(params.max_burst),
            count: Some(params.count),
            period: Some(params.period),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new(super::ROW.slug, products);
    if first.key.literal {
        from.name = Some(first.key.text.clone());
    } else {
        from.notes.push(format!(
            "The key is `{}`, worked out by the code; the lab's key is each request's own.",
            first.key.text
        ));
    }
    if first.quantity != 1 {
        from.notes.push(format!(
            "The call takes quantity {} each time; the lab's requests carry their own cost (a request of cost c is the call with quantity c), so the quantity is not applied.",
            first.quantity
        ));
    }
    for (other, call) in others.iter().zip(calls.iter().skip(1)) {
        let same_key = other.key.text == first.key.text;
        let same_numbers = (other.max_burst, other.count, other.period)
            == (first.max_burst, first.count, first.period);
        if same_key && same_numbers {
            continue;
        }
        let words = format!(
            "`CL.THROTTLE {} {} {} {}` (line {})",
            other.key.text, other.max_burst, other.count, other.period, call.line
        );
        from.notes.push(if same_key {
            format!(
                "{words} calls the same key with other numbers; redis-cell keeps one arrival time per key, so the two would share it. The row runs the first call."
            )
        } else {
            format!(
                "{words} limits key `{}` too; the row runs the first call, on `{}`, and the lab cannot tell whether both limit the same requests, so no second limit is read.",
                other.key.text, first.key.text
            )
        });
    }
    Ok(from)
}

/// A call's arguments as redis-cell reads them.
fn throttle(text: &str, call: &Call) -> Result<Throttle, Unreadable> {
    let (key, numbers) = match call.args.split_first() {
        Some((key, numbers)) if (4..=5).contains(&call.args.len()) => (key, numbers),
        _ => {
            return Err(Unreadable::at(
                text,
                call.line,
                format!(
                    "`CL.THROTTLE` takes key max_burst count period [quantity], and this call has {} argument{}; redis-cell answers with its usage",
                    call.args.len(),
                    if call.args.len() == 1 { "" } else { "s" }
                ),
            ))
        }
    };
    let number = |i: usize, what: &str| -> Result<i64, Unreadable> {
        match numbers.get(i) {
            Some(arg) => integer(text, arg, what),
            None => Ok(1),
        }
    };
    Ok(Throttle {
        key: key.clone(),
        max_burst: number(0, "max_burst")?,
        count: number(1, "count")?,
        period: number(2, "period")?,
        quantity: number(3, "quantity")?,
    })
}

/// An argument as `parse_i64` reads it; in code, also the arithmetic the language computes.
fn integer(text: &str, arg: &Arg, what: &str) -> Result<i64, Unreadable> {
    let refuse = |why: String| Unreadable::at(text, arg.line, why);
    if let Ok(n) = arg.text.parse::<i64>() {
        return Ok(n);
    }
    if arg.literal {
        return Err(refuse(format!(
            "`{what}` is `{}`, not a whole number: redis-cell answers \"Couldn't parse as integer: {}\"",
            arg.text, arg.text
        )));
    }
    match arithmetic(&arg.text) {
        Some(v) if v.fract() == 0.0 && v.abs() < 9.0e18 => Ok(v as i64),
        Some(_) => Err(refuse(format!(
            "`{what}` is `{}`, not a whole number: redis-cell answers \"Couldn't parse as integer\"",
            arg.text
        ))),
        None => Err(refuse(format!(
            "`{what}` is `{}`, which the config does not give a number for: write the number",
            arg.text
        ))),
    }
}

/// The row's settings for a call, refused where the lab's fields cannot hold them or redis-cell
/// refuses the rate.
fn settings(text: &str, line: usize, t: &Throttle) -> Result<RedisCellParams, Unreadable> {
    let refuse = |why: String| Unreadable::at(text, line, why);
    let whole = |n: i64, what: &str, least: i64| {
        u64::try_from(n).ok().filter(|_| n >= least).ok_or_else(|| {
            refuse(if n == 0 {
                format!("`{what}` 0: redis-cell refuses it, \"Zero rates are not supported\"")
            } else {
                format!("`{what}` {n} is negative, which the lab's {what} cannot hold")
            })
        })
    };
    let max_burst = whole(t.max_burst, "max_burst", 0)?;
    let count = whole(t.count, "count", 1)?;
    let seconds = whole(t.period, "period", 1)?;
    if seconds > MAX_WINDOW.micros() / MICROS_PER_SEC {
        return Err(refuse(format!(
            "`period` {seconds} s is longer than the lab runs ({} s)",
            MAX_WINDOW.micros() / MICROS_PER_SEC
        )));
    }
    let params = RedisCellParams {
        max_burst,
        count,
        period: Span::from_secs(seconds),
    };
    RedisCell::from_params(params).map_err(|e| refuse(e.to_string()))?;
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::{RowSettings, SnippetOf};

    fn cell(text: &str) -> Fields {
        read(text).unwrap().products.redis_cell
    }

    fn fields(burst: u64, count: u64, seconds: u64) -> Fields {
        Fields {
            burst: Some(burst),
            count: Some(count),
            period: Some(Span::from_secs(seconds)),
        }
    }

    /// brandur/redis-cell 0.5.0, README.md, "Usage": the call and its diagram.
    const README_USAGE: &str =
        "CL.THROTTLE <key> <max_burst> <count per period> <period> [<quantity>]

CL.THROTTLE user123 15 30 60 1
               ▲     ▲  ▲  ▲ ▲
               |     |  |  | └───── apply 1 token (default if omitted)
               |     |  └──┴─────── 30 tokens / 60 seconds
               |     └───────────── 15 max_burst
               └─────────────────── key \"user123\"";

    /// brandur/redis-cell 0.5.0, README.md, "Response".
    const README_RESPONSE: &str = "127.0.0.1:6379> CL.THROTTLE user123 15 30 60
1) (integer) 0
2) (integer) 16
3) (integer) 15
4) (integer) -1
5) (integer) 2";

    /// brandur/redis-cell 0.5.0, README.md, "Multiple Rate Limits".
    const README_MULTIPLE: &str = "CL.THROTTLE user123-read-rate 15 30 60
CL.THROTTLE user123-write-rate 5 10 60";

    /// A Lua script calling the module, as the brief's example writes it.
    const LUA: &str = "-- one call per request\nlocal r = redis.call(\"CL.THROTTLE\", KEYS[1], 15, 30, 60, 1)\nreturn r";

    /// redis-rs building the command.
    const RUST: &str = "let reply: Vec<i64> = redis::cmd(\"CL.THROTTLE\")\n    .arg(\"user123\")\n    .arg(15)\n    .arg(30)\n    .arg(60 * 1)\n    .query(&mut con)?;";

    /// go-redis / node-redis.
    const GO: &str =
        "res, err := rdb.Do(ctx, \"CL.THROTTLE\", \"user123\", 15, 30, 60).Int64Slice()";
    const NODE: &str = "await client.sendCommand(['CL.THROTTLE', userId, '15', '30', '60']);";

    const FIXTURES: &[&str] = &[
        README_USAGE,
        README_RESPONSE,
        README_MULTIPLE,
        LUA,
        RUST,
        GO,
        NODE,
    ];

    #[test]
    fn the_readme_call_is_15_max_burst_and_30_per_60_s_on_key_user123() {
        for text in [README_USAGE, README_RESPONSE] {
            let from = read(text).unwrap();
            assert_eq!(from.row, "redis-cell");
            assert_eq!(from.name.as_deref(), Some("user123"));
            assert_eq!(from.products.redis_cell, fields(15, 30, 60));
            assert_eq!(from.second, None);
            assert!(from.notes.is_empty(), "{:?}", from.notes);
        }
    }

    #[test]
    fn the_readmes_two_keys_run_the_first_and_name_the_second() {
        let from = read(README_MULTIPLE).unwrap();
        assert_eq!(from.name.as_deref(), Some("user123-read-rate"));
        assert_eq!(from.products.redis_cell, fields(15, 30, 60));
        assert_eq!(from.second, None);
        assert_eq!(from.notes.len(), 1);
        assert!(from.notes[0].starts_with("`CL.THROTTLE user123-write-rate 5 10 60` (line 2) limits key `user123-write-rate` too"), "{:?}", from.notes);
    }

    #[test]
    fn calls_in_code_are_read_with_their_arithmetic() {
        let from = read(LUA).unwrap();
        assert_eq!(from.products.redis_cell, fields(15, 30, 60));
        assert_eq!(from.name, None);
        assert!(from.notes[0].contains("`KEYS[1]`"), "{:?}", from.notes);
        for text in [RUST, GO, NODE] {
            assert_eq!(cell(text), fields(15, 30, 60), "{text}");
        }
        assert_eq!(read(RUST).unwrap().name.as_deref(), Some("user123"));
        assert_eq!(
            cell("r.execute_command('cl.throttle user:9 4 10 1')"),
            fields(4, 10, 1)
        );
        assert_eq!(
            cell("redis.call(\n  \"CL.THROTTLE\",\n  \"k\",\n  2, 3, 60 * 60\n)"),
            fields(2, 3, 3600)
        );
    }

    #[test]
    fn lowercase_and_a_redis_cli_command_line_are_read() {
        assert_eq!(cell("cl.throttle k 0 1 1"), fields(0, 1, 1));
        assert_eq!(
            cell("$ redis-cli --raw CL.THROTTLE \"my key\" 3 5 10 # five per ten"),
            fields(3, 5, 10)
        );
        assert_eq!(
            read("redis-cli CL.THROTTLE \"my key\" 3 5 10")
                .unwrap()
                .name
                .as_deref(),
            Some("my key")
        );
    }

    #[test]
    fn a_quantity_other_than_1_is_named_and_not_applied() {
        let from = read("CL.THROTTLE k 15 30 60 5").unwrap();
        assert_eq!(from.products.redis_cell, fields(15, 30, 60));
        assert!(
            from.notes[0].starts_with("The call takes quantity 5"),
            "{:?}",
            from.notes
        );
    }

    #[test]
    fn commented_out_calls_and_mentions_are_not_read() {
        let text = "# CL.THROTTLE old 1 1 1\n// CL.THROTTLE old 1 1 1\n-- CL.THROTTLE old 1 1 1\nUse `CL.THROTTLE` per request.\nCL.THROTTLE new 2 3 4";
        assert_eq!(read(text).unwrap().name.as_deref(), Some("new"));
        let e = read("-- CL.THROTTLE k 1 1 1").unwrap_err();
        assert_eq!(e.line, 0);
    }

    #[test]
    fn each_kind_of_unreadable_call_is_refused_with_its_line_and_why() {
        let cases: &[(&str, usize, &str)] = &[
            ("\nCL.THROTTLE k 15 30", 2, "takes key max_burst count period [quantity], and this call has 3 arguments"),
            ("CL.THROTTLE k 1 2 3 4 5", 1, "this call has 6 arguments"),
            ("CL.THROTTLE k abc 30 60", 1, "`max_burst` is `abc`, not a whole number: redis-cell answers \"Couldn't parse as integer: abc\""),
            ("CL.THROTTLE k 15 30 1.5", 1, "`period` is `1.5`, not a whole number"),
            ("CL.THROTTLE k 15 30 60 x", 1, "`quantity` is `x`"),
            ("redis.call(\"CL.THROTTLE\", key,\n burst, 30, 60)", 2, "`max_burst` is `burst`, which the config does not give a number for"),
            ("redis.call(\"CL.THROTTLE\", key, 15, 30, 0.5)", 1, "`period` is `0.5`, not a whole number"),
            ("CL.THROTTLE k -1 30 60", 1, "`max_burst` -1 is negative"),
            ("CL.THROTTLE k 15 0 60", 1, "`count` 0: redis-cell refuses it, \"Zero rates are not supported\""),
            ("CL.THROTTLE k 15 30 0", 1, "`period` 0: redis-cell refuses it"),
            ("CL.THROTTLE k 15 -30 60", 1, "`count` -30 is negative"),
            ("CL.THROTTLE k 15 2000000000 1", 1, "the count is too large"),
            ("CL.THROTTLE k 15 30 99999999999", 1, "longer than the lab runs"),
            ("CL.THROTTLE k 2000000000 30 60", 1, "the max_burst is too large"),
        ];
        for (text, line, why) in cases {
            let e = read(text).unwrap_err();
            assert_eq!(e.line, *line, "{text}: {e}");
            assert!(e.why.contains(why), "{text}: {e}");
        }
        let e = read("SET k 1").unwrap_err();
        assert_eq!(
            (e.line, e.why.as_str()),
            (0, "no `CL.THROTTLE key max_burst count period` call in it")
        );
    }

    #[test]
    fn it_recognises_redis_cell_and_none_of_the_other_products() {
        assert!(recognises(README_USAGE));
        assert!(recognises(LUA));
        for other in [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "let q = Quota::per_second(nonzero!(5u32)).allow_burst(nonzero!(10u32));",
            "const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "token_bucket: { max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s }",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nsimple = { limit = 100, period = 60 }",
            "{ \"ratelimits\": [{ \"name\": \"MY_RATE_LIMITER\", \"simple\": { \"limit\": 100, \"period\": 60 } }] }",
            "limiter := rate.NewLimiter(rate.Every(time.Second), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "limits.parse(\"10/minute\")",
            "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; });",
            "RateLimiter limiter = RateLimiter.create(5.0);",
            "MYCL.THROTTLE k 1 2 3",
        ] {
            assert!(!recognises(other), "{other}");
        }
    }

    #[test]
    fn no_prefix_of_any_fixture_panics() {
        for fixture in FIXTURES {
            for (at, _) in fixture.char_indices() {
                let _ = read(&fixture[..at]);
                let _ = recognises(&fixture[..at]);
            }
        }
    }

    // proptest is a native dev-dependency (the wasm32 lints build these tests too).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn no_text_panics(text in "[a-zA-Z .,()\\[\\]\"'`#/\\-0-9*\\n▲]{0,60}") {
            let _ = read(&format!("CL.THROTTLE{text}"));
            let _ = read(&format!("x(\"CL.THROTTLE\"{text}"));
            let _ = read(&text);
        }
    }

    /// What decides every call: the burst and the emission interval `period / count`, divided in
    /// f64 and truncated to whole nanoseconds as `Rate::per_period` does.
    fn limiter_of(p: &RedisCellParams) -> (u64, i64) {
        let ns = p.period.micros() as f64 * 1000.0;
        (p.max_burst, (ns / p.count as f64) as i64)
    }

    #[test]
    fn what_the_snippet_writes_reads_back_to_the_same_limiter() {
        let SnippetOf::Written { write, .. } = super::super::ROW.snippet else {
            panic!("redis-cell writes a snippet");
        };
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut set = vec![Fields::default()];
        for burst in [0, 1, 15, 1_000_000] {
            set.push(Fields {
                burst: Some(burst),
                ..Fields::default()
            });
        }
        for count in [1, 30, 7_000] {
            set.push(Fields {
                count: Some(count),
                ..Fields::default()
            });
        }
        for period in [Span::from_secs(60), Span::from_millis(1500), Span(333_333)] {
            set.push(Fields {
                period: Some(period),
                ..Fields::default()
            });
        }
        set.push(fields(15, 30, 60));
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for cell in &set {
                    let products = ProductSettings {
                        redis_cell: cell.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = write(&s);
                    let expected = match &written.nearest {
                        Some(n) => n.products.redis_cell.params(limit, window),
                        None => s.products.redis_cell.params(limit, window),
                    };
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "redis-cell");
                    assert_eq!(from.name.as_deref(), Some("ratelab:127.0.0.1"));
                    assert!(from.notes.is_empty(), "{:?}", from.notes);
                    let got = from.products.redis_cell.params(1, Span::from_secs(1));
                    assert_eq!(
                        limiter_of(&got),
                        limiter_of(&expected),
                        "{limit} per {window:?} with {cell:?}:\n{}",
                        written.text
                    );
                }
            }
        }
    }
}
