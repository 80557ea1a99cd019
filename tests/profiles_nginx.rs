//! nginx `limit_req`, checked against the figures its documentation and the module's arithmetic
//! give (nginx.org/en/docs/http/ngx_http_limit_req_module.html; nginx/nginx,
//! src/http/modules/ngx_http_limit_req_module.c).
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Decision, Limiter, Verdict};
use ratelab::core::profiles::nginx::{
    parse_rate, NginxDelay, NginxLimitReq, NginxParams, NginxRate,
};
use ratelab::core::profiles::{Product, ProductReply};
use ratelab::core::time::{Span, Time};

fn zone(rate: &str, burst: u64, delay: NginxDelay) -> NginxLimitReq {
    let params = NginxParams {
        burst,
        delay,
        ..NginxParams::new(parse_rate(rate).unwrap())
    };
    NginxLimitReq::new(params).unwrap()
}

fn burst_at(limiter: &mut NginxLimitReq, at: Time, n: usize) -> Vec<(Decision, ProductReply)> {
    (0..n).map(|_| limiter.decide_with_reply(at, 1)).collect()
}

/// The module page's example, `limit_req_zone ... rate=1r/s;` with `limit_req zone=one burst=5;`,
/// hit by 10 requests at once: the first is free (a new key starts at excess 0), the next 5 fit
/// the burst and are delayed `excess × 1000 / rate` = 1000, 2000, ... 5000 ms, and the excess of
/// the 7th is 6.000 > 5.000, so it and the rest get 503 (`limit_req_status` default).
#[test]
fn one_per_second_with_burst_5_serves_one_delays_five_by_one_to_five_seconds_and_rejects_four() {
    let mut l = zone("1r/s", 5, NginxDelay::default());
    let answers = burst_at(&mut l, Time::from_secs(100), 10);
    assert_eq!(answers[0].0.verdict, Verdict::Allowed);
    assert_eq!(answers[0].1.get("status"), Some("200"));
    assert_eq!(answers[0].1.get("excess"), Some("0.000"));
    for (i, (d, reply)) in answers[1..6].iter().enumerate() {
        let secs = i as u64 + 1;
        assert_eq!(
            d.verdict,
            Verdict::Delayed {
                by: Span::from_secs(secs)
            }
        );
        assert_eq!(reply.get("limit_req_status"), Some("DELAYED"));
        assert_eq!(
            reply.get("delay_ms"),
            Some((secs * 1000).to_string().as_str())
        );
        assert_eq!(reply.get("excess"), Some(format!("{secs}.000").as_str()));
    }
    for (d, reply) in &answers[6..] {
        assert_eq!(d.verdict, Verdict::Rejected);
        assert_eq!(reply.get("status"), Some("503"));
        // "limiting requests, excess: 6.000 by zone ..." in the error log.
        assert_eq!(reply.get("excess"), Some("6.000"));
        assert_eq!(reply.get("delay_ms"), None);
    }
}

/// NGINX's blog "Rate Limiting with NGINX": `rate=10r/s` with `burst=20`, 21 requests at once:
/// the first is forwarded at once, the other 20 are queued and forwarded one every 100 ms, and a
/// 22nd gets an error because the queue is full.
#[test]
fn ten_per_second_with_burst_20_queues_twenty_requests_100_ms_apart() {
    let mut l = zone("10r/s", 20, NginxDelay::default());
    let answers = burst_at(&mut l, Time::ZERO, 22);
    assert_eq!(answers[0].0.verdict, Verdict::Allowed);
    for (i, (d, _)) in answers[1..21].iter().enumerate() {
        assert_eq!(
            d.verdict,
            Verdict::Delayed {
                by: Span::from_millis(100 * (i as u64 + 1))
            }
        );
    }
    assert_eq!(answers[21].0.verdict, Verdict::Rejected);
}

/// The blog again: with `nodelay` the burst is served at once, but each slot still frees only at
/// the rate. At 1 r/s, burst=5: 6 served and 4 rejected at t=0; at t=1 s the excess has leaked
/// from 5.000 to 4.000, so exactly one more fits; at t=3 s two more.
#[test]
fn nodelay_serves_the_burst_at_once_but_frees_the_slots_only_at_the_rate() {
    let mut l = zone("1r/s", 5, NginxDelay::NoDelay);
    let verdicts: Vec<Verdict> = burst_at(&mut l, Time::ZERO, 10)
        .iter()
        .map(|(d, _)| d.verdict)
        .collect();
    assert_eq!(&verdicts[..6], &[Verdict::Allowed; 6]);
    assert_eq!(&verdicts[6..], &[Verdict::Rejected; 4]);
    let at_1s: Vec<Verdict> = burst_at(&mut l, Time::from_secs(1), 2)
        .iter()
        .map(|(d, _)| d.verdict)
        .collect();
    assert_eq!(at_1s, [Verdict::Allowed, Verdict::Rejected]);
    let at_3s: Vec<Verdict> = burst_at(&mut l, Time::from_secs(3), 3)
        .iter()
        .map(|(d, _)| d.verdict)
        .collect();
    assert_eq!(
        at_3s,
        [Verdict::Allowed, Verdict::Allowed, Verdict::Rejected]
    );
}

