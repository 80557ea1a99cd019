//! "Use these settings" under a product row's explanation (and the Durable Object's card): the
//! configuration or code that sets the product up as the row is set up, from
//! `crate::core::snippets`, with a Copy button (the browser's asynchronous clipboard, with a
//! message instead when the page may not write to it) and a Download button (a Blob URL offered
//! under the snippet's file name, as the decisions CSV is offered in `super::export`). Where the
//! product cannot say the lab's settings exactly, the sentence of what differs comes first.
//!
//! The snippet is worked out only while its block is open (the sentence of what differs may run
//! the trace again), and again whenever the lab's run changes. The explanations are rebuilt on
//! every run, so which blocks are open is remembered here, by row.

use std::cell::RefCell;
use std::collections::HashSet;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::lab::LabRun;
use crate::core::limiter::Algorithm;
use crate::core::snippets::{self, Snippet};

use super::state::Lab;

thread_local! {
    /// The slugs of the blocks a person has opened (and not closed since).
    static OPEN: RefCell<HashSet<&'static str>> = RefCell::new(HashSet::new());
}

/// The block for a product row; nothing for the six algorithms.
pub(crate) fn for_row(_run: &LabRun, algorithm: Algorithm) -> Option<AnyView> {
    let lab = expect_context::<Lab>();
    snippets::file_name(algorithm)?;
    Some(block(algorithm.slug(), move || {
        lab.run
            .with(|run| snippets::for_row(algorithm, &run.settings, &run.trace, run.run(algorithm)))
    }))
}

/// The inspector's way to the "Use these settings" block of the row `id` (a product's slug, or
/// `do`): a button that opens it, or nothing for a row without one (the six algorithms).
pub(crate) fn link_to_block(id: &'static str) -> Option<AnyView> {
    has_block(id).then(|| {
        view! {
            <button type="button" class="use-settings" data-testid=format!("use-settings-{id}")
                on:click=move |_| open_block(id)>"Use these settings ↓"</button>
        }
        .into_any()
    })
}

/// The row's own way to its "Use these settings" block, on the line of its name beside the
/// timeline: the file the block writes ("nginx.conf ↓"), or nothing for a row without one.
pub(crate) fn link_from_row(id: &'static str) -> Option<AnyView> {
    let file_name = block_file(id)?;
    Some(
        view! {
            <button type="button" class="row-config" data-testid=format!("row-config-{id}")
                aria-label=format!("Use these settings: {file_name}")
                on:click=move |_| open_block(id)>{format!("{file_name} ↓")}</button>
        }
        .into_any(),
    )
}

/// Opens the "Use these settings" block of the row `id`, brings it to the top of the screen and
/// puts the focus on its heading.
fn open_block(id: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let selector = format!("[data-testid=\"snippet-{id}\"]");
    let Some(block) = document.query_selector(&selector).ok().flatten() else {
        return;
    };
    let _ = block.set_attribute("open", "");
    block.scroll_into_view();
    if let Some(summary) = block
        .query_selector("summary")
        .ok()
        .flatten()
        .and_then(|s| s.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = summary.focus();
    }
}

/// Whether the row `id` has a "Use these settings" block (every product row and the Durable
/// Object; none of the six algorithms).
fn has_block(id: &str) -> bool {
    block_file(id).is_some()
}

/// The file the "Use these settings" block of the row `id` writes, for a row that has one.
fn block_file(id: &str) -> Option<&'static str> {
    match Algorithm::from_slug(id) {
        Some(a) => snippets::file_name(a),
        None if id == "do" => Some(snippets::DURABLE_FILE_NAME),
        None => None,
    }
}

/// The block for the Durable Object's card, with the object's settings as the page holds them.
pub(crate) fn for_durable(lab: &Lab, _run: &LabRun) -> Option<AnyView> {
    let lab = *lab;
    Some(block("do", move || {
        let durable = lab.state.with(|s| s.durable.clone());
        lab.run
            .with(|run| Some(snippets::for_durable(&durable, &run.settings)))
    }))
}

