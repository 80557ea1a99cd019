//! The Guava `RateLimiter` profile, checked against Guava's own tests.
//!
//! The cases named `test...` below are from google/guava
//! `guava-tests/test/com/google/common/util/concurrent/RateLimiterTest.java` (commit f2944006,
//! the master of the 31.x–33.x era), run on a fake stopwatch as the Java test does: `acquire`
//! advances the clock by the wait it returns and records it as "R0.20", a user's sleep as
//! "U0.20". Not reproduced: the warming-up cases (`testWarmUp*`, `testInfinity_WarmUp*`,
//! `testTimeToWarmUpIsHonouredEvenWithWeights`, `testCreateWarmupParameterValidation`), which are
//! `SmoothWarmingUp` and not this profile (the bursty part of the last one, a rate of 0 refused,
//! is checked), and the mocking and null tests, which test Java plumbing.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::profiles::guava::{http_response, java_double, Guava, GuavaParams};
use ratelab::core::profiles::Product;
use ratelab::core::time::{Span, Time};

/// RateLimiterTest's `FakeStopwatch` around a limiter created at its time 0.
struct FakeStopwatch {
    limiter: Guava,
    /// `instant`, kept in microseconds (the Java test keeps nanoseconds and reads micros).
    instant: u64,
    events: Vec<String>,
}

impl FakeStopwatch {
    fn create(permits_per_second: f64) -> FakeStopwatch {
        FakeStopwatch {
            limiter: Guava::new(GuavaParams::create(permits_per_second)).unwrap(),
            instant: 0,
            events: Vec::new(),
        }
    }

    fn now(&self) -> Time {
        Time(self.instant)
    }

    fn sleep_micros(&mut self, caption: &str, micros: i64) {
        let micros = u64::try_from(micros).unwrap();
        self.instant += micros;
        // String.format("%3.2f", micros / 1000000.0)
        self.events
            .push(format!("{caption}{:.2}", micros as f64 / 1_000_000.0));
    }

    fn sleep_millis(&mut self, millis: i64) {
        self.sleep_micros("U", millis * 1_000);
    }

    /// `acquire(permits)`: reserve, sleep, and return the seconds slept.
    fn acquire(&mut self, permits: i32) -> f64 {
        let micros = self.limiter.reserve(self.now(), permits).unwrap();
        self.sleep_micros("R", micros);
        Guava::seconds_slept(micros)
    }

    fn try_acquire(&mut self, permits: i32) -> bool {
        self.try_acquire_within(permits, 0)
    }

    /// `tryAcquire(permits, timeout, MICROSECONDS)`: sleeps the wait when acquired.
    fn try_acquire_within(&mut self, permits: i32, timeout_micros: i64) -> bool {
        let now = self.now();
        match self
            .limiter
            .try_acquire_within(now, permits, timeout_micros)
            .unwrap()
        {
            Some(micros) => {
                self.sleep_micros("R", micros);
                true
            }
            None => false,
        }
    }

    fn set_rate(&mut self, permits_per_second: f64) {
        let now = self.now();
        self.limiter.set_rate(now, permits_per_second).unwrap();
    }

    fn assert_events(&mut self, expected: &[&str]) {
        assert_eq!(self.events, expected);
        self.events.clear();
    }
}

#[test]
fn test_simple() {
    let mut s = FakeStopwatch::create(5.0);
    s.acquire(1); // R0.00, since it's the first request
    s.acquire(1); // R0.20
    s.acquire(1); // R0.20
    s.assert_events(&["R0.00", "R0.20", "R0.20"]);
}

/// `testImmediateTryAcquire` (on the system clock; here both calls at the same instant).
#[test]
fn test_immediate_try_acquire() {
    let mut g = Guava::new(GuavaParams::create(1.0)).unwrap();
    assert!(g.try_acquire(Time::ZERO, 1).unwrap(), "initial permit");
    assert!(!g.try_acquire(Time::ZERO, 1).unwrap(), "secondary permit");
}

