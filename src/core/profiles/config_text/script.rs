//! The small readers of JavaScript-like text that the configs of express-rate-limit, Upstash and
//! Cloudflare's binding (in `wrangler.jsonc`) share: comments blanked so that offsets and lines
//! stay, a bracket's partner, an object's entries, a `const` a value names, a number literal, and
//! words as JavaScript splits them. Each reader still says what its own product accepts.

/// What an entry of an object holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// `key: value` (or the shorthand `key`, whose value is the name `key`), as written.
    Written(String),
    /// `key(...) { ... }`.
    Method,
    /// `...key`.
    Spread,
}

/// One entry of an object: its key, value, and where the key is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) value: Value,
    pub(crate) at: usize,
}

/// The entries of the object whose inside is `code[start..end]`.
pub(crate) fn entries(code: &str, start: usize, end: usize) -> Vec<Entry> {
    entries_split(code, start, end)
        .into_iter()
        .filter_map(|(at, piece)| entry(&piece, at))
        .collect()
}

/// `code[start..end]` split at the commas outside brackets and quotes: each piece trimmed, with
/// where it starts.
pub(crate) fn entries_split(code: &str, start: usize, end: usize) -> Vec<(usize, String)> {
    let Some(inside) = code.get(start.min(end)..end) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut piece = 0;
    for (at, c) in inside.char_indices().chain([(inside.len(), ',')]) {
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
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                let text = inside.get(piece..at).unwrap_or("");
                let trimmed = text.trim_start();
                out.push((
                    start + piece + (text.len() - trimmed.len()),
                    trimmed.trim_end().to_string(),
                ));
                piece = at + 1;
            }
            _ => {}
        }
    }
    out
}

/// An entry read from its text; `at` is where that text starts.
pub(crate) fn entry(text: &str, at: usize) -> Option<Entry> {
    let trimmed = text.trim_start();
    let at = at + (text.len() - trimmed.len());
    let trimmed = trimmed.trim_end();
    if let Some(spread) = trimmed.strip_prefix("...") {
        return Some(Entry {
            key: spread.trim().to_string(),
            value: Value::Spread,
            at,
        });
    }
    let (key, rest) = if let Some(q) = trimmed.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let close = trimmed.get(1..)?.find(q)? + 1;
        (trimmed.get(1..close)?, trimmed.get(close + 1..)?)
    } else {
        let end = trimmed
            .find(|c: char| !is_identifier_char(c))
            .unwrap_or(trimmed.len());
        (trimmed.get(..end)?, trimmed.get(end..)?)
    };
    if key.is_empty() {
        return None;
    }
    let rest = rest.trim_start();
    let value = if let Some(value) = rest.strip_prefix(':') {
        Value::Written(value.trim().to_string())
    } else if rest.is_empty() {
        Value::Written(key.to_string())
    } else if rest.starts_with('(') {
        Value::Method
    } else if matches!(key, "async" | "get" | "set") {
        // `async keyGenerator(req) { ... }`: the method's name follows.
        let name: String = rest
            .trim_start_matches('*')
            .trim_start()
            .chars()
            .take_while(|c| is_identifier_char(*c))
            .collect();
        return (!name.is_empty()).then_some(Entry {
            key: name,
            value: Value::Method,
            at,
        });
    } else {
        return None;
    };
    Some(Entry {
        key: key.to_string(),
        value,
        at,
    })
}

/// A value the text defines as `const NAME = value` (or `let`, `var`, with a type after the name):
/// where the value starts, and its text up to its line's end or a `;` outside brackets.
pub(crate) fn definition<'a>(code: &'a str, name: &str) -> Option<(usize, &'a str)> {
    let mut from = 0;
    while let Some(pos) = code.get(from..)?.find(name) {
        let at = from + pos;
        from = at + name.len();
        let before = code.get(..at)?.trim_end();
        let declared = ["const", "let", "var"].iter().any(|kw| {
            before
                .strip_suffix(kw)
                .is_some_and(|b| !b.ends_with(is_identifier_char))
        });
        let after = code.get(from..)?;
        if !declared || after.starts_with(is_identifier_char) {
            continue;
        }
        // `: Type` between the name and its `=`.
        let eq = after.find('=')?;
        if after.get(eq + 1..)?.starts_with(['=', '>']) {
            continue;
        }
        let value = after.get(eq + 1..)?;
        let trimmed = value.trim_start();
        let start = from + eq + 1 + (value.len() - trimmed.len());
        if trimmed.starts_with('{') {
            return Some((start, trimmed));
        }
        let end = trimmed.find([';', '\n']).unwrap_or(trimmed.len());
        return Some((start, trimmed.get(..end)?.trim_end()));
    }
    None
}

/// A JavaScript number literal's value: decimal with an optional exponent, or `0x`/`0o`/`0b`.
pub(crate) fn js_number(literal: &str) -> Option<f64> {
    let lower = literal.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            return u64::from_str_radix(digits, radix).ok().map(|n| n as f64);
        }
    }
    if !lower
        .chars()
        .all(|c| c.is_ascii_digit() || "e.+-".contains(c))
    {
        return None;
    }
    lower.parse::<f64>().ok()
}

/// `code` with its JavaScript comments (`// ...` and `/* ... */`) replaced by spaces, so that
/// every byte keeps its offset and every line its number.
pub(crate) fn blank_comments(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut chars = code.chars().peekable();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q || (c == '\n' && q != '`') {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                out.push(' ');
                while let Some(&next) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    blank(&mut out, next);
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                out.push(' ');
                let mut last = ' ';
                for next in chars.by_ref() {
                    blank(&mut out, next);
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            ('"' | '\'' | '`', _) => {
                quote = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A blank as wide as `c` in bytes (a line break kept).
pub(crate) fn blank(out: &mut String, c: char) {
    if c == '\n' {
        out.push('\n');
    } else {
        out.extend(std::iter::repeat_n(' ', c.len_utf8()));
    }
}

/// The offset of the bracket closing the one at `open`, past quotes and nested brackets.
pub(crate) fn closing(code: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in code.get(open..)?.char_indices() {
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
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + at);
                }
            }
            _ => {}
        }
    }
    None
}

pub(crate) fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

pub(crate) fn is_identifier(word: &str) -> bool {
    !word.is_empty()
        && word.chars().all(is_identifier_char)
        && !word.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether `word` is in `code` as a whole word.
pub(crate) fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let before = code.get(..at).and_then(|b| b.chars().next_back());
        let after = code.get(at + word.len()..).and_then(|a| a.chars().next());
        !before.is_some_and(is_identifier_char) && !after.is_some_and(is_identifier_char)
    })
}
