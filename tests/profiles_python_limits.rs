//! The Python package `limits` 5.8.0 (alisaifee/limits), its three strategies over
//! `MemoryStorage`: the library's own tests (`tests/test_strategy.py`,
//! `tests/storage/test_memory.py`), its documentation's worked examples
//! (`doc/source/strategies.rst`, `doc/source/quickstart.rst`), traces replayed through the
//! library itself, and properties of its promises.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::config::ConfigError;
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::python_limits::{
    http_response, py_float_repr, FixedWindowRateLimiter, Granularity, MovingWindowRateLimiter,
    PyLimitsParams, SlidingWindowCounterRateLimiter,
};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

fn item(amount: u64, multiples: u64, granularity: Granularity) -> PyLimitsParams {
    PyLimitsParams::new(amount, multiples, granularity)
}

fn fixed(p: PyLimitsParams) -> FixedWindowRateLimiter {
    FixedWindowRateLimiter::new(p).unwrap()
}

fn moving(p: PyLimitsParams) -> MovingWindowRateLimiter {
    MovingWindowRateLimiter::new(p).unwrap()
}

fn sliding(p: PyLimitsParams) -> SlidingWindowCounterRateLimiter {
    SlidingWindowCounterRateLimiter::new(p).unwrap()
}

fn ms(ms: u64) -> Time {
    Time::from_millis(ms)
}

/// `time.time()` at lab time `t` for the item's clock.
fn clock(p: &PyLimitsParams, t: Time) -> f64 {
    ratelab::core::profiles::python_limits::time_time(p.epoch, t)
}

// ---- tests/test_strategy.py, TestFixedWindow (in-memory) ----

/// `test_fixed_window`: `RateLimitItemPerSecond(10, 2)`; ten hits within a second pass, the
/// eleventh (after the `window(1)` block) is refused, `remaining == 0` and `reset_time` is
/// `start + 2` (`fixed_start` begins on a whole second).
#[test]
fn fixed_window_ten_per_two_seconds() {
    let p = item(10, 2, Granularity::Second);
    let mut l = fixed(p);
    let start = Time::from_secs(1);
    for i in 0..10 {
        assert!(l.hit(start.plus(Span::from_millis(90 * i)), 1));
    }
    assert!(!l.hit(Time::from_secs(2), 1));
    let stats = l.get_window_stats(Time::from_secs(2));
    assert_eq!(stats.remaining, 0);
    assert_eq!(stats.reset_time, clock(&p, start) + 2.0);
}

/// `test_fixed_window_empty_stats`: `remaining == 10`, `reset_time == time.time()`.
#[test]
fn fixed_window_empty_stats() {
    let p = item(10, 2, Granularity::Second);
    let stats = fixed(p).get_window_stats(Time::from_secs(7));
    assert_eq!(stats.remaining, 10);
    assert_eq!(stats.reset_time, clock(&p, Time::from_secs(7)));
}

/// `test_fixed_window_multiple_cost`: `RateLimitItemPerMinute(10, 2)`; a cost of 11 is refused
/// on key k1; on key k2 a cost of 5 passes, leaves 5, and a cost of 6 is refused by `test` and by
/// `hit`.
#[test]
fn fixed_window_multiple_cost() {
    let p = item(10, 2, Granularity::Minute);
    let mut k1 = fixed(p);
    let mut k2 = fixed(p);
    assert!(!k1.hit(Time::ZERO, 11));
    assert!(k2.hit(Time::ZERO, 5));
    assert_eq!(k2.get_window_stats(Time::ZERO).remaining, 5);
    assert!(!k2.test(Time::ZERO, 6));
    assert!(!k2.hit(Time::ZERO, 6));
}

/// `test_test_fixed_window`: `RateLimitItemPerHour(2, 1)`: hit, test passes, hit, test fails,
/// hit fails.
#[test]
fn fixed_window_test_and_hit() {
    let mut l = fixed(item(2, 1, Granularity::Hour));
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.test(Time::ZERO, 1));
    assert!(l.hit(Time::ZERO, 1));
    assert!(!l.test(Time::ZERO, 1));
    assert!(!l.hit(Time::ZERO, 1));
}

// ---- tests/test_strategy.py, TestMovingWindow (in-memory) ----

/// `test_moving_window_empty_stats`: `remaining == 10`, `reset_time == time.time() + 2`.
#[test]
fn moving_window_empty_stats() {
    let p = item(10, 2, Granularity::Second);
    let stats = moving(p).get_window_stats(Time::from_secs(5));
    assert_eq!(stats.remaining, 10);
    assert_eq!(stats.reset_time, clock(&p, Time::from_secs(5)) + 2.0);
}

/// `test_moving_window_stats`: `RateLimitItemPerMinute(2)`: hits at 0 s and 1 s pass, the one
/// at 2 s is refused, `remaining == 0` and the reset is 58 s away (the first entry's 60 s).
#[test]
fn moving_window_stats() {
    let p = item(2, 1, Granularity::Minute);
    let mut l = moving(p);
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.hit(Time::from_secs(1), 1));
    assert!(!l.hit(Time::from_secs(2), 1));
    let stats = l.get_window_stats(Time::from_secs(2));
    assert_eq!(stats.remaining, 0);
    assert_eq!(stats.reset_time - clock(&p, Time::from_secs(2)), 58.0);
}