/// `testDoubleMinValueCanAcquireExactlyOnce`: the stable interval is infinite, so the first
/// permit pushes the ticket to `Long.MAX_VALUE`.
#[test]
fn test_double_min_value_can_acquire_exactly_once() {
    let mut s = FakeStopwatch::create(f64::from_bits(1)); // Double.MIN_VALUE
    assert!(s.try_acquire(1), "initial permit");
    assert!(!s.try_acquire(1), "an additional permit");
    s.sleep_millis(i64::from(i32::MAX));
    assert!(!s.try_acquire(1), "an additional permit after sleeping");
    assert_eq!(s.limiter.next_free_ticket_micros(), i64::MAX);
}

/// `testVerySmallDoubleValues`.
#[test]
fn test_very_small_double_values() {
    let mut s = FakeStopwatch::create(f64::from_bits(1));
    assert!(s.try_acquire(1));
    assert!(!s.try_acquire(1));
    s.sleep_millis(5_000);
    assert!(!s.try_acquire(1));
}

/// `testSimpleRateUpdate`, on a bursty limiter (the Java test builds a warming-up one; `setRate`
/// and `getRate` are the same code for both).
#[test]
fn test_simple_rate_update() {
    let mut g = Guava::new(GuavaParams::create(5.0)).unwrap();
    assert_eq!(g.get_rate(), 5.0);
    g.set_rate(Time::ZERO, 10.0).unwrap();
    assert_eq!(g.get_rate(), 10.0);
    for rate in [0.0, -10.0] {
        let err = g.set_rate(Time::ZERO, rate).unwrap_err();
        assert_eq!(err.0, "rate must be positive");
    }
    // testCreateWarmupParameterValidation's bursty counterpart: create(0.0) is refused.
    assert!(Guava::new(GuavaParams::create(0.0)).is_err());
}

#[test]
fn test_acquire_parameter_validation() {
    let mut g = Guava::new(GuavaParams::create(999.0)).unwrap();
    for permits in [0, -1] {
        let message = format!("Requested permits ({permits}) must be positive");
        assert_eq!(g.reserve(Time::ZERO, permits).unwrap_err().0, message);
        assert_eq!(g.try_acquire(Time::ZERO, permits).unwrap_err().0, message);
        assert_eq!(
            g.try_acquire_within(Time::ZERO, permits, 1_000_000)
                .unwrap_err()
                .0,
            message
        );
    }
    assert_eq!(g.next_free_ticket_micros(), 0, "nothing was taken");
}

#[test]
fn test_simple_with_wait() {
    let mut s = FakeStopwatch::create(5.0);
    s.acquire(1); // R0.00
    s.sleep_millis(200); // U0.20, we are ready for the next request...
    s.acquire(1); // R0.00, ...which is granted immediately
    s.acquire(1); // R0.20
    s.assert_events(&["R0.00", "U0.20", "R0.00", "R0.20"]);
}

#[test]
fn test_simple_acquire_return_values() {
    let mut s = FakeStopwatch::create(5.0);
    assert_eq!(s.acquire(1), 0.0); // R0.00
    s.sleep_millis(200); // U0.20
    assert_eq!(s.acquire(1), 0.0); // R0.00
    assert_eq!(s.acquire(1), 0.2); // R0.20 (the Java test allows 1e-8; this is exact)
    s.assert_events(&["R0.00", "U0.20", "R0.00", "R0.20"]);
}

#[test]
fn test_simple_acquire_earliest_available_is_in_past() {
    let mut s = FakeStopwatch::create(5.0);
    assert_eq!(s.acquire(1), 0.0);
    s.sleep_millis(400);
    assert_eq!(s.acquire(1), 0.0);
    assert_eq!(s.acquire(1), 0.0);
    assert_eq!(s.acquire(1), 0.2);
}

#[test]
fn test_one_second_burst() {
    let mut s = FakeStopwatch::create(5.0);
    s.sleep_millis(1000); // max capacity reached
    s.sleep_millis(1000); // this makes no difference
    s.acquire(1); // R0.00, since it's the first request
    s.acquire(1); // R0.00, from capacity
    s.acquire(3); // R0.00, from capacity
    s.acquire(1); // R0.00, concluding a burst of 5 permits
    s.acquire(1); // R0.20, capacity exhausted
    s.assert_events(&[
        "U1.00", "U1.00", "R0.00", "R0.00", "R0.00", "R0.00", "R0.20",
    ]);
}

