//! "Use your own traffic": paste request times, CSV or access-log lines, or upload a file. The
//! core reads them (`core::import`); a bad line is reported with its number and the page keeps
//! the traffic it had. The requests go into the URL, so the view stays a link.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::core::import::{import, Imported};
use crate::core::traffic::Pattern;

use super::state::Lab;

/// The most requests a link carries; longer traces are cut, with a message.
pub const MAX_REQUESTS_IN_LINK: usize = 10_000;

fn apply(lab: Lab, text: &str, result: RwSignal<Result<String, Vec<String>>>) {
    match import(text) {
        Ok(Imported { format, requests, .. }) => {
            let total = requests.len();
            let points: Vec<_> = requests.into_iter().take(MAX_REQUESTS_IN_LINK).map(|r| (r.at, r.key)).collect();
            let kept = points.len();
            lab.playhead.set(None);
            lab.change(|s| s.pattern = Pattern::from_points(points));
            let mut message = format!("Read {total} requests ({}).", format.name());
            if kept < total {
                message.push_str(&format!(" Showing the first {kept}: a link carries no more."));
            }
            result.set(Ok(message));
        }
        Err(errors) => result.set(Err(errors.describe())),
    }
}

#[component]
pub fn ImportPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = RwSignal::new(String::new());
    let result = RwSignal::new(Ok(String::new()));

    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        let Ok(reader) = web_sys::FileReader::new() else { return };
        let loaded = reader.clone();
        let onload = Closure::once_into_js(move || {
            let content = loaded.result().ok().and_then(|v| v.as_string()).unwrap_or_default();
            apply(lab, &content, result);
        });
        reader.set_onload(Some(onload.unchecked_ref()));
        let _ = reader.read_as_text(&file);
    };

    let feedback = move || match result.get() {
        Ok(message) if message.is_empty() => None,
        Ok(message) => Some(view! { <p class="hint" role="status" data-testid="import-ok">{message}</p> }.into_any()),
        Err(lines) => Some(
            view! {
                <div class="error" role="alert" data-testid="import-errors">
                    <p>"These lines could not be read; the page keeps the traffic it had:"</p>
                    <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }.into_any()).collect::<Vec<_>>()}</ul>
                </div>
            }
            .into_any(),
        ),
    };

    view! {
        <details class="import" data-testid="import-panel">
            <summary>"Use your own traffic"</summary>
            <p class="hint">
                "One time in seconds per line, CSV lines "<code>"time,key"</code>", or access-log lines (keyed by address). # starts a comment."
            </p>
            <textarea rows="6" data-testid="import-text" placeholder="8\n8.398\n10,tenant:acme"
                prop:value=super::shared(move || text.get())
                on:input=super::boxed(move |ev| text.set(event_target_value(&ev)))></textarea>
            <div class="import-row">
                <button data-testid="import-use" on:click=super::boxed(move |_| apply(lab, &text.get_untracked(), result))>"Use these requests"</button>
                <label class="upload">"or upload a file "
                    <input type="file" accept=".txt,.csv,.log" data-testid="import-file" on:change=super::boxed(on_file)/>
                </label>
            </div>
            {feedback}
        </details>
    }
}
