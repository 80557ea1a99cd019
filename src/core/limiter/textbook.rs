//! The six textbook algorithms as rows of the lab, one descriptor each ([`TextbookRow`]): the
//! names, the construction from the lab's `Settings` (the algorithms themselves are in
//! `core::algorithms`, each naming its sources), the common HTTP answer (`core::http::respond`)
//! and what its `Retry-After` tells a client, the explanation beside the row, and the notes only
//! these rows have (counting refused requests, a fixed window started at a key's first request).
//! They are listed in `super::rows` with the products. Also here: what a product row answers in
//! a program that does not link the products (`super::Parts`), where none runs.

use super::{LeakDelay, Settings};
use crate::core::algorithms::fixed_window::Alignment;
use crate::core::algorithms::{
    FixedWindow, Gcra, LeakyBucket, LeakyBucketConfig, SlidingCounter, SlidingLog, TokenBucket,
};
use crate::core::config::ConfigError;
use crate::core::decision::Decision;
use crate::core::http::{respond, retry_after_seconds, HttpResponse, Policy};
use crate::core::profiles::Hint;
use crate::core::profiles::ProductReply;
use crate::core::profiles::{explanation, Explanation, SnippetOf, Told};
use crate::core::time::Time;
use crate::core::time::{format_seconds, Span};

/// One textbook algorithm's row; `L` is its limiter's state.
pub struct TextbookRow<L> {
    /// The name used in URLs (`algos=`) and in `data-testid="stats-<slug>"`.
    pub slug: &'static str,
    /// The name shown to a person.
    pub label: &'static str,
    /// A fresh limiter for one key, from the lab's settings.
    pub build: fn(&Settings) -> Result<L, ConfigError>,
    /// What the row's client receives: the lab's common derivation.
    pub response: fn(&Settings, &Decision) -> HttpResponse,
    /// What a refusal tells an obeying client, and the same in words.
    pub told: fn(&Decision) -> Told,
    pub tells: &'static str,
    pub explain: fn(&Settings) -> Explanation,
    /// With `count-refused=1`, the sentence of what counting its refusals did (from the
    /// refusals and the passes), for the rows that count them.
    pub counts_refused: Option<fn(u64, u64) -> String>,
    /// Its own last note, when a setting of its own is in force.
    pub own_note: fn(&Settings) -> Option<String>,
    pub snippet: SnippetOf,
    /// Whether the page draws its level strip beside the timeline (`core::lab::gauge_series`).
    pub draws_level: bool,
    /// The row's own parameters, where they say more than the lab's limit and window, for the
    /// row's line beside its timeline.
    pub terms: fn(&Settings) -> Option<String>,
}

/// The statement every textbook row makes instead of a snippet.
const NO_PRODUCT: SnippetOf =
    SnippetOf::None("a textbook algorithm: there is no product to set up, only the lab's own code");

const TELLS: &str = "the Retry-After header, in whole seconds rounded up";

/// The lab's common HTTP answer for `decision` (`core::http::respond`).
fn common_response(s: &Settings, decision: &Decision) -> HttpResponse {
    respond(&Policy::new("default", s.limit, s.window), decision)
}

/// The header [`common_response`] writes, without writing the response: a retry storm asks this
/// for every refusal.
fn retry_after_told(decision: &Decision) -> Told {
    match decision.retry_after {
        Some(wait) => Told::Wait(Span::from_secs(retry_after_seconds(wait))),
        None => Told::Nothing,
    }
}

fn no_note(_: &Settings) -> Option<String> {
    None
}

/// The window counters' note: each refusal stayed in the window like a request let through.
fn refusals_stay(rejected: u64, passed: u64) -> String {
    format!(
        "Refused requests count too: each of its {rejected} refusals stayed in the window like a request let through, so a client that keeps knocking keeps the window full; {passed} got through."
    )
}

fn seconds(s: &Settings) -> String {
    format_seconds(s.window.micros())
}

