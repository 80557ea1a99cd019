//! express-rate-limit with its MemoryStore, checked against the library's own tests
//! (express-rate-limit/express-rate-limit 8.6.2: test/library/middleware-test.ts,
//! memory-store-test.ts, headers-test.ts, options-test.ts, validation-test.ts) and against a
//! reference that runs the store as its code does, shared sweep timer included.
//!
//! The library's tests use Jest's fake timers, which stop `Date.now()` between requests, so their
//! requests without `advanceTimersByTime` between them happen in the same millisecond.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::decision::{Decision, Limiter, Verdict};
use ratelab::core::http::HttpResponse;
use ratelab::core::profiles::express_rate_limit::{
    http_response, ExpressRateLimit, ExpressRateLimitParams, ShortText, StandardHeaders,
    MAX_WINDOW_MS,
};
use ratelab::core::profiles::{Product, ProductReply};
use ratelab::core::time::{Span, Time};

/// A `Date.now()` of the kind the tests run at: 1,700,000,000 s after the epoch, in µs.
const T0: u64 = 1_700_000_000_000_000;

fn at_ms(ms: u64) -> Time {
    Time(T0 + ms * 1000)
}

fn limiter(params: ExpressRateLimitParams) -> ExpressRateLimit {
    ExpressRateLimit::new(params).unwrap()
}

/// `rateLimit({ limit, windowMs })` with every other option at the library's default.
fn rate_limit(limit: u64, window_ms: u64) -> ExpressRateLimit {
    limiter(ExpressRateLimitParams {
        limit,
        window_ms,
        ..ExpressRateLimitParams::default()
    })
}

/// One request through the middleware: its response and `req.rateLimit`.
fn get(l: &mut ExpressRateLimit, now: Time) -> (HttpResponse, ProductReply, Decision) {
    let (decision, reply) = l.decide_with_reply(now, 1);
    (http_response(&decision, &reply), reply, decision)
}

fn statuses(l: &mut ExpressRateLimit, now: Time, n: usize) -> Vec<u16> {
    (0..n).map(|_| get(l, now).0.status).collect()
}

fn text(s: &str) -> ShortText {
    ShortText::new(s).unwrap()
}

/// middleware-test.ts "should (eventually) accept new connections from a blocked IP":
/// `{ limit: 2, windowMs: 50 }`: 200, 200, 429, then 200 after `advanceTimersByTime(60)`.
#[test]
fn limit_2_per_50_ms_refuses_the_third_and_accepts_again_60_ms_later() {
    let mut l = rate_limit(2, 50);
    assert_eq!(statuses(&mut l, at_ms(0), 3), [200, 200, 429]);
    assert_eq!(statuses(&mut l, at_ms(60), 1), [200]);
}

/// middleware-test.ts "should work repeatedly": the same, twice over.
#[test]
fn limit_2_per_50_ms_works_repeatedly() {
    let mut l = rate_limit(2, 50);
    assert_eq!(statuses(&mut l, at_ms(0), 3), [200, 200, 429]);
    assert_eq!(statuses(&mut l, at_ms(60), 3), [200, 200, 429]);
    assert_eq!(statuses(&mut l, at_ms(120), 1), [200]);
}

/// middleware-test.ts "should let the first request through" (`limit: 1`) and "should refuse
/// additional connections once IP has reached the max" (`limit: 2`), default window.
#[test]
fn the_first_request_passes_and_the_one_after_the_limit_is_refused() {
    assert_eq!(statuses(&mut rate_limit(1, 60_000), at_ms(0), 1), [200]);
    assert_eq!(
        statuses(&mut rate_limit(2, 60_000), at_ms(0), 3),
        [200, 200, 429]
    );
}

/// middleware-test.ts "should block all requests if max is set to 0" (with the `limit`
/// validation, which warns `WRN_ERL_MAX_ZERO`, turned off): the first request gets 429.
#[test]
fn limit_0_blocks_the_first_request() {
    let mut l = rate_limit(0, 60_000);
    let (response, _, decision) = get(&mut l, at_ms(0));
    assert_eq!(response.status, 429);
    assert_eq!(decision.retry_after, None, "no wait lets a hit through");
}

