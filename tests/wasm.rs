//! Component tests in a real browser (wasm-bindgen-test in headless Chromium): the page mounted
//! from a URL query shows the core's figures in its rows.
#![cfg(target_arch = "wasm32")]

use ratelab::ui::page::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

/// Points the page's URL at `query`, mounts the app into a fresh container, and returns it.
fn mount_with_query(query: &str) -> web_sys::HtmlElement {
    let window = web_sys::window().expect("a window");
    window
        .history()
        .expect("history")
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")))
        .expect("replaceState");
    let container: web_sys::HtmlElement =
        document().create_element("div").unwrap().unchecked_into();
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
    assert_eq!(
        row_attr(&page, "fixed", "data-allowed").as_deref(),
        Some("10")
    );
    assert_eq!(
        row_attr(&page, "sliding-log", "data-allowed").as_deref(),
        Some("5")
    );
    assert_eq!(
        row_attr(&page, "token-bucket", "data-allowed").as_deref(),
        Some("6")
    );
    assert_eq!(
        row_attr(&page, "fixed", "data-max-in-window").as_deref(),
        Some("10")
    );
    page.remove();
}

#[wasm_bindgen_test]
fn only_the_algorithms_in_the_url_get_a_row() {
    let page = mount_with_query("algos=gcra,fixed&pattern=steady");
    assert!(row_attr(&page, "gcra", "data-allowed").is_some());
    assert!(row_attr(&page, "fixed", "data-allowed").is_some());
    assert!(row_attr(&page, "sliding-log", "data-allowed").is_none());
    assert_eq!(
        row_attr(&page, "fixed", "data-rejected").as_deref(),
        Some("30")
    );
    page.remove();
}

#[wasm_bindgen_test]
fn a_bad_limit_shows_a_message_and_the_page_still_runs_on_the_default() {
    let page = mount_with_query("limit=0");
    let notice = page
        .query_selector("[data-testid=\"notice\"]")
        .unwrap()
        .expect("a notice");
    assert!(notice
        .text_content()
        .unwrap_or_default()
        .contains("at least 1"));
    assert_eq!(
        row_attr(&page, "sliding-log", "data-allowed").as_deref(),
        Some("5")
    );
    page.remove();
}

/// Waits `ms` milliseconds of the page's own timers.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

fn banner() -> Option<web_sys::Element> {
    document()
        .query_selector("[data-testid=fatal-error]")
        .ok()
        .flatten()
}

/// The hook's banner: an alert with a way back to a working page, text only, shown once.
#[wasm_bindgen_test]
fn the_crash_banner_offers_a_reset_link_and_never_parses_the_message_as_html() {
    ratelab::ui::page::show_banner("index out of bounds <img src=x data-testid=injected>");
    ratelab::ui::page::show_banner("a second panic");
    let banner = banner().expect("the banner");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner
        .text_content()
        .unwrap_or_default()
        .starts_with("Something went wrong and the lab stopped."));
    let link = banner.query_selector("a").unwrap().expect("the reset link");
    assert_eq!(link.get_attribute("href").as_deref(), Some("?"));
    assert!(document()
        .query_selector("[data-testid=injected]")
        .unwrap()
        .is_none());
    assert_eq!(
        document()
            .query_selector_all("[data-testid=fatal-error]")
            .unwrap()
            .length(),
        1
    );
    banner.remove();
}

/// A real panic, in a timer callback as a bug in an event handler would be: the installed hook
/// puts the banner up before the module stops that callback. (Without the hook this fails.)
#[wasm_bindgen_test]
async fn a_real_panic_puts_the_banner_up_instead_of_a_dead_page() {
    if let Some(old) = banner() {
        old.remove();
    }
    // The test harness has a panic hook of its own and may start another test while this one
    // waits, so the page's hook is installed inside the failing callback itself. (It cannot be
    // swapped back afterwards: std refuses to touch hooks once a panic has aborted midway, which
    // is what a panic in Wasm does.)
    let bug = wasm_bindgen::closure::Closure::once_into_js(|| {
        ratelab::ui::page::install_panic_banner();
        let empty: Vec<u8> = Vec::new();
        let index = empty.len() + 3;
        std::hint::black_box(empty[index]);
    });
    let window = web_sys::window().unwrap();
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(bug.unchecked_ref(), 0);
    sleep(100).await;
    assert!(banner().is_some(), "the hook put the banner up");
}
