//! The list of rows (`core::limiter::rows`) walked row by row: every row has every piece the lab
//! needs of it (a slug and a label; for a product, its family of URL fields; a limiter that
//! builds from the default settings and, for a product, answers with a reply naming a field; an
//! HTTP response; a retry hint in words; an explanation; a snippet or the statement that it has
//! none), and the README's product table lists exactly the list's products with their fields.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use ratelab::core::decision::{Limiter, Verdict};
use ratelab::core::limiter::Complete;
use ratelab::core::limiter::PRODUCT_FIELDS;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::profiles::{ProductReply, SnippetOf};
use ratelab::core::time::Time;

/// The product table of the README: per row, the slugs in its first cell and the field names in
/// its third.
fn readme_product_table() -> Vec<(Vec<String>, Vec<String>)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let backticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let mut rows = Vec::new();
    let mut inside = false;
    for line in readme.lines().map(str::trim) {
        if line.starts_with("| `algos=` name |") {
            inside = true;
            continue;
        }
        if !line.starts_with('|') {
            inside = false;
            continue;
        }
        if inside && !line.starts_with("|---") {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            rows.push((
                backticked(cells[0]),
                backticked(cells.get(2).copied().unwrap_or_default()),
            ));
        }
    }
    assert!(!rows.is_empty(), "the README has its product table");
    rows
}

#[test]
fn every_row_has_a_slug_and_a_label_of_its_own() {
    let slugs: BTreeSet<&str> = Algorithm::ALL.iter().map(|a| a.slug()).collect();
    let labels: BTreeSet<&str> = Algorithm::ALL.iter().map(|a| a.label()).collect();
    assert_eq!(slugs.len(), Algorithm::ALL.len());
    assert_eq!(labels.len(), Algorithm::ALL.len());
    for a in Algorithm::ALL {
        assert!(
            !a.slug().is_empty() && !a.label().trim().is_empty(),
            "{a:?}"
        );
        assert_eq!(Algorithm::from_slug(a.slug()), Some(a));
    }
}

#[test]
fn every_product_has_a_family_with_fields_and_every_field_one_family() {
    let prefixes: BTreeSet<&str> = Algorithm::ALL
        .iter()
        .filter_map(|a| a.family().map(|f| f.prefix))
        .collect();
    for a in Algorithm::ALL {
        assert_eq!(a.family().is_some(), a.is_product(), "{a}");
        if let Some(family) = a.family() {
            assert!(
                family.prefix.ends_with('-') && !family.name.is_empty(),
                "{a}"
            );
            assert!(!family.fields.is_empty(), "{a} has no URL field");
            for field in family.fields.iter().map(|t| &t.field) {
                assert!(
                    field.name.starts_with(family.prefix),
                    "{a}'s field {} does not start with {}",
                    field.name,
                    family.prefix
                );
                assert!(
                    PRODUCT_FIELDS.iter().any(|f| f.name == field.name),
                    "{a}'s field {} is not in the table a link is read with",
                    field.name
                );
            }
        }
    }
    for field in PRODUCT_FIELDS {
        let owners = prefixes.iter().filter(|p| field.name.starts_with(**p));
        assert_eq!(owners.count(), 1, "{}", field.name);
    }
}

#[test]
fn every_row_builds_decides_answers_over_http_and_tells_a_refused_client_something() {
    let settings = Settings::default();
    for a in Algorithm::ALL {
        let mut limiter = a
            .build(&settings)
            .unwrap_or_else(|e| panic!("{a} does not build from the default settings: {e}"));
        // Requests at one instant until one is refused: every row refuses within a few times
        // the limit.
        let mut refused = None;
        for n in 0..=20 * settings.limit {
            let now = Time::from_millis(n);
            let (decision, reply) = limiter.decide_with_reply(now, 1);
            assert_eq!(
                reply.is_some(),
                a.is_product(),
                "{a}: a reply is a product's"
            );
            if let Some(reply) = &reply {
                assert!(
                    reply.fields.iter().any(|(name, _)| !name.is_empty()),
                    "{a}'s reply names no field"
                );
            }
            let reply = reply.unwrap_or_default();
            let response = a.response::<Complete>(&settings, &decision, &reply);
            if decision.verdict == Verdict::Rejected {
                refused = Some((now, decision, reply, response));
                break;
            }
            assert!(
                response.status < 400,
                "{a} let a request through with {response:?}"
            );
        }
        let (now, decision, reply, response) =
            refused.unwrap_or_else(|| panic!("{a} refused nothing"));
        assert!(response.status >= 400, "{a} refused with {response:?}");
        let _ = a.told::<Complete>(&settings, now, &decision, &reply);
        assert!(!a.tells().trim().is_empty(), "{a} says nothing of its hint");
        let _ = limiter.is_at_rest(now);
    }
}

