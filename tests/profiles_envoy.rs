//! Envoy's HTTP local rate limit filter, checked against its configuration page
//! (envoyproxy.io, configuration/http/http_filters/local_rate_limit_filter), the token bucket
//! proto (api/envoy/type/v3/token_bucket.proto), and the limiter's source
//! (source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc).
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::envoy::{EnvoyLocalRateLimit, EnvoyParams, EnvoyRefill};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn bucket(
    max_tokens: u64,
    tokens_per_fill: u64,
    fill_interval: Span,
    refill: EnvoyRefill,
) -> EnvoyLocalRateLimit {
    EnvoyLocalRateLimit::new(EnvoyParams {
        max_tokens,
        tokens_per_fill,
        fill_interval,
        refill,
    })
    .unwrap()
}

fn passed_at(l: &mut EnvoyLocalRateLimit, at: Time, n: u64) -> u64 {
    (0..n).filter(|_| l.decide(at, 1).allowed()).count() as u64
}

const BOTH: [EnvoyRefill; 2] = [EnvoyRefill::Continuous, EnvoyRefill::Timer];

/// The page's example bucket, `max_tokens: 10000, tokens_per_fill: 1000, fill_interval: 1s`:
/// the bucket "initially contains" max_tokens (token_bucket.proto), so 10000 requests pass at
/// once and the next is answered 429.
#[test]
fn the_documented_example_bucket_starts_full_and_passes_max_tokens_at_once() {
    for refill in BOTH {
        let mut l = bucket(10_000, 1_000, Span::from_secs(1), refill);
        assert_eq!(passed_at(&mut l, Time::ZERO, 10_001), 10_000, "{refill:?}");
    }
}

/// The page: with no token left "a 429 response is returned" and the filter "sets the
/// x-envoy-ratelimited header"; the filter's local reply carries the body `local_rate_limited`
/// (the integration test expects an 18-byte body). A passed request carries neither.
#[test]
fn a_rejection_is_429_with_x_envoy_ratelimited_and_the_local_rate_limited_body() {
    // The integration test's bucket: max_tokens 1, tokens_per_fill 1, fill_interval 1000s.
    let mut l = bucket(1, 1, Span::from_secs(1000), EnvoyRefill::Continuous);
    let (d, ok) = l.decide_with_reply(Time::ZERO, 1);
    assert!(d.allowed());
    assert_eq!(ok.get("status"), Some("200"));
    assert_eq!(ok.get("x-envoy-ratelimited"), None);
    assert_eq!(ok.get("tokens_remaining"), Some("0"));
    let (d, limited) = l.decide_with_reply(Time::from_secs(1), 1);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(limited.get("status"), Some("429"));
    assert_eq!(limited.get("x-envoy-ratelimited"), Some("true"));
    assert_eq!(limited.get("body").map(str::len), Some(18));
}

/// Envoy 1.30 and earlier (TimerTokenBucket): the timer adds `tokens_per_fill` on each tick and
/// nothing in between, so a drained bucket stays empty until the tick, even 999 ms into a 1 s
/// interval. Current Envoy (AtomicTokenBucket, envoyproxy/envoy#35207) refills continuously:
/// half an interval brings back half the tokens.
#[test]
fn the_timer_refills_in_whole_steps_while_current_envoy_refills_continuously() {
    let mut old = bucket(4, 4, Span::from_secs(1), EnvoyRefill::Timer);
    let mut new = bucket(4, 4, Span::from_secs(1), EnvoyRefill::Continuous);
    assert_eq!(passed_at(&mut old, Time::ZERO, 4), 4);
    assert_eq!(passed_at(&mut new, Time::ZERO, 4), 4);
    let d = old.decide(Time::from_millis(999), 1);
    assert_eq!(
        (d.verdict, d.retry_after),
        (Verdict::Rejected, Some(Span::from_millis(1)))
    );
    assert_eq!(old.tokens(Time::from_millis(999)), 0.0);
    assert_eq!(
        passed_at(&mut old, Time::from_millis(1_000), 5),
        4,
        "the tick brings all 4 back at once"
    );
    assert_eq!(
        passed_at(&mut new, Time::from_millis(500), 5),
        2,
        "4 per second, continuously: 2 in 500 ms"
    );
}

/// The timer is armed when the limiter is created (the trace's time 0 here), not at the first
/// request: a client that drains the bucket just before a tick is refilled a moment later, so
/// `max_tokens` at 999 ms and `max_tokens` again at 1000 ms, twice the bucket within 1 ms.
#[test]
fn timer_ticks_follow_the_filter_creation_so_a_burst_across_a_tick_passes_twice_the_bucket() {
    let mut l = bucket(5, 5, Span::from_secs(1), EnvoyRefill::Timer);
    assert_eq!(passed_at(&mut l, Time::from_millis(999), 6), 5);
    assert_eq!(passed_at(&mut l, Time::from_millis(1_000), 6), 5);
}

