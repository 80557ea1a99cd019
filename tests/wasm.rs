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

fn answer(
    sent_ms: u64,
    latency_ms: u64,
    outcome: ratelab::core::durable::Outcome,
) -> ratelab::core::durable::RequestRecord {
    use ratelab::core::time::Time;
    ratelab::core::durable::RequestRecord {
        key: 0,
        origin: ratelab::core::region::Region::Frankfurt,
        route: 0,
        attempt: 0,
        cost: 1,
        object: None,
        sent: Time::from_millis(sent_ms),
        arrived: Some(Time::from_millis(sent_ms + 1)),
        queue_depth: (sent_ms % 11) as u32,
        decided: None,
        answered: Time::from_millis(sent_ms + latency_ms),
        outcome,
        decision: None,
        late: false,
        local: false,
    }
}

/// 12,000 px for 50 s: requests 10 ms apart fall 2.4 px apart, in cells of their own.
fn latency_geometry() -> ratelab::ui::page::MarksFor {
    use ratelab::core::time::{Span, Time};
    ratelab::ui::page::MarksFor {
        run: 1,
        width: 12_000.0,
        horizon: Time::from_secs(50),
        ceiling: Span::from_millis(100),
        dpr: 1.0,
    }
}

/// The Durable Object chart's marks for a large run are gathered a slice per task: the pieces
/// must add up to exactly the marks of one walk.
#[wasm_bindgen_test]
fn the_latency_chart_marks_walked_in_pieces_equal_one_walk() {
    use ratelab::core::durable::Outcome;
    use ratelab::ui::page::LatencyMarksBuilder;
    let kinds = [
        Outcome::Allowed,
        Outcome::Rejected,
        Outcome::DegradedAllowed,
        Outcome::FailedClosed,
    ];
    let records: Vec<_> = (0..5_000u64)
        .map(|i| answer(i * 10, (i * 7) % 120, kinds[(i % 4) as usize]))
        .collect();
    let mut whole = LatencyMarksBuilder::new(latency_geometry());
    assert!(!whole.walk(&records, usize::MAX));
    let mut pieces = LatencyMarksBuilder::new(latency_geometry());
    let mut steps = 1;
    while pieces.walk(&records, 777) {
        steps += 1;
    }
    assert_eq!(steps, 5_000usize.div_ceil(777));
    let (whole, pieces) = (whole.finish(), pieces.finish());
    assert_eq!(whole.spots, pieces.spots);
    assert_eq!(whole.tallest, pieces.tallest);
    assert_eq!(whole.tallest.iter().copied().max(), Some(10));
    // Every request has a cell of its own, so a record skipped at a seam would be missing here.
    assert!(kinds
        .iter()
        .all(|&k| whole.spots[k as usize].len() == 1_250));
}

/// One mark per outcome per 2×2-pixel cell: a million answers on one spot draw one mark.
#[wasm_bindgen_test]
fn answers_on_one_spot_with_one_outcome_leave_one_mark() {
    use ratelab::core::durable::Outcome;
    use ratelab::ui::page::LatencyMarksBuilder;
    let records = [
        answer(1_000, 50, Outcome::Allowed),
        answer(1_000, 50, Outcome::Allowed),
        answer(1_000, 50, Outcome::Rejected),
        answer(40_000, 10, Outcome::Allowed),
    ];
    let mut builder = LatencyMarksBuilder::new(latency_geometry());
    builder.walk(&records, usize::MAX);
    let marks = builder.finish();
    assert_eq!(marks.spots[Outcome::Allowed as usize].len(), 2);
    assert_eq!(marks.spots[Outcome::Rejected as usize].len(), 1);
}
