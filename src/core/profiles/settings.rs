//! The readers and writers the products' URL fields share: a whole number in a range, a time in
//! seconds, on or off, and the refusal's ending that names the fallback. Each product's fields
//! (`nginx-rate=10r/s`, `cell-burst=4`, ...) are rows in its own module (`<product>/fields.rs`),
//! which its family names (`profiles::Family::fields`); `core::limiter::rows` joins them into the
//! one table the URL layer iterates and the README documents. The limits come from
//! `core::config` and the grammar of seconds from `core::time`.
//!
//! A Durable Object split into shards divides the lab's limit; a product field set in the URL is
//! taken as written for every shard.

use std::fmt;

use crate::core::config::{MAX_COUNT, MAX_WINDOW};
use crate::core::time::{format_seconds, parse_seconds, Span};

/// What a refused field falls back to: the product's own default for the lab's limit and window.
pub(crate) const USING_DEFAULT: &str = "; using the default.";

/// A whole number from `min` to `MAX_COUNT`.
pub(crate) fn count(raw: &str, min: u64) -> Result<u64, String> {
    match raw.trim().parse::<u64>() {
        Ok(n) if (min..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(format!(
            "a whole number from {min} to {MAX_COUNT}{USING_DEFAULT}"
        )),
    }
}

/// A time in seconds, at most a year, and above 0 unless `allow_zero`.
pub(crate) fn seconds(raw: &str, allow_zero: bool) -> Result<Span, String> {
    match parse_seconds(raw) {
        Ok(micros) if micros <= MAX_WINDOW.micros() && (allow_zero || micros > 0) => {
            Ok(Span(micros))
        }
        _ => Err(format!(
            "a time in seconds{}, at most a year{USING_DEFAULT}",
            if allow_zero { "" } else { " above 0" }
        )),
    }
}

/// `on`, `1`, `off` or `0`.
pub(crate) fn on_off(raw: &str) -> Result<bool, String> {
    match raw.trim() {
        "on" | "1" => Ok(true),
        "off" | "0" => Ok(false),
        _ => Err(format!("on or off{USING_DEFAULT}")),
    }
}

pub(crate) fn on_off_text(value: Option<bool>) -> Option<String> {
    value.map(|on| if on { "on" } else { "off" }.to_string())
}

/// Stores a value read, or passes its refusal on.
pub(crate) fn set<V>(slot: &mut Option<V>, value: Result<V, String>) -> Result<(), String> {
    *slot = Some(value?);
    Ok(())
}

pub(crate) fn whole_text(value: Option<u64>) -> Option<String> {
    value.map(|n| n.to_string())
}

pub(crate) fn seconds_text(value: Option<Span>) -> Option<String> {
    value.map(|span| format_seconds(span.micros()))
}

/// A double a product computes with (Go's `rate.Limit`, Guava's permits per second), kept as the
/// decimal it was written as: the product reads it as one correctly rounded parse (Go's and
/// Java's parsers are), and a double read from a config is written as the shortest decimal that
/// parses back to it, so `0.6666666666666666` is exactly the rate `rate.Limit(2.0 / 3)` runs
/// with. Kept as text so that a program that only reads and writes links (the page's first
/// module) carries no float parser or printer: only the products' own code parses it. The text
/// lives inline, so the settings stay plain values that copy without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactDouble {
    len: u8,
    text: [u8; DOUBLE_CHARS],
}

/// The longest decimal a double field keeps: a double's 17 significant digits with room for a
/// whole part or leading zeros (down to about 10^-13).
const DOUBLE_CHARS: usize = 32;

/// The most digits a double field's whole part may have: below a million billion a second,
/// beyond any product's use.
const MAX_WHOLE_DIGITS: usize = 15;

impl ExactDouble {
    /// `value` kept exactly, when it is a finite number from 0 and below 10^15 whose decimal fits.
    pub fn new(value: f64) -> Option<ExactDouble> {
        // `+ 0.0` makes -0.0 the 0.0 every parser reads "0" as. Rust writes a double as the
        // shortest decimal that parses back to it, without an exponent.
        let text = format!("{}", value + 0.0);
        (value.is_finite() && value >= 0.0)
            .then(|| ExactDouble::read(&text))
            .flatten()
    }

