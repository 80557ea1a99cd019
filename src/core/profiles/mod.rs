//! Exact profiles of the limiters people deploy: each re-derives, in this project's own code, what
//! one product decides and what it answers, from its documentation and public source. A profile
//! keeps the product's own arithmetic and reply, so the lab can show where products differ.
//!
//! Every profile is a [`Limiter`], so it draws a timeline and fills a stats row like the core
//! algorithms, and a [`Product`], so the inspector can show the product's own reply under the
//! HTTP response the product sends (`response`).

use crate::core::decision::{Decision, Limiter};
use crate::core::time::Time;

pub mod cf_binding;
pub mod dotnet;
pub mod envoy;
pub mod express_rate_limit;
pub mod governor;
pub mod guava;
pub mod nginx;
pub mod python_limits;
pub mod redis_cell;
pub mod response;
pub mod settings;
pub mod upstash;
pub mod x_time_rate;

/// A product's own answer to one call, spelled as the product spells it: field names and values
/// in the order the product returns them (redis-cell's five integers, Upstash's
/// `{success, limit, remaining, reset}`, nginx's status code, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductReply {
    pub fields: Vec<(&'static str, String)>,
}

impl ProductReply {
    /// The value of one field, by name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A product profile: decides like any [`Limiter`] and can also say what the product answered.
pub trait Product: Limiter {
    /// Decides a request of `cost` at `now` exactly as [`Limiter::decide`] does (same state
    /// change, same [`Decision`]) and returns the product's own reply alongside.
    fn decide_with_reply(&mut self, now: Time, cost: u64) -> (Decision, ProductReply);
}
