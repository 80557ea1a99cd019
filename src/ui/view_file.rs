//! "A view as a file": "Download this view" writes the view's query and its trace as one file
//! (`core::view_file`, `ratelab-view.csv`), and "Open a view file" (or a view file dropped
//! anywhere on the page; a product's config goes to "Bring the config you run" and any other file
//! to "Use your own traffic") opens one back: its query and its trace as one change
//! remembered in the browser's history, the trace then kept as any imported trace is (in the
//! link while it fits, else in IndexedDB: `state.rs`, `kept_trace.rs`). For a view whose trace
//! is kept in one browser only, this is how it goes to another browser or person.
//!
//! Only the complete module reads and writes view files (`super::workbench`): the first view's
//! module has no such section; opening "Use your own traffic" there opens the page again with
//! the complete module (`super::import_panel`), where this section follows it.

#[cfg(not(feature = "workbench"))]
use leptos::prelude::*;

#[cfg(feature = "workbench")]
pub use files::ViewFilePanel;

/// The first module's: nothing. Its "Use your own traffic" heading already opens the complete
/// module, where this section sits right below it; a heading of its own would cost the first
/// modules code for no view they show.
#[cfg(not(feature = "workbench"))]
#[component]
pub fn ViewFilePanel() -> impl IntoView {}

#[cfg(feature = "workbench")]
const SUMMARY: &str = "Take this view elsewhere (a view file)";

/// The section itself, in the complete module.
#[cfg(feature = "workbench")]
mod files {
    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    use crate::core::import::view_line_query;
    use crate::core::view_file::{self, FILE_NAME};

    use super::super::export::{failed, offer};
    use super::super::state::Lab;
    use super::SUMMARY;

    /// What the section says after a download or an opening.
    #[derive(Clone)]
    enum Said {
        Done(String),
        Refused(Vec<String>),
    }

    /// Offers the view on screen as `ratelab-view.csv`, or says why not.
    fn download(lab: Lab, said: RwSignal<Option<Said>>) {
        if lab.state.with_untracked(|s| s.kept.is_named()) {
            said.set(Some(Said::Refused(vec![
                "The trace this link names is still being read from this browser: download the view once it is shown.".into(),
            ])));
            return;
        }
        let (text, requests) = lab.state.with_untracked(|state| {
            lab.run
                .with_untracked(|run| (view_file::write(state, &run.trace), run.trace.len()))
        });
        match offer_text(&text) {
            Ok(()) => said.set(Some(Said::Done(format!(
                "Downloaded {FILE_NAME}: this view's settings and its {requests} requests. \"Open a view file\" opens it again in any browser, and ratelab --traffic reads it."
            )))),
            Err(e) => {
                failed(Err(e));
                said.set(Some(Said::Refused(vec![
                    "The browser refused the download (a sandboxed frame refuses downloads): open the lab in a tab of its own.".into(),
                ])));
            }
        }
    }

