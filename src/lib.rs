//! Rate Limit Lab: rate-limiting algorithms deciding the same traffic side by side.
//!
//! [`core`] is pure Rust (algorithms on an injected integer clock, traffic, HTTP answers, the
//! URL state) and is tested natively. [`layout`] is the charts' geometry (where rows, times and
//! marks sit), also pure and native. `ui` is the Leptos page, built only for the browser: it
//! paints what `layout` works out. `cli` is the command line, built only natively. [`site`] is
//! the site's packaging: which page module serves a link.

pub mod core;
pub mod layout;
pub mod site;

/// The command line (`ratelab table|csv|check`), native only.
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

#[cfg(target_arch = "wasm32")]
pub mod ui;
