//! Component tests in a real browser (wasm-bindgen-test in headless Chromium): the page mounted
//! from a URL query shows the core's figures in its rows.
#![cfg(target_arch = "wasm32")]

use ratelab::ui::page::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

/// Points the page's URL at `query`, mounts the app into a fresh container, and returns it.
fn mount_with_query(query: &str) -> web_sys::HtmlElement {
    let window = web_sys::window().expect("a window");
    window
        .history()
        .expect("history")
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")))
        .expect("replaceState");
    let container: web_sys::HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&container).unwrap();
    leptos::mount::mount_to(container.clone(), App).forget();
    container
}

fn row_attr(container: &web_sys::HtmlElement, slug: &str, attr: &str) -> Option<String> {
    container
        .query_selector(&format!("[data-testid=\"stats-{slug}\"]"))
        .ok()
        .flatten()
        .and_then(|row| row.get_attribute(attr))
}

#[wasm_bindgen_test]
fn the_window_edge_preset_shows_fixed_10_sliding_5_bucket_6() {
    let page = mount_with_query("pattern=edge");
    assert_eq!(row_attr(&page, "fixed", "data-allowed").as_deref(), Some("10"));
    assert_eq!(row_attr(&page, "sliding-log", "data-allowed").as_deref(), Some("5"));
    assert_eq!(row_attr(&page, "token-bucket", "data-allowed").as_deref(), Some("6"));
    assert_eq!(row_attr(&page, "fixed", "data-max-in-window").as_deref(), Some("10"));
    page.remove();
}

#[wasm_bindgen_test]
fn only_the_algorithms_in_the_url_get_a_row() {
    let page = mount_with_query("algos=gcra,fixed&pattern=steady");
    assert!(row_attr(&page, "gcra", "data-allowed").is_some());
    assert!(row_attr(&page, "fixed", "data-allowed").is_some());
    assert!(row_attr(&page, "sliding-log", "data-allowed").is_none());
    assert_eq!(row_attr(&page, "fixed", "data-rejected").as_deref(), Some("30"));
    page.remove();
}

#[wasm_bindgen_test]
fn a_bad_limit_shows_a_message_and_the_page_still_runs_on_the_default() {
    let page = mount_with_query("limit=0");
    let notice = page.query_selector("[data-testid=\"notice\"]").unwrap().expect("a notice");
    assert!(notice.text_content().unwrap_or_default().contains("at least 1"));
    assert_eq!(row_attr(&page, "sliding-log", "data-allowed").as_deref(), Some("5"));
    page.remove();
}
