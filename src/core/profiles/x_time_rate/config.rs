//! Reading Go code that builds a `golang.org/x/time/rate` limiter into its row's settings
//! (`profiles::config_text`): `rate.NewLimiter(r, b)` with `r` written as `rate.Every(d)`,
//! `rate.Limit(x)`, a plain number (an untyped constant becomes a `Limit`) or `rate.Inf`, and `d`
//! a `time.Duration` such as `100 * time.Millisecond`, `time.Minute / 10` or
//! `time.Duration(n) * time.Second`; names bound with `:=`, `=`, `const` or `var` are followed.
//!
//! The values are Go's (golang/time, `rate/rate.go`, and the Go spec's constant rules): constant
//! expressions are exact, integer constants divide as integers, a `time.Duration` is whole
//! nanoseconds, a constant becomes a float64 `Limit` by one correct rounding, and `Every(d)` is
//! `1 / d.Seconds()` in float64 (`Inf` for `d <= 0`). The lab's rate field keeps a decimal number
//! of events per second with up to six decimals, read as one correctly rounded division; a rate
//! is read only when one such decimal gives Go's float64 bit for bit (`Every(100 *
//! time.Millisecond)` is exactly 10), and refused with the float otherwise (`Every(3 *
//! time.Second)`, 0.3333333333333333 events per second). Fixtures come from `rate/rate.go` and
//! `rate/rate_test.go` at golang/time 2b4e4390 (the package has no `example_test.go`).

use crate::core::config::MAX_COUNT;
use crate::core::profiles::config_text::{
    line_of, lines_without_comments, ConfigOf, FromConfig, Unreadable,
};
use crate::core::profiles::settings::ExactDouble;
use crate::core::profiles::ProductSettings;

use super::{go_float, Fields, XTimeRateParams, INF};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`rate.NewLimiter(rate.Every(100*time.Millisecond), 5)`, `rate.NewLimiter(rate.Limit(10), 3)`",
};

/// How deep a name may refer to another before the reader gives up.
const MOST_NAMES: usize = 8;

fn recognises(text: &str) -> bool {
    let code = without_comments(text);
    code.contains("rate.NewLimiter")
        || (code.contains("x/time/rate") || code.contains("package rate"))
            && !limiter_calls(&code).is_empty()
}

