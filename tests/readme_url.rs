//! The README's URL reference and the URL table agree: every field a link can carry is
//! documented, and the README documents no field the page does not read.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

/// The cells of each row of every table in `text` whose header row starts with `header`.
fn table_rows<'a>(text: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with(header) {
            inside = true;
            continue;
        }
        if !line.starts_with('|') {
            inside = false;
            continue;
        }
        if inside && !line.starts_with("|---") {
            rows.push(line.trim_matches('|').split(" | ").map(str::trim).collect());
        }
    }
    rows
}

/// The names in backticks in `cell` that look like a field's name (`nginx-rate`, `limit`).
fn backticked(cell: &str) -> Vec<&str> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && !name.starts_with('-')
        })
        .collect()
}

fn documented_fields() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let mut names = BTreeSet::new();
    // The lab's and the Durable Object's tables: the field is the first cell.
    for row in table_rows(&readme, "| parameter |") {
        for name in backticked(row[0]) {
            names.insert(name.to_string());
        }
    }
    // The products' table: each product's fields, with a hyphen in the name, in the third cell.
    for row in table_rows(&readme, "| `algos=` name |") {
        for name in backticked(row.get(2).copied().unwrap_or_default()) {
            if name.contains('-') {
                names.insert(name.to_string());
            }
        }
    }
    names
}

#[test]
fn the_readme_documents_exactly_the_fields_the_url_table_reads() {
    let table: BTreeSet<String> = ratelab::core::url::field_names()
        .into_iter()
        .map(str::to_string)
        .collect();
    let documented = documented_fields();
    let undocumented: Vec<&String> = table.difference(&documented).collect();
    let unknown: Vec<&String> = documented.difference(&table).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "fields the URL table reads but the README does not list: {undocumented:?}; \
         fields the README lists but the URL table does not read: {unknown:?}"
    );
}

#[test]
fn the_url_table_names_each_field_once() {
    let names = ratelab::core::url::field_names();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
}

/// The README's table of products names every product row the catalogue has, and no other.
#[test]
fn the_readmes_product_table_names_exactly_the_catalogues_product_rows() {
    use ratelab::core::limiter::Algorithm;
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let documented: BTreeSet<String> = table_rows(&readme, "| `algos=` name |")
        .iter()
        .flat_map(|row| backticked(row[0]))
        .map(str::to_string)
        .collect();
    let catalogue: BTreeSet<String> = Algorithm::ALL
        .iter()
        .filter(|a| a.is_product())
        .map(|a| a.slug().to_string())
        .collect();
    assert_eq!(documented, catalogue);
}
