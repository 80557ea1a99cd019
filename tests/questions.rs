//! Links to questions (`q=`, `core::url::question_link`), fuzzed: a question with any other
//! fields of a link reads back as the same view from the link the page writes for it, and its
//! answer is computed without panicking whatever the view became. Bounded like `tests/fuzz.rs`
//! (`FUZZ_CASES` runs longer).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ratelab::core::lab::LabRun;
use ratelab::core::questions::{find, QUESTIONS};
use ratelab::core::url::{field_names, parse_query, to_query};

fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn slug() -> impl Strategy<Value = &'static str> {
    prop::sample::select(QUESTIONS.iter().map(|q| q.slug).collect::<Vec<_>>())
}

/// Values near the valid ones, and empty ones (which take a question's field out).
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[0-9]{1,4}",
        "[0-9]{1,2}\\.[0-9]{1,3}",
        "(edge|steady|double|clicks|several-keys|fra|iad|open|closed|request|seed|nodelay|obey|first|prefix|passed|1|0|2/1|6/10)",
        "([0-9]{1,2}(@[a-z:]{1,6})?,){1,6}",
        "(fixed|sliding-log|gcra|nginx|governor|redis-cell|cf-binding|x-time-rate)(,(leaky-bucket|express-rate-limit|envoy))?",
        "[-+.,@%:a-z0-9 ]{0,12}",
    ]
}

/// `q=<slug>` and up to six other fields, in any order.
fn question_link() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = field_names().into_iter().filter(|n| *n != "q").collect();
    (
        slug(),
        prop::collection::vec((prop::sample::select(names), value()), 0..6),
        0usize..7,
    )
        .prop_map(|(slug, pairs, at)| {
            let mut parts: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            parts.insert(at.min(parts.len()), format!("q={slug}"));
            parts.join("&")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn a_question_link_is_a_fixed_point_of_writing_it_back(link in question_link()) {
        let first = parse_query(&link).state;
        prop_assert!(first.question.is_some(), "{link}");
        let written = to_query(&first);
        prop_assert!(written.starts_with("q="), "{written}");
        let again = parse_query(&written);
        prop_assert!(again.notices.is_empty(), "{link} -> {written}: {:?}", again.notices);
        prop_assert_eq!(again.state, first);
    }

    #[test]
    fn a_questions_answer_is_computed_whatever_its_view_became(link in question_link()) {
        let mut state = parse_query(&link).state;
        // Keep the work per case small: presets at huge limits are large by design.
        state.settings.limit = state.settings.limit.min(500);
        let run = LabRun::compute(&state);
        let question = state.question.and_then(find);
        prop_assert!(question.is_some());
        if let Some(question) = question {
            let answer = question.answer(&state, &run);
            prop_assert!(!answer.text().is_empty());
            if let Some(i) = answer.inspect {
                prop_assert!(i < run.trace.len());
            }
        }
    }
}