fn rate(s: &Settings) -> String {
    s.quota()
        .map(|q| s.refill_rate(q).per_second_text())
        .unwrap_or_default()
}

pub const FIXED_WINDOW: TextbookRow<FixedWindow> = TextbookRow {
    slug: "fixed",
    label: "Fixed window",
    build: |s| {
        Ok(FixedWindow::with_options(
            s.quota()?,
            s.fixed_align,
            s.count_refused,
        ))
    },
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        explanation(
        format!("Counts requests in {} s slices of the clock and starts again at zero on every boundary (the dashed lines).", seconds(s)),
        "One counter and the slice it belongs to: about 16 bytes per key.",
        "Cheap and easy to explain; use it where twice the limit across a boundary does no harm.",
    )
    },
    counts_refused: Some(|rejected, _| {
        format!(
            "Refused requests count too: its {rejected} refusals were added to their window's count. A full window refuses every later request of cost 1 either way, so only the count it reports changes (the inspector's remaining), not which requests pass."
        )
    }),
    own_note: |s| {
        (s.fixed_align == Alignment::FirstRequest).then(|| {
            format!(
                "Its {} s windows start at each key's first request, and again at the first request after a window ends, not on the clock's boundaries.",
                seconds(s)
            )
        })
    },
    snippet: NO_PRODUCT,
    draws_level: false,
    terms: |_| None,
};

pub const SLIDING_LOG: TextbookRow<SlidingLog> = TextbookRow {
    slug: "sliding-log",
    label: "Sliding log",
    build: |s| Ok(SlidingLog::with_options(s.quota()?, s.count_refused)),
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        Explanation {
        what: format!("Remembers when each allowed request happened and counts those of the last {} s, counted back from now.", seconds(s)),
        memory: format!("One timestamp per allowed request in the window: up to {} × 8 = {} bytes per key.", s.limit, s.limit * 8),
        when: "Exact: for logins, payments and small limits where the promise must hold.".into(),
    }
    },
    counts_refused: Some(refusals_stay),
    own_note: no_note,
    snippet: NO_PRODUCT,
    draws_level: true,
    terms: |_| None,
};

pub const SLIDING_COUNTER: TextbookRow<SlidingCounter> = TextbookRow {
    slug: "sliding-counter",
    label: "Sliding-window counter",
    build: |s| Ok(SlidingCounter::with_options(s.quota()?, s.count_refused)),
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        Explanation {
        what: format!("Estimates the last {} s from two clock-aligned counts, weighting the previous one by how much of it is still in the window.", seconds(s)),
        memory: "Two counts and the current slice: about 24 bytes per key, whatever the limit.".into(),
        when: format!("Large limits where a few percent of error is fine; in the worst case {} can pass in one window.", 2 * s.limit - 1),
    }
    },
    counts_refused: Some(refusals_stay),
    own_note: no_note,
    snippet: NO_PRODUCT,
    draws_level: false,
    terms: |_| None,
};

pub const TOKEN_BUCKET: TextbookRow<TokenBucket> = TextbookRow {
    slug: "token-bucket",
    label: "Token bucket",
    build: |s| {
        let quota = s.quota()?;
        TokenBucket::new(s.bucket_capacity(), s.refill_rate(quota))
    },
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        explanation(
        format!(
            "Holds up to {} tokens, gains {} a second, and spends one per request: quiet clients start with a full bucket.",
            s.bucket_capacity(),
            rate(s)
        ),
        "The tokens and the time of the last refill: about 16 bytes per key.",
        "APIs that allow short bursts but hold an average rate.",
    )
    },
    counts_refused: None,
    own_note: no_note,
    snippet: NO_PRODUCT,
    draws_level: true,
    terms: |_| None,
};