/// middleware-test.ts "should allow the error status code to be customized": `{ limit: 1,
/// statusCode: 420 }` answers 200, then 420 (a code Node has no text for: "unknown").
#[test]
fn a_custom_status_code_answers_the_refusal() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 1,
        status_code: 420,
        ..ExpressRateLimitParams::default()
    });
    assert_eq!(statuses(&mut l, at_ms(0), 2), [200, 420]);
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(
        response.to_text().lines().next(),
        Some("HTTP/1.1 420 unknown")
    );
}

/// middleware-test.ts "should calculate the remaining hits": `limit: 2`, the first request gets
/// `x-ratelimit-limit: 2` and `x-ratelimit-remaining: 1`.
#[test]
fn the_first_of_two_leaves_one_remaining() {
    let mut l = rate_limit(2, 60_000);
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(response.header("x-ratelimit-limit"), Some("2"));
    assert_eq!(response.header("x-ratelimit-remaining"), Some("1"));
}

/// middleware-test.ts "should pass the number of hits and the limit to the next request handler
/// in the `request.rateLimit` property": `{ legacyHeaders: false, limit: 6 }` gives
/// `{ limit: 6, used: 1, remaining: 5 }` then `{ limit: 6, used: 2, remaining: 4 }`, with a
/// `resetTime` Date.
#[test]
fn request_rate_limit_reports_limit_used_remaining_and_reset_time() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 6,
        legacy_headers: false,
        ..ExpressRateLimitParams::default()
    });
    for (used, remaining) in [("1", "5"), ("2", "4")] {
        let (response, reply, _) = get(&mut l, at_ms(0));
        assert_eq!(reply.get("limit"), Some("6"));
        assert_eq!(reply.get("used"), Some(used));
        assert_eq!(reply.get("remaining"), Some(remaining));
        assert_eq!(reply.get("resetTime"), Some("2023-11-14T22:14:20.000Z"));
        assert_eq!(reply.get("key"), Some("127.0.0.1"));
        assert!(response.headers.is_empty(), "legacy off, standard off");
    }
}

/// memory-store-test.ts: "sets the value to 1 on first call to `increment`", "increments the key
/// ...", and "resets the count for all the keys in the store when the timeout is reached"
/// (`windowMs: 50`, `advanceTimersByTime(60)`, then `totalHits` is 1 again).
#[test]
fn the_store_counts_1_then_2_and_starts_over_after_the_window() {
    let mut l = rate_limit(100, 50);
    l.decide(at_ms(0), 1);
    assert_eq!(l.total_hits(at_ms(0)), 1);
    l.decide(at_ms(0), 1);
    assert_eq!(l.total_hits(at_ms(0)), 2);
    l.decide(at_ms(60), 1);
    assert_eq!(l.total_hits(at_ms(60)), 1);
}

/// memory-store-test.ts "does not allow a Client object to be assigned to two keys", for key1:
/// `windowMs: 100`; a hit at 0, one at 100 (its `resetTime` of 100 is `<= now`: reset, count 1),
/// three at 200 (reset again: the third returns `totalHits` 3) and one more: 4.
#[test]
fn a_hit_exactly_window_ms_after_the_first_opens_the_next_window() {
    let mut l = rate_limit(100, 100);
    l.decide(at_ms(0), 1);
    l.decide(at_ms(100), 1);
    assert_eq!(l.total_hits(at_ms(100)), 1);
    for _ in 0..3 {
        l.decide(at_ms(200), 1);
    }
    assert_eq!(l.total_hits(at_ms(200)), 3);
    let (_, reply) = l.decide_with_reply(at_ms(200), 1);
    assert_eq!(reply.get("used"), Some("4"));
}

