//! The page: a thin layer that reads the state from the URL, asks the core to compute it, and
//! draws the result. It holds no algorithm logic: every figure comes from `crate::core`.

mod app;
mod compose_panel;

/// The parts of the core this module links (`core::limiter::Parts`), decided here with the
/// module's Cargo features: the complete module (`products` and `workbench`) links everything,
/// the Durable Object's module (`durable`) the textbook algorithms and the Durable Object's
/// emulation, and the first view's module the textbook algorithms alone. Every call into the
/// core that builds a limiter names it.
#[cfg(all(feature = "products", feature = "workbench"))]
pub(crate) type Linked = crate::core::limiter::Complete;
#[cfg(all(
    not(all(feature = "products", feature = "workbench")),
    feature = "durable"
))]
pub(crate) type Linked = crate::core::limiter::TextbookAndDurableObject;
#[cfg(not(any(all(feature = "products", feature = "workbench"), feature = "durable")))]
pub(crate) type Linked = crate::core::limiter::TextbookOnly;

mod controls;
mod counting_controls;
mod draw;
mod draw_bars;
#[cfg(feature = "durable")]
mod draw_latency;
#[cfg(feature = "workbench")]
mod draw_retries;
#[cfg(not(feature = "durable"))]
mod durable_heading;
#[cfg(feature = "durable")]
mod durable_lab;
mod embed;
mod explain;
mod export;
#[cfg(feature = "workbench")]
mod export_png;
/// The first view's module does not draw the charts' picture (its caption, its legend and the
/// Durable Object chart redrawn to line up cost more room than the module has): it brings the
/// complete module, which downloads the picture once its charts are drawn
/// (`controls::ShareEmbed`).
#[cfg(not(feature = "workbench"))]
mod export_png {
    pub(crate) fn download_png(_: super::state::Lab) -> Result<(), wasm_bindgen::JsValue> {
        super::workbench::open_in_complete(super::workbench::DOWNLOAD_PNG);
        Ok(())
    }
}
/// "Bring the config you run": only the complete module reads a product's config.
mod config_panel;
mod import_panel;
mod inspector;
#[cfg(feature = "workbench")]
mod kept_trace;
#[cfg(feature = "durable")]
mod latency_marks;
mod module_swap;
mod panic_banner;
#[cfg(feature = "workbench")]
mod questions;
/// The first view's module has no questions: the list is its heading alone, which opens the
/// complete module, and no question is ever open (a link with `q=` loads the complete module).
#[cfg(not(feature = "workbench"))]
mod questions {
    use leptos::prelude::*;

    #[component]
    pub(crate) fn QuestionList() -> impl IntoView {
        view! { <super::workbench::InCompleteModule section="questions" summary="Questions people ask" class="questions" testid="questions"/> }
    }

    #[component]
    pub(crate) fn QuestionView() -> impl IntoView {}

    /// No question is ever open in this module.
    pub(crate) fn open_question_chars(_: crate::ui::state::Lab) -> usize {
        0
    }
}
mod scheduler;
#[cfg(feature = "products")]
mod snippets;
/// The first view's module has no product rows and no snippets: a product row draws nothing,
/// and the Durable Object's card the block's heading, which opens the complete module.
#[cfg(not(feature = "products"))]
mod snippets {
    use leptos::prelude::*;

    pub(crate) fn for_row(_: &crate::core::lab::LabRun, _: crate::core::limiter::Algorithm) {}

    pub(crate) fn for_durable(
        _: &super::state::Lab,
        _: &crate::core::lab::LabRun,
    ) -> impl IntoView {
        view! { <super::workbench::InCompleteModule section="snippet-do" summary="Use these settings" class="snippet" testid="snippet-do"/> }
    }