/// `test_moving_window`: `RateLimitItemPerSecond(10, 2)`: 5 hits in the first 500 ms, 5 more
/// from 1.3 s, and the 11th, still within 2 s of the first, is refused.
#[test]
fn moving_window_ten_per_two_seconds() {
    let mut l = moving(item(10, 2, Granularity::Second));
    for i in 0..5 {
        assert!(l.hit(ms(100 * i), 1));
    }
    for i in 0..5 {
        assert!(l.hit(ms(1_300 + 100 * i), 1));
    }
    assert!(!l.hit(ms(1_800), 1));
}

/// `test_moving_window_multiple_cost`: a cost of 11 is refused; a cost of 5 in the first 100 ms;
/// from 1.8 s four single hits pass, a cost of 2 is refused by `test` and `hit`, one more single
/// passes; after 2 s five more pass (only five in the last 2 s), `remaining` is 0 and a cost of
/// 2 is refused.
#[test]
fn moving_window_multiple_cost() {
    let p = item(10, 2, Granularity::Second);
    assert!(!moving(p).hit(Time::ZERO, 11));
    let mut l = moving(p);
    assert!(l.hit(ms(50), 5));
    for i in 0..4 {
        assert!(l.hit(ms(1_800 + 10 * i), 1));
    }
    assert!(!l.test(ms(1_850), 2));
    assert!(!l.hit(ms(1_850), 2));
    assert!(l.hit(ms(1_860), 1));
    for i in 0..5 {
        assert!(l.hit(ms(2_100 + i), 1));
    }
    assert_eq!(l.get_window_stats(ms(2_105)).remaining, 0);
    assert!(!l.hit(ms(2_105), 2));
}

/// `test_moving_window_varying_cost`: `RateLimitItemPerMinute(5)`: after a hit of cost 5, a hit
/// of cost 2 is refused.
#[test]
fn moving_window_varying_cost() {
    let mut l = moving(item(5, 1, Granularity::Minute));
    assert!(l.hit(Time::ZERO, 5));
    assert!(!l.hit(Time::ZERO, 2));
}

/// `test_moving_window_huge_cost`: `RateLimitItemPerSecond(1_000_000, 2)`: one hit, then a hit
/// of 999,999 a second later, and at 2 s (the first hit's entry exactly 2 s old, so no longer
/// counted) `remaining == 1`.
#[test]
fn moving_window_huge_cost() {
    let mut l = moving(item(1_000_000, 2, Granularity::Second));
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.hit(Time::from_secs(1), 999_999));
    assert_eq!(l.get_window_stats(Time::from_secs(2)).remaining, 1);
}

/// `test_test_moving_window`: `RateLimitItemPerHour(2, 1)`.
#[test]
fn moving_window_test_and_hit() {
    let mut l = moving(item(2, 1, Granularity::Hour));
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.test(Time::ZERO, 1));
    assert!(l.hit(Time::ZERO, 1));
    assert!(!l.test(Time::ZERO, 1));
    assert!(!l.hit(Time::ZERO, 1));
}

/// tests/storage/test_memory.py, `test_pickle`: `acquire_entry("moving_test", 2, 60)` passes
/// twice and is refused the third time.
#[test]
fn moving_window_two_entries_per_sixty_seconds() {
    let mut l = moving(item(2, 1, Granularity::Minute));
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.hit(ms(1), 1));
    assert!(!l.hit(ms(2), 1));
}

// ---- tests/test_strategy.py, TestSlidingWindow (in-memory: TimestampedSlidingWindow) ----

/// `test_sliding_window_counter`: `RateLimitItemPerSecond(10, 2)`, started on an even second
/// (the test waits until the next second is odd): ten hits within the first second pass, the
/// eleventh at the odd second is refused, `remaining == 0`, and the reset time is the end of the
/// 2 s window: `next_second + int(2 - next_second % 2)`.
#[test]
fn sliding_window_counter_ten_per_two_seconds() {
    let p = item(10, 2, Granularity::Second);
    assert_eq!(p.epoch % 2, 0);
    let mut l = sliding(p);
    for i in 0..10 {
        assert!(l.hit(ms(90 * i), 1));
    }
    assert!(!l.hit(Time::from_secs(1), 1));
    let stats = l.get_window_stats(Time::from_secs(1));
    assert_eq!(stats.remaining, 0);
    let next_second = clock(&p, Time::from_secs(1));
    assert_eq!(stats.reset_time - next_second, 1.0);
}

