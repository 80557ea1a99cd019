//! Everything the page shows for one state, computed in one place: the trace, every algorithm's
//! run, the Durable Object's run, and the levels drawn under the rows. The UI only draws this.

use super::decision::Limiter;
use super::durable::{simulate, SimReport};
use super::limiter::{Algorithm, AnyLimiter, Settings};
use super::run::{run_one, AlgorithmRun};
use super::time::{Span, Time};
use super::traffic::Trace;
use super::url_state::LabState;

/// A level over time under one row (tokens in the bucket, entries in the log).
#[derive(Clone, Debug, PartialEq)]
pub struct GaugeSeries {
    pub algorithm: Algorithm,
    pub unit: &'static str,
    pub max: f64,
    /// (time, level), in time order, sampled before and after every request of the key.
    pub points: Vec<(Time, f64)>,
}

#[derive(Clone, Debug)]
pub struct LabRun {
    pub trace: Trace,
    pub settings: Settings,
    pub runs: Vec<AlgorithmRun>,
    pub durable: Option<Result<SimReport, String>>,
    pub gauges: Vec<GaugeSeries>,
    /// The end of the time axis: past the last request, and at least two windows.
    pub horizon: Time,
    /// Why nothing could be computed (an invalid combination of settings), if so.
    pub error: Option<String>,
}

/// The most requests whose levels are drawn per series (decisions are never sampled).
const MAX_GAUGE_REQUESTS: usize = 20_000;
/// Evenly spaced level samples across the time axis, besides those at requests.
const GAUGE_SAMPLES: u64 = 400;

impl LabRun {
    pub fn compute(state: &LabState) -> LabRun {
        let settings = state.settings.clone();
        let trace = state.pattern.generate(settings.limit, settings.window);
        let horizon = horizon_for(&trace, settings.window);
        // Each row stands alone: a product refusing these settings (Envoy's 50 ms floor) is
        // named, and every other row is still computed.
        let mut runs = Vec::new();
        let mut refusals = Vec::new();
        for &algorithm in &state.algorithms {
            match run_one(&trace, algorithm, &settings) {
                Ok(run) => runs.push(run),
                Err(e) => refusals.push(format!("{}: {e}.", algorithm.label())),
            }
        }
        let error = (!refusals.is_empty()).then(|| refusals.join(" "));
        let durable = state.durable.enabled.then(|| {
            let config = state.durable.sim_config(&settings);
            simulate(&config, &state.durable.traffic(&trace)).map_err(|e| e.to_string())
        });
        let gauges = [Algorithm::TokenBucket, Algorithm::SlidingLog]
            .into_iter()
            .filter(|a| state.algorithms.contains(a))
            .filter_map(|a| gauge_series(&trace, a, &settings, 0))
            .collect();
        LabRun { trace, settings, runs, durable, gauges, horizon, error }
    }

    pub fn run(&self, algorithm: Algorithm) -> Option<&AlgorithmRun> {
        self.runs.iter().find(|r| r.algorithm == algorithm)
    }

    pub fn gauge(&self, algorithm: Algorithm) -> Option<&GaugeSeries> {
        self.gauges.iter().find(|g| g.algorithm == algorithm)
    }
}

/// Past the last request by a tenth of a window, and never less than two windows.
pub fn horizon_for(trace: &Trace, window: Span) -> Time {
    let after_last = trace.end().plus(Span(window.micros() / 10));
    after_last.max(Time(window.micros().saturating_mul(2)))
}

/// The level of `algorithm`'s limiter for `key` just before and just after each of its requests.
/// Only the token bucket and the sliding log draw a level strip.
pub fn gauge_series(trace: &Trace, algorithm: Algorithm, settings: &Settings, key: u32) -> Option<GaugeSeries> {
    // Matching the two concrete limiters keeps every other limiter's gauge out of the bundle.
    match algorithm.build(settings).ok()? {
        AnyLimiter::TokenBucket(limiter) => Some(levels(limiter, trace, algorithm, settings, key)),
        AnyLimiter::SlidingLog(limiter) => Some(levels(limiter, trace, algorithm, settings, key)),
        _ => None,
    }
}

fn levels<L: Limiter>(mut limiter: L, trace: &Trace, algorithm: Algorithm, settings: &Settings, key: u32) -> GaugeSeries {
    let first = limiter.gauge(Time::ZERO);
    let end = horizon_for(trace, settings.window);
    // Evenly spaced samples between requests show refills and expiries as well as the drops.
    let step = (end.micros() / GAUGE_SAMPLES).max(1);
    let mut next_sample = 0u64;
    let mut points = Vec::new();
    for request in trace.requests().iter().filter(|r| r.key == key).take(MAX_GAUGE_REQUESTS) {
        while next_sample < request.at.micros() {
            points.push((Time(next_sample), limiter.gauge(Time(next_sample)).level));
            next_sample += step;
        }
        points.push((request.at, limiter.gauge(request.at).level));
        limiter.decide(request.at, u64::from(request.cost));
        points.push((request.at, limiter.gauge(request.at).level));
    }
    while next_sample <= end.micros() {
        points.push((Time(next_sample), limiter.gauge(Time(next_sample)).level));
        next_sample += step;
    }
    GaugeSeries { algorithm, unit: first.unit, max: first.max, points }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::traffic::Pattern;

    #[test]
    fn the_bucket_gauge_falls_with_each_request_and_refills_between() {
        let state = LabState { pattern: Pattern::Steady, ..LabState::default() };
        let lab = LabRun::compute(&state);
        let tokens = lab.gauge(Algorithm::TokenBucket).unwrap();
        assert_eq!(tokens.unit, "tokens");
        // Before and after the request at 0 s: 5 then 4; just before the one at 1 s: 4.5.
        assert_eq!(&tokens.points[0..2], &[(Time::ZERO, 5.0), (Time::ZERO, 4.0)]);
        let before_second = tokens.points.iter().find(|p| p.0 == Time::from_secs(1)).unwrap();
        assert_eq!(before_second.1, 4.5);
        let log = lab.gauge(Algorithm::SlidingLog).unwrap();
        assert_eq!(log.points[1].1, 1.0);
        assert!(log.points.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
    }

    #[test]
    fn the_horizon_covers_the_trace_and_two_windows() {
        let lab = LabRun::compute(&LabState::default());
        assert_eq!(lab.horizon, Time::from_secs(20));
        let steady = LabRun::compute(&LabState { pattern: Pattern::Steady, ..LabState::default() });
        assert_eq!(steady.horizon, Time::from_secs(60));
    }

    #[test]
    fn a_row_that_refuses_its_settings_is_named_and_the_other_rows_still_run() {
        let mut state = LabState::default();
        state.settings.capacity = Some(0);
        let lab = LabRun::compute(&state);
        assert_eq!(lab.error.as_deref(), Some("Token bucket: the bucket capacity must be at least 1 token."));
        assert_eq!(lab.runs.len(), 5);
        assert!(lab.run(Algorithm::TokenBucket).is_none() && lab.gauge(Algorithm::TokenBucket).is_none());
    }
}
