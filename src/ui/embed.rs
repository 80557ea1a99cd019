//! The embed's side of its conversation with the page that frames it (`core::embed` has the
//! message shapes): it posts its height whenever that changes, so that `web/embed.js` can size
//! the frame, and it follows a theme the framing page sends. Nothing else a page posts has any
//! effect. Outside a frame, none of this runs.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::embed::{theme_from_message, HEIGHT_MESSAGE};

use super::state::Lab;

/// Starts talking to the framing page, if there is one; `page` is the element whose height the
/// frame should fit.
pub fn talk_to_parent(lab: Lab, page: web_sys::HtmlElement) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(parent) = window.parent().ok().flatten() else {
        return;
    };
    if JsValue::from(&parent) == JsValue::from(&window) {
        return;
    }
    post_height_on_resize(page, parent.clone());
    follow_theme_messages(lab, &window, parent);
}

fn post_height_on_resize(page: web_sys::HtmlElement, parent: web_sys::Window) {
    let last = std::cell::Cell::new(0u32);
    let measured = page.clone();
    let on_resize = Closure::<dyn FnMut()>::new(move || {
        let scrolled = web_sys::window()
            .and_then(|w| w.scroll_y().ok())
            .unwrap_or(0.0);
        let height = (measured.get_bounding_client_rect().bottom() + scrolled).ceil();
        let height = height.clamp(0.0, f64::from(u32::MAX)) as u32;
        if height == last.replace(height) {
            return;
        }
        let message = js_sys::Object::new();
        let fields = [
            ("type", JsValue::from_str(HEIGHT_MESSAGE)),
            ("height", JsValue::from(height)),
        ];
        for (name, value) in fields {
            let _ = js_sys::Reflect::set(&message, &JsValue::from_str(name), &value);
        }
        // The height says nothing private, so any page that frames the lab may read it.
        let _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
        observer.observe(&page);
    }
    // The observer calls it for the page's whole life.
    on_resize.forget();
}

fn follow_theme_messages(lab: Lab, window: &web_sys::Window, parent: web_sys::Window) {
    let parent = JsValue::from(parent);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            // Only the framing page may set the theme, and only with the documented shape.
            if ev.source().map(JsValue::from).as_ref() != Some(&parent) {
                return;
            }
            let data = ev.data();
            if !data.is_object() {
                return;
            }
            let text = |name: &str| {
                js_sys::Reflect::get(&data, &JsValue::from_str(name))
                    .ok()?
                    .as_string()
            };
            let (kind, theme) = (text("type"), text("theme"));
            if let Some(theme) = theme_from_message(kind.as_deref(), theme.as_deref()) {
                lab.change(|s| s.theme = theme);
            }
        });
    let _ = window.add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    on_message.forget();
}