/// `test_sliding_window_counter_total_reset`: `RateLimitItemPerSecond(10, 1)`: a hit of cost 10
/// passes, the next is refused, `remaining == 0`; two periods later `remaining == 10` and the
/// reset time is now.
#[test]
fn sliding_window_counter_total_reset() {
    let p = item(10, 1, Granularity::Second);
    let mut l = sliding(p);
    assert_eq!(l.get_window_stats(Time::ZERO).remaining, 10);
    assert!(l.hit(ms(100), 10));
    assert!(!l.hit(ms(100), 1));
    assert_eq!(l.get_window_stats(ms(100)).remaining, 0);
    let later = ms(2_100);
    assert_eq!(l.get_window_stats(later).remaining, 10);
    assert_eq!(l.get_window_stats(later).reset_time, clock(&p, later));
}

/// `test_sliding_window_counter_current_window`: `RateLimitItemPerHour(2, 24)`: after one hit
/// the reset time is `now + timestamp_based_key_ttl` (the end of the clock's 24 h window),
/// `remaining == 1`, one more hit passes and the third is refused.
#[test]
fn sliding_window_counter_current_window() {
    let p = item(2, 24, Granularity::Hour);
    let mut l = sliding(p);
    let now = Time::from_secs(5_000);
    assert!(l.hit(now, 1));
    let t = clock(&p, now);
    let expiry = 24.0 * 3_600.0;
    let ttl = expiry - t % expiry;
    assert!((l.get_window_stats(now).reset_time - (t + ttl)).abs() < 1e-2 * (t + ttl));
    // The library's own doubles, `(1 - ((now / expiry) % 1)) * expiry + expiry` then `% expiry`,
    // land one ULP past the window's end (as limits 5.8.0 answers on the same clock).
    assert_eq!(
        py_float_repr(l.get_window_stats(now).reset_time),
        "1700092800.0000002"
    );
    assert_eq!(l.get_window_stats(now).remaining, 1);
    assert!(l.hit(now, 1));
    assert!(!l.hit(now, 1));
}

/// `test_sliding_window_counter_previous_window`: `RateLimitItemPerSecond(5, 1)`: three hits,
/// `remaining == 2`, reset at the window's end; 1 ms into the next window the reset is about a
/// third of a second away (`expiry / 3`, within 0.03) and `remaining == 3`; two hits pass; then
/// three times: `remaining == 1`, a hit passes, `remaining == 0`, a hit is refused, the reset is
/// about a third of a second away, and waiting that long (plus 1 ms) frees one more.
#[test]
fn sliding_window_counter_previous_window() {
    let p = item(5, 1, Granularity::Second);
    let mut l = sliding(p);
    let start = ms(300);
    for _ in 0..3 {
        l.hit(start, 1);
    }
    assert_eq!(l.get_window_stats(start).remaining, 2);
    assert_eq!(
        l.get_window_stats(start).reset_time,
        clock(&p, Time::from_secs(1))
    );
    let mut now = ms(1_001);
    let reset_in = l.get_window_stats(now).reset_time - clock(&p, now);
    assert!((reset_in - 1.0 / 3.0).abs() <= 0.03, "{reset_in}");
    assert_eq!(l.get_window_stats(now).remaining, 3);
    assert!(l.hit(now, 1));
    assert!(l.hit(now, 1));
    for _ in 0..3 {
        assert_eq!(l.get_window_stats(now).remaining, 1);
        assert!(l.hit(now, 1));
        assert_eq!(l.get_window_stats(now).remaining, 0);
        assert!(!l.hit(now, 1));
        let reset_in = l.get_window_stats(now).reset_time - clock(&p, now);
        assert!((reset_in - 1.0 / 3.0).abs() <= 0.03, "{reset_in}");
        let wait = (reset_in * 1e6).ceil() as u64 + 1_000;
        now = now.plus(Span(wait));
    }
}

/// `test_sliding_window_counter_empty_stats`: `remaining == 10`, `reset_time == time.time()`.
#[test]
fn sliding_window_counter_empty_stats() {
    let p = item(10, 2, Granularity::Second);
    let stats = sliding(p).get_window_stats(Time::from_secs(3));
    assert_eq!(stats.remaining, 10);
    assert_eq!(stats.reset_time, clock(&p, Time::from_secs(3)));
}

/// `test_sliding_window_counter_multiple_cost`: as the fixed window's.
#[test]
fn sliding_window_counter_multiple_cost() {
    let p = item(10, 2, Granularity::Minute);
    assert!(!sliding(p).hit(Time::ZERO, 11));
    let mut l = sliding(p);
    assert!(l.hit(Time::ZERO, 5));
    assert_eq!(l.get_window_stats(Time::ZERO).remaining, 5);
    assert!(!l.test(Time::ZERO, 6));
    assert!(!l.hit(Time::ZERO, 6));
}

/// `test_test_sliding_window_counter`: `RateLimitItemPerHour(2, 1)`.
#[test]
fn sliding_window_counter_test_and_hit() {
    let mut l = sliding(item(2, 1, Granularity::Hour));
    assert!(l.hit(Time::ZERO, 1));
    assert!(l.test(Time::ZERO, 1));
    assert!(l.hit(Time::ZERO, 1));
    assert!(!l.test(Time::ZERO, 1));
    assert!(!l.hit(Time::ZERO, 1));
}

// ---- doc/source/strategies.rst and quickstart.rst ----

