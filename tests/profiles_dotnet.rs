//! The .NET `System.Threading.RateLimiting` profile, checked against the library's own tests
//! (dotnet/runtime `src/libraries/System.Threading.RateLimiting/tests/`, the .NET 8-10
//! generation read for the profile), with each `TryReplenish()` / `Replenish(limiter, ..)` of a
//! test standing for one tick of the auto-replenishment timer.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Limiter, Settlement, Verdict};
use ratelab::core::limiter::{Algorithm, AnyLimiter, Settings};
use ratelab::core::profiles::dotnet::{
    http_response, http_response_with_docs_on_rejected, DotnetLimiter, FixedWindowParams,
    QueueProcessingOrder, SlidingWindowParams, TokenBucketParams,
};
use ratelab::core::profiles::Product;
use ratelab::core::run::{busiest_window, decision_at, run_one};
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::{Request, Trace};

use ratelab::core::limiter::Complete;
use QueueProcessingOrder::{NewestFirst, OldestFirst};

const SEC: Span = Span::from_secs(1);

fn fixed(limit: u64, window: Span, queue: u64, order: QueueProcessingOrder) -> DotnetLimiter {
    FixedWindowParams {
        queue_limit: queue,
        queue_processing_order: order,
        ..FixedWindowParams::defaults_for(limit, window)
    }
    .build()
    .unwrap()
}

fn token(limit: u64, per: u64, period: Span, queue: u64) -> DotnetLimiter {
    TokenBucketParams {
        tokens_per_period: per,
        queue_limit: queue,
        ..TokenBucketParams::defaults_for(limit, period)
    }
    .build()
    .unwrap()
}

fn ms(v: u64) -> Time {
    Time::from_millis(v)
}

fn delayed_until(now: Time, v: Verdict) -> Option<Time> {
    match v {
        Verdict::Delayed { by } => Some(now.plus(by)),
        _ => None,
    }
}

