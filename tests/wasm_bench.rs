//! The core's decision cost in WebAssembly, in headless Chromium: the browser twin of
//! `cargo bench --bench simulate`'s first table. A benchmark, never a test: it prints figures and
//! asserts nothing about time. Run with `bash scripts/bench-wasm.sh` (a release build; the test
//! command does not run it).
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;

use ratelab::core::decision::Limiter;
use ratelab::core::durable::{simulate, SimConfig, SimRequest, SimTraffic};
use ratelab::core::limiter::{Algorithm, Complete, Settings};
use ratelab::core::region::Region;
use ratelab::core::run::run_one;
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::{Request, Trace};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const DECISIONS: u64 = 1_000_000;

/// Milliseconds from the page's clock.
fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// The median of five runs of `f`, in milliseconds.
fn median_ms(mut f: impl FnMut() -> u64) -> f64 {
    let mut runs: Vec<f64> = (0..5)
        .map(|_| {
            let start = now();
            black_box(f());
            now() - start
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
}

/// Lets the page answer between two measurements: the test runner polls it, and gives up on a
/// page that stays busy for 20 s.
async fn pause() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(&resolve);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

#[wasm_bindgen_test]
async fn decisions_in_the_browser() {
    let settings = Settings {
        limit: 50,
        window: Span::from_secs(10),
        ..Settings::default()
    };
    let trace: Vec<Request> = (0..DECISIONS)
        .map(|i| Request::new(Time(i * 10), 0))
        .collect();
    // The browser first compiles the Wasm quickly, then again optimised once it runs hot: one
    // untimed pass of every algorithm, so that no figure is taken from the first compilation.
    for algorithm in Algorithm::ALL {
        let mut limiter = algorithm.build(&settings).expect("valid settings");
        limiter.admit_each(trace.iter().take(200_000), |v| {
            black_box(v);
        });
        black_box(
            trace
                .iter()
                .take(200_000)
                .map(|r| u64::from(limiter.decide(r.at, 1).allowed()))
                .sum::<u64>(),
        );
    }
    pause().await;
    console_log!(
        "one key, {DECISIONS} decisions, one every 10 µs (limit 50 per 10 s), median of 5 runs"
    );
    console_log!("  {:<34} {:>9} {:>15}", "", "verdict", "full decision");
    for algorithm in Algorithm::ALL {
        // The verdict, as a run keeps it and the inspector's replay makes it; then the whole
        // decision with the figures a response carries.
        let verdict = median_ms(|| {
            let mut limiter = algorithm.build(&settings).expect("valid settings");
            let mut passed = 0u64;
            limiter.admit_each(trace.iter(), |v| passed += u64::from(v.passes()));
            passed
        });
        pause().await;
        let full = median_ms(|| {
            let mut limiter = algorithm.build(&settings).expect("valid settings");
            trace
                .iter()
                .map(|r| u64::from(limiter.decide(r.at, u64::from(r.cost)).allowed()))
                .sum()
        });
        // Milliseconds for a million decisions are nanoseconds per decision.
        console_log!(
            "  {:<34} {:>6.1} ns {:>12.1} ns per decision",
            algorithm.label(),
            verdict,
            full
        );
        pause().await;
    }
}

#[wasm_bindgen_test]
async fn a_million_requests_over_ten_thousand_keys_in_the_browser() {
    const KEYS: u64 = 10_000;
    let names: Vec<String> = (0..KEYS).map(|k| format!("tenant:{k}")).collect();
    let trace = Trace::new(
        names.clone(),
        (0..DECISIONS)
            .map(|i| Request::new(Time(i * 100), (i % KEYS) as u32))
            .collect(),
    );
    let traffic = SimTraffic {
        keys: names,
        requests: (0..DECISIONS)
            .map(|i| SimRequest {
                at: Time(i * 100),
                key: (i % KEYS) as u32,
                origin: Region::ALL[(i % KEYS % 6) as usize],
                route: 0,
                cost: 1,
            })
            .collect(),
    };
    let settings = Settings {
        limit: 50,
        window: Span::from_secs(10),
        ..Settings::default()
    };
    let mut six = 0.0;
    for algorithm in Algorithm::CORE {
        six += median_ms(|| {
            run_one::<Complete>(&trace, algorithm, &settings)
                .map(|r| r.allowed)
                .unwrap_or(0)
        });
        pause().await;
    }
    let config = SimConfig {
        settings,
        ..SimConfig::default()
    };
    let durable = median_ms(|| simulate(&config, &traffic).map(|r| r.passed()).unwrap_or(0));
    console_log!("{DECISIONS} requests over {KEYS} keys: the six algorithms {six:.0} ms, the Durable Object emulation {durable:.0} ms");
}
