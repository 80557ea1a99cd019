//! Reading Java code that builds a Guava `RateLimiter` into its row's settings
//! (`profiles::config_text`): `RateLimiter.create(permitsPerSecond)`, with the rate written as a
//! Java number (`2.0`, `2`, `5000d`, `0.5f`, `1.0E7`), Java arithmetic on numbers
//! (`1.0 / 3`, `5000 / 3`, computed with Java's int, long, float and double rules) or a name
//! bound to one (`final double permitsPerSecond = 5.0;`).
//!
//! What Guava does with it (google/guava, `guava/src/com/google/common/util/concurrent/
//! RateLimiter.java` and `SmoothRateLimiter.java`, as this profile's module header cites them):
//! `create(permitsPerSecond)` is a `SmoothBursty` limiter storing at most one second of permits
//! (`maxBurstSeconds = 1.0`), and `setRate` refuses a rate that is not above 0 ("rate must be
//! positive"). The warm-up forms, `create(permitsPerSecond, warmupPeriod, unit)` and
//! `create(permitsPerSecond, Duration)`, make a `SmoothWarmingUp` limiter, which the lab does not
//! run: they are refused rather than read as the bursty one.
//!
//! The lab's rate field keeps a decimal number of permits per second with up to six decimals
//! (read as one correctly rounded division); a rate is read only when such a decimal gives Java's
//! double bit for bit, and refused with the double otherwise. Fixtures: the class Javadoc's two
//! examples in `RateLimiter.java`.

use crate::core::profiles::config_text::{line_of, ConfigOf, FromConfig, Unreadable};
use crate::core::profiles::settings::ExactDouble;
use crate::core::profiles::ProductSettings;
use crate::core::time::Span;

use super::{java_double, Fields};

/// The reader the family's rows name.
pub(super) const CONFIG: ConfigOf = ConfigOf {
    recognises,
    read,
    forms: "`RateLimiter.create(5.0)` (Guava, Java)",
};

/// How deep a name may refer to another before the reader gives up.
const MOST_NAMES: usize = 8;

fn recognises(text: &str) -> bool {
    !create_calls(&without_comments(text)).is_empty()
}

/// One `RateLimiter.create(...)` call read.
struct Created {
    line: usize,
    permits_per_second: f64,
    name: Option<String>,
}

fn read(text: &str) -> Result<FromConfig, Unreadable> {
    let code = without_comments(text);
    let calls = create_calls(&code);
    if calls.is_empty() {
        return Err(Unreadable::whole(
            "no Guava rate limiter in it: expected `RateLimiter.create(permitsPerSecond)`",
        ));
    }
    let created = calls
        .iter()
        .map(|(at, args)| create(text, &code, *at, args))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &created[0];
    let rate = ExactDouble::new(first.permits_per_second).ok_or_else(|| {
        Unreadable::at(
            text,
            first.line,
            format!(
                "Guava would run this limiter at {} permits per second; the lab's rate is below 10^15",
                java_double(first.permits_per_second)
            ),
        )
    })?;
    let products = ProductSettings {
        guava: Fields {
            rate: Some(rate),
            // `create` stores at most one second of permits.
            burst: Some(Span::from_secs(1)),
        },
        ..ProductSettings::default()
    };
    let mut from = FromConfig::new("guava", products);
    from.name = first.name.clone();
    for other in &created[1..] {
        from.notes.push(format!(
            "Another RateLimiter is created on line {}{}; only the first, on line {}, sets the row.",
            other.line,
            other
                .name
                .as_ref()
                .map(|n| format!(" (`{n}`)"))
                .unwrap_or_default(),
            first.line
        ));
    }
    if let Some(at) = code.find(".setRate(") {
        from.notes.push(format!(
            "`setRate` on line {} changes the rate later; the row runs the limiter as it was created.",
            line_of(&code, at)
        ));
    }
    if let Some(at) = code.find(".acquire(") {
        from.notes.push(format!(
            "The code waits with `acquire` (line {}); the row asks `tryAcquire`, and its replies say how long `acquire` would have waited.",
            line_of(&code, at)
        ));
    }
    Ok(from)
}