    /// The decimal `text` (digits, at most one `.`; a whole part of at most 15 digits).
    fn read(text: &str) -> Option<ExactDouble> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        let fine = !(whole.is_empty() && fraction.is_empty())
            && digits(whole)
            && digits(fraction)
            && whole.trim_start_matches('0').len() <= MAX_WHOLE_DIGITS
            && text.len() <= DOUBLE_CHARS;
        fine.then(|| {
            let mut kept = [0; DOUBLE_CHARS];
            kept[..text.len()].copy_from_slice(text.as_bytes());
            ExactDouble {
                len: text.len() as u8,
                text: kept,
            }
        })
    }

    /// Its digits and point, ASCII.
    fn bytes(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }

    /// Whether it is 0.
    fn is_zero(&self) -> bool {
        self.bytes().iter().all(|b| *b == b'0' || *b == b'.')
    }

    /// The double it parses to.
    pub fn value(&self) -> f64 {
        std::str::from_utf8(self.bytes())
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0.0)
    }
}

impl fmt::Display for ExactDouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written a byte at a time: the link's writer then needs no check that they are UTF-8.
        self.bytes()
            .iter()
            .try_for_each(|b| fmt::Write::write_char(f, char::from(*b)))
    }
}

/// A number (decimals allowed, read as the double it parses to), above 0 unless `allow_zero`.
pub(crate) fn double(raw: &str, allow_zero: bool) -> Result<ExactDouble, String> {
    ExactDouble::read(raw.trim())
        .filter(|d| allow_zero || !d.is_zero())
        .ok_or_else(|| {
            match allow_zero {
                true => "a number below 10^15, decimals allowed; using the default.",
                false => "a number above 0 and below 10^15, decimals allowed; using the default.",
            }
            .to_string()
        })
}

/// Nanoseconds in a second.
const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A time in seconds to the nanosecond (up to nine decimals), above 0 and at most a year: the
/// interval of a product that counts time in nanoseconds (governor).
pub(crate) fn nanos(raw: &str) -> Result<u64, String> {
    let refused =
        || format!("a time in seconds above 0, at most a year, to the nanosecond{USING_DEFAULT}");
    let raw = raw.trim();
    let (whole, fraction) = raw.split_once('.').unwrap_or((raw, ""));
    let digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || !digits(whole)
        || !digits(fraction)
        || fraction.len() > 9
    {
        return Err(refused());
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| refused())?
    };
    let fraction: u64 = format!("{fraction:0<9}").parse().map_err(|_| refused())?;
    let ns = whole
        .checked_mul(NANOS_PER_SEC)
        .and_then(|n| n.checked_add(fraction))
        .ok_or_else(refused)?;
    let most = MAX_WINDOW.micros().saturating_mul(1_000);
    (1..=most).contains(&ns).then_some(ns).ok_or_else(refused)
}

/// Nanoseconds written as seconds, with no more decimals than they need (`0.333333333`, `2`).
pub(crate) fn nanos_text(ns: u64) -> String {
    let whole = ns / NANOS_PER_SEC;
    let fraction = ns % NANOS_PER_SEC;
    if fraction == 0 {
        return whole.to_string();
    }
    let decimals = format!("{fraction:09}");
    format!("{whole}.{}", decimals.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_is_written_as_the_shortest_decimal_that_reads_back_to_it() {
        for value in [2.0 / 3.0, 0.1, 10.0, 1e-7, 7.0 / 60.0, 123_456.789] {
            let d = ExactDouble::new(value).unwrap();
            assert_eq!(double(&d.to_string(), false), Ok(d), "{value}");
        }
        assert_eq!(
            ExactDouble::new(2.0 / 3.0).unwrap().to_string(),
            "0.6666666666666666"
        );
        assert_eq!(double("1.5", false).unwrap().value(), 1.5);
        assert!(double("0", false).is_err());
        assert!(double("-1", true).is_err());
        assert_eq!(
            ExactDouble::new(-0.0).map(|d| d.to_string()).as_deref(),
            Some("0")
        );
        assert!(double("NaN", true).is_err());
        assert!(double("inf", true).is_err());
        assert!(double("1e3", true).is_err(), "a link writes no exponent");
        assert!(ExactDouble::new(1e15).is_none());
        assert!(ExactDouble::new(-1.0).is_none());
    }

    #[test]
    fn nanoseconds_are_read_and_written_as_seconds_with_up_to_nine_decimals() {
        assert_eq!(nanos("0.333333333"), Ok(333_333_333));
        assert_eq!(nanos("2"), Ok(2_000_000_000));
        assert_eq!(nanos(".5"), Ok(500_000_000));
        assert_eq!(nanos_text(333_333_333), "0.333333333");
        assert_eq!(nanos_text(2_000_000_000), "2");
        assert_eq!(nanos_text(1_500_000_000), "1.5");
        for bad in ["0", "0.0000000001", "-1", "1e3", "", ".", "abc", "1.2.3"] {
            assert!(nanos(bad).is_err(), "{bad}");
        }
    }
}