/// Two-stage limiting (`delay=`, nginx 1.15.7+), with the blog's `rate=5r/s burst=12 delay=8`
/// and 15 requests at once, figured from the module's account step: the free first request and 8
/// more (excess up to 8.000 = delay) are served at once, the next 4 (excess 9.000 to 12.000) wait
/// `(excess - 8000) × 1000 / 5000` = 200, 400, 600, 800 ms, and the last 2 exceed the burst.
#[test]
fn delay_8_serves_nine_at_once_delays_four_and_rejects_beyond_the_burst() {
    let mut l = zone("5r/s", 12, NginxDelay::Delay(8));
    let verdicts: Vec<Verdict> = burst_at(&mut l, Time::ZERO, 15)
        .iter()
        .map(|(d, _)| d.verdict)
        .collect();
    assert_eq!(&verdicts[..9], &[Verdict::Allowed; 9]);
    let delays: Vec<Verdict> = [200, 400, 600, 800]
        .iter()
        .map(|&ms| Verdict::Delayed {
            by: Span::from_millis(ms),
        })
        .collect();
    assert_eq!(&verdicts[9..13], delays.as_slice());
    assert_eq!(&verdicts[13..], &[Verdict::Rejected; 2]);
}

/// `rate=1r/m` is stored as `1 × 1000 / 60` = 16 thousandths per second (the zone parser's
/// integer division), so a minute leaks only 0.960 of a request: with no burst, the second request
/// a full minute later is still rejected, logged as "excess: 0.040", and passes only once
/// `16 × ms / 1000` reaches 1000, at 62.5 s.
#[test]
fn one_per_minute_is_16_thousandths_per_second_so_the_next_request_waits_62_5_seconds() {
    assert_eq!(NginxRate::PerMinute(1).milli_per_sec(), 16);
    let mut l = zone("1r/m", 0, NginxDelay::default());
    assert!(l.decide(Time::ZERO, 1).allowed());
    let (d, reply) = l.decide_with_reply(Time::from_secs(60), 1);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(reply.get("excess"), Some("0.040"));
    assert_eq!(d.retry_after, Some(Span::from_millis(2_500)));
    assert!(!l.decide(Time::from_millis(62_499), 1).allowed());
    assert!(l.decide(Time::from_millis(62_500), 1).allowed());
}

/// `rate=30r/m` is exactly 500 thousandths per second: one request every 2 s, no rounding.
#[test]
fn thirty_per_minute_is_exactly_one_request_every_two_seconds() {
    let mut l = zone("30r/m", 0, NginxDelay::default());
    assert!(l.decide(Time::ZERO, 1).allowed());
    assert!(!l.decide(Time::from_millis(1_999), 1).allowed());
    assert!(l.decide(Time::from_millis(2_000), 1).allowed());
}

/// The module reads a millisecond clock (`ms = now - last`): requests 0.4 ms apart inside one
/// millisecond are simultaneous (nothing leaks between them), while requests 0.2 ms apart on both
/// sides of a millisecond boundary are a whole millisecond apart. At 1000 r/s with no burst
/// (1000000 thousandths per second, one request per ms), that decides the second request.
#[test]
fn times_are_floored_to_the_millisecond_so_requests_in_the_same_millisecond_are_simultaneous() {
    let mut same_ms = zone("1000r/s", 0, NginxDelay::default());
    assert!(same_ms.decide(Time(1_000), 1).allowed());
    let (d, reply) = same_ms.decide_with_reply(Time(1_400), 1);
    assert_eq!(
        (d.verdict, reply.get("excess")),
        (Verdict::Rejected, Some("1.000"))
    );

    let mut across = zone("1000r/s", 0, NginxDelay::default());
    assert!(across.decide(Time(1_900), 1).allowed());
    assert!(
        across.decide(Time(2_100), 1).allowed(),
        "1 ms leaked 1000 × 1 / 1000 thousandths: a whole request"
    );
}

/// Maxim Dounin on nginx-devel (2011): with no burst, of several requests within one millisecond
/// "all request but first one will be rejected", whatever the rate.
#[test]
fn without_a_burst_only_the_first_of_several_requests_in_one_millisecond_passes_at_any_rate() {
    for rate in ["1r/s", "1000r/s", "1000000r/s"] {
        let mut l = zone(rate, 0, NginxDelay::default());
        let passed = burst_at(&mut l, Time(5_000_250), 5)
            .iter()
            .filter(|(d, _)| d.allowed())
            .count();
        assert_eq!(passed, 1, "{rate}");
    }
}