/// The limiter made by the `create` call at byte `at`.
fn create(text: &str, code: &str, at: usize, args: &[String]) -> Result<Created, Unreadable> {
    let line = line_of(code, at);
    let at_line = |why: String| Unreadable::at(text, line, why);
    let rate = match args {
        [rate] => rate,
        [_, _] | [_, _, _] => {
            return Err(at_line(
                "`RateLimiter.create` with a warm-up period makes a SmoothWarmingUp limiter, which the lab does not run; it reads `RateLimiter.create(permitsPerSecond)`".to_string(),
            ))
        }
        _ => {
            return Err(at_line(format!(
                "`RateLimiter.create` takes the permits per second, not {} arguments",
                args.len()
            )))
        }
    };
    let permits_per_second = evaluate(code, rate, 0).map_err(at_line)?.as_double();
    if permits_per_second.is_nan() || permits_per_second <= 0.0 {
        return Err(at_line(format!(
            "Guava refuses a rate of {}: \"rate must be positive\"",
            java_double(permits_per_second)
        )));
    }
    if permits_per_second.is_infinite() {
        return Err(at_line(
            "an infinite rate lets every permit through; the lab's rate is a number of permits per second and cannot hold it".to_string(),
        ));
    }
    Ok(Created {
        line,
        permits_per_second,
        name: bound_name(code, at),
    })
}

/// Every `RateLimiter.create(...)` call (also written with its package), with its offset and
/// arguments.
fn create_calls(code: &str) -> Vec<(usize, Vec<String>)> {
    const NAME: &str = "RateLimiter.create";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find(NAME) {
        let at = from + pos;
        from = at + NAME.len();
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        if let Some(args) = call_arguments(code[from..].trim_start()) {
            found.push((at, args));
        }
    }
    found
}

/// The name the statement holding the call at byte `at` assigns: `RateLimiter limiter = `,
/// `this.limiter = `, `private static final RateLimiter LIMITER = `.
fn bound_name(code: &str, at: usize) -> Option<String> {
    let start = code[..at].rfind([';', '{', '}']).map_or(0, |p| p + 1);
    let before = code[start..at].trim_end();
    let before = before.strip_suffix('=')?.trim_end();
    let name = before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// A Java number: `int` and `long` wrap as Java's do, `float` and `double` are IEEE.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Number {
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

impl Number {
    /// The value widened to a `double`, as `create(double)` takes it.
    fn as_double(self) -> f64 {
        match self {
            Number::Int(n) => f64::from(n),
            Number::Long(n) => n as f64,
            Number::Float(x) => f64::from(x),
            Number::Double(x) => x,
        }
    }

    fn as_float(self) -> f32 {
        match self {
            Number::Int(n) => n as f32,
            Number::Long(n) => n as f32,
            Number::Float(x) => x,
            Number::Double(x) => x as f32,
        }
    }

    fn as_long(self) -> i64 {
        match self {
            Number::Int(n) => i64::from(n),
            Number::Long(n) => n,
            // Not reached: floating operands take the floating paths.
            Number::Float(x) => x as i64,
            Number::Double(x) => x as i64,
        }
    }

    fn negate(self) -> Number {
        match self {
            Number::Int(n) => Number::Int(n.wrapping_neg()),
            Number::Long(n) => Number::Long(n.wrapping_neg()),
            Number::Float(x) => Number::Float(-x),
            Number::Double(x) => Number::Double(-x),
        }
    }

    /// `self op other` after Java's binary numeric promotion.
    fn combine(self, op: char, other: Number) -> Result<Number, String> {
        use Number::*;
        Ok(match (self, other) {
            (Double(_), _) | (_, Double(_)) => {
                let (a, b) = (self.as_double(), other.as_double());
                Double(match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    _ => a / b,
                })
            }
            (Float(_), _) | (_, Float(_)) => {
                let (a, b) = (self.as_float(), other.as_float());
                Float(match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    _ => a / b,
                })
            }
            (Int(a), Int(b)) => Int(match op {
                '+' => a.wrapping_add(b),
                '-' => a.wrapping_sub(b),
                '*' => a.wrapping_mul(b),
                _ if b == 0 => return Err("divides an integer by zero".to_string()),
                _ => a.wrapping_div(b),
            }),
            _ => {
                let (a, b) = (self.as_long(), other.as_long());
                Long(match op {
                    '+' => a.wrapping_add(b),
                    '-' => a.wrapping_sub(b),
                    '*' => a.wrapping_mul(b),
                    _ if b == 0 => return Err("divides an integer by zero".to_string()),
                    _ => a.wrapping_div(b),
                })
            }
        })
    }
}

