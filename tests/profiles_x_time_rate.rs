//! The x/time/rate profile, checked against the library's own tests and against traces run
//! through the real `rate.go`.
//!
//! Sources: golang/time at commit 2b4e43900c03fd6b77109b7b2b6d77583f48bc1c (v0.13.0 plus one
//! commit), `rate/rate_test.go`; "run through the real `rate.go`" means that file compiled with
//! Go 1.19 on linux/amd64 and the figure printed by a small test beside it.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::x_time_rate::{
    go_duration, go_float, http_response, WaitError, XTimeRate, XTimeRateParams, INF, INF_DURATION,
};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn limiter(limit: f64, burst: u64) -> XTimeRate {
    XTimeRate::new(XTimeRateParams::new(limit, burst)).unwrap()
}

/// rate_test.go's `d`: 100 ms, in nanoseconds.
const D_NS: i64 = 100_000_000;

/// rate_test.go's `t0 .. t9`: `k × d` after the start (lab time 0 is `t0`).
fn t(k: u64) -> Time {
    Time::from_millis(100 * k)
}

/// rate_test.go's `run`: for each step, `TokensAt(t)` must be `toks` exactly, then
/// `AllowN(t, n)` must answer `ok`.
fn run(lim: &mut XTimeRate, steps: &[(Time, f64, u64, bool)]) {
    for (i, &(at, toks, n, ok)) in steps.iter().enumerate() {
        assert_eq!(lim.tokens_at(at), toks, "step {i}: TokensAt({at})");
        assert_eq!(lim.allow_n(at, n), ok, "step {i}: AllowN({at}, {n})");
    }
}

/// rate_test.go `TestLimiterBurst1`.
#[test]
fn test_limiter_burst_1_from_rate_test_go() {
    run(
        &mut limiter(10.0, 1),
        &[
            (t(0), 1.0, 1, true),
            (t(0), 0.0, 1, false),
            (t(0), 0.0, 1, false),
            (t(1), 1.0, 1, true),
            (t(1), 0.0, 1, false),
            (t(1), 0.0, 1, false),
            (t(2), 1.0, 2, false), // burst size is 1, so n=2 always fails
            (t(2), 1.0, 1, true),
            (t(2), 0.0, 1, false),
        ],
    );
}

/// rate_test.go `TestLimiterBurst3`.
#[test]
fn test_limiter_burst_3_from_rate_test_go() {
    run(
        &mut limiter(10.0, 3),
        &[
            (t(0), 3.0, 2, true),
            (t(0), 1.0, 2, false),
            (t(0), 1.0, 1, true),
            (t(0), 0.0, 1, false),
            (t(1), 1.0, 4, false),
            (t(2), 2.0, 1, true),
            (t(3), 2.0, 1, true),
            (t(4), 2.0, 1, true),
            (t(4), 1.0, 1, true),
            (t(4), 0.0, 1, false),
            (t(4), 0.0, 1, false),
            (t(9), 3.0, 3, true),
            (t(9), 0.0, 0, true),
        ],
    );
}

/// rate_test.go `TestLimiterJumpBackwards`: Go moves `last` back to an earlier time, so going
/// back to t0 and forward to t1 again earns a token. The Go-shaped `allow_n` does the same.
#[test]
fn test_limiter_jump_backwards_from_rate_test_go() {
    run(
        &mut limiter(10.0, 3),
        &[
            (t(1), 3.0, 1, true), // start at t1
            (t(0), 2.0, 1, true), // jump back to t0, two tokens remain
            (t(0), 1.0, 1, true),
            (t(0), 0.0, 1, false),
            (t(0), 0.0, 1, false),
            (t(1), 1.0, 1, true), // got a token
            (t(1), 0.0, 1, false),
            (t(1), 0.0, 1, false),
            (t(2), 1.0, 1, true), // got another token
            (t(2), 0.0, 1, false),
            (t(2), 0.0, 1, false),
        ],
    );
}