/// One `NewLimiter` call read: where, its rate and burst, and the name it is bound to.
struct Limiter {
    line: usize,
    limit: f64,
    burst: i128,
    name: Option<String>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = without_comments(text);
    let calls = limiter_calls(&code);
    if calls.is_empty() {
        return Err(Unreadable::whole(
            "no Go rate limiter in it: expected `rate.NewLimiter(r, b)`",
        ));
    }
    let limiters = calls
        .iter()
        .map(|(at, args)| limiter(text, &code, *at, args))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &limiters[0];
    let at_line = |why: String| Unreadable::at(text, first.line, why);
    if first.limit >= INF {
        return Err(at_line(
            "`rate.Inf` lets every event through whatever the burst; the lab's rate is a number of events per second and cannot hold it".to_string(),
        ));
    }
    let rate = ExactDouble::new(first.limit).ok_or_else(|| {
        at_line(format!(
            "Go would run this limiter at {} events per second; the lab's rate runs from 0 to below 10^15",
            go_float(first.limit)
        ))
    })?;
    if !(0..=i128::from(MAX_COUNT)).contains(&first.burst) {
        return Err(at_line(format!(
            "a burst of {} is outside the lab's range, 0 to {MAX_COUNT}",
            first.burst
        )));
    }
    let products = ProductSettings {
        x_time_rate: Fields {
            rate: Some(rate),
            burst: Some(first.burst as u64),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new("x-time-rate", products);
    from.name = first.name.clone();
    for other in &limiters[1..] {
        from.notes.push(format!(
            "Another limiter is created on line {}{}; only the first, on line {}, sets the row.",
            other.line,
            other
                .name
                .as_ref()
                .map(|n| format!(" (`{n}`)"))
                .unwrap_or_default(),
            first.line
        ));
    }
    for method in ["SetLimit", "SetBurst", "SetLimitAt", "SetBurstAt"] {
        if let Some(at) = code.find(&format!(".{method}(")) {
            from.notes.push(format!(
                "`{method}` on line {} changes the limiter later; the row runs it as it was created.",
                line_of(&code, at)
            ));
        }
    }
    Ok(from)
}

/// The limiter made by the `NewLimiter` call at byte `at` of `code`.
fn limiter(text: &str, code: &str, at: usize, args: &[String]) -> Result<Limiter, Unreadable> {
    let line = line_of(code, at);
    let at_line = |why: String| Unreadable::at(text, line, why);
    let [r, b] = args else {
        return Err(at_line(format!(
            "`NewLimiter` takes two arguments, the rate and the burst, not {}",
            args.len()
        )));
    };
    let limit = match evaluate(code, r, 0).map_err(at_line)? {
        Value::Exact(q, Kind::Duration) => {
            return Err(at_line(format!(
            "`{r}` is a time.Duration ({} ns), not a rate.Limit; Go wants `rate.Every({r})` here",
            q.num
        )))
        }
        Value::Exact(q, _) => q
            .to_f64()
            .ok_or_else(|| at_line(format!("`{r}` cannot be computed exactly by the lab")))?,
        Value::Float(x) => x,
    };
    let burst = match evaluate(code, b, 0).map_err(at_line)? {
        Value::Exact(q, Kind::Int | Kind::Float) if q.den == 1 => q.num,
        _ => {
            return Err(at_line(format!(
                "the burst `{b}` is not a whole number (Go's `int`)"
            )))
        }
    };
    Ok(Limiter {
        line,
        limit,
        burst,
        name: bound_name(code, at),
    })
}

/// Every `NewLimiter(...)` call (`rate.NewLimiter`, or `NewLimiter` inside package `rate`): its
/// offset and arguments.
fn limiter_calls(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find("NewLimiter") {
        let at = from + pos;
        from = at + "NewLimiter".len();
        let before = &code[..at];
        let qualified = before.ends_with("rate.");
        let bare = !before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if !(qualified || bare) {
            continue;
        }
        let start = if qualified { at - "rate.".len() } else { at };
        if let Some((args, _)) = call_arguments(code[from..].trim_start()) {
            found.push((start, args));
        }
    }
    found
}

/// The name the call at byte `at` is bound to on its line: `limiter := `, `var lim = `,
/// `lim = `, or a struct field `limiter: `.
fn bound_name(code: &str, at: usize) -> Option<String> {
    let line_start = code[..at].rfind('\n').map_or(0, |p| p + 1);
    let before = code[line_start..at].trim_end();
    let before = before
        .strip_suffix(":=")
        .or_else(|| before.strip_suffix('='))
        .or_else(|| before.strip_suffix(':'))?
        .trim_end();
    // `var limiter *rate.Limiter = ` names `limiter`.
    let words: Vec<&str> = before.split_whitespace().collect();
    let name = match words.as_slice() {
        ["var", name, ..] => *name,
        [.., name] => *name,
        [] => return None,
    };
    let name = name.trim_matches(|c: char| c == '"' || c == '&');
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

/// What a Go expression is: an exact constant (with its kind), or a float64 computed at run
/// time (a `Limit` from `Every`, or a conversion).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Exact(Ratio, Kind),
    Float(f64),
}

/// The kind of an exact value: an untyped integer or float constant, or a `time.Duration`
/// (whole nanoseconds, divided as integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Duration,
}

/// An exact fraction, `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ratio {
    num: i128,
    den: i128,
}