/// `rate × ms / 1000` is divided before it is subtracted, and an accepted request moves `last` to
/// now, so the fraction is lost at every accepted request. `rate=59r/m` is stored as 983
/// thousandths per second, so one millisecond leaks 983 × 1 / 1000 = 0: 10001 requests one
/// millisecond apart, all accepted under a large burst, end at an excess of exactly 10000.000,
/// where an exact meter would have leaked almost 10 requests in those 10 s.
#[test]
fn below_one_per_second_accepted_requests_one_millisecond_apart_leak_nothing() {
    let mut l = zone("59r/m", 20_000, NginxDelay::NoDelay);
    let mut last = None;
    for ms in 0..=10_000 {
        last = Some(l.decide_with_reply(Time::from_millis(ms), 1));
    }
    let (d, reply) = last.unwrap();
    assert_eq!(d.verdict, Verdict::Allowed);
    assert_eq!(reply.get("excess"), Some("10000.000"));
    // The same 10 s without requests in between leaks 983 × 10000 / 1000 = 9830 thousandths.
    let mut quiet = zone("59r/m", 20_000, NginxDelay::NoDelay);
    for _ in 0..=10_000 {
        quiet.decide(Time::ZERO, 1);
    }
    assert_eq!(
        quiet
            .decide_with_reply(Time::from_secs(10), 1)
            .1
            .get("excess"),
        Some("9991.170")
    );
}

/// The account step serves a request at once when its delay `(excess - delay) × 1000 / rate`
/// truncates to 0 ms. At 2000 r/s one excess request is worth 0.5 ms, so it is not delayed.
#[test]
fn a_delay_shorter_than_a_millisecond_truncates_to_zero_and_the_request_is_served_at_once() {
    let mut l = zone("2000r/s", 3, NginxDelay::default());
    let answers = burst_at(&mut l, Time::ZERO, 3);
    assert_eq!(answers[1].0.verdict, Verdict::Allowed);
    assert_eq!(answers[1].1.get("limit_req_status"), Some("PASSED"));
    assert_eq!(
        answers[2].0.verdict,
        Verdict::Delayed {
            by: Span::from_millis(1)
        }
    );
}

/// `limit_req_status 429;` replaces the 503 of a rejection; passed requests are not affected.
#[test]
fn limit_req_status_sets_the_rejection_status() {
    let params = NginxParams {
        status: 429,
        ..NginxParams::new(NginxRate::PerSecond(1))
    };
    let mut l = NginxLimitReq::new(params).unwrap();
    assert_eq!(
        l.decide_with_reply(Time::ZERO, 1).1.get("status"),
        Some("200")
    );
    let (d, reply) = l.decide_with_reply(Time::ZERO, 1);
    assert_eq!(
        (
            d.verdict,
            reply.get("status"),
            reply.get("limit_req_status")
        ),
        (Verdict::Rejected, Some("429"), Some("REJECTED"))
    );
}

