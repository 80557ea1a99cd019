//! The figures the seed documents print, reproduced through the public API. Each test names the
//! document and the passage its expected figure comes from.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::decision::{Decision, Limiter, Verdict};
use ratelab::core::http::{respond, Policy};
use ratelab::core::limiter::Complete;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::run::run_all;
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Pattern;

fn passed(pattern: Pattern) -> [u64; 3] {
    let settings = Settings::default(); // limit 5 per 10 s, as in the explainer
    let trace = pattern.generate(settings.limit, settings.window);
    let algorithms = [
        Algorithm::FixedWindow,
        Algorithm::SlidingLog,
        Algorithm::TokenBucket,
    ];
    let runs =
        run_all::<Complete>(&trace, &algorithms, &settings).expect("default settings are valid");
    [runs[0].passed(), runs[1].passed(), runs[2].passed()]
}

/// rate-limiting-explained, "Checked by running it": "Ten requests across a window edge gave:
/// fixed 10, sliding 5, bucket 6."
#[test]
fn explainer_window_edge_fixed_10_sliding_5_bucket_6() {
    assert_eq!(passed(Pattern::Edge), [10, 5, 6]);
}

/// rate-limiting-explained, "Checked by running it": "One request per second for 60 seconds
/// gave: fixed 30, sliding 30, bucket 34."
#[test]
fn explainer_steady_fixed_30_sliding_30_bucket_34() {
    assert_eq!(passed(Pattern::Steady), [30, 30, 34]);
}

/// rate-limiting-explained, "What should a rejected request tell the client?": limit 5, window
/// 10 s, retry after 6.2 s gave 429, retry-after: 7, ratelimit-policy: "default";q=5;w=10,
/// ratelimit: "default";r=0;t=7.
#[test]
fn explainer_worked_429_example() {
    let denial = Decision {
        verdict: Verdict::Rejected,
        limit: 5,
        remaining: 0,
        reset_after: Span::from_millis(6_200),
        retry_after: Some(Span::from_millis(6_200)),
    };
    let response = respond(&Policy::new("default", 5, Span::from_secs(10)), &denial);
    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), Some("7"));
    assert_eq!(
        response.header("ratelimit-policy"),
        Some("\"default\";q=5;w=10")
    );
    assert_eq!(response.header("ratelimit"), Some("\"default\";r=0;t=7"));
}

/// The same example produced end to end: a fixed window full at 3.8 s must wait 6.2 s.
#[test]
fn a_real_fixed_window_denial_produces_the_worked_example() {
    let settings = Settings::default();
    let mut limiter = Algorithm::FixedWindow.build(&settings).unwrap();
    for _ in 0..5 {
        limiter.decide(Time::from_millis(3_800), 1);
    }
    let denial = limiter.decide(Time::from_millis(3_800), 1);
    let response = respond(
        &Policy::new("default", settings.limit, settings.window),
        &denial,
    );
    assert_eq!(response.header("Retry-After"), Some("7"));
    assert_eq!(response.header("RateLimit"), Some("\"default\";r=0;t=7"));
    assert_eq!(response.header("Cache-Control"), Some("no-store"));
}

/// sliding-window-durable-objects, "The problem": 100 requests at 12:00:59.5 and 100 more at
/// 12:01:00.1 pass a fixed window of 100 per minute (200 in 600 ms); the sliding log lets 100.
#[test]
fn the_seam_lets_200_through_a_fixed_window_of_100_per_minute() {
    let settings = Settings {
        limit: 100,
        window: Span::from_secs(60),
        ..Settings::default()
    };
    let base = 12 * 3600 * 1000; // 12:00:00.000 in ms
    let mut times = vec![Time::from_millis(base + 59_500); 100];
    times.extend(vec![Time::from_millis(base + 60_100); 100]);
    let trace = Pattern::Trace(times.into()).generate(settings.limit, settings.window);
    let runs = run_all::<Complete>(
        &trace,
        &[Algorithm::FixedWindow, Algorithm::SlidingLog],
        &settings,
    )
    .unwrap();
    assert_eq!((runs[0].passed(), runs[0].max_in_window), (200, 200));
    assert_eq!((runs[1].passed(), runs[1].max_in_window), (100, 100));
}