/// A token of a Java expression.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(Number),
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
            out.push(Token::Number(java_number(&literal).ok_or_else(|| {
                format!("`{literal}` is not a Java number the lab can read")
            })?));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '$'
                    || chars[i] == '.')
            {
                i += 1;
            }
            out.push(Token::Name(chars[start..i].iter().collect()));
        } else {
            return Err(format!(
                "`{}` is not an expression the lab can read",
                text.trim()
            ));
        }
    }
    Ok(out)
}

/// A Java decimal literal: `2`, `2L`, `2.0`, `2d`, `0.5f`, `1.0E7`, `5_000` (octal, hex and
/// binary are not read).
fn java_number(literal: &str) -> Option<Number> {
    let digits: String = literal.chars().filter(|c| *c != '_').collect();
    let (body, suffix) = match digits.chars().last()? {
        c @ ('l' | 'L' | 'f' | 'F' | 'd' | 'D') => (&digits[..digits.len() - 1], Some(c)),
        _ => (digits.as_str(), None),
    };
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    let floating = body.contains(['.', 'e', 'E']);
    match suffix {
        Some('f' | 'F') => body.parse::<f32>().ok().map(Number::Float),
        Some('d' | 'D') => body.parse::<f64>().ok().map(Number::Double),
        _ if floating => body.parse::<f64>().ok().map(Number::Double),
        _ if body.len() > 1 && body.starts_with('0') => None,
        Some(_) => body.parse::<i64>().ok().map(Number::Long),
        None => body.parse::<i32>().ok().map(Number::Int),
    }
}

