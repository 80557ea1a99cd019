//! Integer time for every decision in the core.
//!
//! The core never reads a clock: callers pass the time of each request in. Time is a count of
//! microseconds since the start of a trace, so a trace written in milliseconds (or in seconds
//! with up to six decimals) is represented exactly, and no decision depends on floating-point
//! rounding. Seconds typed by a person are parsed as decimal text, never through `f64`.

use super::quote::quoted;
use std::fmt;

/// Microseconds in one second.
pub const MICROS_PER_SEC: u64 = 1_000_000;
/// Microseconds in one millisecond.
pub const MICROS_PER_MILLI: u64 = 1_000;

/// A point in time: microseconds since the start of the trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A length of time in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);

    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(MICROS_PER_MILLI))
    }

    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(MICROS_PER_SEC))
    }

    pub const fn micros(self) -> u64 {
        self.0
    }

    /// The time elapsed since `earlier`, or zero when `earlier` is later (out-of-order input).
    pub const fn since(self, earlier: Time) -> Span {
        Span(self.0.saturating_sub(earlier.0))
    }

    pub const fn plus(self, span: Span) -> Time {
        Time(self.0.saturating_add(span.0))
    }

    /// Seconds as a float, for display only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SEC as f64
    }
}

impl Span {
    pub const ZERO: Span = Span(0);

    pub const fn from_millis(ms: u64) -> Span {
        Span(ms.saturating_mul(MICROS_PER_MILLI))
    }

    pub const fn from_secs(s: u64) -> Span {
        Span(s.saturating_mul(MICROS_PER_SEC))
    }

    pub const fn micros(self) -> u64 {
        self.0
    }

    /// Whole seconds, rounded up: what `Retry-After` and the `RateLimit` header carry.
    pub const fn ceil_secs(self) -> u64 {
        self.0.div_ceil(MICROS_PER_SEC)
    }

    /// Whole milliseconds, rounded up.
    pub const fn ceil_millis(self) -> u64 {
        self.0.div_ceil(MICROS_PER_MILLI)
    }

    /// Seconds as a float, for display only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SEC as f64
    }
}

/// Writes microseconds as seconds with no trailing zeros: 10 s is "10", 6.2 s is "6.2".
pub fn format_seconds(micros: u64) -> String {
    let whole = micros / MICROS_PER_SEC;
    let frac = micros % MICROS_PER_SEC;
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Writes microseconds as milliseconds with no trailing zeros: 3,333,334 µs is "3333.334".
pub fn format_millis(micros: u64) -> String {
    let (whole, frac) = (micros / 1_000, micros % 1_000);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", format_seconds(self.0))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", format_seconds(self.0))
    }
}

/// Why a piece of text is not a usable number of seconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecondsError {
    Empty,
    NotANumber(String),
    Negative(String),
    TooPrecise(String),
    TooLarge(String),
}

impl fmt::Display for SecondsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecondsError::Empty => write!(f, "no number was given"),
            SecondsError::NotANumber(s) => write!(f, "{} is not a number of seconds", quoted(s)),
            SecondsError::Negative(s) => write!(f, "{} is negative; times start at 0", quoted(s)),
            SecondsError::TooPrecise(s) => {
                write!(
                    f,
                    "{} has more than 6 decimals (1 µs is the finest step)",
                    quoted(s)
                )
            }
            SecondsError::TooLarge(s) => {
                write!(f, "{} is too large (more than 10^12 seconds)", quoted(s))
            }
        }
    }
}

/// The largest number of seconds accepted anywhere (about 31,700 years).
const MAX_WHOLE_SECONDS: u64 = 1_000_000_000_000;

/// Parses decimal seconds ("10", "9.592", ".5", "1e3" is refused) into microseconds, exactly.
pub fn parse_seconds(text: &str) -> Result<u64, SecondsError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(SecondsError::Empty);
    }
    // One optional sign, never more: "--1" and "+-1" are not numbers.
    let (negative, unsigned) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    match parse_unsigned_seconds(unsigned, s) {
        // "-0" and "-0.000" are zero, not negative.
        Ok(0) => Ok(0),
        Ok(_) if negative => Err(SecondsError::Negative(s.to_string())),
        other => other,
    }
}

