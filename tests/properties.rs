#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::int_plus_one)] // `<= 2 × limit - 1` reads as the documented bound
//! Property tests: the promise each algorithm makes, checked on random traces; and keys of any
//! characters through every path a key takes (the link, composed segments, a kept trace, the CSV
//! export and import).

use proptest::prelude::*;
use ratelab::core::config::{Quota, Rate};
use ratelab::core::decision::{Decision, Limiter, Verdict};
use ratelab::core::limiter::Complete;
use ratelab::core::limiter::{Algorithm, LeakDelay, Settings};
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Request;
use ratelab::layout::polyline::drop_straight_runs;

/// A request of `cost` at `t` (key 0).
fn request(t: u64, cost: u64) -> Request {
    Request {
        cost: u32::try_from(cost).unwrap_or(u32::MAX),
        ..Request::new(Time(t), 0)
    }
}

/// Decides `requests` with `admit_each` in runs (the lengths cycle through `runs`, a run of 0
/// being one `decide`), and with `decide` alone, and checks that every verdict and the state
/// after each run are the same.
fn admit_each_agrees_with_decide(
    algorithm: Algorithm,
    s: &Settings,
    requests: &[Request],
    runs: &[usize],
    probe: u64,
) -> Result<(), TestCaseError> {
    let Ok(mut deciding) = algorithm.build(s) else {
        return Ok(());
    };
    let mut running = deciding.clone();
    let mut rest = requests;
    for &run in runs.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (now, later) = rest.split_at(run.clamp(1, rest.len()));
        let expected: Vec<Verdict> = now
            .iter()
            .map(|r| deciding.decide(r.at, u64::from(r.cost)).verdict)
            .collect();
        let mut got = Vec::new();
        if run == 0 {
            got.push(running.decide(now[0].at, u64::from(now[0].cost)).verdict);
        } else {
            running.admit_each(now.iter(), |v| got.push(v));
        }
        prop_assert_eq!(got, expected, "{:?}", algorithm);
        let at = Time(now[now.len() - 1].at.micros().saturating_add(probe));
        prop_assert_eq!(
            running.peek(at, 1),
            deciding.peek(at, 1),
            "{:?}: the states differ",
            algorithm
        );
        rest = later;
    }
    Ok(())
}

/// Sorted request times (microseconds) spread over a few windows of `window_us`.
fn sorted_times(window_us: u64) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0..window_us * 4, 1..120).prop_map(|mut v| {
        v.sort();
        v
    })
}

fn settings(limit: u64, window_us: u64) -> Settings {
    Settings {
        limit,
        window: Span(window_us),
        ..Settings::default()
    }
}

/// `settings` with one burst for the token bucket, GCRA and the leaky bucket, and a leaky-bucket
/// delay (at most the burst).
fn busy_settings(limit: u64, window_us: u64, burst: u64, delay: u64) -> Settings {
    Settings {
        capacity: Some(burst),
        gcra_burst: Some(burst),
        leak_burst: Some(burst),
        leak_delay: LeakDelay::After(delay.min(burst)),
        ..settings(limit, window_us)
    }
}

/// Runs unit-cost requests and returns the times of those let through (served at once).
fn passed_times(algorithm: Algorithm, s: &Settings, times: &[u64]) -> Vec<u64> {
    let mut limiter = algorithm.build(s).expect("valid settings");
    times
        .iter()
        .copied()
        .filter(|&t| limiter.decide(Time(t), 1).verdict == Verdict::Allowed)
        .collect()
}

