//! Benchmarks of the core, run with `cargo bench --bench simulate` (release mode).
//!
//! Prints the median of several runs for: 1,000,000 requests over 10,000 keys through every
//! algorithm (one limiter per key), and the same traffic through the Durable Object emulation.
//! `-- --rules` measures only the million requests under each rule a view can set.
//! A benchmark, never a test: nothing here asserts a time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ratelab::core::clients::{Clients, DEFAULT_RETRIES};
use ratelab::core::deployment::Deployment;
use ratelab::core::durable::{simulate, SimConfig, SimRequest, SimTraffic};
use ratelab::core::limiter::{Algorithm, Complete, Settings};
use ratelab::core::region::Region;
use ratelab::core::run::run_one;
use ratelab::core::second_limit::{SecondKey, SecondLimit, Spend};
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::{Request, Trace};

const REQUESTS: u64 = 1_000_000;
const KEYS: u64 = 10_000;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, f: impl FnMut() -> T) -> Duration {
    median(samples(runs, f))
}

fn samples<T>(runs: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect()
}

/// One limiter deciding a trace of `requests` requests of one key, `gap_us` apart: the core's own
/// cost, with no bookkeeping. `full` asks for the whole decision per request (remaining, reset and
/// retry times, which the inspector and the export show); otherwise the verdict alone, which is
/// what a run keeps, decided as the inspector's replay does (the algorithm matched once).
fn decide_loop(
    algorithm: Algorithm,
    settings: &Settings,
    requests: u64,
    gap_us: u64,
    full: bool,
) -> Duration {
    let trace: Vec<Request> = (0..requests)
        .map(|i| Request::new(Time(i * gap_us), 0))
        .collect();
    median(decide_loop_samples(5, algorithm, settings, &trace, full))
}

fn decide_loop_samples(
    runs: usize,
    algorithm: Algorithm,
    settings: &Settings,
    trace: &[Request],
    full: bool,
) -> Vec<Duration> {
    use ratelab::core::decision::Limiter;
    // Three untimed runs first: on the development machine the first runs of a loop take up to
    // 1.5 times as long as the later ones (for every algorithm, with the trace already written),
    // and a median of five would still pick one of them.
    let runs_of = |n| {
        samples(n, || {
            let mut limiter = algorithm.build(settings).expect("valid settings");
            let mut passed = 0u64;
            if full {
                for r in trace {
                    passed += u64::from(limiter.decide(r.at, u64::from(r.cost)).allowed());
                }
            } else {
                limiter.admit_each(trace.iter(), |v| passed += u64::from(v.passes()));
            }
            passed
        })
    };
    runs_of(3);
    runs_of(runs)
}

fn per_request(t: Duration) -> f64 {
    t.as_nanos() as f64 / REQUESTS as f64
}

fn main() {
    // `cargo bench --bench simulate -- gcra bucket` measures only the one-key verdicts of the
    // algorithms whose label holds one of the words (case aside), as the median and the fastest
    // of 21 runs (after 3 untimed ones), and nothing else: a quick comparison on a busy machine.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.to_lowercase())
        .collect();
    if !only.is_empty() {
        let one_key = Settings {
            limit: 50,
            window: Span::from_secs(10),
            ..Settings::default()
        };
        let steady: Vec<Request> = (0..REQUESTS)
            .map(|i| Request::new(Time(i * 10), 0))
            .collect();
        // Gaps of 0 to 200 ms at random, averaging twice the rate (50 per 10 s): about half pass, in
        // an order no branch predictor can foresee (what a select instead of a branch is for).
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut at = 0;
        let random: Vec<Request> = (0..REQUESTS)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                at += seed % 200_000;
                Request::new(Time(at), 0)
            })
            .collect();
        println!("one key, verdicts only: median and fastest of 21 runs, steady (every 10 µs) and random traces");
        for algorithm in Algorithm::ALL {
            if only
                .iter()
                .any(|w| algorithm.label().to_lowercase().contains(w.as_str()))
            {
                let [steady, random] = [&steady, &random].map(|trace| {
                    let runs = decide_loop_samples(21, algorithm, &one_key, trace, false);
                    let fastest = runs.iter().copied().min().unwrap_or_default();
                    format!(
                        "{:.2} / {:.2} ns",
                        per_request(median(runs)),
                        per_request(fastest)
                    )
                });
                println!(
                    "  {:<34} steady {steady}, random {random}",
                    algorithm.label()
                );
            }
        }
        return;
    }
    // `cargo bench --bench simulate -- --rules` measures only the million requests over 10,000
    // keys through the six algorithms, plain and under each rule (copies, a second limit,
    // obeying clients): each pair is then measured under the same load of the machine.
    // `-- --no-rules` measures everything else: the figures an earlier version's benchmark also
    // has (`scripts/bench-core-compare.sh`).
    let part = if std::env::args().any(|a| a == "--rules") {
        Part::RulesOnly
    } else if std::env::args().any(|a| a == "--no-rules") {
        Part::NoRules
    } else {
        Part::Everything
    };
    if part != Part::RulesOnly {
        one_key_figures();
    }
    million_requests(part);
}

/// Which of the figures a run measures.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Everything,
    /// The six algorithms' million requests, plain and under each rule.
    RulesOnly,
    /// All but the rules.
    NoRules,
}