    fn offer_text(text: &str) -> Result<(), JsValue> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/csv");
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)?;
        let offered = offer(&url, FILE_NAME);
        // The click has handed the file over; the address is no longer needed.
        let _ = web_sys::Url::revoke_object_url(&url);
        offered
    }

    /// Opens a view file's text: its query and its trace become the view, as one entry of the
    /// browser's history; a text that is not a view file, or has bad rows, changes nothing.
    fn open_text(lab: Lab, text: &str, said: RwSignal<Option<Said>>) {
        match view_file::read(text) {
            Ok(file) => {
                let requests = file.imported.requests.len();
                let parsed = file.into_state();
                for notice in parsed.notices {
                    lab.notice(notice.message);
                }
                lab.playback.playhead.set(None);
                lab.show(parsed.state, true);
                said.set(Some(Said::Done(format!(
                    "Opened the view file: its settings and its {requests} requests. Back returns to the view before."
                ))));
            }
            Err(error) => said.set(Some(Said::Refused(error.describe()))),
        }
    }

    /// Reads `file` as text, then opens it.
    fn open_file(lab: Lab, file: web_sys::File, said: RwSignal<Option<Said>>) {
        let Ok(reader) = web_sys::FileReader::new() else {
            said.set(Some(Said::Refused(vec![
                "This browser cannot read files here.".into(),
            ])));
            return;
        };
        let loaded = reader.clone();
        let name = file.name();
        let onload =
            Closure::once_into_js(
                move || match loaded.result().ok().and_then(|v| v.as_string()) {
                    Some(text) => open_text(lab, &text, said),
                    None => said.set(Some(Said::Refused(vec![format!(
                        "{name} could not be read as text."
                    )]))),
                },
            );
        reader.set_onload(Some(onload.unchecked_ref()));
        if reader.read_as_text(&file).is_err() {
            said.set(Some(Said::Refused(vec![
                "The browser would not read this file.".into(),
            ])));
        }
    }

    /// How much of a dropped file is read to tell a view file (its first line) from traffic.
    const HEAD_BYTES: f64 = 4096.0;

    /// Hands a dropped traffic file to "Use your own traffic", as if chosen there: the panel
    /// opens, and its file input reads the file (a binary file refused, a large one in slices).
    fn import_dropped(file: &web_sys::File) {
        let document = web_sys::window().and_then(|w| w.document());
        let find = |selector: &str| {
            document
                .as_ref()
                .and_then(|d| d.query_selector(selector).ok().flatten())
        };
        if let Some(panel) = find("[data-testid=import-panel]")
            .and_then(|e| e.dyn_into::<web_sys::HtmlDetailsElement>().ok())
        {
            panel.set_open(true);
        }
        let input = find("[data-testid=import-file]")
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
        let files = web_sys::DataTransfer::new().ok().and_then(|carrier| {
            carrier.items().add_with_file(file).ok()?;
            carrier.files()
        });
        if let (Some(input), Some(files), Ok(change)) =
            (input, files, web_sys::Event::new("change"))
        {
            input.set_files(Some(&files));
            let _ = input.dispatch_event(&change);
        }
    }

    /// A file dropped on the page, its first few kilobytes read: a view file (by its first line)
    /// opens as a view, a product's config (in that product's words, `core::config_file`) goes
    /// to "Bring the config you run", and any other file to "Use your own traffic".
    fn take_dropped(lab: Lab, said: RwSignal<Option<Said>>, file: web_sys::File) {
        let (Ok(reader), Ok(head)) = (
            web_sys::FileReader::new(),
            file.slice_with_f64_and_f64(0.0, HEAD_BYTES),
        ) else {
            return;
        };
        let loaded = reader.clone();
        let onload = Closure::once_into_js(move || {
            let text = loaded.result().ok().and_then(|v| v.as_string());
            let first = text.as_deref().and_then(|t| t.lines().next()).unwrap_or("");
            let head = text.as_deref().unwrap_or("");
            if view_line_query(first).is_some() {
                open_file(lab, file, said);
            } else if crate::core::config_file::is_config::<crate::ui::Linked>(head) {
                crate::ui::config_panel::take_dropped(&file);
            } else {
                import_dropped(&file);
            }
        });
        reader.set_onload(Some(onload.unchecked_ref()));
        let _ = reader.read_as_text(&head);
    }

    /// The page's one drop handler: a file dropped anywhere on the page is taken as above. A file
    /// dropped on a page of another module, which brought this one in to take it
    /// (web/loader.js, `window.ratelabDropped`), is taken now.
    fn accept_drops(lab: Lab, said: RwSignal<Option<Said>>) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let Some(body) = window.document().and_then(|d| d.body()) else {
            return;
        };
        let over = Closure::<dyn Fn(web_sys::DragEvent)>::new(|ev: web_sys::DragEvent| {
            ev.prevent_default();
        });
        let drop = Closure::<dyn Fn(web_sys::DragEvent)>::new(move |ev: web_sys::DragEvent| {
            ev.prevent_default();
            let file = ev.data_transfer().and_then(|d| d.files()?.get(0));
            if let Some(file) = file {
                take_dropped(lab, said, file);
            }
        });
        let _ = body.add_event_listener_with_callback("dragover", over.as_ref().unchecked_ref());
        let _ = body.add_event_listener_with_callback("drop", drop.as_ref().unchecked_ref());
        // The page's body stays for the page's life.
        over.forget();
        drop.forget();
        let kept = js_sys::Reflect::get(&window, &JsValue::from_str("ratelabDropped"))
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Promise>().ok());
        if let Some(kept) = kept {
            let taken = Closure::<dyn FnMut(JsValue)>::new(move |value: JsValue| {
                if let Ok(file) = value.dyn_into::<web_sys::File>() {
                    take_dropped(lab, said, file);
                }
            });
            let _ = kept.then(&taken);
            // Called once, after this function returns.
            taken.forget();
        }
    }

    #[component]
    pub fn ViewFilePanel() -> impl IntoView {
        let lab = expect_context::<Lab>();
        let said = RwSignal::new(None::<Said>);
        let section = NodeRef::<leptos::html::Details>::new();

        let on_file = move |ev: leptos::ev::Event| {
            let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            else {
                return;
            };
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                open_file(lab, file, said);
            }
            // The same file chosen again opens again.
            input.set_value("");
        };
        // A file dropped anywhere on the page: a view file opens here, traffic in the import.
        section.on_load(move |_| accept_drops(lab, said));

        // What a drop on "Use your own traffic" did shows here: the section opens to say it.
        Effect::new(move |_| {
            if said.with(Option::is_some) {
                if let Some(details) = section.get_untracked() {
                    details.set_open(true);
                }
            }
        });

        let feedback = move || {
            Some(match said.get()? {
                Said::Done(message) => {
                    view! { <p class="hint" role="status" data-testid="view-file-ok">{message}</p> }
                        .into_any()
                }
                Said::Refused(lines) => view! {
                    <div class="error" role="alert" data-testid="view-file-errors">
                        {lines.into_iter().map(|l| view! { <p>{l}</p> }).collect_view()}
                    </div>
                }
                .into_any(),
            })
        };

        view! {
            <details class="import view-file" data-testid="view-file-panel" node_ref=section open=super::super::workbench::asked_to_open("view-file")>
                <summary>{SUMMARY}</summary>
                <p class="hint">
                    "One file holds this view: its settings (the link without its traffic) on a first line, then every request as CSV (time, key, region, route, cost). It opens the same view in any browser, however long the trace, and ratelab --traffic reads it. Drop a view file here or on \"Use your own traffic\"."
                </p>
                <div class="import-row">
                    <button data-testid="download-view" on:click=move |_| download(lab, said)>"Download this view"</button>
                    <label class="upload">"Open a view file "
                        <input type="file" accept=".csv,.txt" data-testid="open-view-file" on:change=on_file/>
                    </label>
                </div>
                {feedback}
            </details>
        }
    }
}
