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

/// The elements of `page` whose `data-testid` is `testid`.
fn by_testid(page: &web_sys::HtmlElement, testid: &str) -> Vec<web_sys::Element> {
    let list = page
        .query_selector_all(&format!("[data-testid=\"{testid}\"]"))
        .expect("a selector");
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|node| node.dyn_into::<web_sys::Element>().ok())
        .collect()
}

/// The one input of `page` whose `data-testid` is `testid`.
fn one_input(page: &web_sys::HtmlElement, testid: &str) -> web_sys::HtmlInputElement {
    let found = by_testid(page, testid);
    assert_eq!(found.len(), 1, "one {testid}");
    found[0].clone().dyn_into().expect("an input")
}

/// What a person's typing or dragging fires at `element`: a bubbling `input` or `change` event.
fn fire(element: &web_sys::HtmlElement, kind: &str) {
    let dispatch = js_sys::Function::new_with_args(
        "element, kind",
        "element.dispatchEvent(new Event(kind, { bubbles: true }))",
    );
    dispatch
        .call2(&wasm_bindgen::JsValue::NULL, element, &kind.into())
        .expect("the event dispatched");
}

/// The address bar's query, without its `?`.
fn address_query() -> String {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    search.trim_start_matches('?').to_string()
}

/// Waits for `ready`, up to about ten seconds of the page's timers.
async fn until(what: &str, ready: impl Fn() -> bool) {
    for _ in 0..500 {
        if ready() {
            return;
        }
        sleep(20).await;
    }
    panic!("waited in vain for {what}");
}

/// What a test types into a box without a slider, a text its field takes.
fn typed_into(field: &str) -> &'static str {
    match field {
        "outage" => "20-30",
        "slow" => "5-9",
        "evict-at" => "40",
        "instances" => "3",
        "retries" => "7",
        _ => panic!("{field}: a box without a slider needs a text to type here"),
    }
}

/// Every declared control (`core::url::controls`) is drawn once, in the complete module with the
/// Durable Object lab, the tuning panel and obeying clients shown: one number box showing the
/// text of the value in force, and, for a control with a slider, one slider at that value's
/// position. A move of the slider and a text typed into the box each change the address bar's
/// link as the declaration and the field's own reading say.
#[wasm_bindgen_test]
async fn every_declared_control_draws_one_slider_and_one_number_box_bound_to_its_link_field() {
    use ratelab::core::url::controls::every_control;
    use ratelab::core::url::{parse_query, set_field, to_query};

    const QUERY: &str = "pattern=steady&do=1&clients=obey";
    let page = mount_with_query(QUERY);
    let mut expected = parse_query(QUERY).state;
    until("the Durable Object lab, built after the first view", || {
        !by_testid(&page, "durable-lab").is_empty()
    })
    .await;
    let tuning: web_sys::HtmlDetailsElement = page
        .query_selector(".controls details.tuning")
        .unwrap()
        .expect("the tuning panel")
        .unchecked_into();
    tuning.set_open(true);
    until("the tuning panel's controls, built as it opens", || {
        !by_testid(&page, "tune-token-bucket").is_empty()
    })
    .await;

    for control in every_control() {
        let field = control.field;
        let number = one_input(&page, &format!("{field}-number"));
        assert_eq!(number.value(), (control.text)(&expected), "{field}'s box");
        let before = (control.text)(&expected);
        match &control.slider {
            None => assert!(
                by_testid(&page, &format!("{field}-slider")).is_empty(),
                "{field}"
            ),
            Some(slider) => {
                let input = one_input(&page, &format!("{field}-slider"));
                assert_eq!(
                    input.max(),
                    slider.max.to_string(),
                    "{field}'s last position"
                );
                let at = (slider.position)(&expected);
                assert_eq!(input.value(), at.to_string(), "{field}'s position");
                let to = if at > 0 { at - 1 } else { at + 1 };
                input.set_value(&to.to_string());
                fire(&input, "input");
                (slider.set)(&mut expected, to);
                let (link, shown) = (to_query(&expected), (slider.shown)(&expected));
                let text = (control.text)(&expected);
                until(&format!("{field}'s slider moved to {to}: {link}"), || {
                    let value = by_testid(&page, &format!("{field}-value"));
                    address_query() == link
                        && value.len() == 1
                        && value[0].text_content().unwrap_or_default() == shown
                        && number.value() == text
                })
                .await;
            }
        }
        // The box: the text it showed before (a slider's value moves back), or one its field takes.
        let typed = match control.slider {
            Some(_) => before,
            None => typed_into(field).to_string(),
        };
        number.set_value(&typed);
        fire(&number, "change");
        if let Err(refused) = set_field(&mut expected, field, &typed) {
            panic!("{field}={typed}: {}", refused.message);
        }
        let link = to_query(&expected);
        until(&format!("{field}={typed} typed: {link}"), || {
            address_query() == link && number.value() == (control.text)(&expected)
        })
        .await;
    }
    page.remove();
}
