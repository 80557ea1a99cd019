//! The mechanisms every row can run under, read from links as the page reads them: copies of a
//! row (`instances`, `spread`), where a fixed window starts (`fixed-align`), whether refused
//! requests count (`count-refused`) and a second limit (`also`, `also-key`, `spend`). Each test pins the figures the page shows for its link.
#![cfg(not(target_arch = "wasm32"))]

use ratelab::core::lab::LabRun;
use ratelab::core::limiter::Algorithm;
use ratelab::core::limiter::Complete;
use ratelab::core::run::{decision_and_cause_at, run_all, DecisionReplay};
use ratelab::core::second_limit::RefusedBy;
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
        every_decision_made_again_is_the_runs(&format!("instances=3&spread={spread}"));
    }
}

/// Over the several-keys run with `extra` in the link, for every row: the decision made in
/// order (the CSV's), the one made on demand (the inspector's) and the run's verdict agree, and
/// so do the limits they name as refusing.
fn every_decision_made_again_is_the_runs(extra: &str) {
    let state = parse_query(&format!(
        "pattern=several-keys&{extra}&algos={}",
        Algorithm::ALL.map(|a| a.slug()).join(",")
    ))
    .state;
    let trace = state
        .pattern
        .generate(state.settings.limit, state.settings.window);
    let runs =
        run_all::<Complete>(&trace, &state.algorithms, &state.settings).expect("valid settings");
    for run in &runs {
        let mut replay =
            DecisionReplay::<Complete>::new(&trace, run.algorithm, &state.settings).expect("valid");
        let mut by_second = 0;
        for (index, request) in trace.requests().iter().enumerate() {
            let (in_order, _, cause) = replay.decide_with_cause(request);
            let (on_demand, _, cause_on_demand) =
                decision_and_cause_at::<Complete>(&trace, run.algorithm, &state.settings, index)
                    .expect("in range");
            let verdict = run.verdicts.get(index).expect("a verdict");
            let at = format!("{extra} {:?} #{index}", run.algorithm);
            assert_eq!(on_demand.verdict, verdict, "{at}");
            assert_eq!(in_order, on_demand, "{at}");
            assert_eq!(cause, cause_on_demand, "{at}");
            if state.settings.also.is_some() {
                assert_eq!(cause.is_some(), !verdict.passes(), "{at}");
            }
            by_second += u64::from(cause == Some(RefusedBy::Second));
        }
        assert_eq!(
            by_second, run.refused_by_second,
            "{extra} {:?}",
            run.algorithm
        );
    }
}

/// (let through, refused by the row's own limit, refused by the second) of one row.
fn refusals(query: &str) -> (u64, u64, u64) {
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let run = LabRun::compute(&parsed.state);
    assert_eq!(run.error, None);
    let r = &run.runs[0];
    (
        r.passed(),
        r.rejected - r.refused_by_second,
        r.refused_by_second,
    )
}

/// The edge run at 5 per 10 s with 2 per second besides. One after the other: the third request
/// (8.796 s) is refused by the per-second limit but has already spent the sliding log, which
/// is then full at 10 s; only four pass. Spending only when both pass leaves the log room for
/// the request at 10.398 s: five pass.
#[test]
fn a_second_limit_spends_the_first_unless_both_must_pass() {
    assert_eq!(refusals("algos=sliding-log&also=2/1"), (4, 5, 1));
    assert_eq!(
        refusals("algos=sliding-log&also=2/1&spend=passed"),
        (5, 3, 2)
    );
    assert_eq!(refusals("algos=sliding-log"), (5, 5, 0));
}

#[test]
fn a_second_limit_on_the_prefix_is_shared_by_every_tenant_behind_one_address() {
    let trace = "trace=0@ip:a,0.1@ip:b,0.2@ip:c,0.3@ip:a,0.4@other:z";
    assert_eq!(
        refusals(&format!("{trace}&algos=fixed&also=2/10&also-key=prefix")),
        (3, 0, 2),
        "ip:a and ip:b pass, ip:c and ip:a again find ip full; other:z has its own"
    );
    assert_eq!(
        refusals(&format!("{trace}&algos=fixed&also=2/10")),
        (5, 0, 0)
    );
}

#[test]
fn with_a_second_limit_every_decision_made_again_on_demand_is_the_one_the_run_gave() {
    for extra in [
        "also=2/1",
        "also=3/2&spend=passed",
        "also=4/5&also-key=prefix",
        "also=2/1&also-key=prefix&spend=passed&instances=2",
    ] {
        every_decision_made_again_is_the_runs(extra);
    }
}

#[test]
fn a_second_limit_cannot_join_a_queue_served_newest_first() {
    let parsed = parse_query("algos=dotnet-fixed&dotnet-queue=2&dotnet-order=newest&also=2/1");
    let run = LabRun::compute(&parsed.state);
    assert!(run.error.expect("refused").contains("newest first"));
}
