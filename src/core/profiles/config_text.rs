//! Reading the config a person already runs: what a product's reader gives (the settings of one
//! of its rows, every one of the family's fields set as the config says or as the product itself
//! defaults), how it says what it could not read (the line and why), and the small readers the
//! products' readers share (lines without comments, a call's arguments, a `key = value`, the
//! arithmetic people write in place of a number: `15 * 60 * 1000`).
//!
//! Each product's reader lives in its own module (`<product>/config.rs`) and is named by its rows'
//! descriptor (`ProductRow::config`); `core::config_file` tells which product a text is and applies
//! what it read to the lab's settings. The forms each reader takes are its product's own, from the
//! documentation its module's header cites.

use std::fmt;

use crate::core::second_limit::SecondLimit;

use super::ProductSettings;

pub mod script;

/// What a product's reader made of a config.
#[derive(Clone, Debug, PartialEq)]
pub struct FromConfig {
    /// The row the config sets: the slug of one of the family's rows (`nginx`, `upstash-sliding`).
    pub row: &'static str,
    /// The name the config gives this limit (nginx's zone, the binding's `name`), when it has one.
    pub name: Option<String>,
    /// The family's part set in full: every field the config states, and every other field at the
    /// product's own default (never the lab's limit and window), so the row runs the config alone.
    /// The other families' parts stay at their defaults.
    pub products: ProductSettings,
    /// A second limit on the same requests, when the config has one that the lab's second limit
    /// says exactly (`core::second_limit`: the same product, following that count and window).
    pub second: Option<SecondLimit>,
    /// What else the config holds and what became of it, one sentence each ("Zone `login` is
    /// defined too; only `api`, which `location /` uses, sets the row.").
    pub notes: Vec<String>,
}

impl FromConfig {
    /// A reading of `row` with `products`, no name, no second limit and nothing to note.
    pub fn new(row: &'static str, products: ProductSettings) -> FromConfig {
        FromConfig {
            row,
            name: None,
            products,
            second: None,
            notes: Vec::new(),
        }
    }
}

/// Why a config could not be read: the line (counted from 1; 0 for the text as a whole), the
/// line's own text, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    pub line: usize,
    pub text: String,
    pub why: String,
}

impl Unreadable {
    /// A problem with line `line` (counted from 1) of `config`.
    pub fn at(config: &str, line: usize, why: impl Into<String>) -> Unreadable {
        let text = config
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim()
            .to_string();
        Unreadable {
            line,
            text,
            why: why.into(),
        }
    }

    /// A problem with the text as a whole ("no `limit_req_zone` in it").
    pub fn whole(why: impl Into<String>) -> Unreadable {
        Unreadable {
            line: 0,
            text: String::new(),
            why: why.into(),
        }
    }
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}", self.why),
            n if self.text.is_empty() => write!(f, "line {n}: {}", self.why),
            n => write!(f, "line {n} (`{}`): {}", shorten(&self.text), self.why),
        }
    }
}

/// A line's text cut to a length a message can hold.
fn shorten(text: &str) -> String {
    const MOST: usize = 80;
    match text.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A product's config reader, named by each of the family's rows (`ProductRow::config`).
#[derive(Clone, Copy)]
pub struct ConfigOf {
    /// Whether the text is written in this product's own words (`limit_req_zone`, `CL.THROTTLE`,
    /// `Ratelimit.slidingWindow`): how a pasted text is told to be this product's.
    pub recognises: fn(&str) -> bool,
    /// Reads the text as this product's config.
    pub read: fn(&str) -> Result<FromConfig, Unreadable>,
    /// The forms the reader takes, in a few words, for the message when a text is not one.
    pub forms: &'static str,
}

/// The text's lines, numbered from 1, each without what follows `marker` on it (a comment), as
/// long as `marker` is not inside a quoted string.
pub fn lines_without_comments<'a>(
    text: &'a str,
    marker: &'a str,
) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    text.lines()
        .enumerate()
        .map(move |(i, line)| (i + 1, before_comment(line, marker)))
}

