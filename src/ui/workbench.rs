//! The sections only the complete module has (the Cargo feature `workbench`, and the feature
//! `products` for the settings snippets): reading a person's own traffic, composing traffic, the
//! rules every row can run under, the Durable Object's "Use these settings", and the charts'
//! picture (`super::export_png`). In the first view's module each section is its heading alone
//! (the picture, its button); opening it brings the complete module in place of the running one
//! (`super::module_swap`), with a note naming the section, which opens there (or the picture
//! downloads: docs/architecture.md, "Three modules").

#[cfg(not(all(feature = "workbench", feature = "products")))]
use leptos::prelude::*;

/// Where web/loader.js leaves the note for the module it brings: the section to open.
const ASKED: &str = "ratelabAsked";

/// The note the first view's module leaves for the complete one: download the charts' picture
/// (`super::export_png`).
pub(crate) const DOWNLOAD_PNG: &str = "export-png";

/// True, once, when the module before this one brought it to open `section` here. (Each helper
/// here is used by whichever module has, or lacks, a section.)
#[allow(dead_code)]
pub(crate) fn asked_to_open(section: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let key = wasm_bindgen::JsValue::from_str(ASKED);
    let asked = js_sys::Reflect::get(&window, &key)
        .ok()
        .and_then(|v| v.as_string());
    if asked.as_deref() != Some(section) {
        return false;
    }
    let _ = js_sys::Reflect::delete_property(&window, &key);
    true
}

/// Brings the complete module in place of this one, leaving it a note to open `section` (or do
/// what it names) there.
#[cfg(not(all(feature = "workbench", feature = "products")))]
pub(crate) fn open_in_complete(section: &str) {
    super::switch_module(Some(section));
}

/// A section's heading in the first module: opened, it brings the complete module, which opens
/// the section in its place.
#[cfg(not(all(feature = "workbench", feature = "products")))]
#[component]
pub(crate) fn InCompleteModule(
    section: &'static str,
    summary: &'static str,
    class: &'static str,
    testid: &'static str,
) -> impl IntoView {
    let open = move |ev: leptos::ev::Event| {
        if !event_target::<web_sys::HtmlDetailsElement>(&ev).open() {
            return;
        }
        open_in_complete(section);
    };
    view! {
        <details class=class data-testid=testid on:toggle=open>
            <summary>{summary}</summary>
            <p class="hint">"Loading…"</p>
        </details>
    }
}
