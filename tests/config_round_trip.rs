//! Every config "Use these settings" writes is read back (`core::config_file`, each product's own
//! reader) into settings that decide every trace as the row it was written from: the product told
//! from the text alone, its row the one written, and each decision the same; where the snippet
//! states a nearest setting, the decisions are the nearest setting's.
//!
//! The rows' settings range over the products' whole fields: each field either follows the lab's
//! limit and window or is set to a value the product itself runs with for another limit and
//! window (its tuning box's `in_force`, which every product spells in its field's own words).
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;

use proptest::prelude::*;

use ratelab::core::config_file::{self, Rows};
use ratelab::core::lab::LabRun;
use ratelab::core::lab_state::LabState;
use ratelab::core::limiter::{Algorithm, Complete};
use ratelab::core::profiles::SnippetOf;
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Pattern;

/// Limits and windows the lab's sliders reach, the odd ones included.
const LIMITS: [u64; 8] = [1, 2, 3, 5, 7, 10, 100, 1000];
const WINDOW_MS: [u64; 7] = [500, 1000, 1500, 10_000, 60_000, 90_000, 3_600_000];

fn products() -> Vec<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|a| a.is_product() && matches!(a.snippet::<Complete>(), SnippetOf::Written { .. }))
        .collect()
}

/// The lab with `row` alone, the lab's `limit` and `window`, the family's fields set as `picks`
/// says (each `Some((limit, window))` pins the field to what the product runs with for that limit
/// and window), and `times` as its traffic.
fn lab(
    row: Algorithm,
    limit: u64,
    window_ms: u64,
    picks: &[Option<(u64, u64)>],
    times: &[u64],
) -> LabState {
    let mut state = LabState {
        algorithms: vec![row],
        ..LabState::default()
    };
    state.settings.limit = limit;
    state.settings.window = Span::from_millis(window_ms);
    if let Some(family) = row.family() {
        for (tunable, pick) in family.fields.iter().zip(picks) {
            let Some((l, w)) = pick else { continue };
            let mut other = state.settings.clone();
            other.limit = *l;
            other.window = Span::from_millis(*w);
            let value = (tunable.in_force)(&other.row_settings());
            let _ = (tunable.field.read)(&mut state.settings.products, &value);
        }
    }
    let mut sorted: Vec<Time> = times.iter().map(|ms| Time::from_millis(*ms)).collect();
    sorted.sort();
    state.pattern = Pattern::Trace(Arc::new(sorted));
    state
}

fn verdicts(state: &LabState, row: Algorithm) -> Option<Vec<String>> {
    let run = LabRun::compute(state);
    run.run(row)
        .map(|r| r.verdicts.iter().map(|v| format!("{v:?}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_snippet_is_read_back_into_a_row_that_decides_as_the_row_it_was_written_from(
        which in 0usize..64,
        limit in proptest::sample::select(LIMITS.to_vec()),
        window_ms in proptest::sample::select(WINDOW_MS.to_vec()),
        picks in proptest::collection::vec(
            proptest::option::of((
                proptest::sample::select(LIMITS.to_vec()),
                proptest::sample::select(WINDOW_MS.to_vec()),
            )),
            8,
        ),
        times in proptest::collection::vec(0u64..30_000, 1..60),
    ) {
        let rows = products();
        let row = rows[which % rows.len()];
        let state = lab(row, limit, window_ms, &picks, &times);
        let SnippetOf::Written { write, .. } = row.snippet::<Complete>() else {
            unreachable!("only rows with a snippet are picked")
        };
        // A setting no product accepts builds no row: nothing is written for it.
        prop_assume!(row.build(&state.settings).is_ok());
        let written = write(&state.settings.row_settings());
        let mut expected = state.clone();
        if let Some(nearest) = &written.nearest {
            expected.settings.products = nearest.products.clone();
        }
        let reading = config_file::read::<Complete>(&written.text, None);
        let reading = match reading {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!(
                "{row}: {e}\n--- the snippet ---\n{}", written.text
            ))),
        };
        prop_assert_eq!(reading.row, row, "{}", written.text);
        // Read into a lab whose own limit and window differ: the config's row must not follow them.
        let mut read_back = state.clone();
        read_back.settings.products = Default::default();
        read_back.settings.limit = 3;
        read_back.settings.window = Span::from_millis(7_000);
        reading.apply(&mut read_back, Rows::Replace);
        if verdicts(&expected, row) != verdicts(&read_back, row) {
            return Err(TestCaseError::fail(format!(
                "{row}: the config read back decides otherwise\n--- the snippet ---\n{}\n--- read ---\n{:?}",
                written.text, reading.from
            )));
        }
    }
}

#[test]
fn every_product_with_a_snippet_has_a_reader_that_recognises_its_own_snippet() {
    for row in products() {
        let state = lab(row, 5, 10_000, &[], &[0]);
        let SnippetOf::Written { write, .. } = row.snippet::<Complete>() else {
            continue;
        };
        let written = write(&state.settings.row_settings());
        let reading = config_file::read::<Complete>(&written.text, None)
            .unwrap_or_else(|e| panic!("{row}: {e}\n{}", written.text));
        assert_eq!(reading.row, row);
    }
}