/// The value of Java expression `text`, names in it followed through `code`.
fn evaluate(code: &str, text: &str, depth: usize) -> Result<Number, String> {
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
            "`{}` is not a rate the lab can read (it reads Java numbers, arithmetic on them and names bound to them)",
            self.text.trim()
        )
    }

    fn sum(&mut self) -> Result<Number, String> {
        let mut value = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.tokens.get(self.at) {
            let op = *op;
            self.at += 1;
            let right = self.product()?;
            value = value.combine(op, right).map_err(|why| self.why(&why))?;
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<Number, String> {
        let mut value = self.factor()?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.tokens.get(self.at) {
            let op = *op;
            self.at += 1;
            let right = self.factor()?;
            value = value.combine(op, right).map_err(|why| self.why(&why))?;
        }
        Ok(value)
    }

    fn why(&self, why: &str) -> String {
        format!("`{}` {why}", self.text.trim())
    }

    fn factor(&mut self) -> Result<Number, String> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Number(n)) => Ok(n),
            Some(Token::Op('-')) => Ok(self.factor()?.negate()),
            Some(Token::Op('+')) => self.factor(),
            Some(Token::Op('(')) => {
                // A cast: `(double) 5`, `(int) x`.
                if let (Some(Token::Name(t)), Some(Token::Op(')'))) = (
                    self.tokens.get(self.at).cloned(),
                    self.tokens.get(self.at + 1),
                ) {
                    if matches!(t.as_str(), "double" | "float" | "long" | "int") {
                        self.at += 2;
                        let value = self.factor()?;
                        return Ok(cast(&t, value));
                    }
                }
                let value = self.sum()?;
                match self.tokens.get(self.at) {
                    Some(Token::Op(')')) => {
                        self.at += 1;
                        Ok(value)
                    }
                    _ => Err(self.unreadable()),
                }
            }
            Some(Token::Name(name)) => self.name(&name),
            _ => Err(self.unreadable()),
        }
    }

    fn name(&mut self, name: &str) -> Result<Number, String> {
        match name {
            "Double.POSITIVE_INFINITY" => return Ok(Number::Double(f64::INFINITY)),
            "Double.MAX_VALUE" => return Ok(Number::Double(f64::MAX)),
            "Integer.MAX_VALUE" => return Ok(Number::Int(i32::MAX)),
            _ => {}
        }
        if matches!(self.tokens.get(self.at), Some(Token::Op('('))) {
            return Err(self.unreadable());
        }
        if self.depth >= MOST_NAMES {
            return Err(format!(
                "`{name}` refers to names too deeply for the lab to follow"
            ));
        }
        let plain = name.strip_prefix("this.").unwrap_or(name);
        let (value, declared) = bound_value(self.code, plain).ok_or_else(|| {
            format!("`{name}` is not bound to a value in the text (`double {plain} = ...;`)")
        })?;
        let value = evaluate(self.code, &value, self.depth + 1)?;
        // `double rate = 5;` holds 5.0: the declared type converts the value.
        Ok(match declared.as_deref() {
            Some(
                t @ ("double" | "float" | "long" | "int" | "Double" | "Float" | "Long" | "Integer"),
            ) => cast(&t.to_lowercase().replace("integer", "int"), value),
            _ => value,
        })
    }
}

/// Java's cast `(t) value`.
fn cast(t: &str, value: Number) -> Number {
    match t {
        "double" => Number::Double(value.as_double()),
        "float" => Number::Float(value.as_float()),
        "long" => Number::Long(match value {
            Number::Float(x) => x as i64,
            Number::Double(x) => x as i64,
            other => other.as_long(),
        }),
        _ => Number::Int(match value {
            Number::Float(x) => x as i32,
            Number::Double(x) => x as i32,
            other => other.as_long() as i32,
        }),
    }
}

/// The expression a name is given by `T name = ...;` or `name = ...;` (the first in the code),
/// and the type declared with it.
fn bound_value(code: &str, name: &str) -> Option<(String, Option<String>)> {
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        if code[..at].chars().next_back().is_some_and(word)
            || code[from..].chars().next().is_some_and(word)
        {
            continue;
        }
        let after = code[from..].trim_start();
        let Some(value) = after.strip_prefix('=').filter(|v| !v.starts_with('=')) else {
            continue;
        };
        let end = value.find(';').unwrap_or(value.len());
        let declared = code[..at]
            .trim_end()
            .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ';' || c == '{')
            .next()
            .map(str::to_string);
        return Some((value[..end].trim().to_string(), declared));
    }
    None
}

/// When `text` starts with `(`: the call's arguments, split at top-level commas.
fn call_arguments(text: &str) -> Option<Vec<String>> {
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
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                ')' => {
                    let last = body[start..at].trim();
                    if !last.is_empty() {
                        args.push(last.to_string());
                    }
                    return Some(args);
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

/// The code without its `//` and `/* */` comments, line for line (a comment's lines stay, empty).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else if c == q || c == '\n' {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '/' && chars.peek() == Some(&'/') => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            None if c == '/' && chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && skipped == '/' {
                        break;
                    }
                    last = skipped;
                }
                out.push(' ');
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::profiles::RowSettings;

    fn read_ok(text: &str) -> FromConfig {
        match read(text) {
            Ok(from) => from,
            Err(e) => panic!("{e}"),
        }
    }

    fn created(permits_per_second: f64) -> Fields {
        Fields {
            rate: ExactDouble::new(permits_per_second),
            burst: Some(Span::from_secs(1)),
        }
    }

    // google/guava, guava/src/com/google/common/util/concurrent/RateLimiter.java, the class
    // Javadoc's first example (2 permits per second).
    const JAVADOC_TASKS: &str = "final RateLimiter rateLimiter = RateLimiter.create(2.0); // rate is \"2 permits per second\"