/// The lab's path does not go back: a time earlier than one seen is that later time, so the
/// same steps through `decide` earn nothing by jumping back (the lab's rule, not Go's).
#[test]
fn the_labs_path_takes_an_earlier_time_as_the_latest_and_earns_nothing_by_it() {
    let mut lim = limiter(10.0, 3);
    let verdicts: Vec<bool> = [1, 0, 0, 0, 0, 1, 1, 1, 2]
        .iter()
        .map(|&k| lim.decide(t(k), 1).allowed())
        .collect();
    assert_eq!(
        verdicts,
        [true, true, true, false, false, false, false, false, true]
    );
}

/// rate_test.go's `runReserve`: `reserveN(t, n, InfDuration)` must answer `ok`, and when OK
/// act at `act` (here exactly: the delay from `t` is `act - t`).
fn reserve(lim: &mut XTimeRate, at: Time, n: u64, act: Time, ok: bool) {
    let r = lim.reserve_n(at, n);
    assert_eq!(r.ok(), ok, "ReserveN({at}, {n})");
    if ok {
        let delay = i64::try_from(act.since(at).micros() * 1_000).unwrap();
        assert_eq!(r.delay_from(at), delay, "ReserveN({at}, {n}) acts at {act}");
    } else {
        assert_eq!(r.delay_from(at), INF_DURATION);
    }
}

/// rate_test.go `TestSimpleReserve`.
#[test]
fn test_simple_reserve_from_rate_test_go() {
    let mut lim = limiter(10.0, 2);
    reserve(&mut lim, t(0), 2, t(0), true);
    reserve(&mut lim, t(0), 2, t(2), true);
    reserve(&mut lim, t(3), 2, t(4), true);
}

/// rate_test.go `TestMix`: a reservation drives the bucket negative, and `AllowN` then sees
/// `TokensAt == -1` and refuses.
#[test]
fn test_mix_from_rate_test_go() {
    let mut lim = limiter(10.0, 2);
    reserve(&mut lim, t(0), 3, t(1), false); // n > burst
    reserve(&mut lim, t(0), 2, t(0), true);
    run(&mut lim, &[(t(1), 1.0, 2, false)]); // not enough tokens
    reserve(&mut lim, t(1), 2, t(2), true);
    run(&mut lim, &[(t(1), -1.0, 1, false)]); // negative tokens
    run(&mut lim, &[(t(3), 1.0, 1, true)]);
}

/// rate_test.go `TestReserveJumpBack`, including its step bounded by `maxReserve = d`.
#[test]
fn test_reserve_jump_back_from_rate_test_go() {
    let mut lim = limiter(10.0, 2);
    reserve(&mut lim, t(1), 2, t(1), true); // start at t1
    reserve(&mut lim, t(0), 1, t(1), true); // should violate Limit,Burst
    reserve(&mut lim, t(2), 2, t(3), true);
    // burst size is 2, so n=3 always fails, and the state of lim should not be changed
    reserve(&mut lim, t(0), 3, t(0), false);
    reserve(&mut lim, t(2), 1, t(4), true);
    // the maxReserve is not enough so it fails, and the state of lim should not be changed
    assert!(!lim.reserve_n_max(t(0), 2, D_NS).ok());
    reserve(&mut lim, t(2), 1, t(5), true);
}

/// rate_test.go `TestReserveMax`.
#[test]
fn test_reserve_max_from_rate_test_go() {
    let mut lim = limiter(10.0, 2);
    let r = lim.reserve_n_max(t(0), 2, D_NS);
    assert_eq!((r.ok(), r.delay_from(t(0))), (true, 0));
    let r = lim.reserve_n_max(t(0), 1, D_NS); // reserve for close future
    assert_eq!((r.ok(), r.delay_from(t(0))), (true, D_NS));
    assert!(!lim.reserve_n_max(t(0), 1, D_NS).ok()); // time to act too far in the future
}

/// rate_test.go `TestSimultaneousRequests`: limit 1, burst 5, 15 requests at once: 5 pass.
#[test]
fn test_simultaneous_requests_from_rate_test_go() {
    let mut lim = limiter(1.0, 5);
    let ok = (0..15)
        .filter(|_| lim.decide(Time::ZERO, 1).allowed())
        .count();
    assert_eq!(ok, 5);
}