impl Ratio {
    fn whole(n: i128) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1) as i128;
        let sign = if den < 0 { -1 } else { 1 };
        Some(Ratio {
            num: sign * (num / g),
            den: sign * (den / g),
        })
    }

    fn add(self, o: Ratio) -> Option<Ratio> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_add(o.num.checked_mul(self.den)?)?;
        Ratio::new(num, self.den.checked_mul(o.den)?)
    }

    fn neg(self) -> Ratio {
        Ratio {
            num: -self.num,
            den: self.den,
        }
    }

    fn mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    fn div(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }

    /// The float64 nearest to the fraction, as Go rounds a constant (one correct rounding).
    fn to_f64(self) -> Option<f64> {
        const EXACT: u128 = 1 << 53;
        if self.num.unsigned_abs() <= EXACT && self.den.unsigned_abs() <= EXACT {
            // Both exact in a double: one IEEE division rounds correctly.
            return Some(self.num as f64 / self.den as f64);
        }
        // A denominator dividing a power of ten (every decimal literal's): the decimal text,
        // which Rust's parser rounds correctly, as Go rounds the constant.
        let mut ten: i128 = 1;
        for places in 0..=36 {
            if ten % self.den == 0 {
                let num = self.num.checked_mul(ten / self.den)?;
                return format!("{num}e-{places}").parse().ok();
            }
            ten = ten.checked_mul(10)?;
        }
        None
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Go's `time` constants, in nanoseconds.
const TIME_UNITS: [(&str, i128); 6] = [
    ("time.Nanosecond", 1),
    ("time.Microsecond", 1_000),
    ("time.Millisecond", 1_000_000),
    ("time.Second", 1_000_000_000),
    ("time.Minute", 60_000_000_000),
    ("time.Hour", 3_600_000_000_000),
];

/// A token of a Go expression.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(Ratio, Kind),
    Name(String),
    Op(char),
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if "+-*/()".contains(c) {
            out.push(Token::Op(c));
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || chars[i] == '_'
                    || ((chars[i] == '+' || chars[i] == '-') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let literal: String = chars[start..i].iter().collect();
            out.push(
                number(&literal)
                    .ok_or_else(|| format!("`{literal}` is not a Go number the lab can read"))?,
            );
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            out.push(Token::Name(chars[start..i].iter().collect()));
        } else {
            return Err(format!("`{text}` is not an expression the lab can read"));
        }
    }
    Ok(out)
}

/// A Go decimal literal: an integer (`1_000`) or a float (`0.5`, `1e-10`, `1e+06`), exactly.
fn number(literal: &str) -> Option<Token> {
    let digits: String = literal.chars().filter(|c| *c != '_').collect();
    if digits.len() > 1 && digits.starts_with('0') && digits.chars().all(|c| c.is_ascii_digit()) {
        // Octal and other bases are not read.
        return None;
    }
    let (mantissa, exponent) = match digits.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.parse::<i32>().ok()?)),
        None => (digits.as_str(), None),
    };
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (whole.is_empty() && frac.is_empty())
        || !whole
            .chars()
            .chain(frac.chars())
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let all: String = format!("{whole}{frac}");
    let num: i128 = all.trim_start_matches('0').parse().unwrap_or(0);
    if all.trim_start_matches('0').len() > 36 {
        return None;
    }
    let exp = exponent.unwrap_or(0) - frac.len() as i32;
    let ten = |e: i32| 10i128.checked_pow(e.unsigned_abs());
    let ratio = if exp >= 0 {
        Ratio::whole(num.checked_mul(ten(exp)?)?)
    } else {
        Ratio::new(num, ten(exp)?)?
    };
    let kind = if mantissa.contains('.') || exponent.is_some() {
        Kind::Float
    } else {
        Kind::Int
    };
    Some(Token::Number(ratio, kind))
}

