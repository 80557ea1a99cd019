//! The page's two modules (docs/architecture.md, "Two modules") agree on which rows the first
//! view's module can run: web/loader.js picks the complete module for any row outside its list,
//! and the first view's module, built without the product profiles, reloads for any product row.

use ratelab::core::limiter::Algorithm;

fn loader_first_view_rows() -> Vec<String> {
    let loader = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/web/loader.js"))
        .expect("web/loader.js is readable");
    let list = loader
        .split("FIRST_VIEW_ROWS = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("web/loader.js declares FIRST_VIEW_ROWS = [...]");
    list.split(',')
        .map(|name| name.trim().trim_matches('"').to_string())
        .collect()
}

#[test]
fn the_loader_sends_exactly_the_six_algorithms_to_the_first_view_module() {
    let core: Vec<String> = Algorithm::CORE
        .iter()
        .map(|a| a.slug().to_string())
        .collect();
    assert_eq!(loader_first_view_rows(), core);
}

#[test]
fn every_row_outside_the_six_is_a_product_that_the_first_view_module_hands_on() {
    for a in Algorithm::ALL {
        assert_eq!(a.is_product(), !Algorithm::CORE.contains(&a), "{a}");
    }
}
