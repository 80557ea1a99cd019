//! The explanation beside a row, with the numbers the page is showing: the row's own text from
//! its descriptor (`Algorithm::explain`: `core::limiter::textbook` for the six algorithms, each
//! product's module for the products), followed by what the row did on the run shown. The page
//! (`ui::explain`) only renders it.

use super::lab::LabRun;
use super::limiter::{Algorithm, Parts};
use super::profiles::Explanation;
use super::time::format_seconds;

/// `algorithm`'s explanation on `run`: what it does, then how many it let through and the most
/// inside one window.
pub fn explain<C: Parts>(run: &LabRun, algorithm: Algorithm) -> Explanation {
    let s = &run.settings;
    let limit = s.limit;
    let w = format_seconds(s.window.micros());
    let (passed, most) = run
        .run(algorithm)
        .map(|r| (r.passed(), r.max_in_window))
        .unwrap_or((0, 0));
    let outcome = if most > limit {
        format!("Here it let {passed} through, {most} of them inside one {w} s window: more than the {limit} it was set to.")
    } else {
        format!("Here it let {passed} through and never more than {most} inside any {w} s window.")
    };
    let mut explanation = algorithm.explain::<C>(s);
    explanation.what = match explanation.what.as_str() {
        "" => outcome,
        what => format!("{what} {outcome}"),
    };
    explanation
}