/// The most of `times` (sorted) inside any window `(end - w, end]`.
fn max_in_any_window(times: &[u64], w: u64) -> usize {
    let mut first = 0;
    let mut best = 0;
    for (last, &end) in times.iter().enumerate() {
        while end >= w && times[first] <= end - w {
            first += 1;
        }
        best = best.max(last - first + 1);
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn sliding_log_never_allows_more_than_limit_in_any_window(limit in 1u64..8, window_ms in 1u64..5_000, seed_times in sorted_times(5_000_000)) {
        let w = window_ms * 1000;
        let times: Vec<u64> = seed_times.iter().map(|t| t % (4 * w)).collect::<Vec<_>>();
        let mut times = times; times.sort();
        let passed = passed_times(Algorithm::SlidingLog, &settings(limit, w), &times);
        prop_assert!(max_in_any_window(&passed, w) as u64 <= limit);
    }

    #[test]
    fn fixed_window_never_allows_more_than_twice_the_limit_in_any_window(limit in 1u64..8, window_ms in 1u64..5_000, times in sorted_times(20_000_000)) {
        let w = window_ms * 1000;
        let passed = passed_times(Algorithm::FixedWindow, &settings(limit, w), &times);
        prop_assert!(max_in_any_window(&passed, w) as u64 <= 2 * limit);
    }

    #[test]
    fn sliding_counter_never_allows_more_than_twice_the_limit_minus_one(limit in 1u64..8, window_ms in 1u64..5_000, times in sorted_times(20_000_000)) {
        let w = window_ms * 1000;
        let passed = passed_times(Algorithm::SlidingCounter, &settings(limit, w), &times);
        prop_assert!(max_in_any_window(&passed, w) as u64 <= 2 * limit - 1);
    }

    #[test]
    fn token_bucket_never_passes_more_than_capacity_plus_rate_times_t(
        capacity in 1u64..8, amount in 1u64..10, per_ms in 1u64..3_000, times in sorted_times(10_000_000)
    ) {
        let rate = Rate::new(amount, Span::from_millis(per_ms)).unwrap();
        let s = Settings { capacity: Some(capacity), refill: Some(rate), ..settings(5, 10_000_000) };
        let passed = passed_times(Algorithm::TokenBucket, &s, &times);
        // For every span [a, b] between passed requests: count <= capacity + (b - a) * amount / per.
        for i in 0..passed.len() {
            for j in i..passed.len() {
                let count = (j - i + 1) as u128;
                let allowance = u128::from(capacity) * u128::from(rate.per().micros())
                    + u128::from(passed[j] - passed[i]) * u128::from(rate.amount());
                prop_assert!(count * u128::from(rate.per().micros()) <= allowance, "{} passed in {} us", count, passed[j] - passed[i]);
            }
        }
    }

    #[test]
    fn gcra_agrees_with_a_token_bucket_of_the_same_parameters(
        burst in 1u64..8, amount in 1u64..10, per_ms in 1u64..3_000,
        requests in prop::collection::vec((0u64..10_000_000, 1u64..4), 1..150)
    ) {
        let rate = Rate::new(amount, Span::from_millis(per_ms)).unwrap();
        let s = Settings { capacity: Some(burst), gcra_burst: Some(burst), refill: Some(rate), ..settings(5, 10_000_000) };
        let mut gcra = Algorithm::Gcra.build(&s).unwrap();
        let mut bucket = Algorithm::TokenBucket.build(&s).unwrap();
        let mut requests = requests;
        requests.sort();
        for (t, cost) in requests {
            let a: Decision = gcra.decide(Time(t), cost);
            let b: Decision = bucket.decide(Time(t), cost);
            prop_assert_eq!(a, b, "at {} us, cost {}", t, cost);
        }
    }

    #[test]
    fn leaky_bucket_releases_at_most_delay_plus_one_plus_rate_times_t(
        limit in 1u64..8, window_ms in 100u64..5_000, delay in 0u64..4, nodelay in any::<bool>(), times in sorted_times(20_000_000)
    ) {
        let w = window_ms * 1000;
        let s = Settings { leak_delay: if nodelay { LeakDelay::NoDelay } else { LeakDelay::After(delay.min(limit - 1)) }, ..settings(limit, w) };
        let threshold = if nodelay { limit - 1 } else { delay.min(limit - 1) };
        let mut meter = Algorithm::LeakyBucket.build(&s).unwrap();
        let mut released: Vec<u64> = times.iter().filter_map(|&t| match meter.decide(Time(t), 1).verdict {
            Verdict::Allowed => Some(t),
            Verdict::Delayed { by } => Some(t + by.micros()),
            Verdict::Rejected => None,
        }).collect();
        released.sort();
        for i in 0..released.len() {
            for j in i..released.len() {
                let count = (j - i + 1) as u128;
                // count <= threshold + 1 + (b - a) * limit / window, in units of 1/window.
                let allowance = u128::from(threshold + 1) * u128::from(w) + u128::from(released[j] - released[i]) * u128::from(limit);
                prop_assert!(count * u128::from(w) <= allowance + u128::from(limit), "{} released in {} us", count, released[j] - released[i]);
            }
        }
    }

    #[test]
    fn no_input_panics_and_peek_always_agrees_with_decide(
        limit in 1u64..1_000_000, window_us in 1u64..100_000_000_000,
        requests in prop::collection::vec((any::<u64>(), 0u64..2_000_000), 0..60)
    ) {
        // Unsorted, repeated and extreme times, and costs from 0 to above any limit.
        for algorithm in Algorithm::ALL {
            // A product may refuse settings its product refuses (Envoy's 50 ms floor), but only
            // with an error; the six algorithms accept every limit and window.
            let mut limiter = match algorithm.build(&settings(limit, window_us)) {
                Ok(limiter) => limiter,
                Err(_) if algorithm.is_product() => continue,
                Err(e) => panic!("{algorithm:?}: {e}"),
            };
            for &(t, cost) in &requests {
                let peeked = limiter.peek(Time(t), cost);
                let decided = limiter.decide(Time(t), cost);
                prop_assert_eq!(peeked, decided, "{:?}", algorithm);
                prop_assert!(decided.remaining <= decided.limit.max(limit), "{:?}: {:?}", algorithm, decided);
                let _ = limiter.gauge(Time(t));
            }
        }
    }

    #[test]
    fn admit_gives_the_verdict_decide_gives_and_leaves_the_same_state(
        limit in 1u64..1_000_000, window_us in 1u64..100_000_000_000,
        requests in prop::collection::vec((any::<u64>(), 0u64..2_000_000, any::<bool>()), 0..60)
    ) {
        // Extreme inputs: unsorted, repeated and huge times, costs up to above any limit.
        for algorithm in Algorithm::ALL {
            let Ok(mut deciding) = algorithm.build(&settings(limit, window_us)) else { continue };
            let mut mixed = deciding.clone();
            for &(t, cost, use_admit) in &requests {
                let decided = deciding.decide(Time(t), cost);
                let verdict = if use_admit { mixed.admit(Time(t), cost) } else { mixed.decide(Time(t), cost).verdict };
                prop_assert_eq!(verdict, decided.verdict, "{:?}", algorithm);
                prop_assert_eq!(mixed.peek(Time(t), 1), deciding.peek(Time(t), 1), "{:?}: the states differ", algorithm);
            }
        }
    }

    #[test]
    fn admit_agrees_with_decide_on_busy_traces_of_every_shape(
        limit in 1u64..12, window_ms in 1u64..4_000, burst in 1u64..12, delay in 0u64..12,
        times in sorted_times(16_000_000), costs in prop::collection::vec(0u64..4, 120), pattern in any::<u128>(),
        grid in 0u64..3
    ) {
        let w = window_ms * 1000;
        // On a grid too, so that requests land exactly on the moment they start to conform.
        let step = [1, 1000, (w / limit).max(1)][grid as usize];
        let times: Vec<u64> = times.iter().map(|t| t - t % step).collect();
        let s = busy_settings(limit, w, burst, delay);
        for algorithm in Algorithm::ALL {
            let Ok(mut deciding) = algorithm.build(&s) else { continue };
            let mut mixed = deciding.clone();
            for (i, &t) in times.iter().enumerate() {
                let cost = costs[i % costs.len()];
                let decided = deciding.decide(Time(t), cost);
                let verdict = if pattern >> (i % 128) & 1 == 1 { mixed.admit(Time(t), cost) } else { mixed.decide(Time(t), cost).verdict };
                prop_assert_eq!(verdict, decided.verdict, "{:?} at {}", algorithm, t);
                prop_assert_eq!(mixed.peek(Time(t + w / 2), 1), deciding.peek(Time(t + w / 2), 1), "{:?}: the states differ", algorithm);
            }
        }
    }

    #[test]
    fn admit_each_gives_the_verdicts_decide_gives_on_extreme_traces(
        limit in 1u64..1_000_000, window_us in 1u64..100_000_000_000,
        requests in prop::collection::vec((any::<u64>(), 0u64..2_000_000), 0..60),
        runs in prop::collection::vec(0usize..8, 1..6)
    ) {
        // Unsorted, repeated and huge times (past any 64-bit product), costs up to above any limit.
        let requests: Vec<Request> = requests.iter().map(|&(t, cost)| request(t, cost)).collect();
        for algorithm in Algorithm::ALL {
            admit_each_agrees_with_decide(algorithm, &settings(limit, window_us), &requests, &runs, 1)?;
        }
    }

    #[test]
    fn admit_each_gives_the_verdicts_decide_gives_on_busy_traces_of_every_shape(
        limit in 1u64..12, window_ms in 1u64..4_000, burst in 1u64..12, delay in 0u64..12,
        times in sorted_times(16_000_000), costs in prop::collection::vec(0u64..4, 120),
        runs in prop::collection::vec(0usize..40, 1..6), late in 0u64..12, grid in 0u64..3
    ) {
        let w = window_ms * 1000;
        let s = busy_settings(limit, w, burst, delay);
        // Near the end of time too, where a scaled time (µs × the rate's amount) leaves 64 bits
        // mid-trace for an amount of `late` (the times span 64 s).
        let start = u64::MAX.checked_div(late).map_or(0, |end| end.saturating_sub(32_000_000));
        // On a grid too (whole milliseconds, or whole emission intervals), so that requests land
        // exactly on the moment they start to conform.
        let step = [1, 1000, (w / limit).max(1)][grid as usize];
        let requests: Vec<Request> =
            times.iter().enumerate().map(|(i, &t)| request(start.saturating_add(t - t % step), costs[i % costs.len()])).collect();
        for algorithm in Algorithm::ALL {
            admit_each_agrees_with_decide(algorithm, &s, &requests, &runs, w / 2)?;
        }
    }

    #[test]
    fn a_rejection_names_the_exact_moment_the_same_request_would_pass(
        limit in 1u64..6, window_ms in 1u64..3_000, times in sorted_times(8_000_000)
    ) {
        let w = window_ms * 1000;
        // The products' own waits are checked against their documentation in tests/profiles_*.
        for algorithm in Algorithm::CORE {
            let mut limiter = algorithm.build(&settings(limit, w)).unwrap();
            for &t in &times {
                let d = limiter.decide(Time(t), 1);
                if let Some(wait) = d.retry_after {
                    let at = Time(t).plus(wait);
                    prop_assert!(limiter.peek(at, 1).allowed(), "{:?}: not allowed at the retry time", algorithm);
                    // Exact, not just late enough: a microsecond before, it still fails (the
                    // sliding log's 1 ms floor is the seed's, so it may be late by design).
                    if wait.micros() > 1000 || algorithm != Algorithm::SlidingLog {
                        prop_assert!(!limiter.peek(Time(at.micros() - 1), 1).allowed(), "{:?}: allowed before the retry time", algorithm);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The Durable Object emulation persists the limiter only on allowed decisions (as the seed
    /// does) and restores from that. This is sound only if restoring the last allowed state is the
    /// same as keeping the memory: a rejection must change nothing but the passage of time.
    #[test]
    fn restoring_the_state_saved_at_the_last_allowed_decision_equals_keeping_the_memory(
        limit in 1u64..6, window_ms in 1u64..3_000, times in sorted_times(8_000_000), probe in 0u64..2_000_000
    ) {
        // The products are not offered inside the object: some change state on a rejection
        // (Upstash's fixed window counts refused calls), which this persistence would lose.
        for algorithm in Algorithm::CORE {
            let s = settings(limit, window_ms * 1000);
            let mut memory = algorithm.build(&s).unwrap();
            let mut stored = memory.clone();
            for &t in &times {
                if memory.decide(Time(t), 1).allowed() {
                    stored = memory.clone();
                }
                let later = Time(t + probe);
                prop_assert_eq!(stored.peek(later, 1), memory.peek(later, 1), "{:?} at {}", algorithm, t);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Obeying clients decide a try on the fast path and, only for a refusal, peek at the same
    /// instant for the full answer (`AnyLimiter::refusal_is_repeatable`). That is exact only if
    /// the peek after a refused `admit` is the decision `decide` gives, and the states agree after.
    #[test]
    fn a_refusal_peeked_again_at_its_instant_is_the_decision_decide_gives(
        limit in 1u64..6, window_ms in 1u64..3_000, burst in 1u64..8, delay in 0u64..8,
        times in sorted_times(8_000_000), costs in prop::collection::vec(1u64..4, 120),
    ) {
        let s = busy_settings(limit, window_ms * 1000, burst, delay);
        for algorithm in Algorithm::CORE {
            let mut deciding = algorithm.build(&s).unwrap();
            let mut admitting = deciding.clone();
            prop_assert!(admitting.refusal_is_repeatable(), "{:?}", algorithm);
            for (&t, &cost) in times.iter().zip(&costs) {
                let decided = deciding.decide(Time(t), cost);
                let verdict = admitting.admit(Time(t), cost);
                prop_assert_eq!(verdict, decided.verdict, "{:?} at {}", algorithm, t);
                if verdict == Verdict::Rejected {
                    prop_assert_eq!(admitting.peek(Time(t), cost), decided, "{:?} at {}", algorithm, t);
                }
                prop_assert_eq!(admitting.peek(Time(t + 1), 1), deciding.peek(Time(t + 1), 1));
            }
        }
    }
}

#[test]
fn counting_refused_requests_or_a_product_decides_every_try_in_full() {
    let counting = Settings {
        count_refused: true,
        ..Settings::default()
    };
    for algorithm in [
        Algorithm::FixedWindow,
        Algorithm::SlidingLog,
        Algorithm::SlidingCounter,
    ] {
        assert!(!algorithm.build(&counting).unwrap().refusal_is_repeatable());
    }
    for algorithm in Algorithm::ALL.into_iter().filter(|a| a.is_product()) {
        if let Ok(limiter) = algorithm.build(&Settings::default()) {
            assert!(!limiter.refusal_is_repeatable(), "{algorithm:?}");
        }
    }
}

#[test]
fn quotas_reject_a_zero_window_at_build_time() {
    assert!(Quota::new(1, Span::ZERO).is_err());
}

/// The vertical distance from `point` to the polyline `line` (x never decreasing) at the point's
/// x, over every segment that spans that x (a vertical segment spans its whole height) and every
/// point of the line at that x.
fn vertical_gap(line: &[(f64, f64)], point: (f64, f64)) -> f64 {
    let at_points = line
        .iter()
        .filter(|p| p.0 == point.0)
        .map(|p| (p.1 - point.1).abs());
    line.windows(2)
        .filter(|s| s[0].0 <= point.0 && point.0 <= s[1].0)
        .map(|s| {
            let ((x0, y0), (x1, y1)) = (s[0], s[1]);
            if x1 == x0 {
                let (low, high) = (y0.min(y1), y0.max(y1));
                (low - point.1).max(point.1 - high).max(0.0)
            } else {
                (y0 + (y1 - y0) * (point.0 - x0) / (x1 - x0) - point.1).abs()
            }
        })
        .chain(at_points)
        .fold(f64::INFINITY, f64::min)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A level line with its straight runs dropped is made of the line's own points, from its
    /// first to its last, and passes within the tolerance of every point left out.
    #[test]
    fn a_line_without_its_straight_runs_passes_within_the_tolerance_of_every_point(
        steps in proptest::collection::vec((0u8..4, -20i32..20), 1..200),
        tolerance in 0.05f64..2.0,
    ) {
        // x never decreases (a step of 0 is a vertical step); levels vary in small steps, so
        // runs of nearly straight points are common.
        let mut line = Vec::new();
        let (mut x, mut y) = (0.0f64, 0.0f64);
        for (dx, dy) in steps {
            x += f64::from(dx) * 0.7;
            y += f64::from(dy) * 0.05;
            line.push((x, y));
        }
        let kept = drop_straight_runs(&line, tolerance);
        prop_assert_eq!(kept.first(), line.first());
        prop_assert_eq!(kept.last(), line.last());
        let mut rest = line.iter();
        for point in &kept {
            prop_assert!(rest.any(|p| p == point), "{:?} is not one of the line's points, in order", point);
        }
        for &point in &line {
            prop_assert!(vertical_gap(&kept, point) <= tolerance + 1e-9, "{:?} is {} away", point, vertical_gap(&kept, point));
        }
    }
}

/// A key (or a route) the lab can hold, of any characters: what every reader leaves of a
/// person's text (1 to 100 characters, no control characters, no space around it), drawn from
/// any Unicode scalar and, more often, from the characters the link, the segments and the CSV
/// treat as separators or escapes.
fn any_name() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        ',', '"', '\'', '%', '&', '#', '+', '=', ';', ' ', '@', '*', ':', '/', '?', '~', '-', 'é',
        'ß', '中', '🦀', '👩', '\u{200d}', '💻', '2', 'C', 'a',
    ]);
    prop::collection::vec(prop_oneof![any::<char>(), tricky], 1..40).prop_map(|chars| {
        let text: String = chars.into_iter().filter(|c| !c.is_control()).collect();
        let name: String = text.trim().chars().take(100).collect();
        match name.trim() {
            "" => "k".to_string(),
            name => name.to_string(),
        }
    })
}

/// Requests a second apart with these keys, the first with a region and a route.
fn keyed_points(keys: &[String], route: &str) -> Vec<ratelab::core::traffic::Point> {
    use ratelab::core::region::Region;
    use ratelab::core::traffic::Point;
    keys.iter()
        .enumerate()
        .map(|(i, key)| {
            let mut p = Point::new(Time(i as u64 * 1_000_000), key.as_str());
            if i == 0 {
                p.origin = Some(Region::Frankfurt);
                p.route = Some(route.to_string());
            }
            p
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `trace=`: the link the page writes reads back as the same keys, or, too long for a link,
    /// is to be kept instead.
    #[test]
    fn keys_of_any_characters_survive_the_links_trace(keys in prop::collection::vec(any_name(), 1..4), route in any_name()) {
        use ratelab::core::lab_state::LabState;
        use ratelab::core::traffic::Pattern;
        use ratelab::core::url::{needs_keeping, parse_query, reopens, to_query, MAX_QUERY_CHARS};
        let state = LabState {
            pattern: Pattern::from_points(keyed_points(&keys, &route)),
            ..LabState::default()
        };
        let query = to_query(&state);
        prop_assert!(query.len() <= MAX_QUERY_CHARS);
        if reopens(&state) {
            let parsed = parse_query(&query);
            prop_assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
            prop_assert_eq!(parsed.state, state);
        } else {
            prop_assert!(needs_keeping(&state));
        }
    }

    /// `compose=`: a segment's key and route, escaped in the segment and the segments escaped
    /// in the link, read back as they were, both from the segments' text and from the link.
    #[test]
    fn keys_of_any_characters_survive_composed_segments(key in any_name(), route in any_name()) {
        use ratelab::core::compose::{parse_segments, segments_text, Segment, Shape};
        use ratelab::core::lab_state::LabState;
        use ratelab::core::url::{needs_keeping, parse_query, reopens, to_query};
        let segment = Segment {
            shape: Shape::Burst { count: 3, at: Time(1_500_000) },
            key: Some(key),
            region: None,
            route: Some(route),
            cost: 2,
        };
        let segments = vec![segment.clone(), segment];
        prop_assert_eq!(&parse_segments(&segments_text(&segments)).unwrap(), &segments);
        let state = LabState { compose: segments, ..LabState::default() };
        if reopens(&state) {
            prop_assert_eq!(parse_query(&to_query(&state)).state, state);
        } else {
            prop_assert!(needs_keeping(&state));
        }
    }

    /// A trace kept in the browser (`trace=stored:<id>`): its list reads back as the same keys.
    #[test]
    fn keys_of_any_characters_survive_a_kept_trace(keys in prop::collection::vec(any_name(), 1..6), route in any_name()) {
        use ratelab::core::job::run_to_end;
        use ratelab::core::traffic::Pattern;
        use ratelab::core::url::kept::KeepTrace;
        use ratelab::core::url::parse_stored_trace;
        let points = keyed_points(&keys, &route);
        let kept = run_to_end(KeepTrace::new(Pattern::from_points(points.clone())));
        prop_assert_eq!(parse_stored_trace(&kept.text).unwrap(), points);
    }

    /// The CSV export writes each key so that the importer reads it back as it was.
    #[test]
    fn keys_of_any_characters_survive_the_csv_export_and_import(keys in prop::collection::vec(any_name(), 1..4)) {
        use ratelab::core::export::{decisions_csv, key_field};
        use ratelab::core::import::import;
        use ratelab::core::lab::LabRun;
        use ratelab::core::traffic::Pattern;
        use ratelab::core::url::parse_query;
        let mut state = parse_query("algos=fixed").state;
        state.pattern = Pattern::from_points(keyed_points(&keys, "GET /"));
        let csv = decisions_csv::<Complete>(&LabRun::compute(&state));
        let mut lines = String::new();
        for (i, key) in keys.iter().enumerate() {
            let written = format!("{i},{},fixed,", key_field(key));
            prop_assert!(csv.lines().any(|line| line.starts_with(&written)), "{} in {}", written, csv);
            lines.push_str(&format!("{i},{}\n", key_field(key)));
        }
        let read = import(&lines).unwrap();
        let read_keys: Vec<&str> = read.requests.iter().map(|r| r.key.as_str()).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        prop_assert_eq!(read_keys, keys);
    }

    /// A view file (`core::view_file`): the view's query and every request (its time to the
    /// microsecond, key, region, route and cost) read back exactly.
    #[test]
    fn any_trace_survives_a_view_file_written_and_read(
        requests in prop::collection::vec(
            (0..=1_000_000_000_000_000_000u64, any_name(), prop::option::of(0..6usize), prop::option::of(any_name()), 1..=1_000_000u32),
            1..30,
        ),
        limit in 1..1000u64,
        window_ms in 1..86_400_000u64,
    ) {
        use ratelab::core::region::Region;
        use ratelab::core::traffic::{Pattern, Point};
        use ratelab::core::url::parse_query;
        use ratelab::core::view_file::{read, write};
        let points: Vec<Point> = requests
            .into_iter()
            .map(|(at, key, region, route, cost)| Point {
                at: Time(at),
                key,
                origin: region.map(|i| Region::ALL[i]),
                route,
                cost,
            })
            .collect();
        let mut state = parse_query(&format!("limit={limit}&window={}.{:03}&algos=fixed,gcra", window_ms / 1000, window_ms % 1000)).state;
        state.pattern = Pattern::from_points(points);
        let trace = state.traffic().generate(state.settings.limit, state.settings.window);
        let text = write(&state, &trace);
        let back = read(&text).unwrap().into_state();
        prop_assert!(back.notices.is_empty(), "{:?}", back.notices);
        prop_assert_eq!(&back.state.settings, &state.settings);
        prop_assert_eq!(&back.state.algorithms, &state.algorithms);
        prop_assert_eq!(Pattern::points_of(&back.state.traffic().generate(limit, state.settings.window)), Pattern::points_of(&trace));
    }
}