void submitTasks(List<Runnable> tasks, Executor executor) {
  for (Runnable task : tasks) {
    rateLimiter.acquire(); // may wait
    executor.execute(task);
  }
}";

    // The same Javadoc's second example (5000 bytes per second, a permit per byte).
    const JAVADOC_BYTES: &str = "final RateLimiter rateLimiter = RateLimiter.create(5000.0); // rate = 5000 permits per second
void submitPacket(byte[] packet) {
  rateLimiter.acquire(packet.length);
  networkService.send(packet);
}";

    const FIXTURES: [&str; 2] = [JAVADOC_TASKS, JAVADOC_BYTES];

    #[test]
    fn the_javadoc_examples_give_guavas_rate_and_one_second_of_storage() {
        let tasks = read_ok(JAVADOC_TASKS);
        assert_eq!(tasks.row, "guava");
        assert_eq!(tasks.products.guava, created(2.0));
        assert_eq!(tasks.name.as_deref(), Some("rateLimiter"));
        assert_eq!(
            tasks.notes,
            vec!["The code waits with `acquire` (line 4); the row asks `tryAcquire`, and its replies say how long `acquire` would have waited."]
        );
        let p = tasks.products.guava.params(100, Span::from_secs(60));
        assert_eq!((p.permits_per_second, p.max_burst_seconds), (2.0, 1.0));
        assert_eq!(read_ok(JAVADOC_BYTES).products.guava, created(5000.0));
    }

    #[test]
    fn java_numbers_and_arithmetic_are_computed_as_java_computes_them() {
        let cases = [
            ("RateLimiter.create(2)", 2.0),
            ("RateLimiter.create(5000d)", 5000.0),
            ("RateLimiter.create(1.0E7)", 1e7),
            ("RateLimiter.create(0.25f)", 0.25),
            ("RateLimiter.create(1_000 * 2L)", 2000.0),
            // int division: 5 / 2 is 2.
            ("RateLimiter.create(5 / 2)", 2.0),
            ("RateLimiter.create(5.0 / 2)", 2.5),
            ("RateLimiter.create((double) 5 / 4)", 1.25),
            // 0.1f is the float 0.100000001490116..., widened to a double as Java does.
            ("RateLimiter.create(0.1f)", f64::from(0.1f32)),
            ("RateLimiter.create(1.0 / 3)", 1.0 / 3.0),
        ];
        for (text, want) in cases {
            assert_eq!(read_ok(text).products.guava, created(want), "{text}");
        }
    }

    #[test]
    fn names_bound_to_the_rate_are_followed_with_their_declared_type() {
        let text = "private static final double PERMITS = 100;
private final RateLimiter limiter;
Api() { this.limiter = RateLimiter.create(PERMITS / 8); }";
        let from = read_ok(text);
        assert_eq!(from.products.guava, created(12.5));
        assert_eq!(from.name.as_deref(), Some("limiter"));
    }

    #[test]
    fn a_warm_up_limiter_is_refused_as_the_lab_does_not_run_it() {
        for text in [
            "RateLimiter r = RateLimiter.create(permitsPerSecond, warmupPeriod, TimeUnit.SECONDS);",
            "RateLimiter r = RateLimiter.create(5.0, Duration.ofSeconds(3));",
        ] {
            let e = read(text).unwrap_err();
            assert_eq!(e.line, 1);
            assert!(
                e.why
                    .contains("SmoothWarmingUp limiter, which the lab does not run"),
                "{e}"
            );
        }
    }

    #[test]
    fn what_guava_or_the_reader_refuses_is_refused_naming_its_line() {
        let e = read("\nRateLimiter r = RateLimiter.create(0);").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.why
                .contains("Guava refuses a rate of 0.0: \"rate must be positive\""),
            "{e}"
        );
        let e = read("RateLimiter r = RateLimiter.create(-2.5);").unwrap_err();
        assert!(e.why.contains("rate of -2.5"), "{e}");
        let e = read("RateLimiter r = RateLimiter.create(Double.POSITIVE_INFINITY);").unwrap_err();
        assert!(e.why.contains("an infinite rate"), "{e}");
        let e = read("RateLimiter r = RateLimiter.create(config.qps());").unwrap_err();
        assert!(e.why.contains("is not a rate the lab can read"), "{e}");
        let e = read("RateLimiter r = RateLimiter.create(qps);").unwrap_err();
        assert!(e.why.contains("`qps` is not bound to a value"), "{e}");
        let e = read("RateLimiter r = RateLimiter.create(1 / 0);").unwrap_err();
        assert!(e.why.contains("divides an integer by zero"), "{e}");
        let e = read("RateLimiter r = RateLimiter.create();").unwrap_err();
        assert!(
            e.why
                .contains("takes the permits per second, not 0 arguments"),
            "{e}"
        );
        let e = read("class A {}").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.why.starts_with("no Guava rate limiter in it"), "{e}");
    }

    #[test]
    fn another_limiter_and_a_later_set_rate_are_noted() {
        let text = "RateLimiter api = RateLimiter.create(10.0);
RateLimiter login = RateLimiter.create(1.0);
api.setRate(20.0);";
        let from = read_ok(text);
        assert_eq!(from.products.guava, created(10.0));
        assert_eq!(
            from.notes,
            vec![
                "Another RateLimiter is created on line 2 (`login`); only the first, on line 1, sets the row.",
                "`setRate` on line 3 changes the rate later; the row runs the limiter as it was created.",
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
            "limiter := rate.NewLimiter(rate.Every(100*time.Millisecond), 5)",
            "const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })",
            "from limits import parse; parse(\"10/minute\")",
            "options.AddFixedWindowLimiter(\"fixed\", o => { o.PermitLimit = 4; o.Window = TimeSpan.FromSeconds(12); });",
            "var limiter = PartitionedRateLimiter.Create<HttpContext, string>(ctx => RateLimitPartition.GetFixedWindowLimiter(\"k\", _ => new()));",
        ];
        for text in others {
            assert!(!recognises(text), "{text}");
        }
        assert!(recognises(JAVADOC_TASKS));
        assert!(!recognises("/* RateLimiter.create(2.0) */"));
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
        fn no_text_makes_the_reader_panic(text in "(RateLimiter\\.create|double |=|/\\*|\\*/|//|[(){};.,*/+eEfL0-9a-z \"\n-])*") {
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
            Some(1),
            Some(333_333),
            Some(2_000_000),
            Some(1_000_000_000_000_000),
        ] {
            for burst in [
                None,
                Some(Span::from_secs(1)),
                Some(Span(1)),
                Some(Span::from_secs(60)),
            ] {
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
                        guava: set.clone(),
                        ..ProductSettings::default()
                    };
                    let s = RowSettings {
                        limit,
                        window,
                        products: &products,
                    };
                    let written = super::super::snippet::write(&s);
                    let runs = written.nearest.as_ref().map_or(&products, |n| &n.products);
                    let want = runs.guava.params(limit, window);
                    let from =
                        read(&written.text).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
                    assert_eq!(from.row, "guava");
                    let got = from.products.guava.params(3, Span::from_secs(9));
                    assert_eq!(
                        got.permits_per_second.to_bits(),
                        want.permits_per_second.to_bits()
                    );
                    assert_eq!(
                        got.max_burst_seconds.to_bits(),
                        want.max_burst_seconds.to_bits()
                    );
                    read_back += 1;
                }
            }
        }
        assert_eq!(read_back, 6 * 5 * 21);
    }
}
