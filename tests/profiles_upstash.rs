//! The Upstash ratelimit profile, checked against the library's scripts, documentation and the
//! pull requests that describe its behaviour.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::algorithms::SlidingCounter;
use ratelab::core::config::{ConfigError, Quota, MAX_WINDOW};
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::upstash::{
    Upstash, UpstashKind, UpstashParams, UpstashReason, UpstashReply,
};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn build(params: UpstashParams) -> Upstash {
    Upstash::new(params).unwrap()
}

fn ms(ms: u64) -> Time {
    Time::from_millis(ms)
}

fn secs(s: u64) -> Span {
    Span::from_secs(s)
}

/// How many of `n` calls of cost 1 at `at` succeed.
fn passes(limiter: &mut Upstash, at: Time, n: usize) -> usize {
    (0..n).filter(|_| limiter.limit(at, 1).success).count()
}

fn reply(success: bool, limit: u64, remaining: u64, reset: u64) -> UpstashReply {
    UpstashReply {
        success,
        limit,
        remaining,
        reset,
        reason: None,
    }
}

// ---- fixedWindow ----------------------------------------------------------------------------

/// lua-scripts/single.ts: the fixed window's script INCRBYs before the client compares, so a
/// refused call is still counted: with `fixedWindow(10, "10 s")` and no cache, 12 calls leave a
/// count of 12 and `remaining` stuck at `max(0, 10 - 12) = 0`.
#[test]
fn a_fixed_window_counts_refused_calls_too_so_the_count_grows_past_the_limit() {
    let mut fw = build(UpstashParams::fixed_window(10, secs(10)).with_ephemeral_cache(false));
    for i in 1..=10 {
        assert_eq!(fw.limit(ms(1_000), 1), reply(true, 10, 10 - i, 10_000));
    }
    assert_eq!(fw.limit(ms(1_000), 1), reply(false, 10, 0, 10_000));
    assert_eq!(fw.limit(ms(1_000), 1), reply(false, 10, 0, 10_000));
    assert_eq!(fw.gauge(ms(1_000)).level, 12.0);
}

/// single.ts: `reset = (bucket + 1) * windowDuration` with `bucket = floor(Date.now() / w)`:
/// windows are aligned to the epoch (the lab's time 0), not to the first call. A call at
/// 12.345 s in a 10 s window resets at 20,000 ms.
#[test]
fn reset_is_the_end_of_the_epoch_aligned_window_in_milliseconds() {
    let mut fw = build(UpstashParams::fixed_window(3, secs(10)));
    assert_eq!(fw.limit(ms(12_345), 1), reply(true, 3, 2, 20_000));
    let (d, r) = fw.decide_with_reply(ms(19_999), 1);
    assert_eq!(r.get("reset"), Some("20000"));
    assert_eq!(
        d.reset_after,
        Span::from_millis(1),
        "the count is forgotten at 20 s"
    );
}

/// The algorithms page: a fixed window "can cause high bursts at the window boundaries to leak
/// through": 10 calls at 9.9 s and 10 at 10.0 s all pass, 20 in 100 ms under a limit of 10.
#[test]
fn a_burst_straddling_the_window_edge_passes_twice_the_limit() {
    let mut fw = build(UpstashParams::fixed_window(10, secs(10)));
    assert_eq!(passes(&mut fw, ms(9_900), 10), 10);
    assert_eq!(passes(&mut fw, ms(10_000), 10), 10);
}

