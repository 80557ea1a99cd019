//! Fuzzing with proptest, bounded so that it runs in the test command: every input a person can
//! give (a URL, a pasted or uploaded trace) and every request sequence the algorithms and the
//! simulation can meet. Nothing may panic, and what is accepted must be self-consistent.
//!
//! `FUZZ_CASES=20000 cargo test --release --test fuzz` runs longer (the figure is in the README).
//! Failures proptest finds are saved under `tests/fuzz.proptest-regressions` and replayed first.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::durable::{
    simulate, Fault, FaultKind, RetryPolicy, ShardBy, SimConfig, SimTraffic, Tier,
};
use ratelab::core::import::import;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::region::Region;
use ratelab::core::time::{Span, Time};
use ratelab::core::url::{parse_query, to_query};

fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every field of a link, as the URL table lists them, and the form's `algo=`.
fn every_field() -> Vec<&'static str> {
    let mut names = ratelab::core::url::field_names();
    names.push("algo");
    names
}

/// Values near the valid ones: numbers of every shape, signs, units, separators, escapes.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{0,25}",
        "-?[0-9]{0,6}\\.?[0-9]{0,8}",
        "[-+.,@%:a-z0-9 ]{0,30}",
        "(edge|steady|double|burst-trickle|retry-storm|poisson|several-keys|clicks|trace|fra|iad|gru|sin|syd|nrt|open|closed|key|request|smart|first|binding|do|nodelay|dark)",
        "([0-9]{1,3}(\\.[0-9]{1,3})?(@[a-z:]{1,6})?,){0,12}",
        "([0-9]{1,3}(@[a-z:]{0,6}(@(fra|syd|xx)?(@[A-Z]{3} /[a-z]{0,4})?)?)?,){0,12}",
        "(nginx|governor|redis-cell|upstash-fixed|upstash-sliding|upstash-token|envoy|cf-binding|10r/s|30r/m|0r/s|stored|on|off|timer|continuous|10|60)(,(fixed|nginx|envoy|cf-binding))?",
        any::<String>(),
    ]
}

