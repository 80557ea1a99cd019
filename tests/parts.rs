//! The core compiled for a program that links only the six textbook algorithms
//! (`TextbookOnly`: the page's first view's and Durable Object's modules), beside the same core
//! with every part (`Complete`: the complete module, the command line). Both are the one core,
//! instantiated twice; these tests run the first as its modules run it.

use ratelab::core::config::ConfigError;
use ratelab::core::export::decisions_csv;
use ratelab::core::lab::LabRun;
use ratelab::core::limiter::{
    Algorithm, Complete, Settings, TextbookAndDurableObject, TextbookOnly,
};
use ratelab::core::row_notes::row_notes;
use ratelab::core::run::decision_at;
use ratelab::core::url::parse_query;

fn state(query: &str) -> ratelab::core::lab_state::LabState {
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{query}: {:?}", parsed.notices);
    parsed.state
}

#[test]
fn without_the_products_every_textbook_view_runs_exactly_as_with_every_part() {
    for query in [
        "",
        "pattern=edge",
        "pattern=burst-trickle&limit=3&window=2",
        "algos=fixed,token-bucket,leaky-bucket&pattern=steady",
    ] {
        let state = state(query);
        let first = LabRun::compute_with::<TextbookOnly>(&state);
        let complete = LabRun::compute_with::<Complete>(&state);
        assert_eq!(first.error, complete.error, "{query}");
        assert_eq!(first.runs.len(), complete.runs.len(), "{query}");
        for (a, b) in first.runs.iter().zip(&complete.runs) {
            assert_eq!(a.algorithm, b.algorithm, "{query}");
            assert_eq!(
                (a.allowed, a.delayed, a.rejected, a.max_in_window),
                (b.allowed, b.delayed, b.rejected, b.max_in_window),
                "{query}: {}",
                a.algorithm
            );
            assert!(a.verdicts.iter().eq(b.verdicts.iter()), "{query}");
        }
        assert_eq!(
            first
                .durable
                .as_ref()
                .map(|d| d.as_ref().map(|r| r.records.len()).ok()),
            complete
                .durable
                .as_ref()
                .map(|d| d.as_ref().map(|r| r.records.len()).ok()),
            "{query}"
        );
        assert_eq!(
            decisions_csv::<TextbookOnly>(&first),
            decisions_csv::<Complete>(&complete),
            "{query}"
        );
    }
}

#[test]
fn without_the_products_a_product_row_keeps_its_name_and_says_it_is_not_built() {
    let state = state("algos=fixed,governor,nginx");
    let first = LabRun::compute_with::<TextbookOnly>(&state);
    assert_eq!(
        first.runs.iter().map(|r| r.algorithm).collect::<Vec<_>>(),
        [Algorithm::FixedWindow]
    );
    assert_eq!(
        Algorithm::Governor
            .build_with::<TextbookOnly>(&Settings::default())
            .unwrap_err(),
        ConfigError::ProductsNotBuilt
    );
    assert!(Algorithm::Governor
        .build_with::<Complete>(&Settings::default())
        .is_ok());
    let complete = LabRun::compute_with::<Complete>(&state);
    assert_eq!(complete.runs.len(), 3);
}

#[test]
fn without_the_rules_a_row_runs_as_one_copy_under_one_limit_with_no_notes() {
    let state = state("pattern=edge&also=2/1");
    let first = LabRun::compute_with::<TextbookOnly>(&state);
    let plain = LabRun::compute_with::<Complete>(&self::state("pattern=edge"));
    let ruled = LabRun::compute_with::<Complete>(&state);
    let fixed = |run: &LabRun| {
        run.run(Algorithm::FixedWindow)
            .map(|r| (r.allowed, r.rejected))
            .unwrap()
    };
    assert_eq!(fixed(&first), fixed(&plain));
    assert_ne!(fixed(&ruled), fixed(&plain), "the rules change the run");
    let run = first.run(Algorithm::FixedWindow).unwrap();
    assert!(row_notes::<TextbookOnly>(run, &first.settings).is_empty());
    let ruled_run = ruled.run(Algorithm::FixedWindow).unwrap();
    assert!(!row_notes::<Complete>(ruled_run, &ruled.settings).is_empty());
    assert_eq!(
        decisions_csv::<TextbookOnly>(&first),
        decisions_csv::<Complete>(&plain)
    );
    let copies = LabRun::compute_with::<TextbookOnly>(&self::state(
        "pattern=several-keys&instances=3&algos=sliding-log",
    ));
    let one =
        LabRun::compute_with::<Complete>(&self::state("pattern=several-keys&algos=sliding-log"));
    let three = LabRun::compute_with::<Complete>(&self::state(
        "pattern=several-keys&instances=3&algos=sliding-log",
    ));
    let passed = |run: &LabRun| run.run(Algorithm::SlidingLog).map(|r| r.allowed).unwrap();
    assert_eq!(passed(&copies), passed(&one));
    assert_ne!(passed(&three), passed(&one), "copies change the run");
    assert_eq!(
        decision_at::<TextbookOnly>(&first.trace, Algorithm::FixedWindow, &first.settings, 3)
            .map(|(d, _)| d.verdict),
        decision_at::<Complete>(&plain.trace, Algorithm::FixedWindow, &plain.settings, 3)
            .map(|(d, _)| d.verdict)
    );
}

#[test]
fn only_a_program_that_emulates_the_durable_object_runs_it() {
    let state = state("do=1&pattern=edge");
    let records = |run: &LabRun| {
        run.durable
            .as_ref()
            .and_then(|d| d.as_ref().ok())
            .map(|r| r.records.len())
    };
    let first = LabRun::compute_with::<TextbookOnly>(&state);
    let durable = LabRun::compute_with::<TextbookAndDurableObject>(&state);
    let complete = LabRun::compute_with::<Complete>(&state);
    assert_eq!(records(&first), None);
    assert_eq!(records(&durable), Some(10));
    assert_eq!(records(&durable), records(&complete));
    for (a, b) in durable.runs.iter().zip(&complete.runs) {
        assert_eq!((a.allowed, a.rejected), (b.allowed, b.rejected));
    }
    assert_eq!(
        decisions_csv::<TextbookAndDurableObject>(&durable),
        decisions_csv::<Complete>(&complete)
    );
    assert!(!decisions_csv::<TextbookOnly>(&first).contains(",do,"));
    assert!(decisions_csv::<Complete>(&complete).contains(",do,"));
}