/// Parses digits with an optional fraction; `original` is quoted in errors.
fn parse_unsigned_seconds(unsigned: &str, original: &str) -> Result<u64, SecondsError> {
    let s = original;
    let (whole, frac) = match unsigned.split_once('.') {
        Some((w, f)) => (w, f),
        None => (unsigned, ""),
    };
    if (whole.is_empty() && frac.is_empty())
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(SecondsError::NotANumber(s.to_string()));
    }
    let frac_trimmed = frac.trim_end_matches('0');
    if frac_trimmed.len() > 6 {
        return Err(SecondsError::TooPrecise(s.to_string()));
    }
    let whole_value: u64 = if whole.is_empty() {
        0
    } else {
        let digits = whole.trim_start_matches('0');
        if digits.len() > 13 {
            return Err(SecondsError::TooLarge(s.to_string()));
        }
        digits.parse::<u64>().unwrap_or(0)
    };
    if whole_value > MAX_WHOLE_SECONDS {
        return Err(SecondsError::TooLarge(s.to_string()));
    }
    let mut frac_value: u64 = 0;
    for i in 0..6 {
        let digit = frac_trimmed
            .as_bytes()
            .get(i)
            .map(|b| u64::from(b - b'0'))
            .unwrap_or(0);
        frac_value = frac_value * 10 + digit;
    }
    Ok(whole_value * MICROS_PER_SEC + frac_value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_seconds_parse_exactly_to_microseconds() {
        assert_eq!(parse_seconds("10"), Ok(10_000_000));
        assert_eq!(parse_seconds("9.592"), Ok(9_592_000));
        assert_eq!(parse_seconds(".5"), Ok(500_000));
        assert_eq!(parse_seconds("0.000001"), Ok(1));
        assert_eq!(parse_seconds("1.2500000"), Ok(1_250_000));
        assert_eq!(parse_seconds(" 3 "), Ok(3_000_000));
        assert_eq!(parse_seconds("-0"), Ok(0));
    }

    #[test]
    fn text_that_is_not_plain_decimal_seconds_is_refused_with_a_reason() {
        assert!(matches!(
            parse_seconds("abc"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("1e3"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("NaN"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("."),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("1.2.3"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("-1"),
            Err(SecondsError::Negative(_))
        ));
        assert!(matches!(
            parse_seconds("--0"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("+-1"),
            Err(SecondsError::NotANumber(_))
        ));
        assert!(matches!(
            parse_seconds("-"),
            Err(SecondsError::NotANumber(_))
        ));
        let many_dashes = format!("{}1", "-".repeat(200_000));
        assert!(
            matches!(
                parse_seconds(&many_dashes),
                Err(SecondsError::NotANumber(_))
            ),
            "no recursion, no stack overflow"
        );
        assert!(matches!(
            parse_seconds("0.0000001"),
            Err(SecondsError::TooPrecise(_))
        ));
        assert!(matches!(
            parse_seconds("99999999999999999999"),
            Err(SecondsError::TooLarge(_))
        ));
        assert_eq!(parse_seconds(""), Err(SecondsError::Empty));
    }

    #[test]
    fn seconds_are_written_without_trailing_zeros() {
        assert_eq!(format_seconds(10_000_000), "10");
        assert_eq!(format_seconds(6_200_000), "6.2");
        assert_eq!(format_seconds(1), "0.000001");
    }

    #[test]
    fn retry_after_rounds_partial_seconds_up() {
        assert_eq!(Span(6_200_000).ceil_secs(), 7);
        assert_eq!(Span(7_000_000).ceil_secs(), 7);
        assert_eq!(Span(1).ceil_secs(), 1);
    }

    #[test]
    fn time_never_runs_backwards_into_a_panic() {
        assert_eq!(Time(5).since(Time(9)), Span::ZERO);
        assert_eq!(Time(u64::MAX).plus(Span(10)), Time(u64::MAX));
    }

    #[test]
    fn milliseconds_are_written_exactly_with_no_trailing_zeros() {
        assert_eq!(format_millis(3_333_334), "3333.334");
        assert_eq!(format_millis(48_000_000), "48000");
        assert_eq!(format_millis(1_500), "1.5");
        assert_eq!(format_millis(0), "0");
    }
}