fn structured_query() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(every_field()), value()), 0..8).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn any_text_as_a_url_query_parses_without_panicking(query in any::<String>()) {
        let _ = parse_query(&query);
    }

    #[test]
    fn a_parsed_query_is_a_fixed_point_of_writing_it_back(query in structured_query()) {
        let first = parse_query(&query).state;
        let written = to_query(&first);
        let again = parse_query(&written);
        prop_assert!(again.notices.is_empty(), "{written}: {:?}", again.notices);
        prop_assert_eq!(again.state, first);
    }

    #[test]
    fn any_accepted_state_computes_a_lab_run_without_panicking(query in structured_query()) {
        let mut state = parse_query(&query).state;
        // Keep the work per case small: presets at huge limits are large by design.
        state.settings.limit = state.settings.limit.min(500);
        let run = LabRun::compute(&state);
        prop_assert!(run.error.is_some() || run.runs.len() == state.algorithms.len());
        for r in &run.runs {
            prop_assert_eq!(r.verdicts.len(), run.trace.len());
        }
    }

    #[test]
    fn any_pasted_text_imports_or_reports_numbered_lines(text in any::<String>()) {
        match import(&text) {
            Ok(imported) => prop_assert!(imported.requests.len() <= text.lines().count()),
            Err(errors) => {
                prop_assert!(!errors.errors.is_empty());
                prop_assert!(errors.errors.iter().all(|e| e.line >= 1 && e.line <= text.lines().count().max(1)));
            }
        }
    }

    #[test]
    fn trace_like_text_imports_or_reports_numbered_lines(
        lines in prop::collection::vec(prop_oneof![
            "[0-9]{1,4}(\\.[0-9]{1,6})?",
            "-?[0-9.]{1,8},[a-z:0-9.]{0,8}(,(fra|iad|gru|sin|syd|nrt|xxx))?(,[A-Z]{3} /[a-z]{0,5})?",
            "[0-9.]{7,15} - - \\[[0-9]{2}/(Jan|Feb|Oct|Foo)/20[0-9]{2}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\\] \"GET /[a-z]{0,6} HTTP/1.1\" 200 [0-9]{1,4}",
            "#.*",
            "",
        ], 0..40)
    ) {
        let text = lines.join("\n");
        match import(&text) {
            Ok(imported) => {
                let points = imported
                    .requests
                    .into_iter()
                    .map(|r| ratelab::core::traffic::Point {
                        at: r.at,
                        key: if r.key.is_empty() { ratelab::core::traffic::DEFAULT_KEY.to_string() } else { r.key },
                        origin: r.region,
                        route: r.route,
                        cost: r.cost,
                    })
                    .collect();
                let trace = ratelab::core::traffic::Pattern::from_points(points).generate(5, Span::from_secs(10));
                prop_assert!(trace.requests().windows(2).all(|w| w[0].at <= w[1].at));
            }
            Err(errors) => prop_assert!(errors.total >= errors.errors.len()),
        }
    }

    #[test]
    fn the_simulation_answers_every_request_whatever_the_configuration(
        times in prop::collection::vec((0u64..20_000_000, 0u32..4, 0usize..6), 0..120),
        timeout_ms in 1u64..400, service_us in 1u64..50_000, jitter_ms in 0u64..20,
        persist in any::<bool>(), cache in any::<bool>(), retry in 0u8..3, by_request in any::<bool>(),
        algorithm in prop::sample::select(Algorithm::CORE.to_vec()), limit in 1u64..20, window_ms in 1u64..20_000,
        fault in prop::option::of((0u8..4, 0u64..20_000, 0u64..20_000)), binding in any::<bool>(), seed in any::<u64>(),
    ) {
        let mut traffic = SimTraffic::default();
        let keys = ["tenant:a", "ip:1.2.3.4", "global:x", "other"];
        for (t, k, r) in times {
            traffic.push(keys[k as usize], Region::ALL[r], 0, [Time(t)]);
        }
        let faults = fault.map(|(kind, a, b)| {
            let (start, end) = (Span::from_millis(a.min(b)), Span::from_millis(a.max(b)));
            let kind = match kind {
                0 => FaultKind::Unreachable,
                1 => FaultKind::Slow(Span::from_millis(100)),
                2 => FaultKind::Evict,
                _ => FaultKind::RegionDown(Region::Tokyo),
            };
            Fault { kind, start, end }
        });
        let config = SimConfig {
            algorithm,
            settings: Settings { limit, window: Span::from_millis(window_ms), ..Settings::default() },
            timeout: Span::from_millis(timeout_ms),
            service: Span(service_us),
            jitter: Span::from_millis(jitter_ms),
            persist,
            first_tier_cache: cache,
            retry: match retry { 0 => RetryPolicy::Never, 1 => RetryPolicy::Immediately { max_retries: 2 }, _ => RetryPolicy::AfterRetryAfter { max_retries: 2, jitter: Span::from_millis(500) } },
            shard_by: if by_request { ShardBy::Request } else { ShardBy::Key },
            faults: faults.into_iter().collect(),
            tier: if binding { Tier::Binding { period_secs: 10 } } else { Tier::DurableObject },
            seed,
            ..SimConfig::default()
        };
        let report = simulate(&config, &traffic).expect("a valid configuration");
        prop_assert!(report.records.len() >= traffic.requests.len());
        for r in &report.records {
            // Answered no earlier than sent, and never later than the deadline (or at once).
            prop_assert!(r.answered >= r.sent);
            prop_assert!(r.answered <= r.sent.plus(config.timeout));
            prop_assert!(r.decision.is_some() || r.outcome.word().contains("degraded") || r.outcome.word().contains("failed"));
        }
        prop_assert!(report.stored_keys.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