#[test]
fn every_row_explains_itself_and_has_a_snippet_or_says_why_not() {
    let settings = Settings::default();
    for a in Algorithm::ALL {
        let explanation = a.explain::<Complete>(&settings);
        for (part, text) in [
            ("what", &explanation.what),
            ("memory", &explanation.memory),
            ("when", &explanation.when),
        ] {
            assert!(!text.trim().is_empty(), "{a}'s explanation has no {part}");
        }
        match a.snippet::<Complete>() {
            SnippetOf::Written { file_name, write } => {
                assert!(!file_name.is_empty(), "{a}");
                assert!(
                    !write(&settings.row_settings()).text.trim().is_empty(),
                    "{a}"
                );
            }
            SnippetOf::None(statement) => {
                assert!(
                    !statement.trim().is_empty(),
                    "{a} has no snippet and says nothing"
                )
            }
        }
        if let Some(note) = a.copies_note() {
            assert!(!note.trim().is_empty(), "{a}");
        }
    }
}

#[test]
fn the_readmes_product_table_and_the_list_name_the_same_products_with_their_fields() {
    let table = readme_product_table();
    let documented: BTreeSet<&str> = table
        .iter()
        .flat_map(|(slugs, _)| slugs.iter().map(String::as_str))
        .collect();
    let listed: BTreeSet<&str> = Algorithm::ALL
        .iter()
        .filter(|a| a.is_product())
        .map(|a| a.slug())
        .collect();
    assert_eq!(
        documented, listed,
        "the README's product table and the list"
    );
    for a in Algorithm::ALL.into_iter().filter(|a| a.is_product()) {
        let family = a.family().expect("a product has a family");
        let (_, fields) = table
            .iter()
            .find(|(slugs, _)| slugs.iter().any(|s| s == a.slug()))
            .expect("listed above");
        assert!(
            fields.iter().any(|f| f.starts_with(family.prefix)),
            "the README's row of {a} lists none of its fields ({}...)",
            family.prefix
        );
    }
}

/// A product's reply, when the row has none, is empty: the textbook rows answer without one.
#[test]
fn a_textbook_row_answers_the_same_with_or_without_an_empty_reply() {
    let settings = Settings::default();
    for a in Algorithm::CORE {
        let mut limiter = a.build(&settings).unwrap();
        let decision = limiter.decide(Time::ZERO, 1);
        assert_eq!(
            a.response::<Complete>(&settings, &decision, &ProductReply::default()),
            ratelab::core::row_response::row_response::<Complete>(a, &settings, &decision, None)
        );
    }
}

/// Every product parameter's box names it in the product's own words and shows the value in
/// force; typing those values into the family's boxes (pinning every field) leaves every
/// decision of the row as it was, so what the boxes show is what the row runs with, for several
/// limits and windows. (The rates are ones a box can hold: Go's and Guava's take six decimals,
/// and a rate such as 100 per 60 s is shown as the double the product runs with.)
#[test]
fn a_tuning_box_shows_the_value_its_row_runs_with() {
    use ratelab::core::lab::LabRun;
    use ratelab::core::url::parse_query;
    let labs = [
        "limit=5&window=10",
        "limit=120&window=60",
        "limit=6&window=1.5",
    ];
    for lab in labs {
        for a in Algorithm::ALL {
            let Some(family) = a.family() else { continue };
            let plain = parse_query(&format!("{lab}&pattern=several-keys&algos={}", a.slug()));
            let before = LabRun::compute(&plain.state);
            let shown: Vec<(&str, String)> = family
                .fields
                .iter()
                .map(|t| {
                    (
                        t.field.name,
                        (t.in_force)(&plain.state.settings.row_settings()),
                    )
                })
                .collect();
            for (tunable, (name, value)) in family.fields.iter().zip(&shown) {
                assert!(
                    !tunable.label.trim().is_empty() && tunable.label != *name,
                    "{name}: a person's name for it"
                );
                assert!(!value.is_empty(), "{lab}, {a}: {name} shows a value");
            }
            let pins: String = shown.iter().map(|(n, v)| format!("&{n}={v}")).collect();
            let pinned = parse_query(&format!(
                "{lab}&pattern=several-keys&algos={}{pins}",
                a.slug()
            ));
            assert!(
                pinned.notices.is_empty(),
                "{lab}, {a}: {pins} is read as written: {:?}",
                pinned.notices
            );
            let after = LabRun::compute(&pinned.state);
            assert_eq!(
                before.run(a).map(|r| &r.verdicts),
                after.run(a).map(|r| &r.verdicts),
                "{lab}, {a}: pinned to {pins}"
            );
            for (tunable, (name, value)) in family.fields.iter().zip(&shown) {
                let now = (tunable.in_force)(&pinned.state.settings.row_settings());
                assert_eq!(&now, value, "{lab}, {a}: {name} pinned");
            }
        }
    }
}
