//! The governor profile, checked against governor's own documentation, tests and issues.
#![cfg(not(target_arch = "wasm32"))]

use std::num::NonZeroU32;

use ratelab::core::algorithms::Gcra;
use ratelab::core::config::{ConfigError, Rate, MAX_WINDOW};
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::governor::{Governor, GovernorAnswer, GovernorParams};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn nz(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap()
}

fn limiter(params: GovernorParams) -> Governor {
    Governor::new(params).unwrap()
}

/// governor issue #39: with `Quota::per_second(10)` "for the first few seconds ... around 15ish
/// rp/s make it through"; the maintainer pointed to the burst size. Hammered every millisecond
/// for one second, the burst of 10 passes at once and then one cell every 100 ms (at 100, 200,
/// ..., 900 ms): 19 in the first second, 10 in each second after.
#[test]
fn a_fresh_limiter_lets_the_whole_burst_through_at_once_and_then_one_per_interval() {
    let mut g = limiter(GovernorParams::per_second(10));
    let passed: Vec<u64> = (0..1_000u64)
        .filter(|&ms| g.check(Time::from_millis(ms)) == GovernorAnswer::Ok)
        .collect();
    assert_eq!(passed.len(), 19);
    assert_eq!(&passed[..10], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(
        &passed[10..],
        &[100, 200, 300, 400, 500, 600, 700, 800, 900]
    );
    let next_second = (1_000..2_000u64)
        .filter(|&ms| g.check(Time::from_millis(ms)) == GovernorAnswer::Ok)
        .count();
    assert_eq!(next_second, 10);
}

/// tests/direct.rs `rejects_too_many`: `per_second(2)`, checks 1 ms apart: two pass, the third
/// does not; 1000 ms later two pass again and the next is refused.
#[test]
fn two_per_second_passes_two_then_waits_as_governors_own_test_says() {
    let mut g = limiter(GovernorParams::per_second(2));
    let at = |ms: u64| Time::from_millis(ms);
    assert_eq!(g.check(at(0)), GovernorAnswer::Ok);
    assert_eq!(g.check(at(1)), GovernorAnswer::Ok);
    assert_ne!(g.check(at(2)), GovernorAnswer::Ok);
    assert_eq!(g.check(at(1_002)), GovernorAnswer::Ok);
    assert_eq!(g.check(at(1_003)), GovernorAnswer::Ok);
    assert_ne!(g.check(at(1_004)), GovernorAnswer::Ok);
}

/// tests/direct.rs `all_capacity_check_rejects_excess`: on `per_second(5)`, `check_n` of 15, 7
/// and 6 answer `Err(InsufficientCapacity(5))` (the burst size, not the number asked) and take
/// nothing, so `check_n(5)` still passes; `rejects_too_many_all`: 3 s later 15 is still refused.
#[test]
fn a_batch_above_the_burst_is_insufficient_capacity_named_by_the_burst_and_refused_forever() {
    let mut g = limiter(GovernorParams::per_second(5));
    for n in [15, 7, 6] {
        assert_eq!(
            g.check_n(Time::ZERO, nz(n)),
            GovernorAnswer::InsufficientCapacity(5)
        );
    }
    assert_eq!(g.check_n(Time::ZERO, nz(5)), GovernorAnswer::Ok);
    assert_eq!(
        g.check_n(Time::from_secs(3), nz(15)),
        GovernorAnswer::InsufficientCapacity(5)
    );
    assert_eq!(
        g.check_n(Time::from_secs(3_600), nz(6)),
        GovernorAnswer::InsufficientCapacity(5)
    );

    // The lab's decision: refused with no time to wait, and the reply names the burst.
    let (d, reply) = g.decide_with_reply(Time::from_secs(4_000), 6);
    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    assert_eq!(reply.get("result"), Some("InsufficientCapacity(5)"));
    assert_eq!(reply.get("call"), Some("check_n(6)"));
}

/// gcra.rs `notuntil_impls`: on `per_second(1)` the second check is "rate-limited until
/// Nanos(1s)"; `wait_time_from(now)` is the distance to that moment.
#[test]
fn not_until_names_the_earliest_possible_moment_and_the_wait_from_now() {
    let mut g = limiter(GovernorParams::per_second(1));
    assert_eq!(g.check(Time::ZERO), GovernorAnswer::Ok);
    let answer = g.check(Time::ZERO);
    assert_eq!(
        answer,
        GovernorAnswer::NotUntil {
            earliest_possible_ns: 1_000_000_000
        }
    );
    assert_eq!(answer.earliest_possible(), Some(Time::from_secs(1)));
    assert_eq!(
        answer.wait_time_from(Time::from_millis(250)),
        Some(Span::from_millis(750))
    );

    let (d, reply) = g.decide_with_reply(Time::from_millis(250), 1);
    assert_eq!(d.retry_after, Some(Span::from_millis(750)));
    assert_eq!(reply.get("result"), Some("NotUntil"));
    assert_eq!(reply.get("earliest_possible"), Some("1000"));
    assert_eq!(reply.get("wait"), Some("750"));
}

/// tests/direct.rs `correct_wait_time`: `per_second(5)`, one check per millisecond; whenever one
/// is refused, waiting `wait_time_from(now)` makes the next check pass: 20 of 20 conform.
#[test]
fn waiting_the_named_time_always_lets_the_next_check_through() {
    let mut g = limiter(GovernorParams::per_second(5));
    let mut now = Time::ZERO;
    let mut conforming = 0;
    for _ in 0..20 {
        now = now.plus(Span::from_millis(1));
        match g.check(now) {
            GovernorAnswer::Ok => conforming += 1,
            refused => {
                now = now.plus(refused.wait_time_from(now).unwrap());
                assert_eq!(g.check(now), GovernorAnswer::Ok);
                conforming += 1;
            }
        }
    }
    assert_eq!(conforming, 20);
}

/// tests/direct.rs `does_not_allow_one_extra_cell_after_longer_interval`, the reproducer for
/// governor issues #107 and #249: after a long idle only the burst comes back, not one more.
#[test]
fn after_a_long_idle_the_burst_comes_back_without_an_extra_cell() {
    let mut g = limiter(GovernorParams::per_second(5));
    let count =
        |g: &mut Governor, at: Time| (0..6).filter(|_| g.check(at) == GovernorAnswer::Ok).count();
    assert_eq!(count(&mut g, Time::ZERO), 5);
    assert_eq!(count(&mut g, Time::from_secs(2)), 5);
}

/// quota.rs documentation: `per_second(50)` replenishes every 20 ms with a burst of 50;
/// `per_hour(2).allow_burst(90)` replenishes every 30 minutes and the whole burst is restored
/// after 45 hours of inactivity, so 45 h after a full burst 90 pass again, at 44.5 h only 89.
#[test]
fn the_quota_documentation_examples_hold() {
    assert_eq!(
        GovernorParams::per_second(50),
        GovernorParams {
            replenish_1_per_ns: 20_000_000,
            burst: 50
        }
    );
    let per_hour_2 = GovernorParams::per_period(2, Span::from_secs(3_600)).allow_burst(90);
    assert_eq!(per_hour_2.replenish_1_per_ns, 30 * 60 * 1_000_000_000);
    let burst_at = |hours_x2: u64| {
        let mut g = limiter(per_hour_2);
        for _ in 0..90 {
            assert_eq!(g.check(Time::ZERO), GovernorAnswer::Ok);
        }
        let at = Time::from_secs(hours_x2 * 1_800);
        (0..100)
            .filter(|_| g.check(at) == GovernorAnswer::Ok)
            .count()
    };
    assert_eq!(burst_at(90), 90);
    assert_eq!(burst_at(89), 89);
}

/// quota.rs: `per_second(n)` is `Duration::from_secs(1).as_nanos() / n` in whole nanoseconds, so
/// `per_second(3)` replenishes every 333,333,333 ns. After the burst and 2,999 cells paced at the
/// exact rate, the 3,000th paced cell conforms at 999,999,999 µs in governor (3,000 × 333,333,333
/// ns) while the core GCRA, exact to the fraction, waits until 1,000,000,000 µs.
#[test]
fn the_truncated_interval_lets_a_cell_through_a_microsecond_before_the_exact_rate() {
    let mut g = limiter(GovernorParams::per_second(3));
    let mut exact = Gcra::new(Rate::new(3, Span::from_secs(1)).unwrap(), 3).unwrap();
    for _ in 0..3 {
        assert!(g.decide(Time::ZERO, 1).allowed());
        assert!(exact.decide(Time::ZERO, 1).allowed());
    }
    for j in 1..3_000u64 {
        // The j-th cell after the burst, at the first microsecond of the exact schedule.
        let at = Time((j * 1_000_000).div_ceil(3));
        assert!(g.decide(at, 1).allowed(), "governor at cell {j}");
        assert!(exact.decide(at, 1).allowed(), "exact at cell {j}");
    }
    let at = Time(999_999_999);
    assert!(g.peek(at, 1).allowed());
    assert!(!exact.peek(at, 1).allowed());
    assert_eq!(g.decide(Time(999_999_998), 1).retry_after, Some(Span(1)));
}

/// The lab's defaults: `limit` per `window` is governor's `Quota::per_second(limit)` for a
/// one-second window, and `per_minute(60)` (one cell a second, burst 60) for 60 per minute.
#[test]
fn defaults_for_a_limit_per_window_is_one_cell_per_window_over_limit_with_a_burst_of_limit() {
    assert_eq!(
        GovernorParams::defaults_for(10, Span::from_secs(1)),
        GovernorParams::per_second(10)
    );
    assert_eq!(
        GovernorParams::defaults_for(60, Span::from_secs(60)),
        GovernorParams {
            replenish_1_per_ns: 1_000_000_000,
            burst: 60
        }
    );
}

/// middleware.rs: with `per_hour(1)` the first check reports `remaining_burst_capacity() == 0`;
/// with `per_second(5)` the first leaves 4, and a batch of 2 then leaves 2.
#[test]
fn an_allowed_reply_reports_the_remaining_burst_capacity() {
    let mut hourly = limiter(GovernorParams::per_period(1, Span::from_secs(3_600)));
    let (d, reply) = hourly.decide_with_reply(Time::ZERO, 1);
    assert_eq!(
        (reply.get("result"), reply.get("remaining_burst_capacity")),
        (Some("Ok(())"), Some("0"))
    );
    assert_eq!(d.remaining, 0);

    let mut g = limiter(GovernorParams::per_second(5));
    assert_eq!(
        g.decide_with_reply(Time::ZERO, 1)
            .1
            .get("remaining_burst_capacity"),
        Some("4")
    );
    let (d, reply) = g.decide_with_reply(Time::ZERO, 2);
    assert_eq!(
        (d.remaining, reply.get("remaining_burst_capacity")),
        (2, Some("2"))
    );
    assert_eq!(d.limit, 5);
}

/// governor 0.10's tests/middleware.rs: `state_information` (`per_second(4)`: 3, 2, 1, 0 left,
/// then refused) and `state_snapshot_tracks_quota_accurately` (one cell per 90 ms, burst 2: 1,
/// 0, refused; again after 120 s). The snapshot's cap, `tau + T`, is governor's.
#[test]
fn the_remaining_burst_capacity_follows_governors_middleware_tests() {
    let left = |g: &mut Governor, at: Time| {
        g.decide_with_reply(at, 1)
            .1
            .get("remaining_burst_capacity")
            .map(str::to_string)
    };
    let mut g = limiter(GovernorParams::per_second(4));
    for expected in ["3", "2", "1", "0"] {
        assert_eq!(left(&mut g, Time::ZERO).as_deref(), Some(expected));
    }
    assert_eq!(
        g.decide_with_reply(Time::ZERO, 1).1.get("result"),
        Some("NotUntil")
    );

    let mut g = limiter(
        GovernorParams::with_period_ns(90_000_000)
            .unwrap()
            .allow_burst(2),
    );
    for at in [Time::ZERO, Time::from_secs(120)] {
        assert_eq!(left(&mut g, at).as_deref(), Some("1"));
        assert_eq!(left(&mut g, at).as_deref(), Some("0"));
        assert_eq!(g.decide_with_reply(at, 1).1.get("result"), Some("NotUntil"));
    }
}

/// governor 0.10's `retain_recent()` (state/keyed.rs): a key is dropped once its TAT is at or
/// before `now - T`, one interval after it started to decide like a fresh key. The lab forgets
/// a governor key (`is_at_rest`) at the same moment.
#[test]
fn a_key_is_forgotten_one_interval_after_its_arrival_time_as_retain_recent_does() {
    let mut g = limiter(GovernorParams::per_second(2));
    assert!(g.is_at_rest(Time::ZERO), "a key never seen holds nothing");
    assert_eq!(g.check(Time::from_secs(10)), GovernorAnswer::Ok);
    // TAT 10.5 s, T 0.5 s: fresh-like from 10.5 s, dropped from 11 s.
    let fresh = || limiter(GovernorParams::per_second(2));
    assert_eq!(
        g.peek(Time::from_millis(10_500), 2),
        fresh().peek(Time::from_millis(10_500), 2)
    );
    assert!(!g.is_at_rest(Time::from_millis(10_500)));
    assert!(!g.is_at_rest(Time(10_999_999)));
    assert!(g.dropped_by_retain_recent(Time::from_secs(11)));
    assert!(g.is_at_rest(Time::from_secs(11)));
    // Near the limiter's start `now - T` saturates at 0, below any stored TAT.
    let mut early = limiter(GovernorParams::per_second(1));
    assert_eq!(early.check(Time::ZERO), GovernorAnswer::Ok);
    assert!(!early.dropped_by_retain_recent(Time(999_999)));
    assert!(early.dropped_by_retain_recent(Time::from_secs(2)));
}

/// `check_n` takes a `NonZeroU32`: a batch of 0 cannot be asked. The profile answers it Ok and
/// takes nothing, and says so in the reply.
#[test]
fn a_cost_of_zero_passes_and_takes_nothing_since_governor_cannot_ask_it() {
    let mut g = limiter(GovernorParams::per_second(2));
    g.decide(Time::ZERO, 2);
    let (d, reply) = g.decide_with_reply(Time::ZERO, 0);
    assert_eq!(d.verdict, Verdict::Allowed);
    assert_eq!(reply.get("result"), Some("Ok(())"));
    assert!(reply.get("note").is_some());
    assert!(!g.peek(Time::ZERO, 1).allowed(), "the burst is still spent");
    assert!(
        g.peek(Time::from_millis(500), 1).allowed(),
        "and comes back on schedule, not later"
    );
}

/// A refusal's `retry_after` is exact: the same call passes at that moment and not a
/// microsecond before (the core's contract, met here through `NotUntil`).
#[test]
fn a_refusal_names_the_exact_microsecond_the_same_call_conforms() {
    let mut seed: u64 = 7;
    let mut next = move |m: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % m
    };
    for params in [
        GovernorParams::per_second(3),
        GovernorParams::per_second(7).allow_burst(2),
        GovernorParams::per_period(5, Span(1_234_567)),
    ] {
        let mut g = limiter(params);
        let mut now = 0u64;
        for _ in 0..400 {
            now += next(200_000);
            let cost = 1 + next(3);
            let d = g.decide(Time(now), cost);
            if let Some(wait) = d.retry_after {
                let at = Time(now).plus(wait);
                assert!(g.peek(at, cost).allowed(), "{params:?} at {at:?}");
                assert!(
                    !g.peek(Time(at.micros() - 1), cost).allowed(),
                    "{params:?} before {at:?}"
                );
            }
        }
    }
}