/// strategies.rst, "Sliding Window Counter": 100 requests per minute, 40 hits in the previous
/// bucket and 80 in the current one. 30 s after the bucket shifted the weighted count is
/// floor(80 + 0.5 × 40) = 100, the limit, and a request is rejected; 40 s after, it is
/// floor(80 + 40/3) = 93 and a request is allowed.
#[test]
fn sliding_window_counter_documented_example() {
    let p = item(100, 1, Granularity::Minute);
    let mut l = sliding(p);
    // The previous bucket is lab [0, 60) s (the default clock is aligned on the minute).
    assert!(l.hit(Time::from_secs(10), 40));
    // 80 hits early in the current bucket, once the previous 40 weigh little enough: 29 s in,
    // 40 × 31 / 60 = 20.67, and 20.67 + 79 floors to 99.
    for _ in 0..80 {
        assert!(l.hit(Time::from_secs(89), 1));
    }
    let mut at_30 = l.clone();
    assert_eq!(at_30.get_window_stats(Time::from_secs(90)).remaining, 0);
    let d = at_30.decide(Time::from_secs(90), 1);
    assert_eq!(d.verdict, Verdict::Rejected, "floor(100) + 1 > 100");
    // The weight falls below 20 right after 30 s: the request passes a microsecond later.
    assert_eq!(d.retry_after, Some(Span(1)));
    assert!(at_30.hit(Time(90_000_001), 1));
    assert_eq!(
        l.get_window_stats(Time::from_secs(100)).remaining,
        7,
        "100 - 93"
    );
    assert!(l.hit(Time::from_secs(100), 1));
    assert_eq!(l.get_window_stats(Time::from_secs(100)).remaining, 6);
}

/// strategies.rst, "Moving Window": 10 per minute; 1 request at 10 s, 2 at 20 s, 4 at 30 s and
/// 3 at 50 s are allowed (10 in all); at 71 s the 10th oldest entry (10 s) is 61 s old and a
/// request is allowed; at 72 s the 10th oldest (20 s) is only 52 s old and it is rejected.
#[test]
fn moving_window_documented_example() {
    let mut l = moving(item(10, 1, Granularity::Minute));
    for (t, n) in [(10, 1), (20, 2), (30, 4), (50, 3)] {
        for _ in 0..n {
            assert!(l.hit(Time::from_secs(t), 1));
        }
    }
    assert!(l.hit(Time::from_secs(71), 1));
    assert!(!l.hit(Time::from_secs(72), 1));
}

/// strategies.rst, "Fixed Window": 10 per minute; the first request at 00:00:45 starts a window
/// to 00:01:45; after 10 requests any further one before 00:01:45 is rejected; at 00:01:45 the
/// counter resets.
#[test]
fn fixed_window_documented_example() {
    let mut l = fixed(item(10, 1, Granularity::Minute));
    for i in 0..10 {
        assert!(l.hit(Time::from_secs(45 + i), 1));
    }
    assert!(!l.hit(Time(104_999_999), 1));
    assert!(l.hit(Time::from_secs(105), 1));
}

/// quickstart.rst, "Query available capacity and reset time": one per minute; after a hit
/// `remaining` is 0, the next hit is refused, and after `time.sleep(window.reset_time -
/// time.time())` a hit passes. On an exact clock this holds for the fixed window; the moving
/// window's entry exactly one window old still blocks (`atime >= now - expiry`), so there it
/// takes one more microsecond (a real `sleep` always overshoots).
#[test]
fn quickstart_sleep_until_reset_time() {
    let p = item(1, 1, Granularity::Minute);
    let mut f = fixed(p);
    let mut m = moving(p);
    assert!(f.hit(Time::from_secs(3), 1));
    assert!(m.hit(Time::from_secs(3), 1));
    let fw = f.get_window_stats(Time::from_secs(3));
    let mw = m.get_window_stats(Time::from_secs(3));
    assert_eq!((fw.remaining, mw.remaining), (0, 0));
    assert!(!f.hit(Time::from_secs(4), 1));
    assert!(!m.hit(Time::from_secs(4), 1));
    assert_eq!(fw.reset_time, mw.reset_time);
    let at = Time::from_secs(63);
    assert_eq!(clock(&p, at), fw.reset_time);
    assert!(f.hit(at, 1));
    assert!(!m.hit(at, 1));
    assert!(m.hit(at.plus(Span(1)), 1));
}

/// quickstart.rst, "Consume the limits": one per second: hit, refused, and after
/// `time.sleep(1)` a hit passes (every strategy).
#[test]
fn quickstart_one_per_second() {
    let p = item(1, 1, Granularity::Second);
    let mut f = fixed(p);
    let mut m = moving(p);
    let mut s = sliding(p);
    for l in [&mut f as &mut dyn Limiter, &mut m, &mut s] {
        assert!(l.decide(ms(200), 1).allowed());
        assert!(!l.decide(ms(300), 1).allowed());
    }
    assert!(f.hit(ms(1_300), 1));
    assert!(m.hit(ms(1_300), 1));
    // The sliding counter still weighs the previous second's hit: floor(0.7) = 0, so it passes.
    assert!(s.hit(ms(1_300), 1));
}

