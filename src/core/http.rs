//! The HTTP response a decision turns into, as pure functions.
//!
//! A rejection is `429 Too Many Requests` (RFC 6585) with `Retry-After` in whole seconds, rounded
//! up and at least 1 (RFC 9110 allows seconds or a date; seconds are what clients parse), and
//! `Cache-Control: no-store` so no cache replays it. Every response carries the IETF draft
//! fields `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
//! `RateLimit: "<name>";r=<remaining>;t=<seconds>`, where `t` is the wait before retrying for a
//! rejection and the time until the quota is whole again otherwise, and the
//! `x-ratelimit-limit` / `x-ratelimit-remaining` pair the Durable Object seed's middleware sends.
//!
//! This is the textbook algorithms' answer. A product row answers as the product does
//! (`profiles::response`), and the Durable Object row as the seed's Worker does
//! (`durable::report`).

use super::decision::{Decision, Verdict};
use super::time::{format_seconds, Span};

/// The policy a response advertises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The `"<name>"` of the draft fields.
    pub name: String,
    /// Requests allowed per window (`q`).
    pub quota: u64,
    /// The window (`w`, written in seconds).
    pub window: Span,
}

impl Policy {
    pub fn new(name: impl Into<String>, quota: u64, window: Span) -> Policy {
        Policy {
            name: name.into(),
            quota,
            window,
        }
    }
}

/// A status line and headers, in the order they are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub reason: &'static str,
    pub headers: Vec<(String, String)>,
}

impl HttpResponse {
    /// The value of a header, compared without regard to case as HTTP does.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The response as text, one header a line.
    pub fn to_text(&self) -> String {
        let mut out = format!("HTTP/1.1 {} {}\n", self.status, self.reason);
        for (name, value) in &self.headers {
            out.push_str(&format!("{name}: {value}\n"));
        }
        out
    }
}

/// `Retry-After` in whole seconds: rounded up, and never 0 (a 0 invites an instant retry).
pub fn retry_after_seconds(wait: Span) -> u64 {
    wait.ceil_secs().max(1)
}

/// `RateLimit-Policy: "<name>";q=<quota>;w=<window seconds>`.
pub fn ratelimit_policy_field(policy: &Policy) -> String {
    format!(
        "\"{}\";q={};w={}",
        policy.name,
        policy.quota,
        format_seconds(policy.window.micros())
    )
}

/// `RateLimit: "<name>";r=<remaining>;t=<seconds>`.
pub fn ratelimit_field(policy: &Policy, remaining: u64, seconds: u64) -> String {
    format!("\"{}\";r={};t={}", policy.name, remaining, seconds)
}

/// The response a client receives for `decision` under `policy`.
pub fn respond(policy: &Policy, decision: &Decision) -> HttpResponse {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut push = |name: &str, value: String| headers.push((name.to_string(), value));
    match decision.verdict {
        Verdict::Rejected => {
            let t = match decision.retry_after {
                Some(wait) => {
                    let secs = retry_after_seconds(wait);
                    push("Retry-After", secs.to_string());
                    secs
                }
                // No wait helps (the request costs more than the limit): no Retry-After.
                None => decision.reset_after.ceil_secs(),
            };
            push("Cache-Control", "no-store".to_string());
            push("RateLimit-Policy", ratelimit_policy_field(policy));
            push("RateLimit", ratelimit_field(policy, decision.remaining, t));
            push("x-ratelimit-limit", policy.quota.to_string());
            push("x-ratelimit-remaining", decision.remaining.to_string());
            HttpResponse {
                status: 429,
                reason: "Too Many Requests",
                headers,
            }
        }
        Verdict::Allowed | Verdict::Delayed { .. } => {
            push("RateLimit-Policy", ratelimit_policy_field(policy));
            push(
                "RateLimit",
                ratelimit_field(policy, decision.remaining, decision.reset_after.ceil_secs()),
            );
            push("x-ratelimit-limit", policy.quota.to_string());
            push("x-ratelimit-remaining", decision.remaining.to_string());
            HttpResponse {
                status: 200,
                reason: "OK",
                headers,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denial(retry_ms: u64) -> Decision {
        Decision {
            verdict: Verdict::Rejected,
            limit: 5,
            remaining: 0,
            reset_after: Span::from_millis(retry_ms),
            retry_after: Some(Span::from_millis(retry_ms)),
        }
    }

    #[test]
    fn the_explainer_worked_example_comes_out_exactly_as_printed() {
        // limit 5, window 10 s, retry after 6.2 s.
        let response = respond(
            &Policy::new("default", 5, Span::from_secs(10)),
            &denial(6_200),
        );
        assert_eq!(response.status, 429);
        assert_eq!(response.header("retry-after"), Some("7"));
        assert_eq!(
            response.header("ratelimit-policy"),
            Some("\"default\";q=5;w=10")
        );
        assert_eq!(response.header("ratelimit"), Some("\"default\";r=0;t=7"));
        assert_eq!(response.header("cache-control"), Some("no-store"));
    }

    #[test]
    fn retry_after_is_at_least_one_second_and_rounds_up() {
        assert_eq!(retry_after_seconds(Span(1)), 1);
        assert_eq!(retry_after_seconds(Span::ZERO), 1);
        assert_eq!(retry_after_seconds(Span::from_millis(1_001)), 2);
        assert_eq!(retry_after_seconds(Span::from_secs(3)), 3);
    }

    #[test]
    fn an_allowed_response_is_200_with_what_remains_and_no_retry_after() {
        let allowed = Decision {
            verdict: Verdict::Allowed,
            limit: 100,
            remaining: 42,
            reset_after: Span::from_millis(59_001),
            retry_after: None,
        };
        let response = respond(&Policy::new("api", 100, Span::from_secs(60)), &allowed);
        assert_eq!(response.status, 200);
        assert_eq!(response.header("Retry-After"), None);
        assert_eq!(response.header("RateLimit"), Some("\"api\";r=42;t=60"));
        assert_eq!(response.header("x-ratelimit-limit"), Some("100"));
        assert_eq!(response.header("x-ratelimit-remaining"), Some("42"));
    }

    #[test]
    fn a_fractional_window_is_written_in_decimal_seconds() {
        let policy = Policy::new("default", 3, Span::from_millis(2_500));
        assert_eq!(ratelimit_policy_field(&policy), "\"default\";q=3;w=2.5");
    }
}
