//! If a bug ever panics, the page must not die silently: show a banner with a link that resets
//! the page to its defaults, and log the message to the console.

use std::panic;

pub fn install() {
    panic::set_hook(Box::new(|info| show_banner(&info.to_string())));
}

/// Logs `message` and puts the banner at the top of the page (once).
pub fn show_banner(message: &str) {
    web_sys::console::error_1(&format!("Rate Limit Lab crashed: {message}").into());
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if document
        .query_selector("[data-testid=fatal-error]")
        .ok()
        .flatten()
        .is_some()
    {
        return;
    }
    let Some(body) = document.body() else { return };
    if let Ok(banner) = document.create_element("div") {
        banner.set_class_name("fatal");
        let _ = banner.set_attribute("role", "alert");
        let _ = banner.set_attribute("data-testid", "fatal-error");
        // Text only: the message may echo user input, so it is never parsed as HTML.
        banner.set_text_content(Some("Something went wrong and the lab stopped. "));
        if let Ok(link) = document.create_element("a") {
            let _ = link.set_attribute("href", "?");
            link.set_text_content(Some("Reset to defaults"));
            let _ = banner.append_child(&link);
        }
        let _ = body.prepend_with_node_1(&banner);
    }
}