// ---- Traces replayed through limits 5.8.0 itself ----

/// Each line: `strategy amount multiples granularity epoch | lab µs,cost;... | hit,reset_time,
/// remaining;...` (cost `-`: only `get_window_stats`). Produced by running the PyPI wheel of
/// limits 5.8.0 under CPython 3.11 with `time.time` replaced by the lab's clock (the nanosecond
/// formula of `PyTime_AsSecondsDouble`) and `threading.Timer` by one that fires exactly 10 ms
/// after it is started; `reset_time` is Python's `repr`. The profile matched the library on
/// 15,000 such random traces; these are some of them, and a few written to cross the edges.
const REPLAYED: &[&str] = &[
    "fixed 3 2 second 1700000123|500000,1;600000,2;1000000,1;2499999,1;2500000,1;2500000,0;2600000,-;4700000,4;5000000,1;6700000,1;6700001,0|1,1700000125.5,2;1,1700000125.5,0;0,1700000125.5,0;0,1700000125.5,0;1,1700000127.5,2;1,1700000127.5,2;-,1700000127.5,2;0,1700000129.7,0;0,1700000129.7,0;1,1700000131.7,2;1,1700000131.7,2",
    "moving 3 5 second 1234567891|0,1;1000000,2;2000000,1;5000000,1;5000001,1;6000000,2;6000001,2;12000000,4;12000000,-;12000000,0;12010000,-;13000000,1|1,1234567896.0,2;1,1234567896.0,0;0,1234567896.0,0;0,1234567897.0,1;1,1234567897.0,0;0,1234567901.000001,2;1,1234567901.000001,0;0,1234567901.000001,3;-,1234567901.000001,3;1,1234567901.000001,3;-,1234567908.01,3;1,1234567909.0,2",
    "sliding 5 1 second 1700000000|100000,1;100000,1;100000,1;100000,-;1001000,-;1001000,1;1001000,1;1001000,1;1001000,1;1300000,-;1340000,1;1340000,1;1999999,1;2000000,-|1,1700000001.0,4;1,1700000001.0,3;1,1700000001.0,2;-,1700000001.0,2;-,1700000001.3333333,3;1,1700000001.3333333,2;1,1700000001.3333333,1;1,1700000001.3333333,0;0,1700000001.3333333,0;-,1700000001.3333333,0;1,1700000001.6666667,0;0,1700000001.6666667,0;1,1700000002.0,0;-,1700000002.2,0",
    "sliding 7 3 second 1234567891|0,3;999999,4;1000000,1;2999999,1;3000000,2;4123456,2;4500000,-;5999999,1;6000000,7;6000001,8;9000000,1;9000001,1|1,1234567893.0,4;1,1234567893.0,0;0,1234567893.0,0;1,1234567894.2857144,2;1,1234567894.2857144,0;1,1234567895.142857,0;-,1234567895.5714285,1;1,1234567897.2,3;0,1234567897.2,3;0,1234567897.2,3;1,1234567902.0,6;1,1234567902.0,5",
    "sliding 100 1 minute 0|0,40;30000000,-;30000000,30;59999999,-;60000000,1;89000000,-|1,0.0,60;-,30.0,40;1,30.0,0;-,60.0,30;1,60.0,29;-,89.14285714285714,63",
    "moving 5 2 second 1700000000|2,2;2000002,6;3759633,1;5759633,1;5774664,2;5999999,-;6000000,6;6000000,1;6000002,1;8000002,1;10000002,-;10000002,-;12000000,0;12012218,2;13215513,2;13215515,1;13215516,-;15215516,2;17215516,5;17222404,-;17222404,1;17239215,5;18039967,2;18039968,2;18039970,0;18897885,1|1,1700000002.0000021,3;0,1700000002.0000021,5;1,1700000005.7596328,4;1,1700000007.7596328,4;1,1700000007.7596328,2;-,1700000007.7596328,2;0,1700000007.7596328,2;1,1700000007.7596328,1;1,1700000007.7596328,0;1,1700000010.0000021,4;-,1700000010.0000021,5;-,1700000010.0000021,5;1,1700000010.0000021,5;1,1700000014.012218,3;1,1700000014.012218,1;1,1700000014.012218,0;-,1700000014.012218,0;1,1700000017.2155159,3;0,1700000017.2155159,5;-,1700000017.2155159,5;1,1700000019.222404,4;0,1700000019.222404,4;1,1700000019.222404,2;1,1700000019.222404,0;1,1700000019.222404,0;0,1700000019.222404,0",
    "sliding 3 1 second 1700000000|953450,1;961135,3;999999,4;1000003,3;1420570,4;2193602,0;2209704,0;2999999,1;3000001,2;3015506,1;3015506,1;3024655,4;3024655,3;3999998,0;5999998,-;6000001,-;7000001,3;7019652,3;7019652,-;8000002,3;9000002,1;9004087,-;10000002,-;10000002,-;11000001,0;11000001,1;12000001,1;12012980,2;12722091,4;12722091,1;12722091,4;12722095,3;12722099,1;13676064,2;13687095,4;14687095,0;14687095,1;16687095,4;18687095,1;18999998,0;18999998,1;19208409,4;19208411,3;19208411,1;19219486,0;19219486,2;20120017,1;21000001,-;21000004,-;21000004,-;21006983,1;21006984,1;21006987,3;21999999,1;21999999,-|1,1700000001.0,2;0,1700000001.0,2;0,1700000001.0,2;1,1700000002.0,0;0,1700000002.0,0;1,1700000002.3333333,1;1,1700000002.3333333,1;1,1700000003.0,2;1,1700000004.0,1;1,1700000004.0,0;0,1700000004.0,0;0,1700000004.0,0;0,1700000004.0,0;1,1700000004.0,0;-,1700000005.9999979,3;-,1700000006.000001,3;1,1700000008.0,0;0,1700000008.0,0;-,1700000008.0,0;0,1700000008.3333333,1;1,1700000010.0,2;-,1700000010.0,2;-,1700000011.0,3;-,1700000011.0,3;1,1700000011.000001,3;1,1700000012.0,2;1,1700000013.0,2;1,1700000013.0,0;0,1700000013.0,0;0,1700000013.0,0;0,1700000013.0,0;0,1700000013.0,0;0,1700000013.0,0;1,1700000014.0,1;0,1700000014.0,1;1,1700000015.0,3;1,1700000015.0,2;0,1700000016.687095,3;1,1700000019.0,2;1,1700000019.0,2;1,1700000019.0,1;0,1700000019.5,2;0,1700000019.5,2;1,1700000019.5,1;1,1700000019.5,1;0,1700000019.5,1;1,1700000021.0,2;-,1700000022.0,3;-,1700000022.0,3;-,1700000022.0,3;1,1700000022.0,2;1,1700000022.0,1;0,1700000022.0,1;1,1700000022.0,0;-,1700000022.0,0",
    "fixed 2 1 minute 1700000040|31691842,2;31691843,3;31691843,2;72456317,1;120000001,0;179999999,1;180001002,1;180001002,-;180001002,2;239999999,2;239999999,-;240000003,3;300000003,2;300000005,3;300000710,2;360000710,1;420000000,1;480000000,-;514072328,1;514081640,3;634081640,1;650371644,2;694981827,1;694999811,2;694999811,3;720000002,1;720000006,2;769175088,1;772093471,0;780000002,2;839999999,1;899999999,1|1,1700000131.691842,0;0,1700000131.691842,0;0,1700000131.691842,0;0,1700000131.691842,0;1,1700000220.000001,2;1,1700000279.999999,1;1,1700000279.999999,0;-,1700000279.999999,0;0,1700000279.999999,0;1,1700000339.999999,0;-,1700000339.999999,0;0,1700000339.999999,0;1,1700000400.000003,0;0,1700000400.000003,0;0,1700000400.000003,0;1,1700000460.0007098,1;1,1700000460.0007098,0;-,1700000520.0,2;1,1700000614.0723279,1;0,1700000614.0723279,0;1,1700000734.08164,1;0,1700000734.08164,0;1,1700000794.981827,1;0,1700000794.981827,0;0,1700000794.981827,0;0,1700000794.981827,0;0,1700000794.981827,0;1,1700000869.1750882,1;1,1700000869.1750882,1;0,1700000869.1750882,0;1,1700000939.999999,1;1,1700000999.999999,1",
];

