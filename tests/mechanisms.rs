//! The mechanisms every row can run under, read from links as the page reads them: copies of a
//! row (`instances`, `spread`), where a fixed window starts (`fixed-align`) and whether refused
//! requests count (`count-refused`). Each test pins the figures the page shows for its link.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::lab::LabRun;
use ratelab::core::limiter::Algorithm;
use ratelab::core::run::{decision_at, run_all, DecisionReplay};
use ratelab::core::url::parse_query;

/// (slug, let through, most in one window) of every row of the view a link opens.
fn rows(query: &str) -> Vec<(&'static str, u64, u64)> {
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let run = LabRun::compute(&parsed.state);
    assert_eq!(run.error, None);
    run.runs
        .iter()
        .map(|r| (r.algorithm.slug(), r.passed(), r.max_in_window))
        .collect()
}

#[test]
fn two_copies_in_turn_let_all_sixty_of_the_steady_run_through_ten_in_a_window() {
    assert_eq!(
        rows("pattern=steady&algos=fixed,sliding-log&instances=2&spread=round-robin"),
        [("fixed", 60, 10), ("sliding-log", 60, 10)]
    );
    assert_eq!(
        rows("pattern=steady&algos=fixed,sliding-log"),
        [("fixed", 30, 5), ("sliding-log", 30, 5)]
    );
}

#[test]
fn copies_by_key_keep_one_key_on_one_copy_so_its_limit_holds() {
    assert_eq!(
        rows("pattern=steady&algos=sliding-log&instances=4&spread=key"),
        [("sliding-log", 30, 5)]
    );
}

#[test]
fn copies_at_random_let_more_than_one_copy_would_and_the_seed_decides_which() {
    let at_random = rows("pattern=steady&algos=sliding-log&instances=3&spread=random");
    let (_, passed, most) = at_random[0];
    assert!(passed > 30 && most > 5, "{at_random:?}");
    assert_eq!(
        at_random,
        rows("pattern=steady&algos=sliding-log&instances=3&spread=random")
    );
}

#[test]
fn a_fixed_window_from_the_first_request_lets_only_five_of_the_edge_run_through() {
    assert_eq!(
        rows("algos=fixed&fixed-align=first"),
        [("fixed", 5, 5)],
        "one window from 8 s to 18 s holds all ten requests"
    );
    assert_eq!(rows("algos=fixed"), [("fixed", 10, 10)]);
}

#[test]
fn a_sliding_log_that_counts_refused_hits_lets_five_of_the_steady_run_through_not_thirty() {
    assert_eq!(
        rows("pattern=steady&algos=fixed,sliding-log,sliding-counter&count-refused=1"),
        [
            ("fixed", 30, 5),
            ("sliding-log", 5, 5),
            ("sliding-counter", 5, 5)
        ]
    );
}

#[test]
fn with_copies_every_decision_made_again_on_demand_is_the_one_the_run_gave() {
    for spread in ["round-robin", "random", "key"] {
        let state = parse_query(&format!(
            "pattern=several-keys&instances=3&spread={spread}&algos={}",
            Algorithm::ALL.map(|a| a.slug()).join(",")
        ))
        .state;
        let trace = state
            .pattern
            .generate(state.settings.limit, state.settings.window);
        let runs = run_all(&trace, &state.algorithms, &state.settings).expect("valid settings");
        for run in &runs {
            let mut replay =
                DecisionReplay::new(&trace, run.algorithm, &state.settings).expect("valid");
            for (index, request) in trace.requests().iter().enumerate() {
                let (in_order, _) = replay.decide(request);
                let (on_demand, _) =
                    decision_at(&trace, run.algorithm, &state.settings, index).expect("in range");
                let verdict = run.verdicts.get(index);
                assert_eq!(
                    on_demand.verdict,
                    verdict.expect("a verdict"),
                    "{spread} {:?} #{index}",
                    run.algorithm
                );
                if !run.algorithm.is_product() || in_order.verdict == on_demand.verdict {
                    continue;
                }
                // A verdict settled late (the .NET queue) is final only on demand.
                assert!(matches!(
                    run.algorithm,
                    Algorithm::DotnetFixed | Algorithm::DotnetSliding | Algorithm::DotnetToken
                ));
            }
        }
    }
}