/// cache.ts `isBlocked`: after a refusal the identifier is blocked while `reset >= Date.now()`,
/// and blocked calls never reach Redis. So with the default cache the fixed window counts only
/// the first refused call (11), not all 15 as without it; and at exactly the reset millisecond
/// the key is still blocked, passing only 1 ms later (without the cache it passes at the reset).
#[test]
fn the_ephemeral_cache_answers_blocked_calls_locally_so_the_fixed_window_stops_counting_them() {
    let mut cached = build(UpstashParams::fixed_window(10, secs(10)));
    let mut uncached = build(UpstashParams::fixed_window(10, secs(10)).with_ephemeral_cache(false));
    for fw in [&mut cached, &mut uncached] {
        assert_eq!(passes(fw, ms(1_000), 10), 10);
    }
    let first = cached.limit(ms(1_000), 1);
    assert_eq!(
        (first.success, first.reason),
        (false, None),
        "the first refusal comes from Redis"
    );
    for _ in 0..4 {
        let blocked = cached.limit(ms(1_000), 1);
        assert_eq!(
            blocked,
            UpstashReply {
                success: false,
                limit: 10,
                remaining: 0,
                reset: 10_000,
                reason: Some(UpstashReason::CacheBlock)
            }
        );
        assert_eq!(uncached.limit(ms(1_000), 1).reason, None);
    }
    assert_eq!(uncached.limit(ms(1_000), 1).reason, None);
    assert_eq!(cached.gauge(ms(1_000)).level, 11.0);
    assert_eq!(uncached.gauge(ms(1_000)).level, 15.0);

    // The blocked reply spells the reason; the retry time is the millisecond after the reset.
    let (d, r) = cached.decide_with_reply(ms(2_000), 1);
    assert_eq!(r.get("reason"), Some("cacheBlock"));
    assert_eq!(d.retry_after, Some(Span::from_millis(8_001)));
    assert_eq!(
        uncached.decide(ms(2_000), 1).retry_after,
        Some(Span::from_millis(8_000))
    );

    assert_eq!(
        cached.limit(ms(10_000), 1).reason,
        Some(UpstashReason::CacheBlock)
    );
    assert!(cached.limit(ms(10_001), 1).success);
    assert!(uncached.limit(ms(10_000), 1).success);
}

// ---- slidingWindow --------------------------------------------------------------------------

/// ratelimit-js pull request #61 (the sliding-window fix): "10% into the current window with the
/// number of requests equal to 10, and there were 50 requests in the previous window with the
/// max tokens of 100": the previous window weighs 50 × 0.9 = 45, so 100 - (10 + 45) = 45 remain.
#[test]
fn the_previous_window_is_weighted_by_the_part_of_it_still_inside_the_sliding_window() {
    let mut sw = build(UpstashParams::sliding_window(100, secs(10)));
    assert_eq!(passes(&mut sw, ms(5_000), 50), 50);
    let mut last = None;
    for _ in 0..10 {
        last = Some(sw.limit(ms(11_000), 1));
    }
    assert_eq!(last, Some(reply(true, 100, 45, 20_000)));
}

/// lua-scripts/single.ts: the sliding window answers -1 before its INCRBY, so refused calls of
/// cost 1 are not counted. 15 calls against 10 leave a count of 10; halfway through the next
/// window that weighs floor(0.5 × 10) = 5, so 5 more pass (3 would, had all 15 been counted).
#[test]
fn a_sliding_window_does_not_count_refused_calls_of_cost_one() {
    let mut sw = build(UpstashParams::sliding_window(10, secs(10)).with_ephemeral_cache(false));
    assert_eq!(passes(&mut sw, ms(500), 15), 10);
    assert_eq!(passes(&mut sw, ms(15_000), 10), 5);
}

/// The script weighs the previous window in Lua doubles, `floor((1 - 9000 / 10000) × 10)`, which
/// is `floor(0.9999999999999998) = 0`: 9 s into a 10 s window the previous 10 calls weigh
/// nothing, so 10 calls pass where the exact weight (1) lets 9 through, as the core's sliding
/// counter does.
#[test]
fn lua_doubles_weigh_ten_previous_calls_as_zero_nine_tenths_into_the_window() {
    let mut sw = build(UpstashParams::sliding_window(10, secs(10)));
    let mut exact = SlidingCounter::new(Quota::new(10, secs(10)).unwrap());
    assert_eq!(passes(&mut sw, ms(5_000), 10), 10);
    assert_eq!(
        (0..10)
            .filter(|_| exact.decide(ms(5_000), 1).allowed())
            .count(),
        10
    );
    assert_eq!(passes(&mut sw, ms(19_000), 12), 10);
    assert_eq!(
        (0..12)
            .filter(|_| exact.decide(ms(19_000), 1).allowed())
            .count(),
        9
    );
}

// ---- costly calls: pull requests #156 and #161 -----------------------------------------------