enum Any {
    Fixed(FixedWindowRateLimiter),
    Moving(MovingWindowRateLimiter),
    Sliding(SlidingWindowCounterRateLimiter),
}

#[test]
fn every_reply_matches_the_library_replayed_on_the_same_clock() {
    for line in REPLAYED {
        let mut parts = line.split('|');
        let head: Vec<&str> = parts.next().unwrap().split(' ').collect();
        let (trace, expected) = (parts.next().unwrap(), parts.next().unwrap());
        let p = PyLimitsParams::new(
            head[1].parse().unwrap(),
            head[2].parse().unwrap(),
            Granularity::from_name(head[3]).unwrap(),
        )
        .with_epoch(head[4].parse().unwrap());
        let mut l = match head[0] {
            "fixed" => Any::Fixed(fixed(p)),
            "moving" => Any::Moving(moving(p)),
            _ => Any::Sliding(sliding(p)),
        };
        for (step, want) in trace.split(';').zip(expected.split(';')) {
            let (t, cost) = step.split_once(',').unwrap();
            let now = Time(t.parse().unwrap());
            let hit = cost.parse::<u64>().ok().map(|cost| match &mut l {
                Any::Fixed(x) => x.hit(now, cost),
                Any::Moving(x) => x.hit(now, cost),
                Any::Sliding(x) => x.hit(now, cost),
            });
            let s = match &l {
                Any::Fixed(x) => x.get_window_stats(now),
                Any::Moving(x) => x.get_window_stats(now),
                Any::Sliding(x) => x.get_window_stats(now),
            };
            let hit = hit.map_or("-".to_string(), |h| u8::from(h).to_string());
            let got = format!("{hit},{},{}", py_float_repr(s.reset_time), s.remaining);
            assert_eq!(got, want, "{} at {step}", head.join(" "));
        }
    }
}

