//! redis-cell as a lab Limiter and Product: the same `CL.THROTTLE` arithmetic (checked in
//! tests/profiles.rs against the module's README and test table), seen through the lab's
//! decision and the module's five-integer reply.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::config::{ConfigError, MAX_WINDOW};
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::redis_cell::{RedisCell, RedisCellParams};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn cell(max_burst: u64, count: u64, period: Span) -> RedisCell {
    RedisCell::from_params(RedisCellParams {
        max_burst,
        count,
        period,
    })
    .unwrap()
}

/// redis-cell's README: `CL.THROTTLE user123 15 30 60 1` answers `0, 16, 15, -1, 2`, and the
/// README names the five integers limited, limit, remaining, retry after and reset after.
#[test]
fn the_reply_names_the_five_integers_of_the_readme_example() {
    let mut c = cell(15, 30, Span::from_secs(60));
    let (d, reply) = c.decide_with_reply(Time::from_secs(1_000), 1);
    let fields: Vec<(&str, &str)> = reply
        .fields
        .iter()
        .take(5)
        .map(|(n, v)| (*n, v.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("limited", "0"),
            ("limit", "16"),
            ("remaining", "15"),
            ("retry_after", "-1"),
            ("reset_after", "2")
        ]
    );
    // Then what became of the key: its TAT, kept for the ttl in whole milliseconds.
    assert_eq!(
        reply.get("key in Redis"),
        Some("TAT stored with PX 2000, gone from 1002.001 s")
    );
    // The decision keeps the exact figures: 60 s / 30 = 2 s until the one request is forgotten.
    assert_eq!(
        (d.verdict, d.limit, d.remaining),
        (Verdict::Allowed, 16, 15)
    );
    assert_eq!((d.reset_after, d.retry_after), (Span::from_secs(2), None));
}

/// The module's `limit` is `max_burst + 1` (the README's 15 gives 16), so the lab's defaults
/// pass `max_burst = limit - 1`: "5 per 10 s" lets exactly 5 through at once, not 6.
#[test]
fn defaults_for_a_limit_lets_exactly_that_many_through_at_once() {
    let params = RedisCellParams::defaults_for(5, Span::from_secs(10));
    assert_eq!(
        params,
        RedisCellParams {
            max_burst: 4,
            count: 5,
            period: Span::from_secs(10)
        }
    );
    let mut c = RedisCell::from_params(params).unwrap();
    let passed = (0..10)
        .filter(|_| c.decide(Time::ZERO, 1).allowed())
        .count();
    assert_eq!(passed, 5);
    assert_eq!(c.peek(Time::ZERO, 1).limit, 5);
}

/// redis-cell's own test table (limit 5, 1 per second): the sixth request at the same instant
/// is limited with a retry after of 1000 ms; the lab's retry time is that, exactly: the request
/// passes at +1 s and not a microsecond before.
#[test]
fn a_limited_request_names_the_exact_moment_it_would_pass() {
    let start = Time::from_secs(1_700_000_000);
    let mut c = cell(4, 1, Span::from_secs(1));
    for _ in 0..5 {
        assert!(c.decide(start, 1).allowed());
    }
    let (d, reply) = c.decide_with_reply(start, 1);
    assert_eq!(d.retry_after, Some(Span::from_secs(1)));
    assert_eq!(
        (
            reply.get("limited"),
            reply.get("retry_after"),
            reply.get("reset_after")
        ),
        (Some("1"), Some("1"), Some("5"))
    );
    let at = start.plus(Span::from_secs(1));
    assert!(c.peek(at, 1).allowed());
    assert!(!c.peek(Time(at.micros() - 1), 1).allowed());
}

/// The table's first row: a quantity of 6 against a limit of 5 is limited with a retry after of
/// -1 ("never"), so the lab names no time.
#[test]
fn a_request_larger_than_the_limit_is_refused_with_no_retry_time() {
    let mut c = cell(4, 1, Span::from_secs(1));
    let (d, reply) = c.decide_with_reply(Time::ZERO, 6);
    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    assert_eq!(reply.get("retry_after"), Some("-1"));
}

