//! The page: a thin layer that reads the state from the URL, asks the core to run it, and shows
//! the result. It holds no algorithm logic.

pub mod page;
mod panic_banner;



/// Installs the panic banner, mounts the page, and marks the body ready once it has rendered.
pub fn start() {
    panic_banner::install();
    leptos::mount::mount_to_body(page::App);
}

/// Sets `data-ready="true"` on `<body>`: the page has computed and shown the current state.
pub(crate) fn mark_ready() {
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-ready", "true");
    }
}

/// The query string of the page's URL (without `?`), or empty when it cannot be read.
pub(crate) fn current_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .map(|s| s.trim_start_matches('?').to_string())
        .unwrap_or_default()
}

