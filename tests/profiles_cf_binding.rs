//! Cloudflare Workers' Rate Limiting binding, checked against its documentation
//! (developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/), Miniflare's emulation
//! (cloudflare/workers-sdk, packages/miniflare/src/workers/ratelimit/ratelimit.worker.ts) and
//! the seed's `wrangler dev` run (shared/seeds/rate-limiting-explained.txt).
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::cf_binding::{CfBindingParams, CfRateLimitBinding};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn binding(limit: u64, period_secs: u64) -> CfRateLimitBinding {
    CfRateLimitBinding::new(CfBindingParams { limit, period_secs }).unwrap()
}

fn successes(b: &mut CfRateLimitBinding, at: Time, calls: usize) -> Vec<bool> {
    (0..calls)
        .map(|_| b.decide_with_reply(at, 1).1.get("success") == Some("true"))
        .collect()
}

/// The docs' binding, `simple: { limit: 100, period: 60 }`: 100 calls succeed within the period,
/// the 101st does not, and the next period starts again from 0.
#[test]
fn the_documented_binding_allows_100_calls_per_60_second_period() {
    let mut b = binding(100, 60);
    let first = successes(&mut b, Time::from_secs(5), 101);
    assert_eq!(first.iter().filter(|&&s| s).count(), 100);
    assert!(!first[100]);
    assert!(successes(&mut b, Time::from_secs(60), 1)[0]);
}

/// The seed's run under `wrangler dev` with `simple: { limit: 5, period: 10 }`: alice got five
/// 200s and then three 429s, bob with his own key still got 200, and about 11 s later alice got 200
/// again. (Local Miniflare, not a deployed Worker, as the seed says.)
#[test]
fn the_seeds_wrangler_dev_run_five_successes_three_failures_and_a_fresh_key() {
    let t0 = Time::from_millis(300);
    let mut alice = binding(5, 10);
    let mut bob = binding(5, 10);
    let eight: Vec<bool> = (0..8)
        .map(|i| successes(&mut alice, t0.plus(Span::from_millis(20 * i)), 1)[0])
        .collect();
    assert_eq!(eight, [true, true, true, true, true, false, false, false]);
    assert!(successes(&mut bob, t0.plus(Span::from_millis(200)), 1)[0]);
    assert!(successes(&mut alice, t0.plus(Span::from_secs(11)), 1)[0]);
}

/// The docs: the period "must be either 10 or 60". 15 and 30 look reasonable and are refused, with
/// a message that names the two values allowed.
#[test]
fn periods_of_15_or_30_seconds_are_refused_with_the_two_allowed_values_named() {
    for period_secs in [15, 30] {
        let err = CfRateLimitBinding::new(CfBindingParams {
            limit: 10,
            period_secs,
        })
        .unwrap_err();
        assert!(matches!(err, ConfigError::Unsupported(_)), "{period_secs}");
        let text = err.to_string();
        assert!(text.contains("10") && text.contains("60"), "{text}");
    }
}

/// The docs: `limit` counts "in a single Cloudflare location". The same key reaching two
/// locations has two counters: 5 per 10 s lets 10 calls through in one period.
#[test]
fn each_location_counts_on_its_own_so_two_locations_pass_twice_the_limit() {
    let mut frankfurt = binding(5, 10);
    let mut sydney = binding(5, 10);
    let passed = successes(&mut frankfurt, Time::from_secs(1), 6)
        .iter()
        .filter(|&&s| s)
        .count()
        + successes(&mut sydney, Time::from_secs(1), 6)
            .iter()
            .filter(|&&s| s)
            .count();
    assert_eq!(passed, 10);
}

/// `limit()` resolves to `{ success }` and nothing else: no remaining count, no reset time.
#[test]
fn the_reply_is_success_and_nothing_else() {
    let mut b = binding(2, 10);
    for expected in ["true", "true", "false"] {
        let (_, reply) = b.decide_with_reply(Time::ZERO, 1);
        assert_eq!(reply.fields.len(), 1);
        assert_eq!(reply.get("success"), Some(expected));
    }
}

/// Miniflare clears its counters when `floor(now / period)` changes: windows start on whole
/// periods, so 5 calls just before a boundary and 5 just after all succeed, 10 within 100 ms.
#[test]
fn periods_start_on_whole_multiples_so_a_burst_across_the_boundary_passes_twice_the_limit() {
    let mut b = binding(5, 10);
    let before = successes(&mut b, Time::from_millis(9_950), 6);
    let after = successes(&mut b, Time::from_millis(10_050), 6);
    assert_eq!(before, [true, true, true, true, true, false]);
    assert_eq!(after, [true, true, true, true, true, false]);
}

