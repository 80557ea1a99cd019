//! redis-cell's key expiry: the module sets the key's expiry to the ttl in whole milliseconds
//! after each allowed call, and Redis forgets the key once its millisecond clock is past that
//! expiry. Checked on the two cases users meet (a key idle past its expiry, a key forgotten just
//! before its arrival time), a table of edge cases, and random traces against a second,
//! independent statement of what Redis and the module do.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::decision::Limiter;
use ratelab::core::limiter::Complete;
use ratelab::core::profiles::redis_cell::{RedisCell, ThrottleReply};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

/// 1,700,000,000 s after the epoch, in microseconds: the lab's time 0 is the epoch.
const T0: u64 = 1_700_000_000_000_000;

fn reply(
    limited: i64,
    limit: i64,
    remaining: i64,
    retry_after: i64,
    reset_after: i64,
) -> ThrottleReply {
    ThrottleReply {
        limited,
        limit,
        remaining,
        retry_after,
        reset_after,
    }
}

/// `CL.THROTTLE k 15 30 60 1` at t, then `CL.THROTTLE k 15 30 60 17` at t + 600 s: the key
/// expired 2 s after t (PX 2000), so the second call meets a fresh key and 17 is more than the 16
/// a fresh key holds: `[1, 16, 16, -1, 0]`.
#[test]
fn a_key_idle_past_its_expiry_is_answered_as_a_new_key() {
    let mut c = RedisCell::new(15, 30, Span::from_secs(60)).unwrap();
    assert_eq!(c.throttle(Time(T0), 1), reply(0, 16, 15, -1, 2));
    let key = c.key_at(Time(T0)).unwrap();
    assert_eq!((key.px_ms, key.gone_at()), (2_000, Time(T0 + 2_001_000)));
    assert_eq!(
        c.throttle(Time(T0 + 600_000_000), 17),
        reply(1, 16, 16, -1, 0)
    );
}

/// `CL.THROTTLE k 0 3 1 1` at 1,700,000,000.000900 s: the ttl of 333.33 ms is stored as PX 333
/// from millisecond ...000, so Redis holds the key through millisecond ...333 and it is gone at
/// ...334.000, before its arrival time ...334.233. The same call at ...334.100 finds no key and is
/// allowed, `[0, 1, 0, -1, 1]`; a microsecond before ...334.000 the key is still read and the
/// call is limited.
#[test]
fn a_key_can_be_forgotten_up_to_a_millisecond_before_its_arrival_time() {
    let mut c = RedisCell::new(0, 3, Span::from_secs(1)).unwrap();
    assert_eq!(c.throttle(Time(T0 + 900), 1), reply(0, 1, 0, -1, 1));
    let key = c.key_at(Time(T0 + 900)).unwrap();
    assert_eq!(
        (key.tat_ns, key.set_at_ms, key.px_ms),
        (
            i128::from(T0 + 900) * 1_000 + 333_333_333,
            i128::from(T0 / 1_000),
            333
        )
    );
    assert_eq!(key.gone_at(), Time(T0 + 334_000));
    assert!(c.key_at(Time(T0 + 333_999)).is_some());
    assert!(c.key_at(Time(T0 + 334_000)).is_none());
    let held = c.peek(Time(T0 + 333_999), 1);
    assert!(
        !held.allowed(),
        "held: its arrival time ...334.233 is still ahead"
    );
    assert_eq!(
        held.retry_after,
        Some(Span(1)),
        "but the key is gone a microsecond later, and a new key passes"
    );
    let (decision, product) = c.clone().decide_with_reply(Time(T0 + 334_100), 1);
    assert!(decision.allowed());
    let five: Vec<&str> = product
        .fields
        .iter()
        .take(5)
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(five, ["0", "1", "0", "-1", "1"]);
    assert_eq!(
        product.get("key expired"),
        Some("gone from 1700000000.334 s (PX 333 set at 1700000000 s): the command found no key and started fresh")
    );
    assert_eq!(
        product.get("key in Redis"),
        Some("TAT stored with PX 333, gone from 1700000000.668 s")
    );
    assert_eq!(c.throttle(Time(T0 + 334_100), 1), reply(0, 1, 0, -1, 1));
}

/// A case: what it shows, `(max_burst, count, period in s)`, the calls `(µs after T0, quantity)`
/// and the module's reply to the last one.
type Case<'a> = (&'a str, (u64, u64, u64), &'a [(u64, u64)], ThrottleReply);