/// `line` up to `marker`, when the marker is outside quotes.
pub fn before_comment<'a>(line: &'a str, marker: &str) -> &'a str {
    let mut quote: Option<char> = None;
    for (at, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' || c == '`' => quote = Some(c),
            None if line[at..].starts_with(marker) => return &line[..at],
            None => {}
        }
    }
    line
}

/// The line (counted from 1) that byte `at` of `text` is on.
pub fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// A call found in a text: where its name starts, and its arguments as written, trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The line the call's name is on (from 1).
    pub line: usize,
    /// Byte offset of the call's name in the text.
    pub at: usize,
    pub args: Vec<String>,
}

/// Every call of `name` (written with its opening parenthesis left out: `Quota::per_second`) in
/// `text`, with its arguments split at the commas outside brackets and quotes. A call whose
/// parentheses never close is left out.
pub fn calls(text: &str, name: &str) -> Vec<Call> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let rest = text[from..].trim_start();
        if !rest.starts_with('(') {
            continue;
        }
        let open = text.len() - rest.len();
        if let Some(args) = arguments(&text[open + 1..]) {
            found.push(Call {
                line: line_of(text, at),
                at,
                args,
            });
        }
    }
    found
}

/// The arguments of a call from just after its `(`, up to its closing `)`; `None` if it never
/// closes.
fn arguments(after_open: &str) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (at, c) in after_open.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' => {
                    let last = after_open[start..at].trim();
                    if !last.is_empty() || !args.is_empty() {
                        args.push(last.to_string());
                    }
                    return Some(args);
                }
                ',' if depth == 0 => {
                    args.push(after_open[start..at].trim().to_string());
                    start = at + 1;
                }
                _ => {}
            },
        }
    }
    None
}

/// The value given to `key` in `text` as `key = value`, `key: value` or `"key": value` (the first
/// one written), up to the end of its line, a `,`, `;` or `}` outside quotes, trimmed and without
/// its quotes; with the line it is on. Matches `key` as a whole word only.
pub fn value_of(text: &str, key: &str) -> Option<(usize, String)> {
    let mut from = 0;
    while let Some(pos) = text[from..].find(key) {
        let at = from + pos;
        from = at + key.len();
        let before = text[..at].chars().next_back();
        let word_before = before.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = &text[from..];
        let after = after.strip_prefix(['"', '\'']).unwrap_or(after);
        let word_after = after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if word_before || word_after {
            continue;
        }
        let after = after.trim_start_matches([' ', '\t']);
        let Some(value) = after.strip_prefix('=').or_else(|| after.strip_prefix(':')) else {
            continue;
        };
        let value = value.trim_start_matches([' ', '\t']);
        return Some((line_of(text, at), unquote(value_end(value))));
    }
    None
}

/// `value` up to its end: the end of its line, or a `,`, `;` or `}` outside quotes and brackets.
fn value_end(value: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for (at, c) in value.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' | '[' => depth += 1,
                ')' | ']' if depth > 0 => depth -= 1,
                '\n' | '\r' => return &value[..at],
                ',' | ';' | '}' | ')' | ']' if depth == 0 => return &value[..at],
                _ => {}
            },
        }
    }
    value
}

/// `text` trimmed and without one pair of surrounding quotes.
pub fn unquote(text: &str) -> String {
    let t = text.trim();
    for q in ['"', '\'', '`'] {
        if let Some(inner) = t.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    t.to_string()
}

/// The value of the arithmetic people write in place of a number in code: decimal numbers (with
/// `_` between digits, as Rust, JavaScript, Python and C# allow, and a type suffix such as `L`,
/// `f`, `d`, `u64` left out), `+ - * /` and parentheses, computed in doubles as JavaScript would.
/// `None` for anything else.
pub fn arithmetic(text: &str) -> Option<f64> {
    let tokens = tokens(text)?;
    let mut at = 0;
    let value = sum(&tokens, &mut at)?;
    (at == tokens.len()).then_some(value)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Token {
    Number(f64),
    Op(char),
}

fn tokens(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if "+-*/()".contains(c) {
            out.push(Token::Op(c));
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let mut digits = String::new();
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
            {
                if chars[i] != '_' {
                    digits.push(chars[i]);
                }
                i += 1;
            }
            // An exponent: `1e3`, `2.5E-1`.
            let exponent_digit = |at: usize| chars.get(at).is_some_and(|c| c.is_ascii_digit());
            if matches!(chars.get(i), Some('e' | 'E'))
                && (exponent_digit(i + 1)
                    || (matches!(chars.get(i + 1), Some('+' | '-')) && exponent_digit(i + 2)))
            {
                digits.push('e');
                i += 1;
                if let Some(sign @ ('+' | '-')) = chars.get(i) {
                    digits.push(*sign);
                    i += 1;
                }
                while i < chars.len() && chars[i].is_ascii_digit() {
                    digits.push(chars[i]);
                    i += 1;
                }
            }
            // A type suffix: `1000L`, `1.5f`, `2.0d`, `100u64`, `10m` (C#'s decimal).
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            out.push(Token::Number(digits.parse().ok()?));
        } else {
            return None;
        }
    }
    Some(out)
}

fn sum(tokens: &[Token], at: &mut usize) -> Option<f64> {
    let mut value = product(tokens, at)?;
    while let Some(Token::Op(op @ ('+' | '-'))) = tokens.get(*at) {
        *at += 1;
        let right = product(tokens, at)?;
        value = if *op == '+' {
            value + right
        } else {
            value - right
        };
    }
    Some(value)
}