pub const GCRA: TextbookRow<Gcra> = TextbookRow {
    slug: "gcra",
    label: "GCRA",
    build: |s| {
        let quota = s.quota()?;
        Gcra::new(s.refill_rate(quota), s.gcra_burst())
    },
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        explanation(
        format!(
            "Keeps one time per key, when the next request is due if traffic ran exactly at {} a second, and allows a burst of {}. It decides exactly like the token bucket.",
            rate(s),
            s.gcra_burst()
        ),
        "A single timestamp: 8 bytes per key.",
        "The token bucket's behaviour at the lowest cost; it is what the governor crate and redis-cell use.",
    )
    },
    counts_refused: None,
    own_note: no_note,
    snippet: NO_PRODUCT,
    draws_level: false,
    terms: |_| None,
};

pub const LEAKY_BUCKET: TextbookRow<LeakyBucket> = TextbookRow {
    slug: "leaky-bucket",
    label: "Leaky bucket (nginx)",
    build: |s| {
        let quota = s.quota()?;
        let burst = s.leak_burst();
        let delay = match s.leak_delay {
            LeakDelay::NoDelay => burst,
            LeakDelay::After(n) => n,
        };
        Ok(LeakyBucket::new(LeakyBucketConfig::new(
            quota.rate(),
            burst,
            delay,
        )?))
    },
    response: common_response,
    told: retry_after_told,
    tells: TELLS,
    explain: |s| {
        let delay = match s.leak_delay {
            LeakDelay::NoDelay => "serves everything it accepts at once (nodelay)".to_string(),
            LeakDelay::After(0) => {
                "holds every request beyond the rate back and releases them one by one".to_string()
            }
            LeakDelay::After(d) => {
                format!("serves the first {d} beyond the rate at once and holds the rest back")
            }
        };
        explanation(
            format!(
                "Like nginx's limit_req: lets {} a second through, accepts up to {} more ahead of that, and {delay}. Delayed requests are drawn as a hollow dot joined to their release.",
                rate(s),
                s.leak_burst()
            ),
            "The excess and the time it was measured: about 16 bytes per key.",
            "Smoothing traffic to a backend that wants an even rate, not bursts.",
        )
    },
    counts_refused: None,
    own_note: no_note,
    snippet: NO_PRODUCT,
    draws_level: false,
    terms: |s| {
        // In nginx's words (no `delay=` is delay=0), so that it reads beside the nginx row.
        let burst = s.leak_burst();
        Some(match s.leak_delay {
            LeakDelay::NoDelay => format!("burst={burst} nodelay"),
            LeakDelay::After(0) => format!("burst={burst}"),
            LeakDelay::After(d) => format!("burst={burst} delay={d}"),
        })
    },
};

/// What a product row tells a refused client: its finer hint, or its response's `Retry-After`.
pub(super) fn product_told(
    hint: Hint,
    now: Time,
    decision: &Decision,
    reply: &ProductReply,
    response: impl FnOnce() -> HttpResponse,
) -> Told {
    match hint {
        Hint::Finer(told) => told(now, decision, reply),
        Hint::Header => header_told(&response()),
    }
}

/// The wait a response's `Retry-After` header tells, in whole seconds.
pub(super) fn header_told(response: &HttpResponse) -> Told {
    match response
        .header("Retry-After")
        .and_then(|s| s.trim().parse::<u64>().ok())
    {
        Some(seconds) => Told::Wait(Span::from_secs(seconds)),
        None => Told::Nothing,
    }
}

/// In a program that does not link the products (`super::Parts`) no product row runs, so none
/// answers; the lab's common derivation stands in.
pub(super) fn not_built_response(s: &Settings, decision: &Decision) -> HttpResponse {
    common_response(s, decision)
}

/// Where the products are not linked, a product row has no explanation beyond its outcome.
pub(super) fn not_built_explanation() -> Explanation {
    explanation(String::new(), "", "")
}

/// Where the products are not linked, no snippet is written.
pub(super) const NOT_BUILT_SNIPPET: SnippetOf =
    SnippetOf::None("this build of the lab has no product profiles");