/// headers-test.ts "should send correct `x-ratelimit-limit`, `x-ratelimit-remaining`, and
/// `x-ratelimit-reset` headers": `{ windowMs: 60000, limit: 5, legacyHeaders: true }` gives 5, 4
/// and `ceil((Date.now() + 60000) / 1000)`, with the current `Date` beside it.
#[test]
fn legacy_headers_give_limit_remaining_and_the_epoch_second_of_the_reset() {
    let mut l = rate_limit(5, 60_000);
    let (response, _, _) = get(&mut l, Time(T0 + 400_000));
    assert_eq!(response.status, 200);
    assert_eq!(
        response.headers,
        [
            ("X-RateLimit-Limit".to_string(), "5".to_string()),
            ("X-RateLimit-Remaining".to_string(), "4".to_string()),
            (
                "Date".to_string(),
                "Tue, 14 Nov 2023 22:13:20 GMT".to_string()
            ),
            ("X-RateLimit-Reset".to_string(), "1700000061".to_string()),
        ]
    );
}

/// headers-test.ts "should send correct `ratelimit-*` headers for the standard headers draft 6":
/// `{ windowMs: 60000, limit: 5, standardHeaders: true }` gives `ratelimit-policy: 5;w=60`,
/// `ratelimit-limit: 5`, `ratelimit-remaining: 4`, `ratelimit-reset: 60` (legacy headers stay on
/// by default).
#[test]
fn draft_6_sends_policy_limit_remaining_and_reset() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 5,
        window_ms: 60_000,
        standard_headers: StandardHeaders::parse("true").unwrap(),
        ..ExpressRateLimitParams::default()
    });
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(response.header("ratelimit-policy"), Some("5;w=60"));
    assert_eq!(response.header("ratelimit-limit"), Some("5"));
    assert_eq!(response.header("ratelimit-remaining"), Some("4"));
    assert_eq!(response.header("ratelimit-reset"), Some("60"));
    assert_eq!(response.header("x-ratelimit-limit"), Some("5"));
    assert_eq!(response.header("ratelimit"), None);
}

/// headers-test.ts "should send policy and combined ratelimit headers for the standard draft 7":
/// `ratelimit-policy: 5;w=60` and `ratelimit: limit=5, remaining=4, reset=60`.
#[test]
fn draft_7_sends_the_policy_and_the_combined_header() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 5,
        window_ms: 60_000,
        standard_headers: StandardHeaders::Draft7,
        legacy_headers: false,
        ..ExpressRateLimitParams::default()
    });
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(
        response.headers,
        [
            ("RateLimit-Policy".to_string(), "5;w=60".to_string()),
            (
                "RateLimit".to_string(),
                "limit=5, remaining=4, reset=60".to_string()
            ),
        ]
    );
}

fn draft_8(limit: u64, window_ms: u64, identifier: Option<&str>) -> ExpressRateLimit {
    limiter(ExpressRateLimitParams {
        limit,
        window_ms,
        standard_headers: StandardHeaders::Draft8,
        identifier: identifier.map(text),
        key: text("foo"),
        ..ExpressRateLimitParams::default()
    })
}

/// headers-test.ts "should send correct headers for the standard draft 8": `{ windowMs: 2 h,
/// limit: 5, standardHeaders: 'draft-8', keyGenerator: () => 'foo' }`.
#[test]
fn draft_8_names_the_policy_and_hashes_the_key_into_the_partition_key() {
    let mut l = draft_8(5, 2 * 60 * 60 * 1000, None);
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(
        response.header("ratelimit-policy"),
        Some("\"5-in-2hrs\"; q=5; w=7200; pk=:MmMyNmI0NmI2OGZm:")
    );
    assert_eq!(
        response.header("ratelimit"),
        Some("\"5-in-2hrs\"; r=4; t=7200")
    );
}

/// headers-test.ts "should send multiple headers correctly for the standard draft 8": five
/// limiters (5 s/1, 1 min/5, 1 h/6, 1 day/7, 2 days/8), each one's first request.
#[test]
fn draft_8_names_every_duration_as_the_library_does() {
    let cases = [
        (
            1,
            5_000,
            "\"1-in-5sec\"; q=1; w=5",
            "\"1-in-5sec\"; r=0; t=5",
        ),
        (
            5,
            60_000,
            "\"5-in-1min\"; q=5; w=60",
            "\"5-in-1min\"; r=4; t=60",
        ),
        (
            6,
            3_600_000,
            "\"6-in-1hr\"; q=6; w=3600",
            "\"6-in-1hr\"; r=5; t=3600",
        ),
        (
            7,
            86_400_000,
            "\"7-in-1day\"; q=7; w=86400",
            "\"7-in-1day\"; r=6; t=86400",
        ),
        (
            8,
            172_800_000,
            "\"8-in-2days\"; q=8; w=172800",
            "\"8-in-2days\"; r=7; t=172800",
        ),
    ];
    for (limit, window_ms, policy, ratelimit) in cases {
        let mut l = draft_8(limit, window_ms, None);
        let (response, _, _) = get(&mut l, at_ms(0));
        assert_eq!(
            response.header("ratelimit-policy"),
            Some(format!("{policy}; pk=:MmMyNmI0NmI2OGZm:").as_str())
        );
        assert_eq!(response.header("ratelimit"), Some(ratelimit));
    }
}