/// ratelimit-js pull request #161 (open), its table for a limit of 10: use 8, ask for 5 (refused),
/// then ask for 1. Today fixedWindow and slidingWindow answer "0 / rejected": the refused 5 was
/// counted; tokenBucket, since #156, answers "0 / allowed": the refused 5 took nothing. Without
/// the ephemeral cache, which would refuse the follow-up locally in all three.
#[test]
fn a_refused_costly_call_burns_the_window_but_not_the_token_bucket() {
    for kind in [
        UpstashKind::FixedWindow,
        UpstashKind::SlidingWindow,
        UpstashKind::TokenBucket,
    ] {
        let params = UpstashParams::defaults_for(kind, 10, secs(10));
        let mut plain = build(params.with_ephemeral_cache(false));
        assert_eq!(
            plain.limit(ms(1_000), 8),
            reply(
                true,
                10,
                2,
                10_000
                    + if kind == UpstashKind::TokenBucket {
                        1_000
                    } else {
                        0
                    }
            )
        );
        let refused = plain.limit(ms(1_000), 5);
        assert_eq!((refused.success, refused.remaining), (false, 0), "{kind:?}");
        let follow_up = plain.limit(ms(1_000), 1);
        assert_eq!(
            follow_up.success,
            kind == UpstashKind::TokenBucket,
            "{kind:?}"
        );

        let mut cached = build(params);
        cached.limit(ms(1_000), 8);
        cached.limit(ms(1_000), 5);
        assert_eq!(
            cached.limit(ms(1_000), 1).reason,
            Some(UpstashReason::CacheBlock),
            "{kind:?}"
        );
    }
}

/// The sliding window's check `weighted + current >= tokens` leaves out the cost: at 8 of 10 a
/// call of 5 passes the check, is INCRBY'd to 13, and only then answers negative: refused yet
/// counted, so the window is shut for single calls too.
#[test]
fn a_sliding_window_counts_a_costly_call_that_overshoots_and_refuses_it() {
    let mut sw = build(UpstashParams::sliding_window(10, secs(10)).with_ephemeral_cache(false));
    sw.limit(ms(1_000), 8);
    assert!(!sw.limit(ms(1_000), 5).success);
    assert_eq!(sw.gauge(ms(1_000)).level, 13.0);
}

// ---- tokenBucket ----------------------------------------------------------------------------

/// `tokenBucket(5, "10 s", 10)`, the signature's own example. The method's documentation says a
/// refill rate of 5 per 10 s "will cause a new token to be added every 2 seconds"; the script
/// adds `floor(elapsed / interval) × refillRate`, so nothing comes back for 10 s and then all 5
/// at once. A new bucket "starts with" `maxTokens`: 10 pass at once.
#[test]
fn a_token_bucket_starts_full_and_refills_whole_intervals_at_once_not_a_token_every_two_seconds() {
    let mut tb = build(UpstashParams::token_bucket(5, secs(10), 10).with_ephemeral_cache(false));
    assert_eq!(passes(&mut tb, Time::ZERO, 10), 10);
    assert_eq!(tb.limit(Time::ZERO, 1), reply(false, 10, 0, 10_000));
    for t in [2_000, 4_000, 6_000, 8_000, 9_999] {
        assert!(!tb.limit(ms(t), 1).success, "nothing at {t} ms");
    }
    assert_eq!(passes(&mut tb, ms(10_000), 6), 5);
    assert_eq!(tb.limit(ms(10_000), 1).reset, 20_000);
}

/// The script stores `refilledAt` and moves it by whole intervals: refills are locked to the
/// key's first call, not to the clock. A bucket first used at 3 s refills at 13 s, not at 10 s.
#[test]
fn token_bucket_refills_are_phase_locked_to_the_first_call() {
    let mut tb = build(UpstashParams::token_bucket(5, secs(10), 5).with_ephemeral_cache(false));
    assert_eq!(passes(&mut tb, ms(3_000), 5), 5);
    assert_eq!(tb.limit(ms(12_999), 1), reply(false, 5, 0, 13_000));
    assert_eq!(tb.limit(ms(13_000), 1), reply(true, 5, 4, 23_000));
}

/// Pull request #156 (merged): a call asking for more tokens than are left is refused without
/// taking any. With 2 left, 5 is refused and 2 still pass; a call above `maxTokens` can never
/// pass, so it names no retry time.
#[test]
fn a_token_bucket_refuses_an_oversized_call_without_taking_tokens() {
    let mut tb = build(UpstashParams::token_bucket(10, secs(10), 10).with_ephemeral_cache(false));
    tb.limit(Time::ZERO, 8);
    assert_eq!(tb.limit(Time::ZERO, 5), reply(false, 10, 0, 10_000));
    assert_eq!(tb.limit(Time::ZERO, 2), reply(true, 10, 0, 10_000));
    let d = tb.decide(Time::ZERO, 11);
    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
}