/// The value of Go expression `text`, names in it followed through `code`.
fn evaluate(code: &str, text: &str, depth: usize) -> Result<Value, String> {
    let tokens = tokens(text)?;
    let mut parser = Parser {
        code,
        tokens: &tokens,
        at: 0,
        depth,
        text,
    };
    let value = parser.sum()?;
    if parser.at != tokens.len() {
        return Err(parser.unreadable());
    }
    Ok(value)
}

struct Parser<'a> {
    code: &'a str,
    tokens: &'a [Token],
    at: usize,
    depth: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn unreadable(&self) -> String {
        format!(
            "`{}` is not an expression the lab can read (it reads numbers, `time` units, `rate.Every`, `rate.Limit`, `rate.Inf` and names bound to them)",
            self.text.trim()
        )
    }

    fn sum(&mut self) -> Result<Value, String> {
        let mut value = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.tokens.get(self.at) {
            let op = *op;
            self.at += 1;
            let right = self.product()?;
            value = self.combine(value, op, right)?;
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<Value, String> {
        let mut value = self.factor()?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.tokens.get(self.at) {
            let op = *op;
            self.at += 1;
            let right = self.factor()?;
            value = self.combine(value, op, right)?;
        }
        Ok(value)
    }

    fn factor(&mut self) -> Result<Value, String> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Number(q, kind)) => Ok(Value::Exact(q, kind)),
            Some(Token::Op('-')) => match self.factor()? {
                Value::Exact(q, kind) => Ok(Value::Exact(q.neg(), kind)),
                Value::Float(x) => Ok(Value::Float(-x)),
            },
            Some(Token::Op('+')) => self.factor(),
            Some(Token::Op('(')) => {
                let value = self.sum()?;
                self.close()?;
                Ok(value)
            }
            Some(Token::Name(name)) => self.name(&name),
            _ => Err(self.unreadable()),
        }
    }

    fn close(&mut self) -> Result<(), String> {
        match self.tokens.get(self.at) {
            Some(Token::Op(')')) => {
                self.at += 1;
                Ok(())
            }
            _ => Err(self.unreadable()),
        }
    }

    /// A name: a `time` unit, `rate.Inf`, a conversion or call (`rate.Every(d)`,
    /// `rate.Limit(x)`, `time.Duration(n)`, `float64(x)`, `int(x)`), or a bound name.
    fn name(&mut self, name: &str) -> Result<Value, String> {
        let plain = name.strip_prefix("rate.").unwrap_or(name);
        if let Some((_, ns)) = TIME_UNITS.iter().find(|(n, _)| *n == name) {
            return Ok(Value::Exact(Ratio::whole(*ns), Kind::Duration));
        }
        if plain == "Inf" || name == "math.MaxFloat64" {
            return Ok(Value::Float(INF));
        }
        if let Some(Token::Op('(')) = self.tokens.get(self.at) {
            self.at += 1;
            let inner = self.sum()?;
            self.close()?;
            return match plain {
                "Every" => self.every(inner),
                "Limit" | "float64" => self.float(inner).map(Value::Float),
                "time.Duration" => self.duration(inner),
                "int" | "int64" | "int32" => match inner {
                    Value::Exact(q, _) if q.den == 1 => Ok(Value::Exact(q, Kind::Int)),
                    Value::Float(x) if x.is_finite() => {
                        Ok(Value::Exact(Ratio::whole(x.trunc() as i128), Kind::Int))
                    }
                    _ => Err(self.unreadable()),
                },
                _ => Err(self.unreadable()),
            };
        }
        if self.depth >= MOST_NAMES {
            return Err(format!(
                "`{name}` refers to names too deeply for the lab to follow"
            ));
        }
        let bound = bound_value(self.code, name).ok_or_else(|| {
            format!("`{name}` is not bound to a value in the text (`{name} := ...`)")
        })?;
        evaluate(self.code, &bound, self.depth + 1)
    }

    /// `rate.Every(d)`: `Inf` for `d <= 0`, else `1 / d.Seconds()` in float64.
    fn every(&self, d: Value) -> Result<Value, String> {
        let ns = match d {
            Value::Exact(q, Kind::Int | Kind::Duration) if q.den == 1 => q.num,
            _ => {
                return Err(format!(
                    "`rate.Every` takes a time.Duration, and `{}` is not one",
                    self.text.trim()
                ))
            }
        };
        let ns = i64::try_from(ns)
            .map_err(|_| format!("`{}` overflows a time.Duration", self.text.trim()))?;
        Ok(Value::Float(XTimeRateParams::every(ns)))
    }

    /// `time.Duration(x)`: a constant must be whole (Go refuses to truncate one); a float64 at
    /// run time is truncated.
    fn duration(&self, x: Value) -> Result<Value, String> {
        match x {
            Value::Exact(q, _) if q.den == 1 => Ok(Value::Exact(q, Kind::Duration)),
            Value::Exact(..) => Err(format!(
                "`{}`: Go refuses a constant Duration that is not whole nanoseconds",
                self.text.trim()
            )),
            Value::Float(f) if f.is_finite() => Ok(Value::Exact(
                Ratio::whole(f.trunc() as i128),
                Kind::Duration,
            )),
            Value::Float(_) => Err(self.unreadable()),
        }
    }

    /// A value as a float64 (`Limit(x)`, `float64(x)`): a constant rounded once.
    fn float(&self, x: Value) -> Result<f64, String> {
        match x {
            Value::Float(f) => Ok(f),
            Value::Exact(q, _) => q.to_f64().ok_or_else(|| {
                format!(
                    "`{}` cannot be computed exactly by the lab",
                    self.text.trim()
                )
            }),
        }
    }

    /// `left op right` by Go's rules: constants exactly (integers divide as integers, as do
    /// Durations), float64s in float64.
    fn combine(&self, left: Value, op: char, right: Value) -> Result<Value, String> {
        let overflow = || format!("`{}` is too large for the lab to compute", self.text.trim());
        match (left, right) {
            (Value::Exact(a, ka), Value::Exact(b, kb)) => {
                let kind = match (ka, kb) {
                    (Kind::Duration, _) | (_, Kind::Duration) => Kind::Duration,
                    (Kind::Float, _) | (_, Kind::Float) => Kind::Float,
                    _ => Kind::Int,
                };
                if kind == Kind::Duration && (a.den != 1 || b.den != 1) {
                    return Err(format!(
                        "`{}`: Go refuses a constant Duration that is not whole nanoseconds",
                        self.text.trim()
                    ));
                }
                let exact = match op {
                    '+' => a.add(b),
                    '-' => a.add(b.neg()),
                    '*' => a.mul(b),
                    _ if b.num == 0 => {
                        return Err(format!("`{}` divides by zero", self.text.trim()))
                    }
                    // Integers and Durations truncate toward zero, as Go divides them.
                    _ if kind != Kind::Float => Some(Ratio::whole(a.num / b.num)),
                    _ => a.div(b),
                };
                Ok(Value::Exact(exact.ok_or_else(overflow)?, kind))
            }
            (Value::Exact(_, Kind::Duration), Value::Float(_))
            | (Value::Float(_), Value::Exact(_, Kind::Duration)) => Err(format!(
                "`{}` mixes a time.Duration with a rate.Limit, which Go does not compile",
                self.text.trim()
            )),
            (a, b) => {
                let (a, b) = (self.float(a)?, self.float(b)?);
                Ok(Value::Float(match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    _ => a / b,
                }))
            }
        }
    }
}