/// headers-test.ts "should override the quota name if specified for the standard draft 8":
/// `identifier: 'keep-kalm'`.
#[test]
fn draft_8_uses_the_identifier_when_given() {
    let mut l = draft_8(5, 2 * 60 * 60 * 1000, Some("keep-kalm"));
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(
        response.header("ratelimit-policy"),
        Some("\"keep-kalm\"; q=5; w=7200; pk=:MmMyNmI0NmI2OGZm:")
    );
    assert_eq!(
        response.header("ratelimit"),
        Some("\"keep-kalm\"; r=4; t=7200")
    );
}

/// headers-test.ts "should return the `retry-after` header once IP has reached the max":
/// `{ windowMs: 60000, limit: 1 }`: 200, then 429 with `retry-after: 60`.
#[test]
fn the_refusal_carries_retry_after_in_whole_seconds() {
    let mut l = rate_limit(1, 60_000);
    assert_eq!(get(&mut l, at_ms(0)).0.status, 200);
    let (response, _, decision) = get(&mut l, at_ms(0));
    assert_eq!(response.status, 429);
    assert_eq!(response.reason, "Too Many Requests");
    assert_eq!(response.header("retry-after"), Some("60"));
    assert_eq!(decision.retry_after, Some(Span::from_secs(60)));
    // 20.5 s later, 39.5 s are left: rounded up to 40.
    let (response, _, decision) = get(&mut l, Time(T0 + 20_500_000));
    assert_eq!(response.header("retry-after"), Some("40"));
    assert_eq!(decision.retry_after, Some(Span::from_millis(39_500)));
}

/// headers-test.ts "should not set the `retry-after` header if all headers have been disabled".
#[test]
fn no_header_at_all_when_both_header_options_are_off() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 1,
        window_ms: 60_000,
        legacy_headers: false,
        standard_headers: StandardHeaders::Off,
        ..ExpressRateLimitParams::default()
    });
    get(&mut l, at_ms(0));
    let (response, _, _) = get(&mut l, at_ms(0));
    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), None);
    assert!(response.headers.is_empty());
}

/// options-test.ts "should ignore options that are set to `undefined`": the default limit is 5;
/// and the other defaults of `parseOptions`: one minute, 429, legacy headers on, standard off.
#[test]
fn the_defaults_are_the_librarys() {
    let p = ExpressRateLimitParams::default();
    assert_eq!((p.limit, p.window_ms, p.status_code), (5, 60_000, 429));
    assert!(p.legacy_headers);
    assert_eq!(p.standard_headers, StandardHeaders::Off);
    assert_eq!(p.identifier, None);
}

/// validation-test.ts "windowMs": 5 minutes passes, 30 days is flagged `ERR_ERL_WINDOW_MS`
/// (above 2^31 - 1 ms); the profile refuses what the library flags.
#[test]
fn a_30_day_window_is_refused_and_5_minutes_is_not() {
    let with = |window_ms| {
        ExpressRateLimit::new(ExpressRateLimitParams {
            window_ms,
            ..ExpressRateLimitParams::default()
        })
    };
    assert!(with(5 * 60 * 1000).is_ok());
    let err = with(30 * 24 * 60 * 60 * 1000).unwrap_err();
    assert!(err.to_string().contains("ERR_ERL_WINDOW_MS"));
    assert!(with(MAX_WINDOW_MS).is_ok());
}