/// The script PEXPIREs the key for `ceil((maxTokens - remaining) / refillRate) × interval`; a key
/// gone from Redis comes back as a full bucket refilled *now*. `tokenBucket(1, "10 s", 2)` used
/// once at 0 expires at 10 s; at 25 s the bucket restarts there, so `reset` is 35,000, not the
/// 30,000 the original schedule (refills at 10 s and 20 s) would give.
#[test]
fn an_expired_token_bucket_comes_back_full_with_a_new_phase() {
    let mut tb = build(UpstashParams::token_bucket(1, secs(10), 2).with_ephemeral_cache(false));
    assert_eq!(tb.limit(Time::ZERO, 1), reply(true, 2, 1, 10_000));
    assert!(
        !tb.is_at_rest(ms(10_000)),
        "Redis keeps a key until now > its expiry"
    );
    assert!(tb.is_at_rest(ms(10_001)));
    assert_eq!(tb.limit(ms(25_000), 1), reply(true, 2, 1, 35_000));
}

/// With the cache, a bucket refused at 0 is blocked until its reset (10 s) inclusive; at 10.001 s
/// the refill of 5 is there.
#[test]
fn a_cached_token_bucket_refusal_blocks_through_the_reset_millisecond() {
    let mut tb = build(UpstashParams::token_bucket(5, secs(10), 10));
    assert_eq!(passes(&mut tb, Time::ZERO, 11), 10);
    let (d, _) = tb.decide_with_reply(ms(1), 1);
    assert_eq!(
        d.retry_after,
        Some(Span::from_millis(10_000)),
        "from 1 ms to the millisecond after the reset"
    );
    assert_eq!(
        tb.limit(ms(10_000), 1).reason,
        Some(UpstashReason::CacheBlock)
    );
    assert_eq!(passes(&mut tb, ms(10_001), 6), 5);
}

// ---- the timeout ----------------------------------------------------------------------------

/// ratelimit.ts: `timeout` defaults to 5000 ms and races Redis; the loser is not cancelled. With a
/// round trip of 5 s every call resolves `{success: true, limit: 0, remaining: 0, reset: 0,
/// reason: "timeout"}` (the Features page: "allowed to pass regardless of what the current limit
/// is"), yet the script still counts each one, and the late refusal of the third call (sent at
/// 2 s) still blocks the key in the cache when it lands at 7 s: from then on calls are refused
/// from the cache.
#[test]
fn a_redis_round_trip_at_the_timeout_fails_open_while_the_script_still_counts() {
    let params = UpstashParams::fixed_window(2, secs(60)).with_redis_latency(secs(5));
    let mut fw = build(params);
    let timeout = UpstashReply {
        success: true,
        limit: 0,
        remaining: 0,
        reset: 0,
        reason: Some(UpstashReason::Timeout),
    };
    for t in [0, 1_000, 2_000, 3_000, 6_999] {
        assert_eq!(fw.limit(ms(t), 1), timeout, "at {t} ms");
    }
    assert_eq!(fw.gauge(ms(6_999)).level, 5.0, "Redis counted all five");
    let (d, r) = fw.decide_with_reply(ms(7_000), 1);
    assert_eq!(r.get("reason"), Some("cacheBlock"));
    assert_eq!(r.get("reset"), Some("60000"));
    assert_eq!(d.retry_after, Some(Span::from_millis(53_001)));

    let mut no_cache = build(params.with_ephemeral_cache(false));
    assert!(
        (0..20).all(|i| no_cache.limit(ms(i * 1_000), 1).reason == Some(UpstashReason::Timeout))
    );
    assert_eq!(no_cache.gauge(ms(19_000)).level, 20.0);
}