/// testOneSecondBurst's state, seen through the lab's rows: 5 stored permits after 2 s, then
/// `tryAcquire` replies spelled as Guava's fields hold them; the sixth permit is borrowed, so the
/// lab's limit is 6.
#[test]
fn the_one_second_burst_as_the_labs_rows_see_it() {
    let mut g = Guava::new(GuavaParams::create(5.0)).unwrap();
    let at = Time::from_secs(2);
    let (d, reply) = g.decide_with_reply(at, 1);
    assert_eq!((d.verdict, d.limit, d.remaining), (Verdict::Allowed, 6, 5));
    assert_eq!(reply.get("call"), Some("tryAcquire(1)"));
    assert_eq!(reply.get("tryAcquire"), Some("true"));
    assert_eq!(reply.get("nowMicros"), Some("2000000"));
    assert_eq!(reply.get("storedPermits"), Some("4.0"));
    assert_eq!(reply.get("nextFreeTicketMicros"), Some("2000000"));
    assert_eq!(reply.get("acquire"), Some("0.0"));
    assert_eq!(d.reset_after, Span::from_millis(200));

    let (d, _) = g.decide_with_reply(at, 3);
    assert_eq!(d.remaining, 2);
    let (d, _) = g.decide_with_reply(at, 1);
    assert_eq!(d.remaining, 1);
    // The borrowed permit: it passes, and the ticket moves 200 ms ahead.
    let (d, reply) = g.decide_with_reply(at, 1);
    assert_eq!((d.verdict, d.remaining), (Verdict::Allowed, 0));
    assert_eq!(reply.get("storedPermits"), Some("0.0"));
    assert_eq!(reply.get("nextFreeTicketMicros"), Some("2200000"));
    assert_eq!(d.reset_after, Span::from_millis(1_200));

    let (d, reply) = g.decide_with_reply(at, 1);
    assert_eq!(d.verdict, Verdict::Rejected);
    assert_eq!(d.retry_after, Some(Span::from_millis(200)));
    assert_eq!(reply.get("tryAcquire"), Some("false"));
    assert_eq!(reply.get("acquire"), Some("0.2"));
    let response = http_response(&d, &reply);
    assert_eq!(
        (response.status, response.reason),
        (429, "Too Many Requests")
    );
    assert_eq!(response.header("Retry-After"), Some("1"));
}

#[test]
fn test_bursty_and_update() {
    let mut s = FakeStopwatch::create(1.0);
    s.acquire(1); // no wait
    s.acquire(1); // R1.00, to repay previous
    s.set_rate(2.0); // update the rate!
    s.acquire(1); // R1.00, to repay previous (the previous was under the old rate!)
    s.acquire(2); // R0.50, to repay previous (now the rate takes effect)
    s.acquire(4); // R1.00, to repay previous
    s.acquire(1); // R2.00, to repay previous
    s.assert_events(&["R0.00", "R1.00", "R1.00", "R0.50", "R1.00", "R2.00"]);
}

#[test]
fn test_try_acquire_no_wait_allowed() {
    let mut s = FakeStopwatch::create(5.0);
    assert!(s.try_acquire_within(1, 0));
    assert!(!s.try_acquire_within(1, 0));
    assert!(!s.try_acquire_within(1, 0));
    s.sleep_millis(100);
    assert!(!s.try_acquire_within(1, 0));
}

#[test]
fn test_try_acquire_some_wait_allowed() {
    let mut s = FakeStopwatch::create(5.0);
    assert!(s.try_acquire_within(1, 0));
    assert!(s.try_acquire_within(1, 200_000));
    assert!(!s.try_acquire_within(1, 100_000));
    s.sleep_millis(100);
    assert!(s.try_acquire_within(1, 100_000));
}

#[test]
fn test_try_acquire_overflow() {
    let mut s = FakeStopwatch::create(5.0);
    assert!(s.try_acquire_within(1, 0));
    s.sleep_millis(100);
    assert!(s.try_acquire_within(1, i64::MAX));
}

/// `testTryAcquire_negative`: `SECONDS.toMicros(Long.MIN_VALUE)` saturates to `Long.MIN_VALUE`,
/// and a negative timeout counts as 0.
#[test]
fn test_try_acquire_negative() {
    let mut s = FakeStopwatch::create(5.0);
    assert!(s.try_acquire_within(5, 0));
    s.sleep_millis(900);
    assert!(!s.try_acquire_within(1, i64::MIN));
    s.sleep_millis(100);
    assert!(s.try_acquire_within(1, -1_000_000));
}