/// A refusal's status line, reason and headers in the order the middleware sets them, with both
/// header families on.
#[test]
fn a_refusal_with_every_header_in_the_order_they_are_set() {
    let mut l = limiter(ExpressRateLimitParams {
        limit: 1,
        window_ms: 1_500,
        standard_headers: StandardHeaders::Draft6,
        ..ExpressRateLimitParams::default()
    });
    get(&mut l, at_ms(0));
    let (response, _, _) = get(&mut l, at_ms(100));
    assert_eq!(
        response.to_text(),
        "HTTP/1.1 429 Too Many Requests\n\
         X-RateLimit-Limit: 1\n\
         X-RateLimit-Remaining: 0\n\
         Date: Tue, 14 Nov 2023 22:13:20 GMT\n\
         X-RateLimit-Reset: 1700000002\n\
         RateLimit-Policy: 1;w=2\n\
         RateLimit-Limit: 1\n\
         RateLimit-Remaining: 0\n\
         RateLimit-Reset: 2\n\
         Retry-After: 2\n"
    );
}

/// The store as its code runs: `current` and `previous` maps, `setInterval(clearExpired,
/// windowMs)` armed when the limiter is created (the lab's time 0), `increment` resetting a client
/// whose `resetTime <= now`. One key. `tick_first` orders a sweep and a hit in the same
/// millisecond.
mod reference {
    #[derive(Clone, Copy)]
    pub struct Client {
        pub total_hits: u64,
        pub reset_ms: u64,
    }

    pub struct Store {
        pub window_ms: u64,
        pub current: Option<Client>,
        pub previous: Option<Client>,
        pub ticks_done: u64,
        pub tick_first: bool,
    }

    impl Store {
        pub fn new(window_ms: u64, tick_first: bool) -> Store {
            Store {
                window_ms,
                current: None,
                previous: None,
                ticks_done: 0,
                tick_first,
            }
        }

        fn sweep_until(&mut self, now_ms: u64, inclusive: bool) {
            loop {
                let next = (self.ticks_done + 1) * self.window_ms;
                if next > now_ms || (next == now_ms && !inclusive) {
                    break;
                }
                self.previous = self.current.take();
                self.ticks_done += 1;
            }
        }

