//! One row deciding requests of one key, and nothing else: the program `scripts/bench-core-compare.sh`
//! runs under valgrind to count the instructions a decision takes. A count of instructions does
//! not move with the machine's load as a time does, so two versions compare by it on any day.
//!
//! The compare script builds this file in a copy of each version it compares, as an example
//! there, so it uses only what every version since `78e4709` (the published figures') has.
//!
//! ```sh
//! cargo bench --bench one_key -- "token bucket" full 100000
//! ```
//!
//! The row is the one whose label is the word, or else the first whose label holds it (case
//! aside); `full` asks for the whole decision per request, `verdict` for the verdict alone, as
//! `cargo bench --bench simulate` measures them: the first COUNT requests of its trace, one every
//! 10 µs at 50 per 10 s. The trace is a million requests whatever COUNT is, so that a difference
//! between two counts is the decisions' alone.
//! `one_key rows` prints every row's label, a line each.

use std::process::ExitCode;

use ratelab::core::decision::Limiter;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Request;

/// The requests of `cargo bench --bench simulate`'s one-key trace.
const TRACE: u64 = 1_000_000;

fn main() -> ExitCode {
    // `cargo bench` passes `--bench` first.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if args == ["rows"] {
        for algorithm in Algorithm::ALL {
            println!("{}", algorithm.label());
        }
        return ExitCode::SUCCESS;
    }
    let [word, mode, count] = args.as_slice() else {
        eprintln!("usage: one_key WORD verdict|full COUNT, or one_key rows");
        return ExitCode::FAILURE;
    };
    let word = word.to_lowercase();
    let label = |a: &Algorithm| a.label().to_lowercase();
    let Some(algorithm) = Algorithm::ALL
        .into_iter()
        .find(|a| label(a) == word)
        .or_else(|| {
            Algorithm::ALL
                .into_iter()
                .find(|a| label(a).contains(&word))
        })
    else {
        eprintln!("no row's label holds {word:?}");
        return ExitCode::FAILURE;
    };
    let Ok(count) = count.parse::<u64>() else {
        eprintln!("COUNT is a whole number, not {count:?}");
        return ExitCode::FAILURE;
    };
    let settings = Settings {
        limit: 50,
        window: Span::from_secs(10),
        ..Settings::default()
    };
    let trace: Vec<Request> = (0..TRACE).map(|i| Request::new(Time(i * 10), 0)).collect();
    let Some(trace) = trace.get(..count as usize) else {
        eprintln!("COUNT is at most {TRACE}");
        return ExitCode::FAILURE;
    };
    let Ok(mut limiter) = algorithm.build(&settings) else {
        eprintln!("{} cannot be built at 50 per 10 s", algorithm.label());
        return ExitCode::FAILURE;
    };
    let mut passed = 0u64;
    match mode.as_str() {
        "full" => {
            for r in trace {
                passed += u64::from(limiter.decide(r.at, u64::from(r.cost)).allowed());
            }
        }
        "verdict" => limiter.admit_each(trace.iter(), |v| passed += u64::from(v.passes())),
        other => {
            eprintln!("the mode is verdict or full, not {other:?}");
            return ExitCode::FAILURE;
        }
    }
    // Printed, so that the compiler keeps every decision.
    println!("{passed}");
    ExitCode::SUCCESS
}