    /// The inspector offers no block here: a product row draws nothing in this module.
    pub(crate) fn link_to_block(_: &'static str) {}

    /// Nor does a row's label.
    pub(crate) fn link_from_row(_: &'static str) {}
}
mod scenarios;
mod state;
mod tables;
mod timeline;
mod timeline_input;
/// The first visit's tour: only in the first view's module, which every link without a query
/// loads (the others are loaded for a view a link or the first module asked for).
#[cfg(not(any(feature = "workbench", feature = "durable")))]
mod tour;
/// A view as one file, to open in another browser: only the complete module reads and writes
/// them.
mod view_file;
mod workbench;

/// The whole page, for tests that mount it.
pub mod page {
    pub use super::app::App;
    pub use super::panic_banner::{install as install_panic_banner, show_banner};
}

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Installs the panic banner and mounts the page. The performance marks `ratelab:start`,
/// `ratelab:mounted` and `ratelab:ready` (see [`mark_ready`]) say where a load's time goes; the
/// load benchmark (`scripts/bench-load.mjs`) reads them.
pub fn start() {
    performance_mark("ratelab:start");
    panic_banner::install();
    module_swap::take_over();
    remove_shell();
    if let Some(body) = window().and_then(|w| w.document()).and_then(|d| d.body()) {
        module_swap::mount_root(&body, app::App);
    }
    module_swap::offer_retirement();
    module_swap::restore(false);
    performance_mark("ratelab:mounted");
}

/// Removes the header `index.html` shows while the module arrives (`#shell`), in the same task
/// that builds the page, so no frame shows neither.
fn remove_shell() {
    if let Some(shell) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("shell"))
    {
        shell.remove();
    }
}

fn performance_mark(name: &str) {
    if let Some(performance) = window().and_then(|w| w.performance()) {
        let _ = performance.mark(name);
    }
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// Sets `data-ready="true"` on `<body>`: the page has computed the current state and its first
/// view (the controls, the timelines, the table of figures) shows it.
pub(crate) fn mark_ready() {
    if let Some(body) = window().and_then(|w| w.document()).and_then(|d| d.body()) {
        if !body.has_attribute("data-ready") {
            performance_mark("ratelab:ready");
        }
        let _ = body.set_attribute("data-ready", "true");
    }
}

/// Sets `data-complete="true"` on `<body>`: the sections below the first view (the import panel,
/// the Durable Object lab, the decision table, sharing and the explanations) are built too.
pub(crate) fn mark_complete() {
    if let Some(body) = window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-complete", "true");
    }
    module_swap::restore(true);
    // The first visit's tour opens once the page is whole: its steps point at sections built
    // after the first paint, and focusing its dialog before that paint made the browser lay the
    // whole page out early (about 200 ms of a phone's load).
    #[cfg(not(any(feature = "workbench", feature = "durable")))]
    tour::start();
}

/// The query string of the page's URL (without `?`), or empty when it cannot be read.
pub(crate) fn current_query() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .map(|s| s.trim_start_matches('?').to_string())
        .unwrap_or_default()
}

/// Puts `query` in the address bar without reloading, so the URL always holds the state: as a
/// new history entry when `remember` (Back then returns to the view before), else in place. The
/// entry keeps `notices`, the messages said about its view, so that Back and Forward show each
/// view's own ([`entry_notices`]).
pub(crate) fn write_url(query: &str, remember: bool, notices: &[String]) {
    let Some(w) = window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Ok(history) = w.history() {
        let url = Some(url.as_str());
        let data = notices_value(notices);
        let _ = match remember {
            true => history.push_state_with_url(&data, "", url),
            false => history.replace_state_with_url(&data, "", url),
        };
    }
}

/// Keeps `notices` with the current history entry, its address unchanged.
pub(crate) fn write_notices(notices: &[String]) {
    if let Some(history) = window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state(&notices_value(notices), "");
    }
}

/// The messages kept with the current history entry, or `None` for an entry that keeps none
/// (one the page has not written).
pub(crate) fn entry_notices() -> Option<Vec<String>> {
    let data = window()?.history().ok()?.state().ok()?;
    js_sys::Array::is_array(&data).then(|| {
        js_sys::Array::from(&data)
            .iter()
            .filter_map(|n| n.as_string())
            .collect()
    })
}

/// Notices as a history entry's data: an array of strings.
fn notices_value(notices: &[String]) -> wasm_bindgen::JsValue {
    notices
        .iter()
        .map(|n| wasm_bindgen::JsValue::from_str(n))
        .collect::<js_sys::Array>()
        .into()
}

/// Brings the module the page's current address needs, in place of this one, without a reload
/// (`module_swap`); `section` names what to open there. A page without the site's loader
/// (`trunk serve`) has every part in its one module, and is loaded again instead.
pub(crate) fn switch_module(section: Option<&str>) {
    if !module_swap::switch_module(section) {
        if let Some(w) = window() {
            let _ = w.location().reload();
        }
    }
}

/// The full address of the page for `query` (for the share link and the embed snippet).
pub(crate) fn url_for(query: &str) -> String {
    let Some(w) = window() else {
        return String::new();
    };
    let loc = w.location();
    let base = format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    );
    if query.is_empty() {
        base
    } else {
        format!("{base}?{query}")
    }
}