/// Edge cases of the expiry, each on a fresh key.
#[test]
fn the_expiry_edge_cases_answer_as_redis_and_the_module_do() {
    #[rustfmt::skip]
    let cases: [Case; 9] = [
        ("example: idle past the expiry",
            (15, 30, 60), &[(0, 1), (600_000_000, 17)], reply(1, 16, 16, -1, 0)),
        ("held one millisecond before the expiry passes: the old arrival time is 1 ms ahead",
            (15, 30, 60), &[(0, 1), (1_999_000, 17)], reply(1, 16, 15, -1, 1)),
        ("held through the expiry's own millisecond although the arrival time has passed: a refusal's ttl is negative",
            (15, 30, 60), &[(0, 1), (2_000_500, 17)], reply(1, 16, 16, -1, 0)),
        ("gone the millisecond after: a new key",
            (15, 30, 60), &[(0, 1), (2_001_000, 17)], reply(1, 16, 16, -1, 0)),
        ("example: PX 333 from ...000 is gone at ...334.000, 233 µs before the arrival time",
            (0, 3, 1), &[(900, 1), (334_100, 1)], reply(0, 1, 0, -1, 1)),
        ("a microsecond earlier the key is held: limited, retry and reset under a millisecond write 0",
            (0, 3, 1), &[(900, 1), (333_999, 1)], reply(1, 1, 0, 0, 0)),
        ("a ttl under a millisecond is PX 0: held only through the write's own millisecond",
            (0, 5_000, 1), &[(900, 1), (1_000, 1)], reply(0, 1, 0, -1, 0)),
        ("the same ttl, read within the write's millisecond: held, limited",
            (0, 5_000, 1), &[(900, 1), (999, 1)], reply(1, 1, 0, 0, 0)),
        ("a fresh key refused stores nothing: the next call is new again",
            (0, 1, 1), &[(0, 2), (1, 2)], reply(1, 1, 1, -1, 0)),
    ];
    for (name, (max_burst, count, period_s), calls, expected) in cases {
        let mut c = RedisCell::new(max_burst, count, Span::from_secs(period_s)).unwrap();
        let mut last = None;
        for &(at, quantity) in calls {
            last = Some(c.throttle(Time(T0 + at), quantity));
        }
        assert_eq!(last, Some(expected), "{name}");
    }
    // A refusal leaves the expiry as it was; a fresh key refused leaves none.
    let mut c = RedisCell::new(0, 1, Span::from_secs(1)).unwrap();
    c.throttle(Time(T0), 1);
    let before = c.key_at(Time(T0)).unwrap();
    assert_eq!(c.throttle(Time(T0 + 500_000), 1).limited, 1);
    assert_eq!(c.key_at(Time(T0 + 500_000)), Some(before));
    let mut fresh = RedisCell::new(0, 1, Span::from_secs(1)).unwrap();
    let (_, product) = fresh.decide_with_reply(Time(T0), 2);
    assert_eq!(
        product.get("key in Redis"),
        Some("none (a refusal stores nothing)")
    );
    assert!(fresh.is_at_rest(Time(T0)));
}

/// A second statement of what happens, written from the module's and Redis's code rather than
/// from the profile: a Redis string key with an absolute expiry in milliseconds, and
/// `RateLimiter::rate_limit` with its `time::Duration` arithmetic (whole seconds and a
/// same-signed nanosecond part).
mod reference {
    const NS_PER_S: i64 = 1_000_000_000;

    /// One Redis key: its string value and its absolute expiry (`RM_SetExpire`: the ttl in
    /// milliseconds plus the command's millisecond clock).
    #[derive(Default)]
    pub struct Redis {
        key: Option<(String, i64)>,
    }

    impl Redis {
        /// `lookupKeyRead`: a key whose expiry is before now is deleted and not found
        /// (`keyIsExpired`: `now > when`).
        fn get(&mut self, now_ms: i64) -> Option<u64> {
            if self.key.as_ref().is_some_and(|(_, when)| now_ms > *when) {
                self.key = None;
            }
            self.key.as_ref().map(|(v, _)| v.parse().unwrap())
        }

        /// `RedisModule_StringSet` then `RedisModule_SetExpire(key, ttl.whole_milliseconds())`.
        fn set_with_expire(&mut self, now_ms: i64, value: u64, ttl_ms: i64) {
            assert!(ttl_ms >= 0, "the module never asks for a negative expiry");
            self.key = Some((value.to_string(), now_ms + ttl_ms));
        }

        pub fn holds_key(&mut self, now_ms: i64) -> bool {
            self.get(now_ms).is_some()
        }
    }

    fn whole_microseconds(d: i64) -> i64 {
        (d / NS_PER_S) * 1_000_000 + (d % NS_PER_S) / 1_000
    }

    fn whole_milliseconds(d: i64) -> i64 {
        (d / NS_PER_S) * 1_000 + (d % NS_PER_S) / 1_000_000
    }

    /// `lib.rs`: `as_seconds_f64() as i64`, plus one if `subsec_milliseconds() > 0`.
    fn reply_seconds(d: i64) -> i64 {
        let mut s = ((d / NS_PER_S) as f64 + (d % NS_PER_S) as f64 / NS_PER_S as f64) as i64;
        if (d % NS_PER_S) / 1_000_000 > 0 {
            s += 1;
        }
        s
    }

