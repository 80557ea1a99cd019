//! Library-exact profiles, checked against the figures their own documentation and tests give.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::profiles::redis_cell::{RedisCell, ThrottleReply};
use ratelab::core::time::{Span, Time};

/// redis-cell's README: `CL.THROTTLE user123 15 30 60 1` answers `0, 16, 15, -1, 2`.
#[test]
fn redis_cell_readme_example() {
    let mut cell = RedisCell::new(15, 30, Span::from_secs(60)).unwrap();
    let reply = cell.throttle(Time::from_secs(1_000), 1);
    assert_eq!(
        reply,
        ThrottleReply {
            limited: 0,
            limit: 16,
            remaining: 15,
            retry_after: -1,
            reset_after: 2
        }
    );
}

/// The surprise users report: the limit is `max_burst + 1`, so a burst of 16 passes, not 15.
#[test]
fn redis_cell_lets_max_burst_plus_one_through_at_once() {
    let mut cell = RedisCell::new(15, 30, Span::from_secs(60)).unwrap();
    let passed = (0..20)
        .filter(|_| cell.throttle(Time::from_secs(1_000), 1).limited == 0)
        .count();
    assert_eq!(passed, 16);
}

/// redis-cell's own test table (`it_rate_limits` in redis-cell-impl/src/lib.rs): limit 5
/// (max_burst 4), 1 per second; (offset ms, quantity, remaining, reset_after ms, retry_after ms
/// or -1000, limited).
#[test]
fn redis_cell_reproduces_its_own_test_table() {
    let cases: [(u64, u64, i64, i128, i128, bool); 15] = [
        (0, 6, 5, 0, -1000, true),
        (0, 1, 4, 1000, -1000, false),
        (0, 1, 3, 2000, -1000, false),
        (0, 1, 2, 3000, -1000, false),
        (0, 1, 1, 4000, -1000, false),
        (0, 1, 0, 5000, -1000, false),
        (0, 1, 0, 5000, 1000, true),
        (3000, 1, 2, 3000, -1000, false),
        (3100, 1, 1, 3900, -1000, false),
        (4000, 1, 1, 4000, -1000, false),
        (8000, 1, 4, 1000, -1000, false),
        (9500, 1, 4, 1000, -1000, false),
        (9500, 0, 4, 1000, -1000, false),
        (9500, 2, 2, 3000, -1000, false),
        (9500, 5, 2, 3000, 3000, true),
    ];
    let start = Time::from_secs(1_700_000_000);
    let mut cell = RedisCell::new(4, 1, Span::from_secs(1)).unwrap();
    for (i, &(offset_ms, quantity, remaining, reset_ms, retry_ms, limited)) in
        cases.iter().enumerate()
    {
        let r = cell.rate_limit(start.plus(Span::from_millis(offset_ms)), quantity);
        assert_eq!(r.limited, limited, "case {i}");
        assert_eq!(r.limit, 5, "case {i}");
        assert_eq!(r.remaining, remaining, "case {i}");
        assert_eq!(r.reset_after_ns, reset_ms * 1_000_000, "case {i}");
        assert_eq!(r.retry_after_ns, retry_ms * 1_000_000, "case {i}");
    }
}

#[test]
fn redis_cell_refuses_a_zero_rate() {
    assert!(RedisCell::new(5, 0, Span::from_secs(1)).is_err());
    assert!(RedisCell::new(5, 1, Span::ZERO).is_err());
}