/// A rejected request's `retry_after` is the time to the next fill tick with the timer.
#[test]
fn with_the_timer_a_rejection_is_told_the_time_to_the_next_tick() {
    let mut l = bucket(1, 1, Span::from_millis(250), EnvoyRefill::Timer);
    assert!(l.decide(Time::from_millis(1_010), 1).allowed());
    let d = l.decide(Time::from_millis(1_100), 1);
    assert_eq!(
        d.retry_after,
        Some(Span::from_millis(150)),
        "ticks at 1000, 1250, ... ms"
    );
    assert!(l.decide(Time::from_millis(1_250), 1).allowed());
}

/// The continuous bucket is exact: one token every 3 s comes back at 3 s, not a microsecond
/// sooner (Envoy's own bucket counts in floating point).
#[test]
fn the_continuous_refill_is_exact_to_the_microsecond() {
    let mut l = bucket(1, 1, Span::from_secs(3), EnvoyRefill::Continuous);
    assert!(l.decide(Time::ZERO, 1).allowed());
    let d = l.decide(Time(2_999_999), 1);
    assert_eq!(
        (d.verdict, d.retry_after),
        (Verdict::Rejected, Some(Span(1)))
    );
    assert!(l.decide(Time::from_secs(3), 1).allowed());
}

/// "The bucket will never contain more than max_tokens tokens" (token_bucket.proto), however
/// long it is left alone.
#[test]
fn the_bucket_never_holds_more_than_max_tokens() {
    for refill in BOTH {
        let mut l = bucket(3, 2, Span::from_millis(100), refill);
        assert_eq!(passed_at(&mut l, Time::ZERO, 3), 3);
        assert_eq!(
            passed_at(&mut l, Time::from_secs(3_600), 10),
            3,
            "{refill:?}"
        );
        assert!(!l.is_at_rest(Time::from_secs(3_600)));
        assert!(l.is_at_rest(Time::from_secs(3_601)));
    }
}

/// local_ratelimit_impl.cc: "local rate limit token bucket fill timer must be >= 50ms".
#[test]
fn a_fill_interval_under_50_ms_is_refused_with_the_reason() {
    let err = EnvoyLocalRateLimit::new(EnvoyParams::new(10, Span::from_millis(49))).unwrap_err();
    assert!(matches!(err, ConfigError::Unsupported(_)));
    assert!(err.to_string().contains("50 ms"), "{err}");
    assert!(EnvoyLocalRateLimit::new(EnvoyParams::new(10, Span::from_millis(50))).is_ok());
    assert!(
        EnvoyLocalRateLimit::new(EnvoyParams::defaults_for(10, Span::from_millis(20))).is_err()
    );
}

/// token_bucket.proto: `max_tokens` and `tokens_per_fill` must be greater than 0.
#[test]
fn zero_tokens_are_refused_as_the_proto_refuses_them() {
    assert_eq!(
        EnvoyLocalRateLimit::new(EnvoyParams::new(0, Span::from_secs(1))).unwrap_err(),
        ConfigError::ZeroCapacity
    );
    let no_fill = EnvoyParams {
        tokens_per_fill: 0,
        ..EnvoyParams::new(1, Span::from_secs(1))
    };
    assert!(EnvoyLocalRateLimit::new(no_fill)
        .unwrap_err()
        .to_string()
        .contains("tokens_per_fill"));
    assert_eq!(
        EnvoyParams::new(7, Span::from_secs(1)).tokens_per_fill,
        1,
        "the proto's default"
    );
}

/// The lab's 5 per 10 s as `max_tokens: 5, tokens_per_fill: 5, fill_interval: 10s`: with the timer
/// it is a fixed window refilled to full every 10 s; continuously it is the lab's token bucket.
#[test]
fn the_lab_quota_becomes_a_bucket_of_limit_tokens_refilled_by_limit_per_window() {
    let p = EnvoyParams::defaults_for(5, Span::from_secs(10));
    assert_eq!(
        (p.max_tokens, p.tokens_per_fill, p.fill_interval, p.refill),
        (5, 5, Span::from_secs(10), EnvoyRefill::Continuous)
    );
    let mut timer = EnvoyLocalRateLimit::new(EnvoyParams {
        refill: EnvoyRefill::Timer,
        ..p
    })
    .unwrap();
    assert_eq!(passed_at(&mut timer, Time::from_millis(9_000), 6), 5);
    assert_eq!(passed_at(&mut timer, Time::from_millis(10_000), 6), 5);
    let mut continuous = EnvoyLocalRateLimit::new(p).unwrap();
    assert_eq!(passed_at(&mut continuous, Time::from_millis(9_000), 6), 5);
    assert_eq!(
        passed_at(&mut continuous, Time::from_millis(10_000), 6),
        0,
        "0.5 token per second: half a token after 1 s"
    );
    assert_eq!(passed_at(&mut continuous, Time::from_millis(11_000), 6), 1);
}