/// Times earlier than one already seen are taken as that later time: no panic, no state moved
/// back, and the answer is the one at the later time.
#[test]
fn time_going_backwards_neither_panics_nor_moves_the_state_back() {
    let mut g = limiter(GovernorParams::per_second(1));
    assert!(g.decide(Time::from_secs(10), 1).allowed());
    let d = g.decide(Time::from_secs(1), 1);
    assert_eq!(
        (d.verdict, d.retry_after),
        (Verdict::Rejected, Some(Span::from_secs(1)))
    );
    assert_eq!(
        g.check(Time::ZERO),
        GovernorAnswer::NotUntil {
            earliest_possible_ns: 11_000_000_000
        }
    );
    assert!(!g.is_at_rest(Time::ZERO));
    // TAT 11 s and T 1 s: retain_recent drops the key from 12 s.
    assert!(!g.is_at_rest(Time::from_secs(11)));
    assert!(g.is_at_rest(Time::from_secs(12)));
}

/// Extreme quotas and times: a burst of 10^9 with a clamped 1 ns interval, the longest interval,
/// `u64::MAX` microseconds and costs, all without panic or overflow; a quota whose tolerance
/// overflows governor's u64 nanoseconds is refused instead.
#[test]
fn extreme_quotas_times_and_costs_never_panic_or_overflow() {
    let mut huge = limiter(GovernorParams::per_second(1_000_000_000));
    assert_eq!(huge.replenish_interval_ns(), 1);
    assert_eq!(huge.decide(Time::ZERO, 1_000_000_000).remaining, 0);
    assert!(
        huge.decide(Time(1), 1_000).allowed(),
        "1 µs brings back 1,000 cells of 1 ns"
    );
    for t in [Time(u64::MAX), Time(u64::MAX - 1), Time::ZERO] {
        for cost in [0, 1, 7, u64::from(u32::MAX), u64::MAX] {
            let d = huge.decide(t, cost);
            assert!(d.remaining <= d.limit);
            let _ = huge.gauge(t);
        }
    }
    assert_eq!(
        huge.check_n(Time(u64::MAX), nz(u32::MAX)),
        GovernorAnswer::InsufficientCapacity(1_000_000_000)
    );

    let longest_ns = MAX_WINDOW.micros() * 1_000;
    let mut slow = limiter(
        GovernorParams::with_period_ns(longest_ns)
            .unwrap()
            .allow_burst(500),
    );
    for t in [Time::ZERO, Time(u64::MAX)] {
        let d = slow.decide(t, 500);
        assert!(d.allowed());
        let d = slow.decide(t, 1);
        assert!(d.retry_after.is_some());
    }
    let overflowing = GovernorParams::with_period_ns(longest_ns)
        .unwrap()
        .allow_burst(1_000_000_000);
    assert!(matches!(
        Governor::new(overflowing),
        Err(ConfigError::Unsupported(_))
    ));
    assert_eq!(
        Governor::new(GovernorParams::per_second(1_000_000_001)).unwrap_err(),
        ConfigError::TooLarge("burst")
    );
}