fn one_key_figures() {
    println!("one key, 1,000,000 decisions, one every 10 µs (limit 50 per 10 s unless said)");
    println!("  {:<34} {:>9} {:>15}", "", "verdict", "full decision");
    let one_key = Settings {
        limit: 50,
        window: Span::from_secs(10),
        ..Settings::default()
    };
    for algorithm in Algorithm::ALL {
        let verdict = decide_loop(algorithm, &one_key, REQUESTS, 10, false);
        let full = decide_loop(algorithm, &one_key, REQUESTS, 10, true);
        println!(
            "  {:<34} {:>6.1} ns {:>12.1} ns",
            algorithm.label(),
            per_request(verdict),
            per_request(full)
        );
    }
    // A steady stream at the limit's own pace: every request passes, so each one is logged and
    // (once the log is full) one entry leaves per decision.
    let big = Settings {
        limit: 50_000,
        window: Span::from_secs(1),
        ..Settings::default()
    };
    let verdict = decide_loop(Algorithm::SlidingLog, &big, REQUESTS, 20, false);
    let full = decide_loop(Algorithm::SlidingLog, &big, REQUESTS, 20, true);
    println!(
        "  {:<34} {:>6.1} ns {:>12.1} ns (every request passes; log of 50,000 entries: {} KB per key)",
        "Sliding log at 50,000 per second",
        per_request(verdict),
        per_request(full),
        50_000 * std::mem::size_of::<Time>() / 1024
    );
}

fn million_requests(part: Part) {
    // 1,000,000 requests over 100 s, keys interleaved (request i belongs to key i mod 10,000).
    let names: Vec<String> = (0..KEYS).map(|k| format!("tenant:{k}")).collect();
    let requests: Vec<Request> = (0..REQUESTS)
        .map(|i| Request::new(Time(i * 100), (i % KEYS) as u32))
        .collect();
    let trace = Trace::new(names.clone(), requests);
    let sim_traffic = SimTraffic {
        keys: names,
        requests: (0..REQUESTS)
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
    println!("{REQUESTS} requests over {KEYS} keys, limit 50 per 10 s");
    let mut total = Duration::ZERO;
    let rows: &[Algorithm] = if part == Part::RulesOnly {
        &Algorithm::CORE
    } else {
        &Algorithm::ALL
    };
    for &algorithm in rows {
        let t = time(5, || {
            run_one::<Complete>(&trace, algorithm, &settings).map(|r| r.allowed)
        });
        if !algorithm.is_product() {
            total += t;
        }
        println!(
            "  {:<34} {:>8.1} ms  ({:.1} ns per request, including bookkeeping)",
            algorithm.label(),
            t.as_secs_f64() * 1e3,
            t.as_nanos() as f64 / REQUESTS as f64
        );
    }
    println!(
        "  {:<34} {:>8.1} ms",
        "all six algorithms",
        total.as_secs_f64() * 1e3
    );
    if part != Part::NoRules {
        rules(&trace, &settings);
    }
    if part == Part::RulesOnly {
        return;
    }
    let config = SimConfig {
        settings,
        ..SimConfig::default()
    };
    let t = time(3, || simulate(&config, &sim_traffic).map(|r| r.passed()));
    println!(
        "  {:<34} {:>8.1} ms",
        "Durable Object emulation",
        t.as_secs_f64() * 1e3
    );
}

/// The six algorithms' million requests under the rules a view can set: copies of each row, a
/// second limit, clients that obey.
fn rules(trace: &Trace, settings: &Settings) {
    let rules = [
        (
            "as 4 copies, in turn",
            Settings {
                deployment: Deployment {
                    instances: 4,
                    ..Deployment::default()
                },
                ..settings.clone()
            },
        ),
        (
            "with a second limit of 25 per 1 s",
            Settings {
                also: Some(SecondLimit {
                    count: 25,
                    window: Span::from_secs(1),
                    key: SecondKey::Same,
                    spend: Spend::All,
                }),
                ..settings.clone()
            },
        ),
        (
            "with clients that obey",
            Settings {
                clients: Clients {
                    obey: true,
                    retries: DEFAULT_RETRIES,
                },
                ..settings.clone()
            },
        ),
    ];
    // Each rule against the plain run, their runs taken in turn, so that a change in the
    // machine's load weighs on both alike; the ratio is the figure to read.
    for (name, ruled) in &rules {
        let (mut plain, mut with_rule) = (Duration::ZERO, Duration::ZERO);
        for &algorithm in &Algorithm::CORE {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..7 {
                a.extend(samples(1, || {
                    run_one::<Complete>(trace, algorithm, settings).map(|r| r.allowed)
                }));
                b.extend(samples(1, || {
                    run_one::<Complete>(trace, algorithm, ruled).map(|r| r.allowed)
                }));
            }
            plain += median(a);
            with_rule += median(b);
        }
        println!(
            "  {:<34} {:>8.1} ms  (plain, in turn with it: {:.1} ms; {:.2} times)",
            format!("all six, {name}"),
            with_rule.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            with_rule.as_secs_f64() / plain.as_secs_f64()
        );
    }
    // At 5 per 10 s half the requests are refused: obeying clients then retry, each retry a
    // decision more (and a wait worked out from the full answer).
    let tight = Settings {
        limit: 5,
        ..settings.clone()
    };
    let obeying = Settings {
        clients: Clients {
            obey: true,
            retries: DEFAULT_RETRIES,
        },
        ..tight.clone()
    };
    for (name, ruled) in [
        ("at 5 per 10 s", &tight),
        ("at 5 per 10 s, clients that obey", &obeying),
    ] {
        let mut retries = 0;
        let t: Duration = Algorithm::CORE
            .iter()
            .map(|&algorithm| {
                time(5, || {
                    run_one::<Complete>(trace, algorithm, ruled).map(|r| {
                        retries = r.clients.map_or(0, |c| c.retries.len());
                        r.allowed
                    })
                })
            })
            .sum();
        println!(
            "  {:<34} {:>8.1} ms{}",
            format!("all six, {name}"),
            t.as_secs_f64() * 1e3,
            if retries > 0 {
                format!("  ({retries} retries in the last row)")
            } else {
                String::new()
            }
        );
    }
}