/// A request of cost n takes n tokens or none (Envoy's `consume(n, allow_partial = false)`).
#[test]
fn a_costly_request_takes_all_its_tokens_or_none() {
    for refill in BOTH {
        let mut l = bucket(5, 1, Span::from_secs(1), refill);
        assert!(l.decide(Time::ZERO, 3).allowed());
        let d = l.decide(Time::ZERO, 3);
        assert_eq!(
            (d.verdict, d.remaining),
            (Verdict::Rejected, 2),
            "{refill:?}"
        );
        assert_eq!(d.retry_after, Some(Span::from_secs(1)));
        assert_eq!(
            l.decide(Time::ZERO, 6).retry_after,
            None,
            "more than max_tokens never passes"
        );
    }
}

#[test]
fn decide_and_decide_with_reply_agree() {
    for refill in BOTH {
        let mut a = bucket(3, 2, Span::from_millis(700), refill);
        let mut b = bucket(3, 2, Span::from_millis(700), refill);
        for (i, ms) in [
            0u64, 0, 0, 0, 100, 699, 700, 701, 1_400, 1_400, 1_401, 5_000,
        ]
        .iter()
        .enumerate()
        {
            let now = Time::from_millis(*ms);
            let peeked = a.peek(now, 1);
            let plain = a.decide(now, 1);
            assert_eq!(plain, peeked, "{refill:?} step {i}");
            assert_eq!(b.decide_with_reply(now, 1).0, plain, "{refill:?} step {i}");
        }
    }
}

#[test]
fn time_going_backwards_is_read_as_the_latest_time_and_never_moves_state_back() {
    for refill in BOTH {
        let mut l = bucket(2, 1, Span::from_secs(1), refill);
        assert_eq!(passed_at(&mut l, Time::from_secs(10), 2), 2);
        // Earlier stamps count as 10 s: no tick is undone, no token is created.
        assert!(!l.decide(Time::from_secs(2), 1).allowed());
        assert!(!l.decide(Time::ZERO, 1).allowed());
        assert_eq!(l.tokens(Time::ZERO), 0.0);
        assert!(l.decide(Time::from_secs(11), 1).allowed(), "{refill:?}");
    }
}

#[test]
fn extreme_buckets_times_and_costs_never_panic() {
    let huge = EnvoyParams {
        max_tokens: 1_000_000_000,
        tokens_per_fill: 1_000_000_000,
        fill_interval: Span::from_millis(50),
        refill: EnvoyRefill::Timer,
    };
    let slow = EnvoyParams {
        max_tokens: 1,
        tokens_per_fill: 1,
        fill_interval: Span::from_secs(366 * 24 * 3600),
        refill: EnvoyRefill::Timer,
    };
    for p in [
        huge,
        slow,
        EnvoyParams {
            refill: EnvoyRefill::Continuous,
            ..huge
        },
        EnvoyParams {
            refill: EnvoyRefill::Continuous,
            ..slow
        },
    ] {
        let mut l = EnvoyLocalRateLimit::new(p).unwrap();
        for &t in &[0, 1, u64::MAX / 3, u64::MAX - 1, u64::MAX, 5] {
            for &cost in &[0, 1, 999_999_999, 1_000_000_001, u64::MAX] {
                let (d, reply) = l.decide_with_reply(Time(t), cost);
                let _ = (
                    l.peek(Time(t), cost),
                    l.gauge(Time(t)),
                    l.is_at_rest(Time(t)),
                );
                assert!(reply.get("status").is_some());
                if cost > p.max_tokens {
                    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
                }
            }
        }
    }
    let too_many = EnvoyParams::new(1_000_000_001, Span::from_secs(1));
    assert_eq!(
        EnvoyLocalRateLimit::new(too_many).unwrap_err(),
        ConfigError::TooLarge("max_tokens")
    );
    let too_long = EnvoyParams::new(1, Span(u64::MAX));
    assert_eq!(
        EnvoyLocalRateLimit::new(too_long).unwrap_err(),
        ConfigError::TooLarge("fill_interval")
    );
}