        /// `increment(key)` at `now_ms`: the client's `totalHits` afterwards.
        pub fn increment(&mut self, now_ms: u64) -> u64 {
            self.sweep_until(now_ms, self.tick_first);
            let mut client = match (self.current.take(), self.previous.take()) {
                (Some(c), _) | (None, Some(c)) => c,
                (None, None) => Client {
                    total_hits: 0,
                    reset_ms: now_ms + self.window_ms,
                },
            };
            if client.reset_ms <= now_ms {
                client.total_hits = 0;
                client.reset_ms = now_ms + self.window_ms;
            }
            client.total_hits += 1;
            self.current = Some(client);
            client.total_hits
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// On random traces, every verdict and count is the one the store's own code gives with its
    /// shared sweep timer running (sweeps before or after a hit in the same millisecond): the
    /// sweep never ends a window early.
    #[test]
    fn every_verdict_matches_the_store_run_with_its_sweep_timer(
        limit in 0u64..6,
        window_ms in 1u64..400,
        tick_first in any::<bool>(),
        gaps_us in prop::collection::vec(prop_oneof![Just(0u64), 0u64..2_000, 0u64..900_000], 1..80),
    ) {
        let mut l = rate_limit(limit, window_ms);
        let mut store = reference::Store::new(window_ms, tick_first);
        let mut now = 0u64;
        for gap in gaps_us {
            now += gap;
            let (d, reply) = l.decide_with_reply(Time(now), 1);
            let hits = store.increment(now / 1000);
            prop_assert_eq!(d.allowed(), hits <= limit, "at {} µs", now);
            let used = hits.to_string();
            prop_assert_eq!(reply.get("used"), Some(used.as_str()));
            prop_assert_eq!(d.remaining, limit.saturating_sub(hits));
        }
    }

    /// The promise: in each window (from a first hit to `windowMs` later) at most `limit` hits
    /// pass, so any `windowMs` span holds at most `2 × limit` passes; and a refusal's wait is
    /// exact: the same hit passes at `now + retry_after`, and not in the millisecond before.
    #[test]
    fn never_more_than_twice_the_limit_in_any_window_and_the_wait_is_exact(
        limit in 1u64..6,
        window_ms in 1u64..300,
        gaps_us in prop::collection::vec(0u64..120_000, 1..120),
    ) {
        let mut l = rate_limit(limit, window_ms);
        let mut passed: Vec<u64> = Vec::new();
        let mut now = 0u64;
        for gap in gaps_us {
            now += gap;
            let peeked = l.peek(Time(now), 1);
            if let Some(wait) = peeked.retry_after {
                prop_assert!(l.peek(Time(now + wait.micros()), 1).allowed());
                // The window ends on a whole millisecond: the whole millisecond before, refused.
                let end_ms = (now + wait.micros()) / 1000;
                prop_assert!(!l.peek(Time(end_ms * 1000 - 1), 1).allowed());
            }
            let d = l.decide(Time(now), 1);
            prop_assert_eq!(d, peeked, "peek answers what decide does");
            if d.allowed() {
                passed.push(now / 1000);
            }
        }
        for (i, &start) in passed.iter().enumerate() {
            let within = passed[i..].iter().take_while(|&&t| t < start + window_ms).count() as u64;
            prop_assert!(within <= 2 * limit);
        }
    }

    /// Peeking changes nothing, the same inputs give the same outputs, and a key is at rest
    /// exactly when a new hit would open a fresh window.
    #[test]
    fn peek_changes_nothing_and_the_same_trace_gives_the_same_answers(
        limit in 0u64..6,
        window_ms in 1u64..300,
        gaps_us in prop::collection::vec(0u64..200_000, 1..60),
        costs in prop::collection::vec(0u64..4, 1..60),
    ) {
        let mut a = rate_limit(limit, window_ms);
        let mut b = rate_limit(limit, window_ms);
        let mut now = 0u64;
        for (gap, cost) in gaps_us.iter().zip(costs.iter().cycle()) {
            now += gap;
            let before = a.total_hits(Time(now));
            let _ = a.peek(Time(now), *cost);
            let _ = a.gauge(Time(now));
            prop_assert_eq!(a.total_hits(Time(now)), before);
            let fresh = rate_limit(limit, window_ms).peek(Time(now), 1);
            if a.is_at_rest(Time(now)) {
                prop_assert_eq!(a.peek(Time(now), 1), fresh);
            }
            let (da, ra) = a.decide_with_reply(Time(now), *cost);
            let db = b.decide(Time(now), *cost);
            prop_assert_eq!(da, db);
            if *cost > 0 {
                let used = a.total_hits(Time(now)).to_string();
                prop_assert_eq!(ra.get("used"), Some(used.as_str()));
            }
        }
    }

    /// With headers on, a refusal's `Retry-After` is its wait rounded up to whole seconds (at
    /// least 1, since a refusal always falls inside a live window), and the draft headers' reset
    /// is the same figure.
    #[test]
    fn retry_after_is_the_wait_rounded_up_to_whole_seconds(
        limit in 1u64..4,
        window_ms in 1u64..5_000,
        gaps_us in prop::collection::vec(0u64..3_000_000, 1..40),
    ) {
        let mut l = limiter(ExpressRateLimitParams {
            limit,
            window_ms,
            standard_headers: StandardHeaders::Draft7,
            ..ExpressRateLimitParams::default()
        });
        let mut now = T0;
        for gap in gaps_us {
            now += gap;
            let (response, _, d) = get(&mut l, Time(now));
            if d.verdict == Verdict::Rejected {
                let wait = d.retry_after.unwrap();
                // Date.now() is the floored millisecond, so the header rounds up whole ms.
                let secs = ((wait.micros() + now % 1000) / 1000).div_ceil(1000);
                prop_assert!(secs >= 1);
                let secs_text = secs.to_string();
                prop_assert_eq!(response.header("Retry-After"), Some(secs_text.as_str()));
                let reset = format!(", reset={secs}");
                prop_assert!(response.header("RateLimit").unwrap().ends_with(&reset));
            } else {
                prop_assert_eq!(response.header("Retry-After"), None);
            }
        }
    }
}