// ---- The reply, the HTTP answer, the configuration ----

#[test]
fn the_reply_is_hit_then_the_window_stats_as_python_writes_them() {
    let p = item(2, 1, Granularity::Minute).with_epoch(1_700_000_040);
    let mut l = fixed(p);
    let (d, r) = l.decide_with_reply(Time(1), 1);
    assert_eq!(
        r.fields,
        vec![
            ("hit", "True".to_string()),
            ("reset_time", "1700000100.000001".to_string()),
            ("remaining", "1".to_string()),
        ]
    );
    assert_eq!(http_response(&d, &r).status, 200);
    l.decide(Time(2), 1);
    let (d, r) = l.decide_with_reply(Time(3), 1);
    assert_eq!(r.get("hit"), Some("False"));
    assert_eq!(d.retry_after, Some(Span(59_999_998)));
    let response = http_response(&d, &r);
    assert_eq!(
        (response.status, response.reason),
        (429, "Too Many Requests")
    );
}

#[test]
fn settings_the_library_cannot_have_or_the_lab_cannot_hold_are_refused() {
    assert_eq!(
        FixedWindowRateLimiter::new(item(1, 2, Granularity::Year)).unwrap_err(),
        ConfigError::TooLarge("window")
    );
    assert_eq!(
        MovingWindowRateLimiter::new(item(2_000_000_000, 1, Granularity::Second)).unwrap_err(),
        ConfigError::TooLarge("amount")
    );
    assert!(SlidingWindowCounterRateLimiter::new(item(0, 1, Granularity::Second)).is_ok());
}

/// An amount of 0 (the library accepts `RateLimitItemPerSecond(0)`) refuses every hit of
/// positive cost and lets a hit of cost 0 through, in every strategy.
#[test]
fn an_amount_of_zero_refuses_every_positive_cost() {
    let p = item(0, 1, Granularity::Second);
    let mut all: [Box<dyn Limiter>; 3] = [
        Box::new(fixed(p)),
        Box::new(moving(p)),
        Box::new(sliding(p)),
    ];
    for l in &mut all {
        assert_eq!(l.decide(Time::ZERO, 1).verdict, Verdict::Rejected);
        assert_eq!(l.decide(Time::ZERO, 1).retry_after, None);
        assert!(l.decide(Time::from_secs(9), 0).allowed());
    }
}

#[test]
fn times_and_costs_at_the_end_of_their_range_do_not_panic() {
    let p = item(1_000_000_000, 360, Granularity::Day).with_epoch(1_000_000_000_000);
    let mut all: [Box<dyn Limiter>; 3] = [
        Box::new(fixed(p)),
        Box::new(moving(p)),
        Box::new(sliding(p)),
    ];
    for l in &mut all {
        for (t, cost) in [
            (0, u64::MAX),
            (u64::MAX - 1, 1),
            (u64::MAX, 999_999_999),
            (5, 1),
        ] {
            let d = l.decide(Time(t), cost);
            let _ = (
                d.reset_after,
                d.retry_after,
                l.is_at_rest(Time(t)),
                l.gauge(Time(t)),
            );
        }
    }
}

// ---- Properties ----

/// Builds one of the three strategies.
fn build(which: u8, p: PyLimitsParams) -> Box<dyn Limiter> {
    match which % 3 {
        0 => Box::new(fixed(p)),
        1 => Box::new(moving(p)),
        _ => Box::new(sliding(p)),
    }
}