/// A round trip just under the timeout is answered by Redis; a timeout of 0 turns the race off
/// (`if (this.timeout > 0)`), so even a 10 s round trip is waited for.
#[test]
fn redis_answers_when_it_beats_the_timeout_or_when_the_timeout_is_off() {
    for params in [
        UpstashParams::fixed_window(2, secs(60)).with_redis_latency(Span::from_millis(4_999)),
        UpstashParams::fixed_window(2, secs(60))
            .with_redis_latency(secs(10))
            .with_timeout(Span::ZERO),
    ] {
        let mut fw = build(params);
        assert_eq!(fw.limit(Time::ZERO, 1), reply(true, 2, 1, 60_000));
        assert_eq!(fw.limit(Time::ZERO, 1), reply(true, 2, 0, 60_000));
        assert_eq!(fw.limit(Time::ZERO, 1), reply(false, 2, 0, 60_000));
    }
}

// ---- shape, defaults, the lab's contracts ---------------------------------------------------

/// types.ts `RatelimitResponse`: `success`, `limit`, `remaining`, `reset` in that order, and
/// `reason` only when the reply did not come from Redis.
#[test]
fn the_reply_spells_the_librarys_fields_in_its_order() {
    let mut fw = build(UpstashParams::fixed_window(1, secs(10)));
    let names = |r: &ratelab::core::profiles::ProductReply| {
        r.fields.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    };
    let (_, first) = fw.decide_with_reply(Time::ZERO, 1);
    assert_eq!(names(&first), ["success", "limit", "remaining", "reset"]);
    assert_eq!(first.get("success"), Some("true"));
    fw.decide(Time::ZERO, 1);
    let (_, blocked) = fw.decide_with_reply(Time::ZERO, 1);
    assert_eq!(
        names(&blocked),
        ["success", "limit", "remaining", "reset", "reason"]
    );
}

/// The Features page: `ephemeralCache` "will be initialized with new Map() if no value is
/// provided"; ratelimit.ts: `timeout ?? 5000`. The lab's defaults keep both, and map "limit per
/// window" to each algorithm's own parameters.
#[test]
fn defaults_for_keeps_the_librarys_defaults_and_maps_limit_per_window() {
    let fw = UpstashParams::defaults_for(UpstashKind::FixedWindow, 10, secs(60));
    assert_eq!(fw, UpstashParams::fixed_window(10, secs(60)));
    assert_eq!(
        (fw.timeout, fw.redis_latency, fw.ephemeral_cache),
        (secs(5), Span::ZERO, true)
    );
    assert_eq!(
        UpstashParams::defaults_for(UpstashKind::SlidingWindow, 10, secs(60)),
        UpstashParams::sliding_window(10, secs(60))
    );
    assert_eq!(
        UpstashParams::defaults_for(UpstashKind::TokenBucket, 10, secs(60)),
        UpstashParams::token_bucket(10, secs(60), 10)
    );
    // Durations are whole milliseconds: a window with a fraction is rounded down, to 1 ms at least.
    assert_eq!(
        UpstashParams::defaults_for(UpstashKind::FixedWindow, 5, Span(1_500)),
        UpstashParams::fixed_window(5, Span::from_millis(1))
    );
    assert_eq!(
        UpstashParams::defaults_for(UpstashKind::FixedWindow, 5, Span(10)),
        UpstashParams::fixed_window(5, Span::from_millis(1))
    );
    assert!(matches!(
        Upstash::new(UpstashParams::fixed_window(5, Span(1_500))),
        Err(ConfigError::Unsupported(_))
    ));
}

/// A tiny deterministic generator for the randomised checks.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, m: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % m
    }
}

fn variety() -> Vec<UpstashParams> {
    let mut all = Vec::new();
    for base in [
        UpstashParams::fixed_window(3, Span::from_millis(700)),
        UpstashParams::sliding_window(4, Span::from_millis(900)),
        UpstashParams::sliding_window(1, Span::from_millis(13)),
        UpstashParams::token_bucket(2, Span::from_millis(500), 5),
        UpstashParams::token_bucket(1, Span::from_millis(300), 1),
    ] {
        for cache in [true, false] {
            for latency in [0, 120_000, 5_000_000] {
                all.push(
                    base.with_ephemeral_cache(cache)
                        .with_redis_latency(Span(latency)),
                );
            }
        }
    }
    all
}