/// FixedWindowRateLimiterTests `RetryMetadataOnFailedWaitAsync`, `CorrectRetryMetadataWith
/// QueuedItem`, `CorrectRetryMetadataWithNonZeroAvailableItems`: a 20 s window's failed lease
/// carries `RetryAfter` = 20 s in all three (2/2, 3/2 and 2/3 windows, at least 1).
#[test]
fn fixed_window_retry_after_is_the_window_times_whole_windows_needed() {
    let mut l = fixed(2, Span::from_secs(20), 1, OldestFirst);
    assert_eq!(l.decide(Time::ZERO, 2).verdict, Verdict::Allowed);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:20"));
    assert_eq!(d.retry_after, Some(Span::from_secs(20)));

    let mut l = fixed(2, Span::from_secs(20), 1, OldestFirst);
    l.decide(Time::ZERO, 2);
    assert!(matches!(
        l.decide(Time::ZERO, 1).verdict,
        Verdict::Delayed { .. }
    ));
    let (_, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:20"));

    let mut l = fixed(3, Span::from_secs(20), 1, OldestFirst);
    l.decide(Time::ZERO, 2);
    let (_, reply) = l.decide_with_reply(Time::ZERO, 3);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:20"));
    // And it is the whole window however late in the window it is asked (dotnet/runtime #92557).
    let (_, reply) = l.decide_with_reply(Time::from_secs(19), 3);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:20"));
}

/// TokenBucketRateLimiterTests `RetryMetadataOnFailedWaitAsync` (2 periods),
/// `CorrectRetryMetadataWithNonZeroAvailableItems` (2 periods) and
/// `CorrectRetryMetadataWithLargeTokensPerPeriod` (1 period), with a 20 s period.
#[test]
fn token_bucket_retry_after_counts_whole_periods_rounded_down_but_at_least_one() {
    let mut l = token(2, 1, Span::from_secs(20), 1);
    l.decide(Time::ZERO, 2);
    let (_, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:40"));

    let mut l = token(3, 1, Span::from_secs(20), 1);
    l.decide(Time::ZERO, 2);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 3);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:40"));
    assert_eq!(d.retry_after, Some(Span::from_secs(40)));

    let mut l = token(2, 100, Span::from_secs(20), 1);
    l.decide(Time::ZERO, 2);
    assert!(matches!(
        l.decide(Time::ZERO, 1).verdict,
        Verdict::Delayed { .. }
    ));
    let (_, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(reply.get("RetryAfter"), Some("00:00:20"));
}

/// TokenBucketRateLimiterTests `ReplenishHonorsTokensPerPeriod`: 7 tokens, 3 per 1 ms period:
/// take 5, 3 more is refused (2 left), a tick makes 5, the next 7 (capped).
#[test]
fn token_bucket_ticks_add_tokens_per_period_up_to_the_limit() {
    let mut l = token(7, 3, Span::from_millis(1), 1);
    assert_eq!(l.decide(Time::ZERO, 5).verdict, Verdict::Allowed);
    assert_eq!(l.available(Time::ZERO), 2);
    assert_eq!(l.available(ms(1)), 5);
    assert_eq!(l.available(ms(2)), 7);
    assert_eq!(l.available(ms(500)), 7);
}

/// FixedWindowRateLimiterTests `CanAcquireResourceAsync_QueuesAndGrabsNewest`: limit 2,
/// `NewestFirst`, queue 3: after a lease of 2, a call for 2 and then one for 1 wait; the first
/// tick serves the newer (1), leaving 1 permit; the second tick serves the older.
#[test]
fn newest_first_serves_the_newest_queued_call_on_the_first_tick() {
    let mut l = fixed(2, SEC, 3, NewestFirst);
    assert!(l.settles_late());
    l.decide(Time::ZERO, 2);
    let first = l.decide(ms(1), 2).verdict;
    let second = l.decide(ms(2), 1).verdict;
    // On arrival both are open, at the earliest tick that could serve them.
    assert_eq!(delayed_until(ms(2), second), Some(Time::from_secs(1)));
    assert_eq!(delayed_until(ms(1), first), Some(Time::from_secs(1)));
    assert_eq!(l.queued(Time::from_secs(1)), 2);
    assert_eq!(l.available(Time::from_secs(1)), 1);
    assert_eq!(l.queued(Time::from_secs(2)), 0);
    // The 1 s tick serves decision 2 (the newer); the 2 s tick serves decision 1.
    l.decide(Time::from_secs(1), 0);
    assert_eq!(
        l.take_settled(),
        Some(Settlement {
            seq: 2,
            verdict: Verdict::Delayed {
                by: Span::from_millis(998)
            },
            at: Time::from_secs(1),
        })
    );
    assert_eq!(l.take_settled(), None);
    l.decide(Time::from_secs(2), 0);
    assert_eq!(
        l.take_settled(),
        Some(Settlement {
            seq: 1,
            verdict: Verdict::Delayed {
                by: Span::from_millis(1_999)
            },
            at: Time::from_secs(2),
        })
    );
}

/// `DropsOldestWhenQueuingMoreThanLimit_NewestFirst` and
/// `DropsMultipleOldestWhenQueuingMoreThanLimit_NewestFirst`: a new call that does not fit the
/// queue fails the oldest queued calls until it does, then waits; the next tick serves it.
#[test]
fn newest_first_evicts_the_oldest_queued_calls_to_make_room() {
    let mut l = fixed(1, SEC, 1, NewestFirst);
    l.decide(Time::ZERO, 1);
    l.decide(Time::ZERO, 1);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 1);
    assert_eq!(reply.get("evicted"), Some("1"));
    assert_eq!(
        delayed_until(Time::ZERO, d.verdict),
        Some(Time::from_secs(1))
    );
    assert_eq!(
        l.take_settled(),
        Some(Settlement {
            seq: 1,
            verdict: Verdict::Rejected,
            at: Time::ZERO,
        })
    );

    let mut l = fixed(2, SEC, 2, NewestFirst);
    l.decide(Time::ZERO, 2);
    l.decide(Time::ZERO, 1);
    l.decide(Time::ZERO, 1);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(reply.get("evicted"), Some("2"));
    let evicted: Vec<_> = std::iter::from_fn(|| l.take_settled())
        .map(|s| (s.seq, s.verdict))
        .collect();
    assert_eq!(evicted, [(1, Verdict::Rejected), (2, Verdict::Rejected)]);
    assert_eq!(
        delayed_until(Time::ZERO, d.verdict),
        Some(Time::from_secs(1))
    );
    assert_eq!(l.queued(Time::from_secs(1)), 0);
}

/// `DropsRequestedLeaseIfPermitCountGreaterThanQueueLimitAndNoAvailability_NewestFirst`: a call
/// larger than the whole queue fails instead of evicting, and the queued call is served later.
#[test]
fn a_call_larger_than_the_queue_fails_even_with_newest_first() {
    let mut l = fixed(2, SEC, 1, NewestFirst);
    l.decide(Time::ZERO, 2);
    assert!(matches!(
        l.decide(Time::ZERO, 1).verdict,
        Verdict::Delayed { .. }
    ));
    let (d, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(reply.get("IsAcquired"), Some("False"));
    assert_eq!(l.queued(Time::from_secs(1)), 0);
}

/// `CannotAcquireResourcesWithAcquireAsyncWithQueuedItemsIfOldestFirst` and
/// `CanAcquireResourcesWithAcquireAsyncWithQueuedItemsIfNewestFirst`: with a call queued, a call
/// that fits the permits left waits behind it under `OldestFirst`, and leases under
/// `NewestFirst`.
#[test]
fn oldest_first_queues_behind_a_waiting_call_newest_first_leases_past_it() {
    let mut l = fixed(2, SEC, 3, OldestFirst);
    l.decide(Time::ZERO, 1);
    let wait = l.decide(Time::ZERO, 2).verdict;
    let wait2 = l.decide(Time::ZERO, 1).verdict;
    assert_eq!(delayed_until(Time::ZERO, wait), Some(Time::from_secs(1)));
    assert_eq!(delayed_until(Time::ZERO, wait2), Some(Time::from_secs(2)));

    let mut l = fixed(2, SEC, 2, NewestFirst);
    l.decide(Time::ZERO, 1);
    assert!(matches!(
        l.decide(Time::ZERO, 2).verdict,
        Verdict::Delayed { .. }
    ));
    assert_eq!(l.decide(Time::ZERO, 1).verdict, Verdict::Allowed);
    assert_eq!(l.queued(Time::from_secs(1)), 0);
}

/// `AcquireAsyncZero_WithoutAvailabilityWaitsForAvailability`, `AcquireZero_WithAvailability`:
/// 0 permits pass at once while any permit is left, and otherwise wait for the next tick, even
/// with no queue at all (0 fits a queue of 0).
#[test]
fn zero_permits_pass_while_any_is_left_and_otherwise_wait_for_the_tick() {
    let mut l = fixed(1, SEC, 0, OldestFirst);
    assert_eq!(l.decide(Time::ZERO, 0).verdict, Verdict::Allowed);
    l.decide(Time::ZERO, 1);
    let d = l.decide(ms(250), 0);
    assert_eq!(
        d.verdict,
        Verdict::Delayed {
            by: Span::from_millis(750)
        }
    );
}

/// `ThrowsWhenAcquiringMoreThanLimit` / `ThrowsWhenWaitingForMoreThanLimit`: the exception
/// ("2 permit(s) exceeds the permit limit of 1."), which the server turns into a 500.
#[test]
fn more_than_the_limit_throws_and_the_server_answers_500() {
    let mut l = fixed(1, SEC, 1, NewestFirst);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 2);
    assert_eq!((d.verdict, d.retry_after), (Verdict::Rejected, None));
    assert_eq!(reply.get("exception"), Some("ArgumentOutOfRangeException"));
    assert_eq!(
        reply.get("message"),
        Some("2 permit(s) exceeds the permit limit of 1.")
    );
    assert_eq!(http_response(&d, &reply).status, 500);
    let mut t = token(1, 1, SEC, 0);
    let (_, reply) = t.decide_with_reply(Time::ZERO, 3);
    assert_eq!(
        reply.get("message"),
        Some("3 token(s) exceeds the token limit of 1.")
    );
}

/// `LargeAcquiresAndQueuesDoNotIntegerOverflow`: `int.MaxValue` permits and queue, `NewestFirst`.
#[test]
fn int_max_permits_and_queue_do_not_overflow() {
    let max = i32::MAX as u64;
    let mut l = fixed(max, SEC, max, NewestFirst);
    assert_eq!(l.decide(Time::ZERO, max).verdict, Verdict::Allowed);
    assert!(matches!(
        l.decide(Time::ZERO, 3).verdict,
        Verdict::Delayed { .. }
    ));
    let (_, reply) = l.decide_with_reply(Time::ZERO, max);
    assert_eq!(reply.get("evicted"), Some("1"));
    assert_eq!(l.queued(Time::from_secs(1)), 0);
}

/// The options' checks, with the library's own messages.
#[test]
fn invalid_options_are_refused_as_the_constructors_refuse_them() {
    let bad = |r: Result<DotnetLimiter, ConfigError>| r.unwrap_err().to_string();
    assert_eq!(
        bad(FixedWindowParams::defaults_for(0, SEC).build()),
        "PermitLimit must be set to a value greater than 0."
    );
    assert_eq!(
        bad(FixedWindowParams::defaults_for(1, Span::ZERO).build()),
        "Window must be set to a value greater than TimeSpan.Zero."
    );
    assert_eq!(
        bad(SlidingWindowParams {
            segments_per_window: 0,
            ..SlidingWindowParams::defaults_for(1, SEC)
        }
        .build()),
        "SegmentsPerWindow must be set to a value greater than 0."
    );
    assert_eq!(
        bad(TokenBucketParams {
            tokens_per_period: 0,
            ..TokenBucketParams::defaults_for(1, SEC)
        }
        .build()),
        "TokensPerPeriod must be set to a value greater than 0."
    );
    // Timer: more than 4,294,967,294 ms throws; under 1 ms is not modelled.
    assert!(
        FixedWindowParams::defaults_for(1, Span::from_millis(4_294_967_294))
            .build()
            .is_ok()
    );
    assert!(
        FixedWindowParams::defaults_for(1, Span::from_millis(4_294_967_295))
            .build()
            .is_err()
    );
    assert!(FixedWindowParams::defaults_for(1, Span(999))
        .build()
        .is_err());
    assert_eq!(
        FixedWindowParams::defaults_for(1u64 << 31, SEC)
            .build()
            .unwrap_err(),
        ConfigError::TooLarge("PermitLimit")
    );
}

/// The sliding window of ASP.NET Core's rate-limiting article: 100 permits, a 30 s window in 3
/// segments; 20, 30 and 40 taken in the first three segments; at 30 s the first segment's 20
/// come back (30 available), and so on.
#[test]
fn sliding_window_permits_come_back_one_segment_at_a_time() {
    let mut l = SlidingWindowParams::defaults_for(100, Span::from_secs(30))
        .build()
        .unwrap();
    let take = |l: &mut DotnetLimiter, at: u64, n: u64| {
        assert_eq!(
            l.decide(Time::from_secs(at), n).verdict,
            Verdict::Allowed,
            "{at}"
        );
    };
    take(&mut l, 0, 20);
    take(&mut l, 10, 30);
    take(&mut l, 20, 40);
    assert_eq!(l.available(Time::from_secs(29)), 10);
    assert_eq!(l.available(Time::from_secs(30)), 30);
    take(&mut l, 30, 30);
    assert_eq!(l.available(Time::from_secs(40)), 30);
    take(&mut l, 40, 10);
    assert_eq!(l.available(Time::from_secs(50)), 60);
    // The sliding window's failed lease has no RetryAfter.
    let (d, reply) = l.decide_with_reply(Time::from_secs(50), 61);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(reply.get("RetryAfter"), None);
    assert_eq!(http_response(&d, &reply).status, 503);
    assert_eq!(http_response(&d, &reply).header("Retry-After"), None);
}

/// The middleware answers 503 with no Retry-After; the docs' OnRejected answers 429 with the
/// whole seconds of RetryAfter, truncated.
#[test]
fn a_refusal_is_503_without_retry_after_unless_on_rejected_adds_it() {
    let mut l = token(1, 1, Span::from_millis(2_500), 0);
    l.decide(Time::ZERO, 1);
    let (d, reply) = l.decide_with_reply(Time::ZERO, 1);
    let plain = http_response(&d, &reply);
    assert_eq!((plain.status, plain.reason), (503, "Service Unavailable"));
    assert!(plain.headers.is_empty());
    let docs = http_response_with_docs_on_rejected(&d, &reply);
    assert_eq!(docs.status, 429);
    assert_eq!(docs.header("Retry-After"), Some("2"));
}

#[test]
fn extreme_values_never_panic() {
    let max = i32::MAX as u64;
    let limiters = [
        fixed(max, Span::from_millis(1), max, NewestFirst),
        fixed(1, Span::from_millis(4_294_967_294), max, OldestFirst),
        token(max, max, Span::from_millis(1), max),
        token(max, 1, Span::from_millis(1), max),
        SlidingWindowParams {
            segments_per_window: max,
            queue_limit: max,
            ..SlidingWindowParams::defaults_for(max, Span::from_secs(366 * 24 * 3600))
        }
        .build()
        .unwrap(),
    ];
    for mut l in limiters {
        for &t in &[0, 1, u64::MAX / 3, u64::MAX - 1, u64::MAX, 5] {
            for &cost in &[0, 1, 3, max, max + 1, u64::MAX] {
                let _ = l.decide_with_reply(Time(t), cost);
                let _ = (
                    l.peek(Time(t), cost),
                    l.gauge(Time(t)),
                    l.is_at_rest(Time(t)),
                );
            }
        }
    }
}

fn order() -> impl Strategy<Value = QueueProcessingOrder> {
    prop_oneof![Just(OldestFirst), Just(NewestFirst)]
}

/// Requests as (gap in ms, cost).
fn requests() -> impl Strategy<Value = Vec<(u64, u64)>> {
    prop::collection::vec((0u64..700, 0u64..4), 1..80)
}

/// Every passed request's serving time (now, or its release).
fn served(l: &mut DotnetLimiter, reqs: &[(u64, u64)]) -> Vec<(Time, u64)> {
    let mut now = Time::ZERO;
    let mut out = Vec::new();
    for &(gap, cost) in reqs {
        now = now.plus(Span::from_millis(gap));
        match l.decide(now, cost).verdict {
            Verdict::Allowed => out.push((now, cost)),
            Verdict::Delayed { by } => out.push((now.plus(by), cost)),
            Verdict::Rejected => {}
        }
    }
    // Run the timer far enough that every queued call is served (debug builds check each
    // OldestFirst release against its projection).
    let _ = l.decide(now.plus(Span::from_secs(3_600)), 0);
    out
}

proptest! {
    /// OldestFirst: no fixed window (k W to (k+1) W) serves more than PermitLimit permits, and
    /// queued calls are released in arrival order.
    #[test]
    fn a_fixed_window_never_serves_more_than_its_limit(
        limit in 1u64..5, window in 200u64..2_000, queue in 0u64..6, reqs in requests(),
    ) {
        let mut l = fixed(limit, Span::from_millis(window), queue, OldestFirst);
        let served = served(&mut l, &reqs);
        let mut per_window = std::collections::BTreeMap::new();
        for &(at, cost) in &served {
            *per_window.entry(at.micros() / (window * 1_000)).or_insert(0) += cost;
        }
        prop_assert!(per_window.values().all(|&n| n <= limit), "{per_window:?}");
        let mut last = Time::ZERO;
        let mut now = Time::ZERO;
        let mut l = fixed(limit, Span::from_millis(window), queue, OldestFirst);
        for &(gap, cost) in &reqs {
            now = now.plus(Span::from_millis(gap));
            if let Some(at) = delayed_until(now, l.decide(now, cost).verdict) {
                prop_assert!(at >= last);
                last = at;
            }
        }
    }

    /// OldestFirst: the permits served in any S consecutive segments never exceed PermitLimit.
    #[test]
    fn a_sliding_window_never_serves_more_than_its_limit_in_any_window(
        limit in 1u64..6, segments in 1u64..5, seg_ms in 100u64..800, queue in 0u64..6,
        reqs in requests(),
    ) {
        let mut l = SlidingWindowParams {
            segments_per_window: segments,
            queue_limit: queue,
            ..SlidingWindowParams::defaults_for(limit, Span::from_millis(seg_ms * segments))
        }
        .build()
        .unwrap();
        let served = served(&mut l, &reqs);
        let mut per_segment = std::collections::BTreeMap::new();
        for &(at, cost) in &served {
            *per_segment.entry(at.micros() / (seg_ms * 1_000)).or_insert(0u64) += cost;
        }
        for &start in per_segment.keys() {
            let sum: u64 = per_segment.range(start..start + segments).map(|(_, n)| n).sum();
            prop_assert!(sum <= limit, "{per_segment:?}");
        }
    }

    /// A token bucket never serves more than TokenLimit + TokensPerPeriod × ticks since time 0.
    #[test]
    fn a_token_bucket_never_serves_more_than_its_refills(
        limit in 1u64..6, per in 1u64..4, period in 100u64..900, queue in 0u64..6,
        order in order(), reqs in requests(),
    ) {
        let mut l = TokenBucketParams {
            tokens_per_period: per,
            queue_limit: queue,
            queue_processing_order: order,
            ..TokenBucketParams::defaults_for(limit, Span::from_millis(period))
        }
        .build()
        .unwrap();
        let mut now = Time::ZERO;
        let mut total = 0;
        for &(gap, cost) in &reqs {
            now = now.plus(Span::from_millis(gap));
            if l.decide(now, cost).verdict == Verdict::Allowed {
                total += cost;
                let ticks = now.micros() / (period * 1_000);
                prop_assert!(total <= limit + per * ticks);
            }
        }
    }

    /// peek never changes the state, and the same inputs give the same outputs.
    #[test]
    fn peek_changes_nothing_and_decisions_are_deterministic(
        kind in 0u8..3, queue in 0u64..4, order in order(), reqs in requests(),
    ) {
        let make = || match kind {
            0 => fixed(3, SEC, queue, order),
            1 => SlidingWindowParams {
                queue_limit: queue,
                queue_processing_order: order,
                ..SlidingWindowParams::defaults_for(3, SEC)
            }
            .build()
            .unwrap(),
            _ => token(3, 1, Span::from_millis(300), queue),
        };
        let (mut a, mut b) = (make(), make());
        let mut now = Time::ZERO;
        for &(gap, cost) in &reqs {
            now = now.plus(Span::from_millis(gap));
            let peeked = a.peek(now, cost);
            let _ = a.peek(now.plus(SEC), cost + 1);
            let (d, reply) = a.decide_with_reply(now, cost);
            prop_assert_eq!(peeked, d);
            prop_assert_eq!(b.decide(now, cost), d);
            prop_assert!(reply.get("call").is_some());
        }
    }
}

/// The lab's settings for a .NET row with a queue in the given order.
fn dotnet_settings(limit: u64, window: Span, queue: u64, order: QueueProcessingOrder) -> Settings {
    let mut settings = Settings {
        limit,
        window,
        ..Settings::default()
    };
    settings.products.dotnet.queue = Some(queue);
    settings.products.dotnet.order = Some(order);
    settings
}

fn trace_of(requests: &[(u64, u32)]) -> Trace {
    let requests = requests
        .iter()
        .map(|&(at_ms, cost)| Request {
            cost,
            ..Request::new(ms(at_ms), 0)
        })
        .collect();
    Trace::new(vec!["a".to_string()], requests)
}

/// Limit 2 a second, a queue of 3, NewestFirst. Two leases; three calls queue; the fourth
/// (0.5 s) finds the queue full and evicts the oldest (0.2 s). The 1 s tick serves the two
/// newest (0.5 s, 0.4 s); 0.3 s is still waiting when 1.2 s queues behind it, and the 2 s tick
/// serves 1.2 s first and then 0.3 s. The last (2.5 s) is still queued when the trace ends:
/// the timer's 3 s tick serves it.
#[test]
fn a_newest_first_run_gives_each_request_its_final_verdict() {
    let settings = dotnet_settings(2, SEC, 3, NewestFirst);
    let trace = trace_of(&[
        (0, 1),
        (100, 1),
        (200, 1),
        (300, 1),
        (400, 1),
        (500, 1),
        (1_200, 1),
        (2_500, 1),
    ]);
    let run = run_one::<Complete>(&trace, Algorithm::DotnetFixed, &settings).unwrap();
    let d = |millis| Verdict::Delayed {
        by: Span::from_millis(millis),
    };
    assert_eq!(
        run.verdicts.iter().collect::<Vec<_>>(),
        [
            Verdict::Allowed,
            Verdict::Allowed,
            Verdict::Rejected,
            d(1_700),
            d(600),
            d(500),
            d(800),
            d(500),
        ]
    );
    assert_eq!((run.allowed, run.delayed, run.rejected), (2, 5, 1));
    // (0, 1 s] holds 0.1 s and the two served at 1 s; an evicted request counts nowhere.
    assert_eq!(
        (run.max_in_window, run.max_window_end),
        (3, Time::from_secs(1))
    );
    assert_eq!(
        run.served.of(0),
        [0, 100, 1_000, 1_000, 2_000, 2_000, 3_000].map(ms)
    );

    // The inspector's decision is the final one, and says what became of the queued call.
    let (evicted, reply) =
        decision_at::<Complete>(&trace, Algorithm::DotnetFixed, &settings, 2).unwrap();
    let reply = reply.unwrap();
    assert_eq!(
        (evicted.verdict, evicted.retry_after),
        (Verdict::Rejected, None)
    );
    assert_eq!(reply.get("queued"), Some("True"));
    assert_eq!(reply.get("evicted_at"), Some("0.5 s"));
    assert_eq!(reply.get("IsAcquired"), Some("False"));
    assert_eq!(http_response(&evicted, &reply).status, 503);
    let (late, reply) =
        decision_at::<Complete>(&trace, Algorithm::DotnetFixed, &settings, 3).unwrap();
    let reply = reply.unwrap();
    assert_eq!(late.verdict, d(1_700));
    assert_eq!(reply.get("completes_at"), Some("2 s"));
    assert_eq!(reply.get("IsAcquired"), Some("True"));
    let (last, reply) =
        decision_at::<Complete>(&trace, Algorithm::DotnetFixed, &settings, 7).unwrap();
    assert_eq!(last.verdict, d(500));
    assert_eq!(reply.unwrap().get("completes_at"), Some("3 s"));
    for (index, verdict) in run.verdicts.iter().enumerate() {
        let (decision, _) =
            decision_at::<Complete>(&trace, Algorithm::DotnetFixed, &settings, index).unwrap();
        assert_eq!(decision.verdict, verdict, "#{index}");
    }
}

/// The same trace under OldestFirst: nothing is evicted and every verdict is final on arrival.
#[test]
fn the_same_trace_under_oldest_first_is_unchanged() {
    let settings = dotnet_settings(2, SEC, 3, OldestFirst);
    let trace = trace_of(&[(0, 1), (100, 1), (200, 1), (300, 1), (400, 1), (500, 1)]);
    let run = run_one::<Complete>(&trace, Algorithm::DotnetFixed, &settings).unwrap();
    assert_eq!((run.allowed, run.delayed, run.rejected), (2, 3, 1));
    let until: Vec<_> = trace
        .requests()
        .iter()
        .zip(run.verdicts.iter())
        .map(|(r, v)| delayed_until(r.at, v))
        .collect();
    let s = |n| Some(Time::from_secs(n));
    assert_eq!(until, [None, None, s(1), s(1), s(2), None]);
}

/// Every other row, and the .NET rows under OldestFirst, keep the verdicts a plain loop over
/// each key's `admit` gives: the settling path is never taken for them.
#[test]
fn a_run_of_any_limiter_that_settles_nothing_is_the_plain_per_key_loop() {
    let mut settings = dotnet_settings(3, Span::from_secs(2), 2, OldestFirst);
    settings.products.dotnet.per_period = Some(1);
    let mut trace = trace_of(&[(0, 1), (0, 2), (300, 1), (700, 3), (900, 1), (2_100, 1)]);
    trace.push_key_requests("b", &(0..60).map(|i| ms(i * 97)).collect::<Vec<_>>());
    for algorithm in Algorithm::ALL {
        let fresh = algorithm.build(&settings).unwrap();
        assert!(!fresh.settles_late(), "{algorithm:?}");
        let mut per_key: Vec<AnyLimiter> = vec![fresh; trace.keys().len()];
        let plain: Vec<Verdict> = trace
            .requests()
            .iter()
            .map(|r| per_key[r.key as usize].admit(r.at, u64::from(r.cost)))
            .collect();
        let run = run_one::<Complete>(&trace, algorithm, &settings).unwrap();
        assert_eq!(
            run.verdicts.iter().collect::<Vec<_>>(),
            plain,
            "{algorithm:?}"
        );
        let count = |f: fn(&Verdict) -> bool| plain.iter().filter(|v| f(v)).count() as u64;
        assert_eq!(
            (run.allowed, run.delayed, run.rejected),
            (
                count(|v| *v == Verdict::Allowed),
                count(|v| matches!(v, Verdict::Delayed { .. })),
                count(|v| *v == Verdict::Rejected),
            ),
            "{algorithm:?}"
        );
    }
}

/// Which .NET limiter the reference simulates.
#[derive(Clone, Copy, Debug)]
enum RefKind {
    Fixed,
    Sliding(usize),
    Token(u64),
}

/// A slow, literal NewestFirst simulation in the library's own terms (an array of segment
/// counts, every timer tick applied one by one), which lets the whole trace and the timer
/// after it run before it assigns any verdict: each queued call's is known only at the end.
fn reference(
    kind: RefKind,
    limit: u64,
    period_ms: u64,
    queue_limit: u64,
    reqs: &[(u64, u32)],
) -> Vec<Verdict> {
    #[derive(Clone, Copy)]
    enum Fate {
        Leased,
        Failed,
        Waiting,
        ServedAt(u64),
    }
    let mut fate = vec![Fate::Waiting; reqs.len()];
    let mut level = limit;
    let mut queue: Vec<(usize, u64)> = Vec::new();
    let mut segments = vec![0u64; if let RefKind::Sliding(s) = kind { s } else { 1 }];
    let mut current = 0usize;
    let mut tick = 0u64;
    let run_tick = |tick: u64,
                    level: &mut u64,
                    queue: &mut Vec<(usize, u64)>,
                    segments: &mut Vec<u64>,
                    current: &mut usize,
                    fate: &mut Vec<Fate>| {
        match kind {
            RefKind::Fixed => {
                if *level == limit {
                    return;
                }
                *level = limit;
            }
            RefKind::Token(per) => {
                if *level == limit {
                    return;
                }
                *level = (*level + per).min(limit);
            }
            RefKind::Sliding(n) => {
                *current = (*current + 1) % n;
                let old = segments[*current];
                segments[*current] = 0;
                if old == 0 {
                    return;
                }
                *level += old;
            }
        }
        while let Some(&(i, count)) = queue.last() {
            if *level < count {
                break;
            }
            queue.pop();
            *level -= count;
            segments[*current] += count;
            fate[i] = Fate::ServedAt(tick * period_ms);
        }
    };
    for (i, &(at, cost)) in reqs.iter().enumerate() {
        let cost = u64::from(cost);
        while (tick + 1) * period_ms <= at {
            tick += 1;
            run_tick(
                tick,
                &mut level,
                &mut queue,
                &mut segments,
                &mut current,
                &mut fate,
            );
        }
        let queued: u64 = queue.iter().map(|q| q.1).sum();
        if cost > limit {
            fate[i] = Fate::Failed;
        } else if cost == 0 && level > 0 {
            fate[i] = Fate::Leased;
        } else if level >= cost && level != 0 {
            level -= cost;
            segments[current] += cost;
            fate[i] = Fate::Leased;
        } else if queue_limit - queued >= cost {
            queue.push((i, cost));
        } else if cost <= queue_limit {
            let mut queued = queued;
            while queue_limit - queued < cost {
                let (old, count) = queue.remove(0);
                queued -= count;
                fate[old] = Fate::Failed;
            }
            queue.push((i, cost));
        } else {
            fate[i] = Fate::Failed;
        }
    }
    while !queue.is_empty() {
        tick += 1;
        run_tick(
            tick,
            &mut level,
            &mut queue,
            &mut segments,
            &mut current,
            &mut fate,
        );
    }
    fate.iter()
        .zip(reqs)
        .map(|(f, &(at, _))| match *f {
            Fate::Leased => Verdict::Allowed,
            Fate::Failed => Verdict::Rejected,
            Fate::ServedAt(t) if t == at => Verdict::Allowed,
            Fate::ServedAt(t) => Verdict::Delayed {
                by: Span::from_millis(t - at),
            },
            Fate::Waiting => unreachable!("the timer serves every queued call"),
        })
        .collect()
}

proptest! {
    /// NewestFirst: a run's verdicts, counts and busiest window are those of the reference,
    /// which knows the whole trace before it gives any verdict.
    #[test]
    fn newest_first_runs_equal_a_reference_that_settles_at_the_end(
        kind in 0u8..3, limit in 1u64..5, period in 100u64..900, segments in 1usize..4,
        per in 1u64..4, queue in 0u64..6,
        reqs in prop::collection::vec((0u64..500, 0u32..4), 1..80),
    ) {
        let mut at = 0;
        let reqs: Vec<(u64, u32)> = reqs
            .into_iter()
            .map(|(gap, cost)| {
                at += gap;
                (at, cost)
            })
            .collect();
        let (algorithm, ref_kind, window) = match kind {
            0 => (Algorithm::DotnetFixed, RefKind::Fixed, period),
            1 => (Algorithm::DotnetSliding, RefKind::Sliding(segments), period * segments as u64),
            _ => (Algorithm::DotnetToken, RefKind::Token(per), period),
        };
        let mut settings = dotnet_settings(limit, Span::from_millis(window), queue, NewestFirst);
        settings.products.dotnet.segments = Some(segments as u64);
        settings.products.dotnet.per_period = Some(per);
        let trace = trace_of(&reqs);
        let run = run_one::<Complete>(&trace, algorithm, &settings).unwrap();
        let expected = reference(ref_kind, limit, period, queue, &reqs);
        prop_assert_eq!(run.verdicts.iter().collect::<Vec<_>>(), expected.clone());
        let count = |f: fn(&Verdict) -> bool| expected.iter().filter(|v| f(v)).count() as u64;
        prop_assert_eq!(
            (run.allowed, run.delayed, run.rejected),
            (
                count(|v| *v == Verdict::Allowed),
                count(|v| matches!(v, Verdict::Delayed { .. })),
                count(|v| *v == Verdict::Rejected),
            )
        );
        let mut served: Vec<Time> = Vec::new();
        for (&(at, cost), v) in reqs.iter().zip(&expected) {
            let when = match *v {
                Verdict::Allowed => ms(at),
                Verdict::Delayed { by } => ms(at).plus(by),
                Verdict::Rejected => continue,
            };
            served.extend(std::iter::repeat_n(when, cost as usize));
        }
        served.sort_unstable();
        prop_assert_eq!(run.served.of(0), &served[..]);
        prop_assert_eq!(
            (run.max_in_window, run.max_window_end),
            busiest_window(&served, settings.window)
        );
    }
}