/// rate_test.go `TestLongRunningQPS`: limit 100, burst 100, one `AllowN` every 2 ms for 5 s:
/// at most `int32(ideal + 1)` and at least `int32(0.999 × ideal)` pass, `ideal = 100 + 100 × 5 = 600`. The
/// real `rate.go` lets exactly 599 through.
#[test]
fn test_long_running_qps_from_rate_test_go() {
    let mut lim = limiter(100.0, 100);
    let ok = (0..2_500u64)
        .filter(|&i| lim.decide(Time::from_millis(2 * i), 1).allowed())
        .count();
    // The test's own bounds, truncated to int32 as it does: at most 601, at least 599.
    let ideal: f64 = 100.0 + 100.0 * 5.0;
    assert!(ok <= (ideal + 1.0) as usize && ok >= (0.999 * ideal) as usize);
    assert_eq!(ok, 599);
}

/// rate_test.go `TestLimiter_noTruncationErrors` (golang.org/issues/34861), `TestZeroLimit` and
/// `TestTinyLimit` (issue 71154): the first call passes, and at a tiny or zero limit the second
/// does not; the tiny limit's `ReserveN` delay overflows to `InfDuration` (real `rate.go`).
#[test]
fn test_no_truncation_errors_zero_limit_and_tiny_limit_from_rate_test_go() {
    assert!(limiter(0.769_230_769_230_769_3, 1).allow_n(Time::ZERO, 1));
    for limit in [0.0, 1e-10] {
        let mut lim = limiter(limit, 1);
        assert!(lim.allow_n(Time::ZERO, 1), "{limit}: first");
        assert!(!lim.allow_n(Time::ZERO, 1), "{limit}: second");
        let d = lim.decide(Time::from_secs(3_600), 1);
        assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    }
    let mut tiny = limiter(1e-10, 1);
    tiny.allow_n(Time::ZERO, 1);
    assert_eq!(
        tiny.reserve_n(Time::ZERO, 1).delay_from(Time::ZERO),
        INF_DURATION
    );
}

/// rate_test.go `TestWaitSimple` (after its already-cancelled case): on `NewLimiter(10, 3)`,
/// `WaitN(4)` fails with the burst error, `WaitN(2)` acts now and `WaitN(3)` after 2d; the
/// real `rate.go` waits exactly 200,000,000 ns.
#[test]
fn test_wait_simple_from_rate_test_go() {
    let mut lim = limiter(10.0, 3);
    let err = lim.wait_n(Time::ZERO, 4, None).unwrap_err();
    assert_eq!(err, WaitError::ExceedsBurst { n: 4, burst: 3 });
    assert_eq!(err.message(), "rate: Wait(n=4) exceeds limiter's burst 3");
    assert_eq!(lim.wait_n(Time::ZERO, 2, None), Ok(0));
    assert_eq!(lim.wait_n(Time::ZERO, 3, None), Ok(2 * D_NS));
}

/// rate_test.go `TestWaitTimeout`: with a deadline d away, `WaitN(2)` acts now and `WaitN(3)`
/// fails because the tokens come after the deadline.
#[test]
fn test_wait_timeout_from_rate_test_go() {
    let mut lim = limiter(10.0, 3);
    assert_eq!(lim.wait_n(Time::ZERO, 2, Some(D_NS)), Ok(0));
    let err = lim.wait_n(Time::ZERO, 3, Some(D_NS)).unwrap_err();
    assert_eq!(
        err.message(),
        "rate: Wait(n=3) would exceed context deadline"
    );
}

/// rate_test.go `TestWaitInf`: `NewLimiter(Inf, 0)`: `WaitN(3)` returns at once, no error.
#[test]
fn test_wait_inf_from_rate_test_go() {
    let mut lim = limiter(INF, 0);
    assert_eq!(lim.wait_n(Time::ZERO, 3, None), Ok(0));
    let (d, reply) = lim.decide_with_reply(Time::ZERO, 3);
    assert!(d.allowed());
    assert_eq!(reply.get("reserve_ok"), Some("true"));
}