fn block(
    slug: &'static str,
    snippet: impl Fn() -> Option<Snippet> + Send + Sync + 'static,
) -> AnyView {
    // The first module brought this one in to open the Durable Object's block here.
    if slug == "do" && super::workbench::asked_to_open("snippet-do") {
        OPEN.with(|o| o.borrow_mut().insert(slug));
    }
    let open = RwSignal::new(OPEN.with(|o| o.borrow().contains(slug)));
    let toggled = move |ev: leptos::ev::Event| {
        let now = ev
            .target()
            .and_then(|t| js_sys::Reflect::get(&t, &JsValue::from_str("open")).ok())
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        OPEN.with(|o| {
            let mut o = o.borrow_mut();
            if now {
                o.insert(slug);
            } else {
                o.remove(slug);
            }
        });
        if open.get_untracked() != now {
            open.set(now);
        }
    };
    view! {
        <details class="snippet" data-testid=format!("snippet-{slug}")
            prop:open=open.get_untracked() on:toggle=toggled>
            <summary>"Use these settings"</summary>
            {move || open.get().then(|| snippet().map(body))}
        </details>
    }
    .into_any()
}

fn body(snippet: Snippet) -> impl IntoView {
    let Snippet {
        slug,
        file_name,
        text,
        differences,
    } = snippet;
    let message = RwSignal::new(String::new());
    let (to_copy, to_save) = (text.clone(), text.clone());
    view! {
        {differences.map(|d| view! {
            <p class="snippet-differs" data-testid=format!("snippet-differs-{slug}")>{d}</p>
        })}
        // Styled through the CSSOM (the page's policy allows no style attribute), so the first
        // view's stylesheet does not carry what only product rows use. Its lines wrap: every
        // line readable in the card, without scrolling sideways (Copy and Download keep them).
        <pre class="snippet-text" tabindex="0" aria-label=format!("{file_name} for these settings")
            style:overflow-x="auto" style:white-space="pre-wrap" style:overflow-wrap="anywhere"
            style:font-size="0.78rem" style:padding="0.4rem"
            style:background="var(--bg)"
            data-testid=format!("snippet-text-{slug}")>{text}</pre>
        <p class="snippet-actions">
            <button type="button" data-testid=format!("snippet-copy-{slug}")
                on:click=move |_| copy(&to_copy, message)>"Copy"</button>
            " "
            <button type="button" data-testid=format!("snippet-download-{slug}")
                on:click=move |_| {
                    if download(&to_save, file_name).is_err() {
                        message.set(format!("The download of {file_name} failed: copy the text instead."));
                    }
                }>{format!("Download {file_name}")}</button>
            " "
            <span role="status" data-testid=format!("snippet-message-{slug}")>{move || message.get()}</span>
        </p>
    }
}

const NO_CLIPBOARD: &str =
    "This page may not write to the clipboard here: select the text and copy it.";

/// Writes `text` to the clipboard and says whether it worked; never throws, also where the
/// browser offers no clipboard (an insecure context) or refuses the write.
fn copy(text: &str, message: RwSignal<String>) {
    let Some(navigator) = super::window().map(|w| w.navigator()) else {
        message.set(NO_CLIPBOARD.to_string());
        return;
    };
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null());
    let Some(clipboard) = clipboard else {
        message.set(NO_CLIPBOARD.to_string());
        return;
    };
    let clipboard: web_sys::Clipboard = clipboard.unchecked_into();
    let copied = Closure::<dyn FnMut(JsValue)>::new(move |_| message.set("Copied.".to_string()));
    let refused =
        Closure::<dyn FnMut(JsValue)>::new(move |_| message.set(NO_CLIPBOARD.to_string()));
    let _ = clipboard.write_text(text).then2(&copied, &refused);
    // The promise calls one of them once, after this returns: they live as long as the page.
    copied.forget();
    refused.forget();
}

/// Offers `text` as a file called `name`.
fn download(text: &str, name: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let offered = super::export::offer(&url, name);
    let _ = web_sys::Url::revoke_object_url(&url);
    offered
}