fn product(tokens: &[Token], at: &mut usize) -> Option<f64> {
    let mut value = factor(tokens, at)?;
    while let Some(Token::Op(op @ ('*' | '/'))) = tokens.get(*at) {
        *at += 1;
        let right = factor(tokens, at)?;
        value = if *op == '*' {
            value * right
        } else {
            value / right
        };
    }
    Some(value)
}

fn factor(tokens: &[Token], at: &mut usize) -> Option<f64> {
    match tokens.get(*at)? {
        Token::Number(n) => {
            *at += 1;
            Some(*n)
        }
        Token::Op('-') => {
            *at += 1;
            factor(tokens, at).map(|v| -v)
        }
        Token::Op('(') => {
            *at += 1;
            let value = sum(tokens, at)?;
            match tokens.get(*at) {
                Some(Token::Op(')')) => {
                    *at += 1;
                    Some(value)
                }
                _ => None,
            }
        }
        Token::Op(_) => None,
    }
}

/// `arithmetic`, when its value is a whole number from `min` up to `u64::MAX`.
pub fn whole_number(text: &str, min: u64) -> Option<u64> {
    let value = arithmetic(text)?;
    (value.fract() == 0.0 && value >= min as f64 && value < u64::MAX as f64).then_some(value as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_reads_the_products_people_write_for_a_window() {
        assert_eq!(arithmetic("15 * 60 * 1000"), Some(900_000.0));
        assert_eq!(arithmetic("1_000"), Some(1000.0));
        assert_eq!(arithmetic("(1 + 2) * 3"), Some(9.0));
        assert_eq!(arithmetic("1000L"), Some(1000.0));
        assert_eq!(arithmetic("0.5"), Some(0.5));
        assert_eq!(arithmetic("1e3"), Some(1000.0));
        assert_eq!(arithmetic("2.5E-1 * 4"), Some(1.0));
        assert_eq!(arithmetic("-2 * 3"), Some(-6.0));
        assert_eq!(arithmetic("windowMs"), None);
        assert_eq!(arithmetic("2 *"), None);
        assert_eq!(arithmetic(""), None);
        assert_eq!(whole_number("60 * 1000", 1), Some(60_000));
        assert_eq!(whole_number("0.5", 0), None);
        assert_eq!(whole_number("0", 1), None);
    }

    #[test]
    fn a_calls_arguments_are_split_at_commas_outside_brackets_and_quotes() {
        let text =
            "let q = Quota::per_second(nonzero!(5u32))\n  .allow_burst(x(1, 2));\nf(\"a, b\", 3)";
        let found = calls(text, "Quota::per_second");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].args, vec!["nonzero!(5u32)"]);
        assert_eq!(found[0].line, 1);
        assert_eq!(calls(text, ".allow_burst")[0].args, vec!["x(1, 2)"]);
        assert_eq!(calls(text, ".allow_burst")[0].line, 2);
        assert_eq!(calls(text, "f")[0].args, vec!["\"a, b\"", "3"]);
        assert_eq!(calls("g()", "g")[0].args, Vec::<String>::new());
        assert!(calls("g(1, 2", "g").is_empty());
    }

    #[test]
    fn a_keys_value_is_read_in_the_spellings_of_js_json_toml_and_yaml() {
        let text = "{\n  windowMs: 15 * 60 * 1000, // 15 minutes\n  \"limit\": 100,\n  name = \"API\"\n  max_tokens: 10\n}";
        assert_eq!(
            value_of(text, "windowMs"),
            Some((2, "15 * 60 * 1000".into()))
        );
        assert_eq!(value_of(text, "limit"), Some((3, "100".into())));
        assert_eq!(value_of(text, "name"), Some((4, "API".into())));
        assert_eq!(value_of(text, "max_tokens"), Some((5, "10".into())));
        assert_eq!(value_of(text, "max"), None);
        assert_eq!(value_of(text, "tokens"), None);
    }

    #[test]
    fn a_comment_is_cut_from_its_line_unless_it_is_quoted() {
        assert_eq!(before_comment("rate=1r/s; # one", "#"), "rate=1r/s; ");
        assert_eq!(before_comment("x = \"a # b\" # c", "#"), "x = \"a # b\" ");
        let lines: Vec<_> = lines_without_comments("a // b\nc", "//").collect();
        assert_eq!(lines, vec![(1, "a "), (2, "c")]);
    }

    #[test]
    fn an_unreadable_line_is_named_with_its_number_and_text() {
        let config = "http {\n  limit_req_zone $binary_remote_addr zone=one:10m;\n}";
        let e = Unreadable::at(config, 2, "`limit_req_zone` without `rate=`");
        assert_eq!(
            e.to_string(),
            "line 2 (`limit_req_zone $binary_remote_addr zone=one:10m;`): `limit_req_zone` without `rate=`"
        );
        assert_eq!(Unreadable::whole("no zone").to_string(), "no zone");
    }
}
