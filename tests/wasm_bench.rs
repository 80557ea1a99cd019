//! The core's decision cost in WebAssembly, in headless Chromium: the browser twin of
//! `cargo bench --bench simulate`'s first table. A benchmark, never a test: it prints figures and
//! asserts nothing about time. Run with `bash scripts/bench-wasm.sh` (a release build; the test
//! command does not run it).
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;

use ratelab::core::decision::Limiter;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::time::{Span, Time};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const DECISIONS: u64 = 1_000_000;

/// Milliseconds from the page's clock.
fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

#[wasm_bindgen_test]
fn decisions_in_the_browser() {
    let settings = Settings { limit: 50, window: Span::from_secs(10), ..Settings::default() };
    console_log!("one key, {DECISIONS} decisions, one every 10 µs (limit 50 per 10 s), median of 5 runs");
    for algorithm in Algorithm::ALL {
        let mut runs: Vec<f64> = (0..5)
            .map(|_| {
                let mut limiter = algorithm.build(&settings).expect("valid settings");
                let start = now();
                let mut passed = 0u64;
                for i in 0..DECISIONS {
                    if limiter.decide(Time(i * 10), 1).allowed() {
                        passed += 1;
                    }
                }
                black_box(passed);
                now() - start
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        // Milliseconds for a million decisions are nanoseconds per decision.
        console_log!("  {:<34} {:>7.1} ns per decision", algorithm.label(), runs[2]);
    }
}