/// The lab's contract for a refusal's `retry_after`: the same call passes at that moment and not
/// a microsecond before, through the window, the weights, the refills, key expiry, the cache and
/// late refusals still on their way back.
#[test]
fn a_refusal_names_the_exact_microsecond_the_same_call_would_pass() {
    let mut rng = Lcg(11);
    for params in variety() {
        let mut limiter = build(params);
        let mut now = 0u64;
        for _ in 0..300 {
            now += rng.below(150_000);
            let cost = 1 + rng.below(3);
            let d = limiter.decide(Time(now), cost);
            assert_eq!(
                limiter.peek(Time(now), cost),
                limiter.clone().decide(Time(now), cost)
            );
            if let Some(wait) = d.retry_after {
                let at = Time(now).plus(wait);
                assert!(
                    limiter.peek(at, cost).allowed(),
                    "{params:?}: not allowed at {at:?}"
                );
                if at.micros() > now {
                    assert!(
                        !limiter.peek(Time(at.micros() - 1), cost).allowed(),
                        "{params:?}: allowed before {at:?}"
                    );
                }
            }
        }
    }
}

/// `is_at_rest` means the identifier may be forgotten: from then on a fresh limiter decides
/// every call exactly as the one that remembers.
#[test]
fn a_limiter_at_rest_decides_like_a_fresh_one() {
    let mut rng = Lcg(5);
    for params in variety() {
        let mut limiter = build(params);
        let mut now = 0u64;
        for _ in 0..200 {
            now += rng.below(400_000);
            limiter.decide(Time(now), 1 + rng.below(2));
            let probe = Time(now + rng.below(3_000_000));
            if limiter.is_at_rest(probe) {
                let mut remembered = limiter.clone();
                let mut fresh = build(params);
                for step in 0..6u64 {
                    let at = Time(probe.micros() + step * 97_000);
                    assert_eq!(
                        remembered.decide(at, 1),
                        fresh.decide(at, 1),
                        "{params:?} at {at:?}"
                    );
                }
            }
        }
    }
}

/// Times earlier than one already seen are taken as that later time: a call "at 5 s" after one
/// at 15 s is decided in the 10-20 s window, not in the 0-10 s window it names.
#[test]
fn time_going_backwards_neither_panics_nor_moves_the_state_back() {
    let mut fw = build(UpstashParams::fixed_window(1, secs(10)).with_ephemeral_cache(false));
    assert!(fw.limit(ms(15_000), 1).success);
    assert_eq!(fw.limit(ms(5_000), 1), reply(false, 1, 0, 20_000));
    let mut tb = build(UpstashParams::token_bucket(1, secs(10), 1));
    assert!(tb.limit(ms(15_000), 1).success);
    assert!(!tb.limit(Time::ZERO, 1).success);
    assert!(!tb.is_at_rest(Time::ZERO));
}

/// Extreme parameters and times: 10^9 tokens, 1 ms windows, the longest window, costs up to
/// `u64::MAX`, times up to `u64::MAX` µs and a round trip of `u64::MAX` µs, without a panic.
#[test]
fn extreme_parameters_costs_and_times_never_panic_or_overflow() {
    let billion = 1_000_000_000;
    let all = [
        UpstashParams::fixed_window(billion, Span::from_millis(1)),
        UpstashParams::sliding_window(billion, Span::from_millis(1)),
        UpstashParams::sliding_window(billion, MAX_WINDOW),
        UpstashParams::token_bucket(billion, Span::from_millis(1), billion),
        UpstashParams::token_bucket(1, MAX_WINDOW, billion),
        UpstashParams::fixed_window(0, Span::from_millis(1)),
    ];
    for params in all {
        for latency in [Span::ZERO, Span(u64::MAX)] {
            let mut limiter = build(params.with_redis_latency(latency));
            for t in [0, 1, 999, 1_000, u64::MAX / 2, u64::MAX - 1, u64::MAX] {
                for cost in [0, 1, billion, billion + 1, u64::MAX] {
                    let d = limiter.decide(Time(t), cost);
                    assert!(d.remaining <= d.limit, "{params:?}");
                    let _ = (
                        limiter.gauge(Time(t)),
                        limiter.is_at_rest(Time(t)),
                        limiter.peek(Time(t), cost),
                    );
                }
            }
        }
    }
    assert_eq!(
        Upstash::new(UpstashParams::fixed_window(billion + 1, secs(1))).unwrap_err(),
        ConfigError::TooLarge("limit")
    );
    assert!(Upstash::new(UpstashParams::fixed_window(
        1,
        Span(MAX_WINDOW.micros() + 1_000)
    ))
    .is_err());
}
