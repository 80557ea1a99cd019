//! A short tour for a first visit: five steps of plain text in a small non-modal dialog (what a
//! dot and a cross mean, the busiest window, the inspector, the Durable Object, the questions),
//! each outlining the part of the page it is about and bringing it into view. A first visit is
//! the page opened with no query (so never an embed, whose link says `embed=1`), in a browser
//! that never dismissed the tour (`localStorage` "ratelab-tour-dismissed"), and only where the
//! page has storage (not in a sandboxed frame), since it could not remember being dismissed.
//! Next, Back and Skip are buttons, Escape closes it; the focus moves to its first button when it
//! opens (a screen reader then reads the dialog's title and text) and stays on the button pressed
//! from step to step; closed, the dialog leaves the page and the focus goes back to the page.
//!
//! A first visit loads the first view's module (web/loader.js), and only that module has the
//! tour: the complete one is loaded for a link with a query, or when the first module hands the
//! page over, which is never a first visit. The default page shows it, so it is kept small: the
//! dialog is built directly in the DOM, its step's markup written from the constant text below
//! (nothing a person typed is ever in it), with one listener for its buttons' clicks (each says
//! what it does in `data-go`) and Escape. As a Leptos view the same dialog cost the first view's
//! module about 4.6 KB of gzip; this way about 2.3 KB (docs/performance.md).

use std::cell::Cell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

/// Where the page remembers that the tour was dismissed.
const DISMISSED: &str = "ratelab-tour-dismissed";

/// Each step: its title, its text, and the part of the page it is about (a class of the page).
const STEPS: [(&str, &str, &str); 5] = [
    ("Dots and crosses", "Every row is one rate limiter, and every row gets the same requests. A filled dot is a request it let through; a cross, one it refused.", ".timelines"),
    ("The busiest window", "The tinted span on a row is its busiest window: the most it let through in one window. The table under the timelines says which rows broke their limit.", ".timelines"),
    ("The inspector", "Click a mark, or focus the timeline and use the arrow keys: the inspector shows how every limiter decided that request and the HTTP response it sent.", ".inspector"),
    ("The Durable Object", "Further down, the Durable Object lab sends the same requests through an emulated Cloudflare Durable Object: far away, slow, overloaded or down.", ".durable-lab"),
    ("Questions people ask", "Below it, the questions people ask in the libraries' issue trackers, each one click away and answered with the figures of its view.", ".questions"),
];

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Writes step `i` into the dialog, outlines its part of the page (`body[data-tour]`, in the
/// stylesheet), brings that part into view unless `stay`, and focuses the button that `focus`
/// names (Next when that one is disabled).
fn show(document: &Document, dialog: &Element, i: usize, stay: bool, focus: &str) {
    let (title, text, part) = STEPS[i];
    let back = if i == 0 { " disabled" } else { "" };
    let next = if i + 1 == STEPS.len() { "Done" } else { "Next" };
    dialog.set_inner_html(&format!(
        "<p class=\"tour-step\">A short tour, {} of {}</p><h2 id=\"tour-title\">{title}</h2><p id=\"tour-text\">{text}</p><div class=\"tour-buttons\"><button type=\"button\" data-go=\"back\" data-testid=\"tour-back\"{back}>Back</button><button type=\"button\" data-go=\"next\" data-testid=\"tour-next\">{next}</button><button type=\"button\" data-go=\"skip\" data-testid=\"tour-skip\">Skip the tour</button></div>",
        i + 1,
        STEPS.len()
    ));
    if let Some(body) = document.body() {
        let _ = body.set_attribute("data-tour", &i.to_string());
    }
    if let (Some(target), false) = (document.query_selector(part).ok().flatten(), stay) {
        target.scroll_into_view();
    }
    let button = dialog
        .query_selector(&format!("[data-go={focus}]:enabled"))
        .ok()
        .flatten()
        .or_else(|| dialog.query_selector("[data-go=next]").ok().flatten());
    if let Some(button) = button.and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = button.focus();
    }
}

/// Opens the tour on a first visit (see the module's header); does nothing otherwise.
pub(crate) fn start() {
    let dismissed = storage().map(|s| s.get_item(DISMISSED).ok().flatten().is_some());
    if !super::current_query().is_empty() || dismissed != Some(false) {
        return;
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(dialog), Some(body)) = (document.create_element("div"), document.body()) else {
        return;
    };
    for (name, value) in [
        ("class", "tour"),
        ("role", "dialog"),
        ("aria-labelledby", "tour-title"),
        ("aria-describedby", "tour-text"),
        ("data-testid", "tour"),
    ] {
        let _ = dialog.set_attribute(name, value);
    }
    let _ = body.append_child(&dialog);
    show(&document, &dialog, 0, true, "next");
    let step = Cell::new(0usize);
    let (here, page) = (dialog.clone(), document.clone());
    // One listener for the buttons' clicks and for Escape, wherever the focus is in the dialog.
    let on_event = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let i = step.get();
        let action = match ev.dyn_ref::<web_sys::KeyboardEvent>() {
            Some(key) if key.key() == "Escape" => "skip".to_string(),
            Some(_) => return,
            None => ev
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|t| t.get_attribute("data-go"))
                .unwrap_or_default(),
        };
        let next = match action.as_str() {
            "next" if i + 1 < STEPS.len() => i + 1,
            "back" => i.saturating_sub(1),
            "next" | "skip" => {
                if let Some(s) = storage() {
                    let _ = s.set_item(DISMISSED, "1");
                }
                if let Some(body) = page.body() {
                    let _ = body.remove_attribute("data-tour");
                }
                // The focused button leaves with the dialog: the focus goes back to the page.
                here.remove();
                return;
            }
            _ => return,
        };
        step.set(next);
        show(&page, &here, next, false, &action);
    });
    for event in ["click", "keydown"] {
        let _ = dialog.add_event_listener_with_callback(event, on_event.as_ref().unchecked_ref());
    }
    // The dialog and its listener live until the tour ends or another module takes the page
    // (which opens no tour: its address has a query).
    super::module_swap::on_retire(move || {
        dialog.remove();
        drop(on_event);
    });
}