/// rate_test.go `TestEvery`, within its `closeEnough` (relative 1e-9).
#[test]
fn test_every_from_rate_test_go() {
    let cases: [(i64, f64); 13] = [
        (0, INF),
        (-1, INF),
        (1, 1e9),
        (1_000, 1e6),
        (1_000_000, 1e3),
        (10_000_000, 100.0),
        (100_000_000, 10.0),
        (1_000_000_000, 1.0),
        (2_000_000_000, 0.5),
        (2_500_000_000, 0.4),
        (4_000_000_000, 0.25),
        (10_000_000_000, 0.1),
        (i64::MAX, 1e9 / i64::MAX as f64),
    ];
    for (interval, lim) in cases {
        let got = XTimeRateParams::every(interval);
        assert!((got / lim).abs() - 1.0 < 1e-9, "Every({interval}) = {got}");
    }
}

/// A limit above 1e9 per second passes a call whose missing tokens come back in under 1 ns (the
/// wait truncates to 0). The real `rate.go` with `NewLimiter(1e12, 5)` passes 1,004 calls of 1 at
/// one instant (the burst and then 999 owed, leaving `TokensAt == -999`), and 1,001 after a
/// call of 3. The lab's remaining count says the same.
#[test]
fn a_limit_above_1e9_per_second_passes_calls_whose_tokens_come_back_within_a_nanosecond() {
    let mut lim = limiter(1e12, 5);
    assert_eq!(lim.peek(Time::ZERO, 1).remaining, 1_003);
    let passed = (0..2_000)
        .take_while(|_| lim.allow_n(Time::ZERO, 1))
        .count();
    assert_eq!(passed, 1_004);
    assert_eq!(lim.tokens_at(Time::ZERO), -999.0);

    let mut lim = limiter(1e12, 5);
    assert_eq!(lim.decide(Time::ZERO, 3).remaining, 1_001);
    let passed = (0..2_000)
        .take_while(|_| lim.allow_n(Time::ZERO, 1))
        .count();
    assert_eq!(passed, 1_001);
}

/// The lab's decision and the reply on rate_test.go's `NewLimiter(10, 3)`: after 2 and 1 at t0,
/// `AllowN(t0, 2)` is refused, while `ReserveN` would have been OK with a wait of 200 ms (what
/// `WaitN` would sleep); the lab's `retry_after` is that wait.
#[test]
fn the_reply_carries_allow_the_tokens_and_what_reserve_and_wait_would_answer() {
    let mut lim = limiter(10.0, 3);
    let (d, reply) = lim.decide_with_reply(Time::ZERO, 2);
    assert_eq!((d.verdict, d.remaining, d.limit), (Verdict::Allowed, 1, 3));
    assert_eq!(d.reset_after, Span::from_millis(200));
    assert_eq!(reply.get("tokens"), Some("1"));
    lim.decide(Time::ZERO, 1);
    let (d, reply) = lim.decide_with_reply(Time::ZERO, 2);
    assert_eq!(
        reply.fields,
        vec![
            ("call", "AllowN(t, 2)".to_string()),
            ("allow", "false".to_string()),
            ("tokens", "0".to_string()),
            ("reserve_ok", "true".to_string()),
            ("delay", "200ms".to_string()),
            ("wait_err", "<nil>".to_string()),
        ]
    );
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(d.retry_after, Some(Span::from_millis(200)));
    assert_eq!(d.reset_after, Span::from_millis(300));
    let refused = http_response(&d, &reply);
    assert_eq!((refused.status, refused.reason), (429, "Too Many Requests"));
    assert_eq!(refused.header("Retry-After"), Some("1"));

    let (d, reply) = lim.decide_with_reply(Time::ZERO, 4);
    assert_eq!(reply.get("reserve_ok"), Some("false"));
    assert_eq!(reply.get("delay"), Some("2562047h47m16.854775807s"));
    assert_eq!(
        reply.get("wait_err"),
        Some("rate: Wait(n=4) exceeds limiter's burst 3")
    );
    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    assert_eq!(http_response(&d, &reply).header("Retry-After"), None);
    let ok = http_response(&lim.decide(t(3), 1), &reply);
    assert_eq!((ok.status, ok.headers.len()), (200, 0));
}

