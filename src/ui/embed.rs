//! The embed's side of its conversation with the page that frames it (`core::embed` has the
//! messages): it posts its height whenever that changes, so that `web/embed.js` can size the
//! frame, and it follows a theme the framing page sends. Nothing else a page posts has any
//! effect. Outside a frame, none of this runs.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::embed::{height_message, theme_from_message};

use super::state::Lab;

/// Starts talking to the framing page, if there is one.
pub fn talk_to_parent(lab: Lab) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(parent) = window.parent().ok().flatten() else {
        return;
    };
    if JsValue::from(&parent) == JsValue::from(&window) {
        return;
    }
    let page = window
        .document()
        .and_then(|d| d.query_selector(".page").ok().flatten());
    if let Some(page) = page {
        post_height_on_resize(page, parent.clone());
    }
    follow_theme_messages(lab, &window, parent);
}

fn post_height_on_resize(page: web_sys::Element, parent: web_sys::Window) {
    let last = std::cell::Cell::new(0u32);
    let measured = page.clone();
    let on_resize = Closure::<dyn FnMut()>::new(move || {
        let scrolled = web_sys::window()
            .and_then(|w| w.scroll_y().ok())
            .unwrap_or(0.0);
        let height = (measured.get_bounding_client_rect().bottom() + scrolled).ceil();
        let height = height.clamp(0.0, f64::from(u32::MAX)) as u32;
        if height != last.replace(height) {
            // The height says nothing private, so any page that frames the lab may read it.
            let _ = parent.post_message(&JsValue::from(height_message(height)), "*");
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
        observer.observe(&page);
        // The observer calls it until another module takes the page.
        super::module_swap::on_retire(move || {
            observer.disconnect();
            drop(on_resize);
        });
    }
}

fn follow_theme_messages(lab: Lab, window: &web_sys::Window, parent: web_sys::Window) {
    let parent = JsValue::from(parent);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            // Only the framing page may set the theme.
            if ev.source().map(JsValue::from).as_ref() != Some(&parent) {
                return;
            }
            if let Some(theme) = ev
                .data()
                .as_string()
                .as_deref()
                .and_then(theme_from_message)
            {
                lab.set_theme(theme);
            }
        });
    let _ = window.add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    let window = window.clone();
    super::module_swap::on_retire(move || {
        let _ = window
            .remove_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    });
}