/// The address of a file of the site, `name` resolved against the page's own address as the
/// browser resolves a relative link.
pub(crate) fn site_file(name: &str) -> String {
    window()
        .and_then(|w| w.location().href().ok())
        .and_then(|page| web_sys::Url::new_with_base(name, &page).ok())
        .map(|url| url.href())
        .unwrap_or_default()
}

pub(crate) fn media_matches(query: &str) -> bool {
    window()
        .and_then(|w| w.match_media(query).ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}

/// Whether the page is as narrow as a phone's, where the row labels sit above the rows and the
/// plot takes the whole width: the same width as the `@media` rule in `style/main.css` that
/// lays them out so.
pub(crate) fn labels_above_rows() -> bool {
    media_matches("(max-width: 760px)")
}

pub(crate) fn prefers_reduced_motion() -> bool {
    media_matches("(prefers-reduced-motion: reduce)")
}

/// Milliseconds from the page's clock, for animation only (never for a decision).
pub(crate) fn perf_now() -> f64 {
    window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

pub(crate) fn device_pixel_ratio() -> f64 {
    window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .clamp(1.0, 4.0)
}

/// Runs `f` as soon as the page has handled what is waiting (a zero-delay timer), so long work
/// can continue in slices while the page stays responsive.
pub(crate) fn soon(f: impl FnOnce() + 'static) {
    after(0, f);
}

/// Runs `f` after `ms` milliseconds.
pub(crate) fn after(ms: i32, f: impl FnOnce() + 'static) {
    let Some(w) = window() else { return };
    let callback = Closure::once_into_js(move || {
        if !module_swap::is_retired() {
            f();
        }
    });
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), ms);
}

/// Remembers which run a chart last drew, so that the first drawing of a large run gets a task
/// of its own: finishing a run, working out a million marks and drawing each chart are then
/// separate stalls of the page, each short, instead of one long one. Redraws of the same run
/// (the pointer moving, a drag) are drawn at once.
/// (Only the Durable Object's chart draws this way.)
#[cfg(feature = "durable")]
#[derive(Clone, Default)]
pub(crate) struct FirstDraw(std::rc::Rc<std::cell::Cell<usize>>);

/// From this many requests, a run's first drawing waits for its own task.
#[cfg(feature = "durable")]
const DRAW_LATER_FROM: usize = 100_000;

#[cfg(feature = "durable")]
impl FirstDraw {
    pub(crate) fn paint(
        &self,
        run: &std::sync::Arc<crate::core::lab::LabRun>,
        paint: impl FnOnce() + 'static,
    ) {
        let id = std::sync::Arc::as_ptr(run) as usize;
        let new_run = self.0.replace(id) != id;
        if new_run && run.trace.len() > DRAW_LATER_FROM {
            soon(paint);
        } else {
            paint();
        }
    }
}

/// Runs `f` before the next repaint.
pub(crate) fn next_frame(f: impl FnOnce() + 'static) {
    let Some(w) = window() else { return };
    let callback = Closure::once_into_js(move || {
        if !module_swap::is_retired() {
            f();
        }
    });
    let _ = w.request_animation_frame(callback.unchecked_ref());
}

/// Sets an element's CSS size through the CSSOM, which the page's Content-Security-Policy
/// allows (a `style` attribute would need `unsafe-inline`).
pub(crate) fn set_css_size(element: &web_sys::HtmlElement, width: f64, height: f64) {
    let style = element.style();
    let _ = style.set_property("width", &format!("{}px", width.round() as i64));
    let _ = style.set_property("height", &format!("{}px", height.round() as i64));
}

/// The width in CSS pixels (its `clientWidth`) of the element behind `wrap`, kept up to date as
/// it resizes: what a canvas inside it is drawn to. It is 0 until the element has been laid out,
/// and a chart draws nothing until then.
///
/// A `ResizeObserver` reports the width after the browser's own layout, just before it paints.
/// Asking for `clientWidth` while the page is being built would make the browser lay out the
/// whole page there and then, once per chart: on a slow phone that alone took about a quarter of
/// a second of the first load.
pub(crate) fn tracked_width(
    wrap: leptos::prelude::NodeRef<leptos::html::Div>,
) -> leptos::prelude::RwSignal<f64> {
    use leptos::prelude::*;
    let width = RwSignal::new(0.0_f64);
    Effect::new(move |_| {
        let Some(element) = wrap.get() else {
            return;
        };
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() else {
                return;
            };
            let w = f64::from(entry.target().client_width());
            if w > 0.0 && (w - width.get_untracked()).abs() >= 1.0 {
                width.set(w);
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
            observer.observe(&element);
            module_swap::on_retire(move || {
                observer.disconnect();
                drop(on_resize);
            });
        }
    });
    width
}
