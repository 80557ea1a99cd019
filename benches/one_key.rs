//! One row deciding requests of one key, and nothing else: what `scripts/bench-core-compare.sh`
//! runs to count the instructions a decision takes. A count does not move with the machine's load
//! as a time does, so two versions compare by it on any day.
//!
//! Natively it is a program, which the compare script runs under valgrind. Built for WebAssembly,
//! it is a module whose export `decide_one_key` (the script has the linker export it) makes the
//! same decisions, which the script runs in wasmtime to count their WebAssembly operators. The
//! script builds this file in a copy of each version it compares, as an example there, so it uses
//! only what every version since `78e4709` (the published figures') has.
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
//! `one_key rows` prints every row's label, a line each, in the order `decide_one_key` numbers
//! them.

use std::process::ExitCode;

use ratelab::core::decision::Limiter;
use ratelab::core::limiter::{Algorithm, Settings};
use ratelab::core::time::{Span, Time};
use ratelab::core::traffic::Request;

/// The requests of `cargo bench --bench simulate`'s one-key trace.
const TRACE: u64 = 1_000_000;

/// How many of the first `count` requests of the trace `algorithm` lets through, deciding each in
/// full or for its verdict alone.
fn passes(algorithm: Algorithm, full: bool, count: u64) -> Result<u64, String> {
    let settings = Settings {
        limit: 50,
        window: Span::from_secs(10),
        ..Settings::default()
    };
    let trace: Vec<Request> = (0..TRACE).map(|i| Request::new(Time(i * 10), 0)).collect();
    let trace = usize::try_from(count)
        .ok()
        .and_then(|count| trace.get(..count))
        .ok_or(format!("COUNT is at most {TRACE}"))?;
    let mut limiter = algorithm
        .build(&settings)
        .map_err(|_| format!("{} cannot be built at 50 per 10 s", algorithm.label()))?;
    let mut passed = 0u64;
    if full {
        for r in trace {
            passed += u64::from(limiter.decide(r.at, u64::from(r.cost)).allowed());
        }
    } else {
        limiter.admit_each(trace.iter(), |v| passed += u64::from(v.passes()));
    }
    Ok(passed)
}

/// The WebAssembly build's entry: row `row` of `one_key rows`, its full decisions if `full` is
/// not 0, over the first `count` requests. It answers how many passed, or `u64::MAX` when it
/// cannot decide them.
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub extern "C" fn decide_one_key(row: u32, full: u32, count: u64) -> u64 {
    usize::try_from(row)
        .ok()
        .and_then(|row| Algorithm::ALL.into_iter().nth(row))
        .ok_or(String::new())
        .and_then(|algorithm| passes(algorithm, full != 0, count))
        .unwrap_or(u64::MAX)
}

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
    let full = match mode.as_str() {
        "full" => true,
        "verdict" => false,
        other => {
            eprintln!("the mode is verdict or full, not {other:?}");
            return ExitCode::FAILURE;
        }
    };
    match passes(algorithm, full, count) {
        // Printed, so that the compiler keeps every decision.
        Ok(passed) => {
            println!("{passed}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
