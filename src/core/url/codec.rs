//! The text of a query: `%XX` escapes both ways (`core::percent`), and the `name=value` pairs a
//! query holds. Decoding never fails: a person's address bar can hold anything.
//!
//! Two fields' values are handed on as the link has them, undecoded: `trace=`'s list and
//! `closed-routes=`'s ([`RAW_FIELDS`]), whose names are escaped one by one, so each is split on
//! its commas (and `trace=` on its `@`s) first and each name decoded after (`super::trace_list`,
//! `super::durable_fields`). Decoded first, a key or route holding a comma (`acme%2C%20inc`) would
//! split the list.

pub use crate::core::percent::{percent_decode, percent_encode};

/// The fields whose value [`query_pairs`] leaves as the link has it, for the field to split and
/// decode.
pub const RAW_FIELDS: [&str; 2] = ["trace", "closed-routes"];

/// Splits a query (with or without its leading `?`) into pairs, in order: names and values
/// decoded, but for the values of [`RAW_FIELDS`].
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('=') {
            Some((k, v)) => {
                let name = percent_decode(k);
                let value = match RAW_FIELDS.contains(&name.as_str()) {
                    true => v.to_string(),
                    false => percent_decode(v),
                };
                (name, value)
            }
            None => (percent_decode(part), String::new()),
        })
        .collect()
}

/// The value of field `name` in `pairs`; the last occurrence of a field wins, as in most servers.
pub fn field_value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}