/// The expression a name is bound to: `name := ...`, `name = ...`, `const name = ...`,
/// `var name T = ...` (the first binding in the code, up to the end of its line or a `;`).
fn bound_value(code: &str, name: &str) -> Option<String> {
    for line in code.lines() {
        let mut from = 0;
        while let Some(pos) = line[from..].find(name) {
            let at = from + pos;
            from = at + name.len();
            let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
            if line[..at].chars().next_back().is_some_and(word)
                || line[from..].chars().next().is_some_and(word)
            {
                continue;
            }
            let before = line[..at].trim();
            let after = line[from..].trim_start();
            let value = if let Some(v) = after.strip_prefix(":=") {
                v
            } else if let Some(v) = after.strip_prefix('=').filter(|v| !v.starts_with('=')) {
                v
            } else if before.ends_with("const") || before.ends_with("var") {
                // `const name T = value`: the value after the type.
                match after.split_once('=') {
                    Some((_, v)) if !v.starts_with('=') => v,
                    _ => continue,
                }
            } else {
                continue;
            };
            let value = value.split(';').next().unwrap_or("").trim();
            if !value.is_empty() {
                return Some(value.to_string());
            }
        }
    }
    None
}

/// When `text` starts with `(`: the call's arguments, split at top-level commas, and the offset
/// just after its `)`.
fn call_arguments(text: &str) -> Option<(Vec<String>, usize)> {
    let body = text.strip_prefix('(')?;
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (at, c) in body.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '`' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' => {
                    let last = body[start..at].trim();
                    if !last.is_empty() {
                        args.push(last.to_string());
                    }
                    return Some((args, at + 2));
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

/// The code without its `//` comments, line for line.
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
        read_ok(text).products.x_time_rate
    }

    fn limiter(events_per_second: f64, burst: u64) -> Fields {
        Fields {
            rate: ExactDouble::new(events_per_second),
            burst: Some(burst),
        }
    }

    // golang/time 2b4e4390, rate/rate_test.go, TestLimiterBurst1 and TestLimiterBurst3.
    const TEST_BURST: &str = "run(t, NewLimiter(10, 1), []allow{";
    const TEST_BURST_3: &str = "run(t, NewLimiter(10, 3), []allow{";
    // rate/rate_test.go, TestLongRunningQPS's 0.7692307692307693 per second (10 per 13 s).
    const TEST_QPS: &str = "if !NewLimiter(0.7692307692307693, 1).Allow() {";
    // rate/rate_test.go, TestSimultaneousRequests.
    const TEST_EVERY: &str = "lim := NewLimiter(Every(1*time.Second), 1)";
    // rate/rate_test.go, TestZeroLimit and TestInf-style limiters.
    const TEST_ZERO: &str = "r := NewLimiter(0, 1)";
    const TEST_INF: &str = "lim := NewLimiter(Inf, 0)";
    // rate/rate.go, `Every`'s doc comment: "a minimum time interval between events".
    const EVERY_DOC: &str = "import \"golang.org/x/time/rate\"