#[test]
fn test_simple_weights() {
    let mut s = FakeStopwatch::create(1.0);
    s.acquire(1); // no wait
    s.acquire(1); // R1.00, to repay previous
    s.acquire(2); // R1.00, to repay previous
    s.acquire(4); // R2.00, to repay previous
    s.acquire(8); // R4.00, to repay previous
    s.acquire(1); // R8.00, to repay previous
    s.assert_events(&["R0.00", "R1.00", "R1.00", "R2.00", "R4.00", "R8.00"]);
}

#[test]
fn test_infinity_bursty() {
    let mut s = FakeStopwatch::create(f64::INFINITY);
    s.acquire(i32::MAX / 4);
    s.acquire(i32::MAX / 2);
    s.acquire(i32::MAX);
    s.assert_events(&["R0.00", "R0.00", "R0.00"]); // no wait, infinite rate!

    s.set_rate(2.0);
    for _ in 0..5 {
        s.acquire(1);
    }
    s.assert_events(&[
        "R0.00", // First comes the saved-up burst, which defaults to a 1-second burst (2 requests).
        "R0.00", "R0.00", // Now comes the free request.
        "R0.50", // Now it's 0.5 seconds per request.
        "R0.50",
    ]);

    s.set_rate(f64::INFINITY);
    for _ in 0..3 {
        s.acquire(1);
    }
    // We repay the last request (.5 sec), then back to +oo.
    s.assert_events(&["R0.50", "R0.00", "R0.00"]);
}

/// `testInfinity_BustyTimeElapsed` (Guava issue 1791).
#[test]
fn test_infinity_busty_time_elapsed() {
    let mut s = FakeStopwatch::create(f64::INFINITY);
    s.instant += 1_000_000;
    s.set_rate(2.0);
    for _ in 0..5 {
        s.acquire(1);
    }
    s.assert_events(&["R0.00", "R0.00", "R0.00", "R0.50", "R0.50"]);
}

