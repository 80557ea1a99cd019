//! How the link's values are read: flags, choices, whole numbers, milliseconds, periods and
//! regions. Each refusal says what the field accepts and what is used instead, so a field's row
//! in the table reads as one line.

use crate::core::lab_state::MAX_LAB_LIMIT;
use crate::core::region::Region;
use crate::core::time::{format_seconds, parse_seconds, Span};

/// A `1`/`0` field; `hint` is the refusal.
pub fn flag(raw: &str, hint: &str) -> Result<bool, String> {
    match raw.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(hint.to_string()),
    }
}

/// A field that names one of `options`; `hint` is the refusal.
pub fn choice<T: Copy>(raw: &str, options: &[(&str, T)], hint: &str) -> Result<T, String> {
    let given = raw.trim();
    options
        .iter()
        .find(|(name, _)| *name == given)
        .map(|(_, value)| *value)
        .ok_or_else(|| hint.to_string())
}

/// The name `value` has among `options` (the inverse of [`choice`]).
pub fn name_of<T: Copy + PartialEq>(options: &[(&'static str, T)], value: T) -> &'static str {
    options
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("", |(name, _)| name)
}

/// A whole number from `min` to the lab's largest limit.
pub fn count(raw: &str, min: u64) -> Result<u64, String> {
    match raw.trim().parse::<u64>() {
        Ok(n) if (min..=MAX_LAB_LIMIT).contains(&n) => Ok(n),
        _ => Err(format!(
            "a whole number from {min} to {MAX_LAB_LIMIT}; using the default."
        )),
    }
}

/// Milliseconds with up to three decimals (`120`, `0.25`) within `range` microseconds.
pub fn millis(raw: &str, range: std::ops::RangeInclusive<u64>, hint: &str) -> Result<Span, String> {
    // The number × 10^6, exact while it has at most three decimals.
    let scaled = parse_seconds(raw).map_err(|_| hint.to_string())?;
    let micros = scaled / 1000;
    if scaled % 1000 == 0 && range.contains(&micros) {
        Ok(Span(micros))
    } else {
        Err(hint.to_string())
    }
}

/// A span written in milliseconds, as [`millis`] reads it.
pub fn millis_text(span: Span) -> String {
    format_seconds(span.micros() * 1000)
}

/// A span written in seconds.
pub fn seconds_text(span: Span) -> String {
    format_seconds(span.micros())
}

/// What a field that takes a region accepts.
pub const NOT_A_REGION: &str = "not a known region (fra, iad, gru, sin, syd, nrt).";

/// A region code.
pub fn region(raw: &str) -> Result<Region, String> {
    Region::from_code(raw.trim()).ok_or_else(|| NOT_A_REGION.to_string())
}

/// `start-end` in seconds, start before end; `example` is the field as it should be written.
pub fn period(raw: &str, example: &str) -> Result<(Span, Span), String> {
    let parsed = raw
        .split_once('-')
        .and_then(|(a, b)| Some((parse_seconds(a).ok()?, parse_seconds(b).ok()?)));
    match parsed {
        Some((start, end)) if start < end => Ok((Span(start), Span(end))),
        _ => Err(format!(
            "write it as start-end in seconds, e.g. {example}; none scheduled."
        )),
    }
}

/// A period as [`period`] reads it.
pub fn period_text((start, end): (Span, Span)) -> String {
    format!("{}-{}", seconds_text(start), seconds_text(end))
}
