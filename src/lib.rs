//! Rate Limit Lab: rate-limiting algorithms deciding the same traffic side by side.
//!
//! [`core`] is pure Rust (algorithms on an injected integer clock, traffic, HTTP answers, the
//! URL state) and is tested natively. `ui` is the Leptos page, built only for the browser; `cli`
//! the command line, built only natively.

pub mod core;

/// The command line (`ratelab table|csv|check`), native only.
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

#[cfg(target_arch = "wasm32")]
pub mod ui;