/// `java.util.Random`, exactly, for `measureTotalTimeMillis`'s random weights.
struct JavaRandom(u64);

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> JavaRandom {
        JavaRandom((seed ^ Self::MULTIPLIER) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.0 = (self.0.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        (self.0 >> (48 - bits)) as i32
    }

    fn next_int(&mut self, bound: i32) -> i32 {
        if bound & -bound == bound {
            return ((i64::from(bound) * i64::from(self.next(31))) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let val = bits % bound;
            if bits.wrapping_sub(val).wrapping_add(bound - 1) >= 0 {
                return val;
            }
        }
    }
}

/// `measureTotalTimeMillis`: `permits` in random pieces, then one to repay the debt.
fn measure_total_time_millis(s: &mut FakeStopwatch, mut permits: i32, rnd: &mut JavaRandom) -> u64 {
    let start = s.instant;
    while permits > 0 {
        let next = rnd.next_int(permits).max(1);
        permits -= next;
        s.acquire(next);
    }
    s.acquire(1);
    (s.instant - start) / 1_000
}

/// `testWeNeverGetABurstMoreThanOneSec`, for many seeds of Java's `Random` (the Java test uses
/// a fresh, unseeded one).
#[test]
fn test_we_never_get_a_burst_more_than_one_sec() {
    for seed in 0..25 {
        let mut rnd = JavaRandom::new(seed);
        let mut s = FakeStopwatch::create(1.0);
        for rate in [1000, 1, 10, 1_000_000, 10, 1] {
            s.sleep_millis(rate * 1000);
            s.set_rate(rate as f64);
            let burst = measure_total_time_millis(&mut s, rate as i32, &mut rnd);
            assert!(
                burst <= 1000,
                "seed {seed} rate {rate}: burst took {burst} ms"
            );
            let after = measure_total_time_millis(&mut s, rate as i32, &mut rnd);
            assert!(
                after >= 1000,
                "seed {seed} rate {rate}: after took {after} ms"
            );
        }
    }
}

#[test]
fn java_random_matches_the_jdk() {
    // What OpenJDK 17 answers: new Random(42).nextInt(100) three times is 30, 63, 48, and
    // new Random(7) gives 164236, 2, 47 for nextInt(1000000), nextInt(3), nextInt(64).
    let mut rnd = JavaRandom::new(42);
    assert_eq!(
        [rnd.next_int(100), rnd.next_int(100), rnd.next_int(100)],
        [30, 63, 48]
    );
    let mut rnd = JavaRandom::new(7);
    assert_eq!(
        [rnd.next_int(1_000_000), rnd.next_int(3), rnd.next_int(64)],
        [164_236, 2, 47]
    );
}

/// Rows Guava itself answered: Guava 31.1-jre (Debian's guava-31.1-jre.jar) on OpenJDK 17, a
/// `SmoothBursty(stopwatch, maxBurstSeconds)` after `setRate`, each call `tryAcquire(permits)` at
/// stopwatch time `micros`, then `storedPermits`, `queryEarliestAvailable` (the ticket) and the
/// seconds `acquire` would have slept, all as Java printed them. Columns: micros, permits,
/// tryAcquire, storedPermits, nextFreeTicketMicros, acquire.
type Row = (u64, u64, bool, &'static str, i64, &'static str);

fn replay_guavas_own_rows(permits_per_second: f64, max_burst_seconds: f64, rows: &[Row]) {
    let mut g = Guava::new(GuavaParams {
        permits_per_second,
        max_burst_seconds,
    })
    .unwrap();
    for (i, &(micros, permits, acquired, stored, ticket, acquire)) in rows.iter().enumerate() {
        let (d, reply) = g.decide_with_reply(Time(micros), permits);
        assert_eq!(d.allowed(), acquired, "row {i}");
        assert_eq!(
            reply.get("tryAcquire"),
            Some(acquired.to_string().as_str()),
            "row {i}"
        );
        assert_eq!(reply.get("storedPermits"), Some(stored), "row {i}");
        assert_eq!(g.next_free_ticket_micros(), ticket, "row {i}");
        assert_eq!(
            reply.get("nextFreeTicketMicros"),
            Some(ticket.to_string().as_str())
        );
        assert_eq!(reply.get("acquire"), Some(acquire), "row {i}");
    }
}

#[test]
fn guava_itself_answers_these_rows_at_seven_thirds_per_second() {
    replay_guavas_own_rows(
        7.0 / 3.0,
        1.0,
        &[
            (0, 1, true, "0.0", 428571, "0.0"),
            (1, 1, false, "0.0", 428571, "0.42857"),
            (428571, 1, true, "0.0", 857142, "0.0"),
            (428572, 2, false, "0.0", 857142, "0.42857"),
            (1500000, 1, true, "0.5000020000000003", 1500000, "0.0"),
            (2000000, 1, true, "0.666668666666667", 2000000, "0.0"),
            (5000000, 3, true, "0.0", 5285714, "0.0"),
            (5000000, 1, false, "0.0", 5285714, "0.285714"),
            (5000000, 1, false, "0.0", 5285714, "0.285714"),
            (5100000, 1, false, "0.0", 5285714, "0.185714"),
            (5857142, 1, true, "0.3333320000000002", 5857142, "0.0"),
            (5857143, 1, true, "0.0", 6142856, "0.0"),
        ],
    );
}

#[test]
fn guava_itself_answers_these_rows_at_three_per_second() {
    replay_guavas_own_rows(
        3.0,
        1.0,
        &[
            (0, 1, true, "0.0", 333333, "0.0"),
            (333333, 1, true, "0.0", 666666, "0.0"),
            (333334, 1, false, "0.0", 666666, "0.333332"),
            (666666, 1, true, "0.0", 999999, "0.0"),
            (999999, 1, true, "0.0", 1333332, "0.0"),
            (1000000, 1, false, "0.0", 1333332, "0.333332"),
            (3000000, 2, true, "1.0", 3000000, "0.0"),
            (3000000, 1, true, "0.0", 3000000, "0.0"),
            (3000000, 1, true, "0.0", 3333333, "0.0"),
            (3000000, 1, false, "0.0", 3333333, "0.333333"),
            (3333332, 1, false, "0.0", 3333333, "1.0E-6"),
            (3333333, 1, true, "0.0", 3666666, "0.0"),
        ],
    );
}

#[test]
fn guava_itself_answers_these_rows_at_a_hundred_per_minute() {
    replay_guavas_own_rows(
        100.0 / 60.0,
        60.0,
        &[
            (60000000, 60, true, "40.0", 60000000, "0.0"),
            (60000000, 40, true, "0.0", 60000000, "0.0"),
            (60000000, 1, true, "0.0", 60600000, "0.0"),
            (60000000, 1, false, "0.0", 60600000, "0.6"),
            (60300000, 1, false, "0.0", 60600000, "0.3"),
            (60600000, 1, true, "0.0", 61200000, "0.0"),
            (60600001, 1, false, "0.0", 61200000, "0.599999"),
            (90000000, 10, true, "38.0", 90000000, "0.0"),
            (90000000, 45, true, "0.0", 94200000, "0.0"),
        ],
    );
}

/// The lab's default: 100 per minute is 100/60 permits per second with a 60 s burst: 101 pass
/// at once after a rest (the last borrowed), then one every 0.6 s.
#[test]
fn defaults_for_a_limit_per_window_stores_the_limit_and_borrows_one_more() {
    assert_eq!(
        GuavaParams::defaults_for(10, Span::from_secs(1)),
        GuavaParams::create(10.0)
    );
    let mut g = Guava::new(GuavaParams::defaults_for(100, Span::from_secs(60))).unwrap();
    let at = Time::from_secs(60);
    assert_eq!(g.peek(at, 1).limit, 101);
    let passed = (0..200).take_while(|_| g.decide(at, 1).allowed()).count();
    assert_eq!(passed, 101);
    let d = g.decide(at, 1);
    assert_eq!(d.retry_after, Some(Span::from_millis(600)));
    assert!(g.decide(Time::from_millis(60_600), 1).allowed());
    assert!(!g.decide(Time::from_millis(60_600), 1).allowed());
}

#[test]
fn a_limiter_is_at_rest_once_it_is_full_again_like_a_fresh_one() {
    let mut g = Guava::new(GuavaParams::create(5.0)).unwrap();
    assert!(g.is_at_rest(Time::ZERO));
    let d = g.decide(Time::from_secs(10), 3);
    assert!(!g.is_at_rest(Time::from_secs(10)));
    let full = Time::from_secs(10).plus(d.reset_after);
    assert_eq!(d.reset_after, Span::from_millis(600));
    assert!(!g.is_at_rest(Time(full.micros() - 1)));
    assert!(g.is_at_rest(full));
    assert_eq!(g.gauge(full).level, 5.0);
}

#[test]
fn java_doubles_in_replies() {
    assert_eq!(java_double(0.6), "0.6");
    assert_eq!(java_double(1.0e-5), "1.0E-5");
}

fn params() -> impl Strategy<Value = GuavaParams> {
    (1u64..1_000, 1u64..120_000).prop_map(|(limit, window_ms)| {
        GuavaParams::defaults_for(limit, Span::from_millis(window_ms))
    })
}

fn requests() -> impl Strategy<Value = Vec<(u64, u64)>> {
    // Mostly short gaps, sometimes a rest long enough to fill any bucket of these params.
    let gap = prop_oneof![4 => 0u64..400_000, 1 => 0u64..250_000_000];
    prop::collection::vec((gap, 1u64..4), 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// peek answers what decide answers and changes nothing; decide is deterministic.
    #[test]
    fn peek_agrees_with_decide_and_the_same_inputs_give_the_same_outputs(
        p in params(),
        reqs in prop::collection::vec((any::<u64>(), 0u64..5_000_000_000), 0..60)
    ) {
        let mut a = Guava::new(p).unwrap();
        let mut b = Guava::new(p).unwrap();
        for &(t, cost) in &reqs {
            let peeked = a.peek(Time(t), cost);
            let again = a.peek(Time(t), cost);
            prop_assert_eq!(peeked, again);
            let (decided, reply) = a.decide_with_reply(Time(t), cost);
            prop_assert_eq!(peeked, decided);
            let (other, other_reply) = b.decide_with_reply(Time(t), cost);
            prop_assert_eq!(decided, other);
            prop_assert_eq!(reply, other_reply);
            prop_assert!(decided.remaining <= decided.limit);
        }
    }

    /// A refused tryAcquire leaves storedPermits and nextFreeTicketMicros as they were, and its
    /// wait is exact: the same call passes after it, and not a microsecond sooner.
    #[test]
    fn a_refusal_changes_nothing_and_names_the_exact_wait(p in params(), reqs in requests()) {
        let mut g = Guava::new(p).unwrap();
        let mut now = 0u64;
        for &(gap, cost) in &reqs {
            now += gap;
            let before = (g.stored_permits().to_bits(), g.next_free_ticket_micros());
            let d = g.decide(Time(now), cost);
            if d.verdict == Verdict::Rejected {
                prop_assert_eq!(before, (g.stored_permits().to_bits(), g.next_free_ticket_micros()));
                let wait = d.retry_after.unwrap().micros();
                prop_assert!(wait > 0);
                prop_assert!(g.peek(Time(now + wait), cost).allowed());
                prop_assert!(!g.peek(Time(now + wait - 1), cost).allowed());
            }
        }
    }

    /// `remaining` is exactly how many more requests of 1 pass at the same instant.
    #[test]
    fn remaining_counts_the_requests_that_pass_at_the_same_instant(
        p in params(), reqs in requests()
    ) {
        let mut g = Guava::new(p).unwrap();
        let mut now = 0u64;
        for &(gap, cost) in &reqs {
            now += gap;
            let d = g.decide(Time(now), cost);
            let mut probe = g.clone();
            let cap = 5_000;
            let attempts = d.remaining.min(cap) + 1;
            let passed = (0..attempts)
                .take_while(|_| probe.decide(Time(now), 1).allowed())
                .count() as u64;
            let expected = if d.remaining <= cap { d.remaining } else { attempts };
            prop_assert_eq!(passed, expected);
        }
    }

    /// Guava's promise: between two granted calls at times a and b, the permits granted from the
    /// first up to (not including) the second are at most maxPermits + (b - a) / interval, plus
    /// under 1 µs per call that the truncated waits may leave uncharged.
    #[test]
    fn never_more_than_the_stored_permits_plus_the_rate_between_two_grants(
        p in params(), reqs in requests()
    ) {
        let mut g = Guava::new(p).unwrap();
        let (max, interval) = (g.max_permits(), g.stable_interval_micros());
        let mut now = 0u64;
        let mut granted: Vec<(u64, u64)> = Vec::new();
        for &(gap, cost) in &reqs {
            now += gap;
            if g.decide(Time(now), cost).allowed() {
                granted.push((now, cost));
            }
        }
        for i in 0..granted.len() {
            let mut permits = 0u64;
            for j in i + 1..granted.len() {
                permits += granted[j - 1].1;
                let calls = (j - i) as f64;
                let elapsed = (granted[j].0 - granted[i].0) as f64;
                let bound = max + (elapsed + calls) / interval;
                prop_assert!(
                    permits as f64 <= bound + 1e-6,
                    "{} permits from {} to {} us, bound {}", permits, granted[i].0, granted[j].0, bound
                );
            }
        }
    }

    /// What a server using Guava answers: 200 when tryAcquire passed, else 429 with the acquire
    /// wait in whole seconds, rounded up.
    #[test]
    fn the_http_answer_follows_try_acquire(p in params(), reqs in requests()) {
        let mut g = Guava::new(p).unwrap();
        let mut now = 0u64;
        for &(gap, cost) in &reqs {
            now += gap;
            let (d, reply) = g.decide_with_reply(Time(now), cost);
            let response = http_response(&d, &reply);
            if reply.get("tryAcquire") == Some("true") {
                prop_assert_eq!(response.status, 200);
            } else {
                prop_assert_eq!(response.status, 429);
                let wait = d.retry_after.unwrap();
                let secs = wait.micros().div_ceil(1_000_000).max(1).to_string();
                prop_assert_eq!(response.header("Retry-After"), Some(secs.as_str()));
                let acquire: f64 = reply.get("acquire").unwrap().parse().unwrap();
                prop_assert_eq!(acquire, wait.micros() as f64 / 1e6);
            }
        }
    }
}