/// Delayed requests are released in arrival order: each waits longer than the one before.
#[test]
fn delayed_requests_are_released_in_arrival_order() {
    let mut l = zone("7r/s", 30, NginxDelay::default());
    let delays: Vec<Span> = burst_at(&mut l, Time::ZERO, 31)
        .iter()
        .filter_map(|(d, _)| match d.verdict {
            Verdict::Delayed { by } => Some(by),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 30);
    assert!(delays.windows(2).all(|w| w[0] < w[1]), "{delays:?}");
    // 1000 × 1000 / 7000 = 142 ms, truncated, for the first.
    assert_eq!(delays[0], Span::from_millis(142));
}

#[test]
fn the_lab_quota_becomes_the_closest_nginx_rate_with_burst_limit_minus_one() {
    let five_per_ten = NginxParams::defaults_for(5, Span::from_secs(10));
    assert_eq!(
        (five_per_ten.rate, five_per_ten.burst, five_per_ten.delay),
        (NginxRate::PerMinute(30), 4, NginxDelay::Delay(0))
    );
    assert_eq!(five_per_ten.directive(), "rate=30r/m burst=4");
    assert_eq!(
        NginxParams::defaults_for(10, Span::from_secs(1)).rate,
        NginxRate::PerSecond(10)
    );
    assert_eq!(
        NginxParams::defaults_for(20, Span::from_secs(2)).rate,
        NginxRate::PerSecond(10)
    );
    assert_eq!(
        NginxParams::defaults_for(100, Span::from_secs(60)).rate,
        NginxRate::PerMinute(100)
    );
    // 7 per 3 s is 140 per minute exactly; 1 per hour rounds to 0 per minute, raised to 1r/m.
    assert_eq!(
        NginxParams::defaults_for(7, Span::from_secs(3)).rate,
        NginxRate::PerMinute(140)
    );
    assert_eq!(
        NginxParams::defaults_for(1, Span::from_secs(3600)).rate,
        NginxRate::PerMinute(1)
    );
    assert_eq!(NginxParams::defaults_for(1, Span::from_secs(3600)).burst, 0);
    assert_eq!(
        NginxParams::defaults_for(5, Span::from_secs(10)).status,
        503
    );
    for (limit, window) in [
        (1, 1),
        (1_000_000_000, 1),
        (1_000_000_000, u64::MAX),
        (3, 7_000_001),
    ] {
        let p = NginxParams::defaults_for(limit, Span(window));
        assert!(
            NginxLimitReq::new(p).is_ok(),
            "{limit} per {window} µs gave {p:?}"
        );
    }
}

#[test]
fn a_bad_rate_is_refused_with_the_spelling_nginx_expects() {
    let err = parse_rate("10 per second").unwrap_err();
    assert!(matches!(err, ConfigError::Unsupported(_)));
    assert!(
        err.to_string().contains("10r/s") && err.to_string().contains("30r/m"),
        "{err}"
    );
    assert_eq!(parse_rate("0r/m"), Err(ConfigError::ZeroRate));
}

#[test]
fn decide_and_decide_with_reply_agree_and_peek_changes_nothing() {
    let mut a = zone("2r/s", 3, NginxDelay::Delay(1));
    let mut b = zone("2r/s", 3, NginxDelay::Delay(1));
    for (i, t) in [0u64, 0, 0, 0, 0, 120, 480, 481, 1_700, 1_700, 9_000]
        .iter()
        .enumerate()
    {
        let now = Time::from_millis(*t);
        let peeked = a.peek(now, 1);
        assert_eq!(a.peek(now, 1), peeked, "step {i}");
        let plain = a.decide(now, 1);
        let (with_reply, _) = b.decide_with_reply(now, 1);
        assert_eq!(plain, with_reply, "step {i}");
        assert_eq!(plain, peeked, "step {i}");
    }
}

#[test]
fn time_going_backwards_is_read_as_the_latest_time_and_never_moves_state_back() {
    let mut l = zone("1r/s", 2, NginxDelay::NoDelay);
    let mut twin = zone("1r/s", 2, NginxDelay::NoDelay);
    l.decide(Time::from_secs(5), 1);
    twin.decide(Time::from_secs(5), 1);
    // A request stamped 4 s earlier counts as one at 5 s: no leak is invented from the gap.
    assert_eq!(
        l.decide(Time::from_secs(1), 1),
        twin.decide(Time::from_secs(5), 1)
    );
    assert_eq!(l.decide(Time::ZERO, 1), twin.decide(Time::from_secs(5), 1));
    assert_eq!(l.gauge(Time::ZERO), twin.gauge(Time::from_secs(5)));
    assert_eq!(
        l.decide(Time::from_secs(7), 1),
        twin.decide(Time::from_secs(7), 1)
    );
}

#[test]
fn extreme_rates_bursts_times_and_costs_never_panic() {
    let huge = NginxParams {
        burst: 1_000_000_000,
        delay: NginxDelay::Delay(999_999_999),
        ..NginxParams::new(NginxRate::PerSecond(1_000_000_000))
    };
    let tiny = NginxParams::new(NginxRate::PerMinute(1));
    for params in [
        huge,
        tiny,
        NginxParams {
            delay: NginxDelay::NoDelay,
            ..huge
        },
    ] {
        let mut l = NginxLimitReq::new(params).unwrap();
        for &t in &[0, 1, 999, u64::MAX / 2, u64::MAX - 1, u64::MAX, 0, 17] {
            for &cost in &[0, 1, 2, 1_000_000_001, u64::MAX] {
                let (d, reply) = l.decide_with_reply(Time(t), cost);
                let _ = (
                    l.peek(Time(t), cost),
                    l.gauge(Time(t)),
                    l.is_at_rest(Time(t)),
                );
                assert!(reply.get("status").is_some());
                if cost > params.burst + 1 {
                    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
                }
            }
        }
    }
    assert_eq!(
        NginxLimitReq::new(NginxParams::new(NginxRate::PerSecond(1_000_000_001))).unwrap_err(),
        ConfigError::TooLarge("rate")
    );
    assert_eq!(
        NginxLimitReq::new(NginxParams::new(NginxRate::PerSecond(0))).unwrap_err(),
        ConfigError::ZeroRate
    );
    let too_big_burst = NginxParams {
        burst: 1_000_000_001,
        ..tiny
    };
    assert_eq!(
        NginxLimitReq::new(too_big_burst).unwrap_err(),
        ConfigError::TooLarge("burst")
    );
}