/// The lab's defaults: `limit` per `window` is `NewLimiter(Limit(limit / window.Seconds()),
/// limit)`; 10 per second is `NewLimiter(10, 10)`, 60 per minute `NewLimiter(1, 60)`.
#[test]
fn defaults_for_a_limit_per_window_is_that_rate_with_a_burst_of_the_limit() {
    assert_eq!(
        XTimeRateParams::defaults_for(10, Span::from_secs(1)),
        XTimeRateParams::new(10.0, 10)
    );
    assert_eq!(
        XTimeRateParams::defaults_for(60, Span::from_secs(60)),
        XTimeRateParams::new(1.0, 60)
    );
    assert_eq!(
        XTimeRateParams::defaults_for(5, Span::from_millis(1_500)).limit,
        5.0 / 1.5
    );
    assert!(matches!(
        XTimeRate::new(XTimeRateParams::defaults_for(5, Span::ZERO)),
        Err(ConfigError::BadRate(_))
    ));
}

/// The same pseudo-random traces as a test run beside the real `rate.go`: each step moves the
/// time by a random gap (or, in a "jumpy" trace, one step in five back), asks for a random `n`
/// in `0..=b+1`, and hashes (FNV-1a 64) what Go answered: `AllowN`, the bits of `TokensAt`
/// after it, and what `ReserveN` would have answered before it (`OK()`, `DelayFrom`); a second
/// hash takes `TokensAt` as `%v` prints it and the delay as `Duration.String()` does, which the
/// lab's reply must spell alike. The hashes and counts are the real library's.
#[test]
fn random_traces_answer_bit_for_bit_as_the_real_rate_go() {
    // (r, b, largest gap in µs, jumpy, AllowN passes, hash, text hash), as rate.go answered.
    #[rustfmt::skip]
    let cases: [(f64, u64, u64, bool, usize, u64, u64); 16] = [
        (10.0, 3, 200_000, false, 226, 0xc480c1e93e9da84c, 0x1064315cf5d1061a),
        (3.0, 5, 700_000, false, 220, 0x82328e84f4f5ad88, 0x32c5b8928ad4d6bc),
        (0.769_230_769_230_769_3, 1, 3_000_000, false, 254, 0x385b172cd4954d48, 0xbbf16fb4793e1c60),
        (1.0 / 7.0, 2, 9_000_000, false, 217, 0x3fb5582718ff0b95, 0x5959e0b8b598fa48),
        (1e-10, 1, 5_000_000, false, 137, 0xa93e762836b9ff1d, 0x5ac43b23a195d4dc),
        (0.0, 2, 1_000_000, false, 97, 0x9bc1b1a79ff8fc27, 0xeaa86e46dd346f05),
        (123.456, 50, 30_000, false, 99, 0x036e81b34cc96313, 0x1fdd43fbf3a8ff01),
        (1e12, 5, 3, false, 333, 0x0b3c681c038ca197, 0x81f0dedd5fd135f8),
        (2.5, 0, 1_000_000, false, 203, 0xf00b8678161c3bdb, 0x6d0102c0d3196755),
        (-1.0, 3, 1_000_000, false, 94, 0x44cfbd692a4ae87d, 0x73f49e680521dd31),
        (333.3333, 10, 20_000, false, 247, 0x6ec8ef5763668f83, 0x31917a60800f29d3),
        (XTimeRateParams::every(17_000_000), 4, 40_000, false, 223, 0x8307aba242554409, 0xb7a106385c719c72),
        (100.0 / 3.0, 100, 90_000, false, 61, 0xc25384cfd6669dc2, 0x78bed258b2c23ce1),
        (INF, 2, 1_000, false, 400, 0xe642643c438ca745, 0x67eb3b0e6c0bcf75),
        (10.0, 3, 200_000, true, 170, 0x723f402b697a0d8e, 0x2fc35b5bf5ab97fd),
        (1.0 / 7.0, 2, 9_000_000, true, 189, 0xcb37960e1933300f, 0xb9498c90e8490a7a),
    ];
    for (ci, &(limit, burst, gap_max, jumpy, want_allowed, want_hash, want_text)) in
        cases.iter().enumerate()
    {
        let mut x = ci as u64 + 1;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        let fnv = |hash: &mut u64, bytes: &[u8]| {
            for &b in bytes {
                *hash ^= u64::from(b);
                *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        let (mut hash, mut text) = (0xcbf2_9ce4_8422_2325u64, 0xcbf2_9ce4_8422_2325u64);
        let mut lim = limiter(limit, burst);
        let mut lab = lim.clone();
        let mut now = 0u64;
        let mut allowed = 0;
        for step in 0..400 {
            if jumpy && next(5) == 0 {
                now -= next(gap_max * 2 + 1).min(now);
            } else {
                now += next(gap_max + 1);
            }
            let n = next(burst + 2);
            let at = Time(now);
            let (reserve_ok, delay) = lim.would_reserve(at, n);
            let ok = lim.allow_n(at, n);
            allowed += usize::from(ok);
            let tokens = lim.tokens_at(at);
            fnv(&mut hash, &[u8::from(ok)]);
            fnv(&mut hash, &tokens.to_bits().to_le_bytes());
            fnv(&mut hash, &[u8::from(reserve_ok)]);
            fnv(&mut hash, &(delay as u64).to_le_bytes());
            if jumpy {
                fnv(&mut text, go_float(tokens).as_bytes());
                fnv(&mut text, go_duration(delay).as_bytes());
            } else {
                // The lab's own path, and the reply's text as Go prints it.
                let (d, reply) = lab.decide_with_reply(at, n);
                assert_eq!(d.allowed(), ok, "case {ci} step {step}");
                assert_eq!(
                    reply.get("reserve_ok"),
                    Some(reserve_ok.to_string().as_str())
                );
                fnv(
                    &mut text,
                    reply.get("tokens").unwrap_or_default().as_bytes(),
                );
                fnv(&mut text, reply.get("delay").unwrap_or_default().as_bytes());
            }
        }
        assert_eq!(
            (allowed, hash, text),
            (want_allowed, want_hash, want_text),
            "case {ci}"
        );
    }
}

/// Extreme limits, times and costs: no panic, and the figures stay in range.
#[test]
fn extreme_limits_times_and_costs_never_panic() {
    for limit in [INF, 1e300, 1e12, 1.0, 1e-300, 0.0, -5.0, f64::MIN_POSITIVE] {
        for burst in [0, 1, 1_000_000_000] {
            let mut lim = limiter(limit, burst);
            for at in [
                Time::ZERO,
                Time(1),
                Time(u64::MAX - 1),
                Time(u64::MAX),
                Time(5),
            ] {
                for cost in [0, 1, 7, burst, u64::MAX, i64::MAX as u64 + 1] {
                    let (d, reply) = lim.decide_with_reply(at, cost);
                    assert!(
                        d.allowed() || d.retry_after.is_none_or(|w| w.micros() > 0),
                        "{limit} {burst} {at:?} {cost} {d:?}"
                    );
                    assert!(reply.get("tokens").is_some());
                    let _ = lim.gauge(at);
                    let _ = lim.is_at_rest(at);
                    let _ = lim.peek(at, cost);
                }
            }
        }
    }
    let (_, reply) = limiter(1.0, 1).decide_with_reply(Time::ZERO, u64::MAX);
    assert!(reply.get("note").is_some());
    assert_eq!(go_duration(i64::MIN), "-2562047h47m16.854775808s");
}

/// After 292 years without a write `Sub` saturates: a limit so slow that one token needs
/// longer than that never gets it back, in Go and in the lab.
#[test]
fn a_token_that_needs_more_than_292_years_never_comes_back() {
    let mut lim = limiter(1e-10, 1);
    assert!(lim.decide(Time::ZERO, 1).allowed());
    assert!(!lim.peek(Time(u64::MAX), 1).allowed());
    let d = lim.decide(Time::from_secs(1), 1);
    assert_eq!((d.retry_after, d.reset_after), (None, Span(u64::MAX)));
    // 1e-9 per second earns one token in about 31.7 years.
    let mut slow = limiter(1e-9, 1);
    slow.decide(Time::ZERO, 1);
    let d = slow.decide(Time::ZERO, 1);
    let wait = d.retry_after.unwrap();
    assert_eq!(wait.micros().div_ceil(1_000_000), 1_000_000_000);
}

/// Gaps in microseconds, or in whole milliseconds as most traces are written (where the
/// bucket often fills to a whole token exactly on a microsecond), and costs.
fn trace() -> impl Strategy<Value = Vec<(u64, u64)>> {
    let gap = prop_oneof![0u64..400_000, (0u64..400).prop_map(|ms| ms * 1_000)];
    prop::collection::vec((gap, 0u64..5), 1..150)
}

fn params() -> impl Strategy<Value = XTimeRateParams> {
    (
        prop_oneof![
            Just(10.0),
            Just(3.0),
            Just(1.0 / 7.0),
            Just(100.0 / 3.0),
            Just(0.0),
            Just(2e9),
            0.05f64..500.0
        ],
        0u64..8,
    )
        .prop_map(|(limit, burst)| XTimeRateParams::new(limit, burst))
}

proptest! {
    /// The token bucket's promise: in any stretch of `T` seconds, the costs passed add up to at
    /// most `b + r × T`, plus the tokens Go lets a call owe when they come back in under 1 ns.
    #[test]
    fn no_stretch_passes_more_than_the_burst_plus_the_rate_times_its_length(
        p in params(), gaps in trace()
    ) {
        let mut lim = XTimeRate::new(p).unwrap();
        let mut now = 0u64;
        let mut passed: Vec<(u64, u64)> = Vec::new();
        for (gap, cost) in gaps {
            now += gap;
            if lim.decide(Time(now), cost).allowed() {
                passed.push((now, cost));
            }
        }
        for (i, &(start, _)) in passed.iter().enumerate() {
            let mut total = 0u64;
            for &(at, cost) in &passed[i..] {
                total += cost;
                let secs = (at - start) as f64 / 1e6;
                let bound = p.burst as f64 + p.limit * (secs + 1e-9) + 1e-9;
                prop_assert!(total as f64 <= bound, "{} passed from {} to {}", total, start, at);
            }
        }
    }

    /// `peek` is `decide` without the change: it answers the same and leaves the state alone;
    /// `admit` and `decide` change the state alike; the same trace gives the same answers.
    #[test]
    fn peek_changes_nothing_and_admit_and_replays_agree_with_decide(
        p in params(), gaps in trace()
    ) {
        let mut lim = XTimeRate::new(p).unwrap();
        let mut admitting = lim.clone();
        let mut replay = lim.clone();
        let mut now = 0u64;
        for (gap, cost) in gaps {
            now += gap;
            let at = Time(now);
            let peeked = lim.peek(at, cost);
            prop_assert_eq!(lim.peek(at, cost), peeked);
            let (decided, reply) = lim.decide_with_reply(at, cost);
            prop_assert_eq!(peeked, decided);
            prop_assert_eq!(replay.decide(at, cost), decided);
            prop_assert_eq!(admitting.admit(at, cost), decided.verdict);
            prop_assert_eq!(reply.get("allow"), Some(if decided.allowed() { "true" } else { "false" }));
            prop_assert_eq!(admitting.tokens_at(at).to_bits(), lim.tokens_at(at).to_bits());
        }
    }

    /// A refusal's `retry_after` is exact: the same call passes then and not a microsecond
    /// before; `reset_after` is the first moment the limiter is at rest, and a limiter at rest
    /// answers like a fresh one.
    #[test]
    fn retry_and_reset_name_the_exact_microsecond(p in params(), gaps in trace()) {
        let mut lim = XTimeRate::new(p).unwrap();
        let fresh = lim.clone();
        let mut now = 0u64;
        for (gap, cost) in gaps {
            now += gap;
            let at = Time(now);
            let d = lim.decide(at, cost);
            if let Some(wait) = d.retry_after {
                let then = at.plus(wait);
                prop_assert!(lim.peek(then, cost).allowed());
                if wait.micros() > 0 {
                    prop_assert!(!lim.peek(Time(then.micros() - 1), cost).allowed());
                }
            } else if !d.allowed() {
                prop_assert!(cost > p.burst || p.limit <= 0.0);
            }
            if d.reset_after == Span(u64::MAX) {
                // Never: a limit of 0 or less does not refill.
                prop_assert!(p.limit <= 0.0 && !lim.is_at_rest(Time(u64::MAX)));
                continue;
            }
            let rest = at.plus(d.reset_after);
            prop_assert!(lim.is_at_rest(rest));
            if d.reset_after.micros() > 0 {
                prop_assert!(!lim.is_at_rest(Time(rest.micros() - 1)));
            }
            for c in 0..4 {
                prop_assert_eq!(lim.peek(rest, c), fresh.peek(rest, c));
            }
        }
    }
}