/// The same contract on arbitrary traffic: a refusal's retry time is exact to the microsecond
/// (the arrival time, or the key's expiry when Redis forgets it sooner), and a key at rest
/// decides like an absent one.
#[test]
fn retry_times_are_exact_and_rest_means_forgettable_on_varied_traffic() {
    let mut seed: u64 = 3;
    let mut next = move |m: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % m
    };
    for (max_burst, count, period) in [
        (4, 1, Span::from_secs(1)),
        (0, 3, Span::from_millis(700)),
        (9, 7, Span(1_234_567)),
    ] {
        let params = RedisCellParams {
            max_burst,
            count,
            period,
        };
        let mut c = RedisCell::from_params(params).unwrap();
        let mut now = 0u64;
        for _ in 0..300 {
            now += next(400_000);
            let cost = 1 + next(3);
            let d = c.decide(Time(now), cost);
            if let Some(wait) = d.retry_after {
                let at = Time(now).plus(wait);
                assert!(c.peek(at, cost).allowed(), "{params:?}");
                assert!(!c.peek(Time(at.micros() - 1), cost).allowed(), "{params:?}");
            }
            let probe = Time(now + next(2_000_000));
            if c.is_at_rest(probe) {
                let mut fresh = RedisCell::from_params(params).unwrap();
                assert_eq!(c.peek(probe, 1), fresh.decide(probe, 1), "{params:?}");
            }
        }
    }
}

/// Times earlier than one already seen are taken as that later time: a request "at 1 s" after
/// one at 10 s is decided at 10 s.
#[test]
fn time_going_backwards_neither_panics_nor_moves_the_state_back() {
    let mut c = cell(0, 1, Span::from_secs(1));
    assert!(c.decide(Time::from_secs(10), 1).allowed());
    let d = c.decide(Time::from_secs(1), 1);
    assert_eq!(
        (d.verdict, d.retry_after),
        (Verdict::Rejected, Some(Span::from_secs(1)))
    );
    assert!(!c.is_at_rest(Time::ZERO));
    // PX 1000 from millisecond 10,000: Redis holds the key through millisecond 11,000.
    assert!(!c.is_at_rest(Time::from_secs(11)));
    assert!(c.is_at_rest(Time::from_millis(11_001)));
}

/// The module refuses a zero rate ("Zero rates are not supported"), which the lab reports as
/// unsupported; counts beyond the lab's bounds are too large; extreme but valid parameters,
/// times and costs never panic.
#[test]
fn bad_rates_are_refused_and_extreme_values_never_panic() {
    let zero = RedisCell::from_params(RedisCellParams {
        max_burst: 1,
        count: 0,
        period: Span::from_secs(1),
    });
    assert!(matches!(zero, Err(ConfigError::Unsupported(_))));
    // 10^9 per microsecond is an emission interval of 0 ns: the module's zero rate.
    let too_fast = RedisCell::from_params(RedisCellParams {
        max_burst: 1,
        count: 1_000_000_000,
        period: Span(1),
    });
    assert!(matches!(too_fast, Err(ConfigError::Unsupported(_))));
    let too_big = RedisCell::from_params(RedisCellParams {
        max_burst: 1_000_000_001,
        count: 1,
        period: Span::from_secs(1),
    });
    assert_eq!(too_big.unwrap_err(), ConfigError::TooLarge("max_burst"));

    for params in [
        RedisCellParams {
            max_burst: 1_000_000_000,
            count: 1_000_000,
            period: Span::from_millis(1),
        },
        RedisCellParams {
            max_burst: 1_000_000_000,
            count: 1,
            period: MAX_WINDOW,
        },
        RedisCellParams::defaults_for(1, Span::from_millis(1)),
    ] {
        let mut c = RedisCell::from_params(params).unwrap();
        for t in [0, 1, u64::MAX / 2, u64::MAX] {
            for cost in [0, 1, 1_000_000_000, u64::MAX] {
                let d = c.decide(Time(t), cost);
                assert!(d.remaining <= d.limit);
                let _ = (
                    c.gauge(Time(t)),
                    c.is_at_rest(Time(t)),
                    c.decide_with_reply(Time(t), cost),
                );
            }
        }
    }
}