limiter := rate.NewLimiter(rate.Every(100*time.Millisecond), 5)";

    const FIXTURES: [&str; 7] = [
        TEST_BURST,
        TEST_BURST_3,
        TEST_QPS,
        TEST_EVERY,
        TEST_ZERO,
        TEST_INF,
        EVERY_DOC,
    ];

    #[test]
    fn the_packages_own_limiters_give_gos_rate_and_burst() {
        let with = |t: &str| format!("package rate\n{t}");
        assert_eq!(fields(&with(TEST_BURST)), limiter(10.0, 1));
        assert_eq!(fields(&with(TEST_BURST_3)), limiter(10.0, 3));
        assert_eq!(fields(&with(TEST_EVERY)), limiter(1.0, 1));
        assert_eq!(fields(&with(TEST_ZERO)), limiter(0.0, 1));
        let from = read_ok(EVERY_DOC);
        assert_eq!(from.row, "x-time-rate");
        assert_eq!(from.products.x_time_rate, limiter(10.0, 5));
        assert_eq!(from.name.as_deref(), Some("limiter"));
        let p = from.products.x_time_rate.params(1, Span::from_secs(60));
        assert_eq!(p.limit, 10.0);
        assert_eq!(p.burst, 5);
    }

    #[test]
    fn a_rate_is_kept_as_gos_float64_itself() {
        let from = read_ok(&format!("package rate\n{TEST_QPS}"));
        assert_eq!(
            from.products
                .x_time_rate
                .rate
                .map(|r| r.to_string())
                .as_deref(),
            Some("0.7692307692307693")
        );
        let every = fields("lim := rate.NewLimiter(rate.Every(3*time.Second), 1)");
        assert_eq!(every, limiter(1.0 / 3.0, 1));
    }

    #[test]
    fn rate_inf_is_refused_as_the_lab_cannot_hold_it() {
        let e = read(&format!("package rate\n{TEST_INF}")).unwrap_err();
        assert!(e.why.contains("`rate.Inf` lets every event through"), "{e}");
    }

    #[test]
    fn go_constants_and_durations_are_computed_as_go_computes_them() {
        let cases = [
            ("rate.NewLimiter(rate.Limit(10), 3)", limiter(10.0, 3)),
            ("rate.NewLimiter(10, 3)", limiter(10.0, 3)),
            ("rate.NewLimiter(2.5, 3)", limiter(2.5, 3)),
            (
                "rate.NewLimiter(rate.Every(200 * time.Millisecond), 1)",
                limiter(5.0, 1),
            ),
            (
                "rate.NewLimiter(rate.Every(time.Minute / 10), 1)",
                limiter(1.0 / 6.0, 1),
            ),
            (
                "rate.NewLimiter(rate.Every(time.Second / 4), 2)",
                limiter(4.0, 2),
            ),
            (
                "rate.NewLimiter(rate.Limit(1e+06), 1000)",
                limiter(1000000.0, 1000),
            ),
            // Untyped integer constants divide as integers: 5 / 2 is 2.
            ("rate.NewLimiter(5 / 2, 1)", limiter(2.0, 1)),
            ("rate.NewLimiter(5.0 / 2, 1)", limiter(2.5, 1)),
            (
                "rate.NewLimiter(rate.Limit(100)/60, 100)",
                limiter(100.0 / 60.0, 100),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(fields(text), want, "{text}");
        }
    }

    #[test]
    fn names_bound_with_const_var_and_short_declarations_are_followed() {
        let text = "const burst = 20
var every time.Duration = 50 * time.Millisecond
n := 2
limiter := rate.NewLimiter(rate.Every(every*time.Duration(n)), burst)";
        let from = read_ok(text);
        assert_eq!(from.products.x_time_rate, limiter(10.0, 20));
        assert_eq!(from.name.as_deref(), Some("limiter"));
    }

    #[test]
    fn what_the_reader_cannot_follow_is_refused_naming_its_line() {
        let e = read("\nlim := rate.NewLimiter(cfg.Rate, 5)").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.why.contains("`cfg.Rate` is not bound to a value"), "{e}");
        let e = read("lim := rate.NewLimiter(time.Second, 5)").unwrap_err();
        assert!(
            e.why
                .contains("not a rate.Limit; Go wants `rate.Every(time.Second)`"),
            "{e}"
        );
        let e = read("lim := rate.NewLimiter(10)").unwrap_err();
        assert!(e.why.contains("takes two arguments"), "{e}");
        let e = read("lim := rate.NewLimiter(10, 2.5)").unwrap_err();
        assert!(
            e.why.contains("the burst `2.5` is not a whole number"),
            "{e}"
        );
        let e = read("lim := rate.NewLimiter(10, -1)").unwrap_err();
        assert!(e.why.contains("outside the lab's range"), "{e}");
        let e = read("lim := rate.NewLimiter(-1, 1)").unwrap_err();
        assert!(e.why.contains("-1 events per second"), "{e}");
        let e = read("lim := rate.NewLimiter(rate.Every(1.5 * time.Second), 1)");
        assert!(e.unwrap_err().why.contains("not whole nanoseconds"));
        let e = read("lim := rate.NewLimiter(f(), 1)").unwrap_err();
        assert!(
            e.why.contains("is not an expression the lab can read"),
            "{e}"
        );
        let e = read("package main").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no Go rate limiter in it"), "{e}");
    }

    #[test]
    fn another_limiter_and_later_changes_are_noted() {
        let text = "global := rate.NewLimiter(100, 100)
perUser := rate.NewLimiter(rate.Every(time.Second), 5)
global.SetLimit(50)";
        let from = read_ok(text);
        assert_eq!(from.products.x_time_rate, limiter(100.0, 100));
        assert_eq!(from.name.as_deref(), Some("global"));
        assert_eq!(
            from.notes,
            vec![
                "Another limiter is created on line 2 (`perUser`); only the first, on line 1, sets the row.",
                "`SetLimit` on line 3 changes the limiter later; the row runs it as it was created.",
            ]
        );
        assert_eq!(from.second, None);
    }

    #[test]
    fn the_recogniser_says_no_to_the_other_products_configs() {
        let others = [
            "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
            "let q = Quota::per_second(nonzero!(50u32));",
            "CL.THROTTLE user123 15 30 60 1",
            "const ratelimit = new Ratelimit({ limiter: Ratelimit.slidingWindow(10, \"10 s\") });",
            "token_bucket: { max_tokens: 10, tokens_per_fill: 1, fill_interval: 1s }",
            "[[unsafe.bindings]]\nname = \"MY_RATE_LIMITER\"\ntype = \"ratelimit\"\nsimple = { limit = 100, period = 60 }",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "from limits import parse; parse(\"10/minute\")",
            "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
            "final RateLimiter rateLimiter = RateLimiter.create(2.0);",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        assert!(recognises(EVERY_DOC));
        assert!(recognises("package rate\nlim := NewLimiter(10, 1)"));
        assert!(!recognises("lim := NewLimiter(10, 1)"));
    }

    #[test]
    fn no_prefix_of_a_fixture_makes_the_reader_panic() {
        for fixture in FIXTURES {
            let fixture = format!("package rate\n{fixture}");
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
        fn no_text_makes_the_reader_panic(text in "(rate\\.NewLimiter|rate\\.Every|rate\\.Limit|time\\.Second|Inf|:=|const |[(){};.,*/+e0-9a-z \n-])*") {
            let _ = read(&text);
        }
    }

    #[test]
    fn the_rows_own_snippet_reads_back_to_the_same_limiter() {
        let windows = [
            Span::from_secs(1),
            Span::from_secs(10),
            Span::from_secs(60),
            Span::from_millis(500),
            Span::from_secs(3600),
        ];
        let mut sets = vec![Fields::default()];
        for rate in [
            None,
            Some(0),
            Some(1),
            Some(333_333),
            Some(10_000_000),
            Some(1_000_000_000_000_000),
        ] {
            for burst in [None, Some(0), Some(1), Some(MAX_COUNT)] {
                sets.push(Fields {
                    rate: rate.and_then(|micros: u64| ExactDouble::new(micros as f64 / 1e6)),
                    burst,
                });
            }
        }
        let mut read_back = 0;
        for limit in [1, 2, 5, 7, 100, 1000] {
            for window in windows {
                for set in &sets {
                    let products = ProductSettings {
                        x_time_rate: set.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    assert!(written.nearest.is_none());
                    let want = products.x_time_rate.params(limit, window);
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "x-time-rate");
                    let got = from.products.x_time_rate.params(3, Span::from_secs(9));
                    assert_eq!(got.limit.to_bits(), want.limit.to_bits());
                    assert_eq!(got.burst, want.burst);
                    read_back += 1;
                }
            }
        }
        assert_eq!(read_back, 6 * 5 * 25);
    }
}
