//! The snippets of a few representative views, written to a folder for their products' own
//! checkers (`scripts/check-snippets.sh` sets `RATELAB_SNIPPETS_DIR`): one folder per view, one
//! per row inside it (`<view>/<slug>/<file name>`, and `<view>/do/wrangler.toml`). Without the
//! variable the test only checks that every product row of every view has its snippet.
//!
//! For the products whose real runtime the checker runs (scripts/snippet-runs/), the row's folder
//! also holds `trace.csv` (`at_ms,key,cost`, one request a line) and `expected.txt` (the row's
//! verdict for each request, `allowed`, `delayed` or `rejected`), from the row run with the
//! settings its snippet writes (`snippets::settings_written`: the nearest setting where the
//! snippet says it differs). Products run on an injected clock get a trace with a burst, two keys
//! and, where the product has costs, costs above 1 and above the limit; those run in real time
//! (nginx, the Cloudflare binding) get a trace whose verdicts stay the same when any request and
//! every later one move by 100 ms either way, which this test checks on the row.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use ratelab::core::durable::config::{FailMode, Tier};
use ratelab::core::durable::DurableParams;
use ratelab::core::limiter::Complete;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::profiles::dotnet::QueueProcessingOrder;
use ratelab::core::profiles::envoy::EnvoyRefill;
use ratelab::core::profiles::express_rate_limit::StandardHeaders;
use ratelab::core::profiles::nginx::NginxDelay;
use ratelab::core::run::run_one;
use ratelab::core::snippets;
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::{Request, Trace};

/// The views: the page's default, a per-second limit with the products' options changed, and
/// windows that some products cannot write exactly.
fn views() -> Vec<(&'static str, Settings, DurableParams)> {
    let default = Settings::default();
    let mut per_second = Settings {
        limit: 7,
        window: Span::from_secs(1),
        ..Settings::default()
    };
    let p = &mut per_second.products;
    p.nginx.delay = Some(NginxDelay::NoDelay);
    p.nginx.status = Some(429);
    p.upstash.cache = Some(false);
    p.envoy.refill = Some(EnvoyRefill::Timer);
    p.express_rate_limit.headers = Some(StandardHeaders::Off);
    p.express_rate_limit.legacy = Some(true);
    p.express_rate_limit.status = Some(503);
    p.dotnet.queue = Some(2);
    p.dotnet.order = Some(QueueProcessingOrder::NewestFirst);
    let odd = Settings {
        limit: 5,
        window: Span::from_millis(7_500),
        ..Settings::default()
    };
    let mut delayed = Settings {
        limit: 3,
        window: Span::from_secs(15),
        ..Settings::default()
    };
    delayed.products.nginx.delay = Some(NginxDelay::Delay(1));
    let minute = Settings {
        limit: 100,
        window: Span::from_secs(60),
        ..Settings::default()
    };
    let closed = DurableParams {
        timeout: Span::from_millis(300),
        fail: FailMode::Closed,
        ..DurableParams::default()
    };
    let binding = DurableParams {
        tier: Tier::Binding { period_secs: 60 },
        ..DurableParams::default()
    };
    vec![
        ("default", default, DurableParams::default()),
        ("per-second", per_second, closed),
        ("fraction", odd, DurableParams::default()),
        ("fifteen", delayed, binding),
        ("minute", minute, DurableParams::default()),
    ]
}

#[test]
fn every_views_snippets_are_written_for_their_products_checkers() {
    let trace = Trace::single_key("a", (0..40).map(|i| Time::from_millis(i * 250)).collect());
    let out = std::env::var_os("RATELAB_SNIPPETS_DIR").map(PathBuf::from);
    for (name, settings, durable) in views() {
        let mut all: Vec<_> = Algorithm::ALL
            .into_iter()
            .filter(|a| a.is_product())
            .map(|a| snippets::for_row(a, &settings, &trace, None).expect("a product's snippet"))
            .collect();
        all.push(snippets::for_durable(&durable, &settings));
        assert_eq!(all.len(), 18, "{name}");
        let Some(out) = &out else { continue };
        for snippet in all {
            let folder = out.join(name).join(snippet.slug);
            std::fs::create_dir_all(&folder).expect("the folder can be made");
            std::fs::write(folder.join(snippet.file_name), &snippet.text)
                .expect("the snippet can be written");
        }
        for (algorithm, kind) in RUNS {
            let written = snippets::settings_written(algorithm, &settings).expect("a product");
            let trace = run_trace(kind, algorithm, &written);
            let folder = out.join(name).join(algorithm.slug());
            std::fs::write(folder.join("trace.csv"), trace_csv(&trace)).expect("written");
            let words = verdicts(&trace, algorithm, &written).join("\n") + "\n";
            std::fs::write(folder.join("expected.txt"), words).expect("written");
        }
    }
}

