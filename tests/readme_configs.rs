//! The README's "Bring the config you run" stays true: each of its examples is read (the product
//! told from the text alone) into the row it names, with the fields it lists, and every product
//! whose configs are read has an example there.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use ratelab::core::config_file::{self, Rows};
use ratelab::core::lab_state::LabState;
use ratelab::core::limiter::{field_text, Complete};

/// One example of the section: the row its line names, the fields with their values, the code.
type Example = (String, Vec<(String, String)>, String);

fn examples() -> Vec<Example> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let section = readme
        .split("\n## Bring the config you run\n")
        .nth(1)
        .expect("the README has the section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut named: Option<(String, Vec<(String, String)>)> = None;
    let mut code: Option<String> = None;
    for line in section.lines() {
        if let Some(rest) = line.strip_prefix("Row `") {
            let ticked: Vec<&str> = rest.split('`').step_by(2).collect();
            let row = ticked[0].to_string();
            let fields = ticked[1..]
                .iter()
                .filter_map(|f| f.split_once('='))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            named = Some((row, fields));
        } else if line.starts_with("```") {
            match code.take() {
                Some(text) => {
                    if let Some((row, fields)) = named.take() {
                        found.push((row, fields, text));
                    }
                }
                None => code = Some(String::new()),
            }
        } else if let Some(text) = code.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    found
}

#[test]
fn every_readme_example_gives_the_row_and_fields_it_names() {
    let examples = examples();
    assert!(examples.len() >= 11, "one example per product");
    for (row, fields, text) in &examples {
        let reading = config_file::read::<Complete>(text, None)
            .unwrap_or_else(|e| panic!("{row}: {e}\n{text}"));
        assert_eq!(reading.row.slug(), row, "{text}");
        let mut state = LabState::default();
        reading.apply(&mut state, Rows::Replace);
        for (name, value) in fields {
            assert_eq!(
                field_text(&state.settings.products, name).as_deref(),
                Some(value.as_str()),
                "{row}: {name}\n{text}"
            );
        }
    }
}

#[test]
fn every_product_whose_configs_are_read_has_a_readme_example() {
    let families: BTreeSet<&str> = config_file::products::<Complete>()
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    let shown: BTreeSet<&str> = examples()
        .iter()
        .filter_map(|(row, _, _)| {
            ratelab::core::limiter::Algorithm::from_slug(row)
                .and_then(|a| a.family())
                .map(|f| f.name)
        })
        .collect();
    assert_eq!(families, shown);
}