/// Miniflare counts a call only when it succeeds, so hammering a full counter changes nothing:
/// the next period is just as free.
#[test]
fn failed_calls_are_not_counted() {
    let mut b = binding(3, 10);
    assert_eq!(successes(&mut b, Time::from_secs(2), 3), [true; 3]);
    assert!(successes(&mut b, Time::from_secs(3), 500)
        .iter()
        .all(|&s| !s));
    assert_eq!(
        successes(&mut b, Time::from_secs(10), 4),
        [true, true, true, false]
    );
}

/// The lab's common response still needs a wait and a count: the decision says what the window
/// implies (come back at the next period boundary), though the binding itself reveals neither.
#[test]
fn the_decision_carries_what_the_window_implies_for_the_common_response() {
    let mut b = binding(5, 10);
    for _ in 0..5 {
        b.decide(Time::from_millis(3_800), 1);
    }
    let d = b.decide(Time::from_millis(3_800), 1);
    assert_eq!((d.verdict, d.remaining, d.limit), (Verdict::Rejected, 0, 5));
    assert_eq!(d.retry_after, Some(Span::from_millis(6_200)));
}

#[test]
fn the_lab_quota_picks_the_period_and_scales_the_limit_to_it() {
    let cases = [
        ((5, 10), (5, 10)), // exactly the seed's binding
        ((1, 1), (10, 10)), // 1 per second as 10 per 10 s
        ((3, 7), (4, 10)),  // 4.29 rounded down
        ((100, 60), (100, 60)),
        ((30, 30), (60, 60)), // a 30 s window cannot be written: 60 per 60 s
        ((10, 15), (40, 60)),
        ((1, 3_600), (1, 60)), // 0.017 raised to 1
    ];
    for ((limit, window_secs), (expected_limit, expected_period)) in cases {
        let p = CfBindingParams::defaults_for(limit, Span::from_secs(window_secs));
        assert_eq!(
            (p.limit, p.period_secs),
            (expected_limit, expected_period),
            "{limit} per {window_secs} s"
        );
        assert!(CfRateLimitBinding::new(p).is_ok());
    }
    let huge = CfBindingParams::defaults_for(1_000_000_000, Span(1));
    assert_eq!(
        huge,
        CfBindingParams {
            limit: 1_000_000_000,
            period_secs: 10
        }
    );
    assert!(CfRateLimitBinding::new(huge).is_ok());
}

#[test]
fn decide_and_decide_with_reply_agree() {
    let mut a = binding(3, 10);
    let mut b = binding(3, 10);
    for (i, ms) in [
        0u64, 10, 20, 30, 9_999, 10_000, 10_001, 25_000, 25_000, 25_000, 25_000,
    ]
    .iter()
    .enumerate()
    {
        let now = Time::from_millis(*ms);
        let peeked = a.peek(now, 1);
        let plain = a.decide(now, 1);
        assert_eq!(plain, peeked, "step {i}");
        assert_eq!(b.decide_with_reply(now, 1).0, plain, "step {i}");
    }
}

#[test]
fn time_going_backwards_is_read_as_the_latest_time_and_never_moves_state_back() {
    let mut b = binding(2, 10);
    assert_eq!(successes(&mut b, Time::from_secs(12), 2), [true, true]);
    // Stamps from the previous period count as 12 s: the old period is not reopened.
    assert_eq!(successes(&mut b, Time::from_secs(5), 2), [false, false]);
    assert_eq!(successes(&mut b, Time::ZERO, 1), [false]);
    assert_eq!(successes(&mut b, Time::from_secs(20), 1), [true]);
}

#[test]
fn extreme_limits_times_and_costs_never_panic() {
    for params in [
        CfBindingParams {
            limit: 1_000_000_000,
            period_secs: 60,
        },
        CfBindingParams {
            limit: 1,
            period_secs: 10,
        },
    ] {
        let mut b = CfRateLimitBinding::new(params).unwrap();
        for &t in &[0, 1, u64::MAX / 2, u64::MAX - 1, u64::MAX, 3] {
            for &cost in &[0, 1, 999_999_999, 1_000_000_001, u64::MAX] {
                let (d, reply) = b.decide_with_reply(Time(t), cost);
                let _ = (
                    b.peek(Time(t), cost),
                    b.gauge(Time(t)),
                    b.is_at_rest(Time(t)),
                );
                assert_eq!(reply.get("success"), Some(d.allowed().to_string().as_str()));
                if cost > params.limit {
                    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
                }
            }
        }
    }
}