/// How a product's real runtime is run by the checker.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// On an injected clock, asked for a request's cost at once.
    Costs,
    /// On an injected clock, one unit a request.
    Units,
    /// In real time, one unit a request.
    RealTime,
}

const RUNS: [(Algorithm, Run); 9] = [
    (Algorithm::Governor, Run::Costs),
    (Algorithm::XTimeRate, Run::Costs),
    (Algorithm::Guava, Run::Costs),
    (Algorithm::LimitsFixed, Run::Costs),
    (Algorithm::LimitsMoving, Run::Costs),
    (Algorithm::LimitsSliding, Run::Costs),
    (Algorithm::ExpressRateLimit, Run::Units),
    (Algorithm::Nginx, Run::RealTime),
    (Algorithm::CfBinding, Run::RealTime),
];

/// The fixed trace of a view, in whole milliseconds, keys `a` and `b`: groups of requests at one
/// time, as (time, key, how many, cost of each). The times are fractions of the window with a few
/// odd milliseconds added, so that no two requests of a key are exactly a window apart.
fn run_trace(kind: Run, algorithm: Algorithm, s: &Settings) -> Trace {
    let w = s.window.micros() / 1000;
    let l = u32::try_from(s.limit).expect("a small limit");
    let groups: Vec<(u64, u32, u32, u32)> = if kind == Run::RealTime {
        let start = (w / 20).max(200);
        vec![
            (start, 0, l + 2, 1),
            (start, 1, 2, 1),
            (w / 2, 0, 1, 1),
            (w * 27 / 20, 1, l + 1, 1),
            (w * 33 / 20, 0, 2, 1),
        ]
    } else {
        vec![
            (0, 0, l + 2, 1),
            (w / 10 + 3, 1, 2, 1),
            (w / 2 + 7, 0, 1, 3),
            (w * 9 / 10 + 11, 0, 1, 1),
            (w * 13 / 10 + 13, 1, l + 1, 1),
            (w * 16 / 10 + 17, 0, 1, 2),
            (w * 22 / 10 + 19, 0, 1, 1),
            (w * 22 / 10 + 23, 0, 3, 1),
            (w * 26 / 10 + 29, 1, 1, l + 2),
        ]
    };
    let mut requests = Vec::new();
    for (at, key, count, cost) in groups {
        for _ in 0..count {
            let mut r = Request::new(Time::from_millis(at), key);
            r.cost = if kind == Run::Costs { cost } else { 1 };
            requests.push(r);
        }
    }
    let trace = Trace::new(vec!["a".into(), "b".into()], requests);
    if kind == Run::RealTime {
        assert_margins(&trace, algorithm, s);
    }
    trace
}

fn trace_csv(trace: &Trace) -> String {
    trace
        .requests()
        .iter()
        .map(|r| {
            let key = trace.key_name(r.key);
            format!("{},{key},{}\n", r.at.micros() / 1000, r.cost)
        })
        .collect()
}

fn verdicts(trace: &Trace, algorithm: Algorithm, s: &Settings) -> Vec<&'static str> {
    let run = run_one::<Complete>(trace, algorithm, s).expect("the row runs");
    run.verdicts.iter().map(|v| v.word()).collect()
}

/// A trace played in real time arrives a little late, and each group of requests at one time
/// arrives within a few milliseconds: its verdicts must not change when any group, and every
/// later one, arrives 100 ms earlier or later.
fn assert_margins(trace: &Trace, algorithm: Algorithm, s: &Settings) {
    let margin = 100_000;
    let want = verdicts(trace, algorithm, s);
    let mut starts: Vec<u64> = trace.requests().iter().map(|r| r.at.micros()).collect();
    starts.dedup();
    for (i, &start) in starts.iter().enumerate() {
        assert!(
            i == 0 || start - starts[i - 1] > 2 * margin,
            "groups too close"
        );
        for late in [false, true] {
            let moved: Vec<Request> = trace
                .requests()
                .iter()
                .map(|r| {
                    let mut r = *r;
                    if r.at.micros() >= start {
                        let at = r.at.micros();
                        r.at = Time(if late { at + margin } else { at - margin });
                    }
                    r
                })
                .collect();
            let moved = Trace::new(vec!["a".into(), "b".into()], moved);
            assert_eq!(
                verdicts(&moved, algorithm, s),
                want,
                "{algorithm:?}: the verdicts change when the requests from {start} µs move 100 ms"
            );
        }
    }
}