fn trace() -> impl Strategy<Value = Vec<(u64, u64)>> {
    prop::collection::vec(
        (
            prop_oneof![Just(0u64), 0u64..5, 0u64..300_000, 0u64..3_000_000],
            prop_oneof![Just(1u64), 0u64..4],
        ),
        1..60,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Peeking changes nothing; `admit` changes the state as `decide` does; and a refused hit's
    /// `retry_after` is exact: the same hit passes then and not a microsecond sooner.
    #[test]
    fn peek_is_pure_admit_agrees_and_retry_after_is_exact(
        which in 0u8..3,
        amount in 0u64..6,
        secs in 1u64..4,
        epoch in prop_oneof![Just(None), (0u64..3_000_000_000).prop_map(Some)],
        steps in trace(),
    ) {
        let mut p = item(amount, secs, Granularity::Second);
        if let Some(e) = epoch {
            p = p.with_epoch(e);
        }
        let mut deciding = build(which, p);
        let mut admitting = build(which, p);
        let mut now = 0u64;
        for (gap, cost) in steps {
            now += gap;
            let at = Time(now);
            let peeked = deciding.peek(at, cost);
            let decided = deciding.decide(at, cost);
            prop_assert_eq!(peeked, decided);
            prop_assert_eq!(admitting.admit(at, cost), decided.verdict);
            if let Some(wait) = decided.retry_after {
                let pass_at = at.plus(wait);
                prop_assert!(deciding.peek(pass_at, cost).allowed(), "{:?} at {}", wait, now);
                if wait > Span::ZERO {
                    prop_assert!(!deciding.peek(Time(pass_at.micros() - 1), cost).allowed());
                }
            }
            prop_assert!(deciding.is_at_rest(at.plus(decided.reset_after)));
            prop_assert_eq!(deciding.peek(at, 1), admitting.peek(at, 1));
        }
    }

    /// `decide` of the moving window and the sliding window counter takes shortcuts (the clock
    /// and the counters or log read once for the hit and the stats, a refusal known from the last
    /// found retry time, the first counted entry walked on to): its reply is always the one the
    /// library's own two calls give, `hit` then `get_window_stats` at the same instant, and its
    /// state stays the one `hit` leaves.
    #[test]
    fn decide_replies_as_hit_then_get_window_stats_do(
        which in 1u8..3,
        amount in 0u64..6,
        secs in 1u64..4,
        epoch in prop_oneof![Just(None), Just(Some(0u64)), (0u64..3_000_000_000).prop_map(Some)],
        steps in trace(),
    ) {
        let mut p = item(amount, secs, Granularity::Second);
        if let Some(e) = epoch {
            p = p.with_epoch(e);
        }
        let (mut fast_m, mut slow_m) = (moving(p), moving(p));
        let (mut fast_s, mut slow_s) = (sliding(p), sliding(p));
        let mut now = 0u64;
        for (gap, cost) in steps {
            now += gap;
            let at = Time(now);
            let (decision, got, want) = if which == 1 {
                let (d, r) = fast_m.decide_with_reply(at, cost);
                let hit = slow_m.hit(at, cost);
                let stats = slow_m.get_window_stats(at);
                (d, r, (hit, stats))
            } else {
                let (d, r) = fast_s.decide_with_reply(at, cost);
                let hit = slow_s.hit(at, cost);
                let stats = slow_s.get_window_stats(at);
                (d, r, (hit, stats))
            };
            let (hit, stats) = want;
            prop_assert_eq!(got.get("hit"), Some(if hit { "True" } else { "False" }), "at {}", now);
            let (reset_time, remaining) = (py_float_repr(stats.reset_time), stats.remaining.to_string());
            prop_assert_eq!(got.get("reset_time"), Some(reset_time.as_str()), "at {}", now);
            prop_assert_eq!(got.get("remaining"), Some(remaining.as_str()), "at {}", now);
            prop_assert_eq!(decision.allowed(), hit);
            prop_assert_eq!(decision.remaining, stats.remaining_count());
            // Both limiters now hold the same state: the next second's stats agree.
            let later = Time(now + 1_000_000);
            if which == 1 {
                prop_assert_eq!(fast_m.get_window_stats(later), slow_m.get_window_stats(later));
            } else {
                prop_assert_eq!(fast_s.get_window_stats(later), slow_s.get_window_stats(later));
            }
        }
    }

    /// The moving window's promise: the costs it lets through within any window of `expiry`
    /// seconds (both ends included, as `atime >= now - expiry` blocks) never exceed `amount`.
    #[test]
    fn the_moving_window_never_lets_more_than_the_amount_into_any_window(
        amount in 1u64..6,
        secs in 1u64..3,
        steps in trace(),
    ) {
        let mut l = moving(item(amount, secs, Granularity::Second));
        let mut passed: Vec<(u64, u64)> = Vec::new();
        let mut now = 0u64;
        let w = secs * 1_000_000;
        for (gap, cost) in steps {
            now += gap;
            if l.hit(Time(now), cost) {
                passed.push((now, cost));
            }
            let inside: u64 = passed.iter().filter(|(t, _)| *t + w >= now).map(|(_, c)| c).sum();
            prop_assert!(inside <= amount, "{} in the window ending at {}", inside, now);
        }
    }

    /// The fixed window lets at most `amount` through per window it starts, so at most twice
    /// that in any span of `expiry`; the sliding counter at most `amount` per clock window.
    #[test]
    fn the_window_counters_never_let_more_than_their_bounds_through(
        amount in 1u64..6,
        secs in 1u64..3,
        steps in trace(),
    ) {
        let p = item(amount, secs, Granularity::Second);
        let (mut f, mut s) = (fixed(p), sliding(p));
        let (mut fixed_passed, mut sliding_passed) = (Vec::new(), Vec::new());
        let mut now = 0u64;
        let w = secs * 1_000_000;
        for (gap, cost) in steps {
            now += gap;
            if f.hit(Time(now), cost) {
                fixed_passed.push((now, cost));
            }
            if s.hit(Time(now), cost) {
                sliding_passed.push((now, cost));
            }
            let recent: u64 = fixed_passed.iter().filter(|(t, _)| *t + w > now).map(|(_, c)| c).sum();
            prop_assert!(recent <= 2 * amount);
            // The default clock is aligned on the window: clock windows are lab [k w, (k+1) w).
            let this_window: u64 = sliding_passed.iter().filter(|(t, _)| t / w == now / w).map(|(_, c)| c).sum();
            prop_assert!(this_window <= amount);
        }
    }
}