    /// `CL.THROTTLE key max_burst count period quantity` at `now_us` (µs since the epoch).
    pub fn throttle(
        redis: &mut Redis,
        max_burst: i64,
        count: i64,
        period_s: i64,
        quantity: i64,
        now_us: i64,
    ) -> [i64; 5] {
        let emission = ((period_s * NS_PER_S) as f64 / count as f64) as i64;
        let dvt = emission * (max_burst + 1);
        let limit = max_burst + 1;
        let increment = emission * quantity;
        let (now, now_ms) = (now_us * 1_000, now_us / 1_000);
        let tat_val = redis.get(now_ms);
        let tat = tat_val.map_or(now, |v| v as i64);
        let new_tat = if now > tat {
            now + increment
        } else {
            tat + increment
        };
        let diff = now - (new_tat - dvt);
        let (limited, ttl, retry_after) = if diff < 0 {
            (
                true,
                tat - now,
                if increment <= dvt { -diff } else { -NS_PER_S },
            )
        } else {
            let ttl = new_tat - now;
            redis.set_with_expire(now_ms, new_tat as u64, whole_milliseconds(ttl));
            (false, ttl, -NS_PER_S)
        };
        let next = dvt - ttl;
        let remaining = if next > -emission {
            (whole_microseconds(next) as f64 / whole_microseconds(emission) as f64) as i64
        } else {
            0
        };
        [
            i64::from(limited),
            limit,
            remaining,
            reply_seconds(retry_after),
            reply_seconds(ttl),
        ]
    }
}

/// Gaps between calls: within a millisecond, around an interval, and idle far past any expiry.
fn gaps() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(
        prop_oneof![0..2_000u64, 0..3_000_000u64, 0..400_000_000u64],
        1..60,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// On random traces, every reply of the profile is the reference's, a refusal's retry time
    /// is exact, and the profile calls a key at rest exactly when Redis no longer holds it. The rates include emission intervals
    /// under a millisecond (ttls stored as PX 0 or truncated by most of a millisecond).
    #[test]
    fn every_reply_matches_redis_and_the_module_on_random_traces(
        max_burst in 0u64..6,
        count in prop::sample::select(vec![1u64, 2, 3, 7, 30, 999, 3_000, 7_000]),
        period_s in 1u64..4,
        start in 0u64..1_000_000,
        gaps in gaps(),
        quantities in prop::collection::vec(0u64..9, 60),
        probe in 0u64..5_000_000,
    ) {
        let mut c = RedisCell::new(max_burst, count, Span::from_secs(period_s)).unwrap();
        let mut redis = reference::Redis::default();
        let mut now = T0 + start;
        for (gap, quantity) in gaps.iter().zip(quantities.iter().cycle()) {
            now += gap;
            let decision = c.peek(Time(now), *quantity);
            let got = c.throttle(Time(now), *quantity);
            let want = reference::throttle(&mut redis, max_burst as i64, count as i64, period_s as i64, *quantity as i64, now as i64);
            prop_assert_eq!([got.limited, got.limit, got.remaining, got.retry_after, got.reset_after], want, "at {} for {}", now, quantity);
            // The lab's retry time stays exact when the key expires before its arrival time.
            if let Some(wait) = decision.retry_after {
                prop_assert!(c.peek(Time(now + wait.micros()), *quantity).allowed());
                prop_assert!(!c.peek(Time(now + wait.micros() - 1), *quantity).allowed());
            }
        }
        let at = now + probe;
        prop_assert_eq!(c.is_at_rest(Time(at)), !redis.holds_key((at / 1_000) as i64));
    }
}

/// The first example through the lab as a link carries it: `cell-burst=15&cell-count=30&
/// cell-period=60` and a trace of one call at 0 s and one asking for 17 at 600 s (`600*17@k`).
/// The page's inspector shows the module's reply for the second call: `[1, 16, 16, -1, 0]`, with
/// the key's expiry named.
#[test]
fn the_idle_key_example_reads_the_same_through_a_link() {
    use ratelab::core::lab::LabRun;
    use ratelab::core::limiter::Algorithm;
    use ratelab::core::run::product_reply;
    use ratelab::core::url::parse_query;

    let parsed = parse_query(
        "algos=redis-cell&cell-burst=15&cell-count=30&cell-period=60&trace=0@k,600*17@k",
    );
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let run = LabRun::compute(&parsed.state);
    assert_eq!(
        run.trace
            .requests()
            .iter()
            .map(|r| r.cost)
            .collect::<Vec<_>>(),
        [1, 17]
    );
    let reply = |index| {
        product_reply::<Complete>(&run.trace, Algorithm::RedisCell, &run.settings, index)
            .expect("redis-cell answers with its reply")
    };
    let text = |index| {
        reply(index)
            .fields
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let five = |index| {
        let reply = reply(index);
        [
            "limited",
            "limit",
            "remaining",
            "retry_after",
            "reset_after",
        ]
        .map(|name| reply.get(name).unwrap_or_default().to_string())
        .join(", ")
    };
    assert_eq!(five(0), "0, 16, 15, -1, 2", "{}", text(0));
    assert_eq!(five(1), "1, 16, 16, -1, 0", "{}", text(1));
    assert!(text(1).contains("expired"), "{}", text(1));
}
