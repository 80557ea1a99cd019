//! The sections only the complete module has (the Cargo feature `workbench`, and the feature
//! `products` for the settings snippets): reading a person's own traffic, composing traffic, the
//! rules every row can run under, the Durable Object's "Use these settings", and the charts'
//! picture (`super::export_png`). In the first view's module each section is its heading alone
//! (the picture, its button); opening it leaves a note in `sessionStorage` and reloads the page,
//! web/loader.js then picks the complete module, and the section opens there (or the picture
//! downloads: docs/architecture.md, "Three modules").

#[cfg(not(all(feature = "workbench", feature = "products")))]
use leptos::prelude::*;

/// The sessionStorage key web/loader.js reads: its value names the section to open.
const OPEN_IN_COMPLETE: &str = "ratelab-complete";

/// The note the first view's module leaves for the complete one: download the charts' picture
/// (`super::export_png`).
pub(crate) const DOWNLOAD_PNG: &str = "export-png";

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// True, once, when the first module reloaded the page to open `section` here. (Each helper
/// here is used by whichever module has, or lacks, a section.)
#[allow(dead_code)]
pub(crate) fn asked_to_open(section: &str) -> bool {
    let Some(storage) = session_storage() else {
        return false;
    };
    match storage.get_item(OPEN_IN_COMPLETE) {
        Ok(Some(asked)) if asked == section => {
            let _ = storage.remove_item(OPEN_IN_COMPLETE);
            true
        }
        _ => false,
    }
}

/// Reloads the page into the complete module, leaving it a note to open `section` (or do what it
/// names) there; false, and nothing done, without storage (a sandboxed frame).
#[cfg(not(all(feature = "workbench", feature = "products")))]
pub(crate) fn reload_into_complete(section: &str) -> bool {
    match session_storage().map(|s| s.set_item(OPEN_IN_COMPLETE, section)) {
        Some(Ok(())) => {
            super::reload();
            true
        }
        _ => false,
    }
}

/// A section's heading in the first module: opened, it reloads the page with the complete
/// module. Without storage (a sandboxed frame) it says where the section is instead.
#[cfg(not(all(feature = "workbench", feature = "products")))]
#[component]
pub(crate) fn InCompleteModule(
    section: &'static str,
    summary: &'static str,
    class: &'static str,
    testid: &'static str,
) -> impl IntoView {
    let message = RwSignal::new("Loading…");
    let open = move |ev: leptos::ev::Event| {
        if !event_target::<web_sys::HtmlDetailsElement>(&ev).open() {
            return;
        }
        if !reload_into_complete(section) {
            message.set(
                "This part of the lab opens in a full page: open the lab in a tab of its own.",
            );
        }
    };
    view! {
        <details class=class data-testid=testid on:toggle=open>
            <summary>{summary}</summary>
            <p class="hint">{move || message.get()}</p>
        </details>
    }
}
