//! The readers and writers the products' URL fields share: a whole number in a range, a time in
//! seconds, on or off, and the refusal's ending that names the fallback. Each product's fields
//! (`nginx-rate=10r/s`, `cell-burst=4`, ...) are rows in its own module (`<product>/fields.rs`),
//! which its family names (`profiles::Family::fields`); `core::limiter::rows` joins them into the
//! one table the URL layer iterates and the README documents. The limits come from
//! `core::config` and the grammar of seconds from `core::time`.
//!
//! A Durable Object split into shards divides the lab's limit; a product field set in the URL is
//! taken as written for every shard.

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
