//! Everything the page shows for one state, computed in one place: the trace, every algorithm's
//! run, the Durable Object's run, and the levels drawn under the rows. The UI only draws this.

use super::decision::Limiter;
use super::durable::{DurableParams, SimReport, Simulation};
use super::lab_state::LabState;
use super::limiter::{Algorithm, Settings};
use super::run::{AlgorithmRun, RunBuilder};
use super::time::{Span, Time};
use super::traffic::{KeyedBuild, Pattern, Trace};
use std::sync::Arc;

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
        let mut computation = Computation::new(state);
        while computation.step(usize::MAX) {}
        computation.finish()
    }

    pub fn run(&self, algorithm: Algorithm) -> Option<&AlgorithmRun> {
        self.runs.iter().find(|r| r.algorithm == algorithm)
    }

    pub fn gauge(&self, algorithm: Algorithm) -> Option<&GaugeSeries> {
        self.gauges.iter().find(|g| g.algorithm == algorithm)
    }
}

/// A [`LabRun`] computed a slice at a time, so the page can run a large trace between frames
/// and show how far it has got: every algorithm's row request by request, then the Durable
/// Object's emulation event by event, and the level strips (one key, at most
/// `MAX_GAUGE_REQUESTS` requests) when finished. The result equals `LabRun::compute`'s.
pub struct Computation {
    /// What the rows need of the state (not the pattern: a person's trace can be a million
    /// requests, and the trace below holds it already).
    settings: Settings,
    algorithms: Vec<Algorithm>,
    durable: DurableParams,
    /// A person's keyed requests being numbered into the trace, a slice at a time; the trace
    /// below is empty until it is done.
    building: Option<KeyedBuild>,
    /// A person's time list, made into the trace in the first step (copying, sorting and
    /// numbering a million times is more than a frame's work); the trace below is empty until.
    given_times: Option<Arc<Vec<Time>>>,
    /// The requests so numbered, counted as done work once the trace is built.
    built: usize,
    trace: Trace,
    runs: Vec<AlgorithmRun>,
    refusals: Vec<String>,
    /// The row being run, and its index in `state.algorithms`.
    current: Option<(usize, RunBuilder)>,
    next_algorithm: usize,
    /// The Durable Object's emulation, once every row is run, and then its report.
    simulation: Option<Simulation>,
    durable_report: Option<Result<SimReport, String>>,
    /// The level strips, worked out in a step of their own once everything else is done.
    gauges: Option<Vec<GaugeSeries>>,
}

impl Computation {
    pub fn new(state: &LabState) -> Computation {
        let (building, given_times, trace) = match &state.pattern {
            Pattern::Keyed(points) => (
                Some(KeyedBuild::new(points.clone())),
                None,
                Trace::default(),
            ),
            Pattern::Trace(times) => (None, Some(times.clone()), Trace::default()),
            pattern => (
                None,
                None,
                pattern.generate(state.settings.limit, state.settings.window),
            ),
        };
        Computation {
            settings: state.settings.clone(),
            algorithms: state.algorithms.clone(),
            durable: state.durable.clone(),
            building,
            given_times,
            built: 0,
            trace,
            runs: Vec::new(),
            refusals: Vec::new(),
            current: None,
            next_algorithm: 0,
            simulation: None,
            durable_report: None,
            gauges: None,
        }
    }

    /// How many requests the trace holds (or will, while it is being built).
    pub fn requests(&self) -> usize {
        match (&self.building, &self.given_times) {
            (Some(build), _) => build.progress().1,
            (None, Some(times)) => times.len(),
            (None, None) => self.trace.len(),
        }
    }

    /// True while a person's requests are being made into the trace.
    pub fn building(&self) -> bool {
        self.building.is_some() || self.given_times.is_some()
    }

    /// Work done so far, and the work in all: one unit per decision of each row, and one per
    /// request the Durable Object's emulation has sent.
    pub fn progress(&self) -> (usize, usize) {
        if let Some(build) = &self.building {
            // Numbering the keys counts as one more row's work.
            let (taken, total) = build.progress();
            let rows = self.algorithms.len() + 1 + usize::from(self.durable.enabled);
            return (taken, rows * total);
        }
        let (done, total) = self.rows_progress();
        (done + self.built, total + self.built)
    }

    fn rows_progress(&self) -> (usize, usize) {
        let per_row = self.trace.len();
        let finished = self.runs.len() * per_row;
        let current = self.current.as_ref().map_or(0, |(_, b)| b.done());
        let rows = (
            finished + self.refusals.len() * per_row + current,
            self.algorithms.len() * per_row,
        );
        if !self.durable.enabled {
            return rows;
        }
        let sent = match (&self.simulation, &self.durable_report) {
            (Some(simulation), _) => simulation.progress().0,
            (None, Some(_)) => per_row,
            (None, None) => 0,
        };
        (rows.0 + sent, rows.1 + per_row)
    }

    /// True when the next step is one of the long pieces of the Durable Object's report (grouping
    /// what each key had served, or the figures), which a page gives a fresh slice.
    pub fn report_next(&self) -> bool {
        self.simulation.as_ref().is_some_and(Simulation::heavy_next)
    }

    /// True once the rows are run and the Durable Object's emulation is under way.
    pub fn emulating(&self) -> bool {
        self.simulation.is_some()
    }

    /// Makes up to `budget` more decisions (or emulation events); false once all is done.
    pub fn step(&mut self, budget: usize) -> bool {
        let budget = budget.max(1);
        if let Some(times) = self.given_times.take() {
            self.trace = Pattern::Trace(times).generate(self.settings.limit, self.settings.window);
            return true;
        }
        if let Some(build) = &mut self.building {
            if !build.advance(budget) {
                if let Some(build) = self.building.take() {
                    self.trace = build.finish();
                    self.built = self.trace.len();
                }
            }
            return true;
        }
        loop {
            if self.current.is_none() {
                let Some(&algorithm) = self.algorithms.get(self.next_algorithm) else {
                    return self.emulate(budget) || self.level_strips();
                };
                self.next_algorithm += 1;
                // Each row stands alone: a product refusing these settings (Envoy's 50 ms
                // floor) is named, and every other row is still computed.
                match RunBuilder::new(&self.trace, algorithm, &self.settings) {
                    Ok(builder) => self.current = Some((self.next_algorithm - 1, builder)),
                    Err(e) => {
                        self.refusals.push(format!("{}: {e}.", algorithm.label()));
                        continue;
                    }
                }
            }
            let Some((_, builder)) = self.current.as_mut() else {
                continue;
            };
            if builder.done() == self.trace.len() {
                // Every request decided in an earlier step: finishing the row (grouping what
                // each key had served, finding its busiest window) is this step's first work.
                if let Some((_, builder)) = self.current.take() {
                    self.runs.push(builder.finish(self.settings.window));
                }
                continue;
            }
            builder.advance(&self.trace, budget);
            // Done or not, the step ends here: a finished row is wrapped up in the next one.
            return true;
        }
    }

    /// True when the next step starts with long work for a large trace (wrapping up a row,
    /// making the Durable Object's report, or the level strips), which a page gives a fresh
    /// slice.
    pub fn heavy_next(&self) -> bool {
        let rows_done = self.current.is_none() && self.next_algorithm == self.algorithms.len();
        let emulated = !self.durable.enabled || self.durable_report.is_some();
        self.current
            .as_ref()
            .is_some_and(|(_, b)| b.done() == self.trace.len())
            || self.report_next()
            || (rows_done && emulated && self.gauges.is_none())
    }

    /// Works out the level strips; false if they already are.
    fn level_strips(&mut self) -> bool {
        if self.gauges.is_some() {
            return false;
        }
        let (trace, settings) = (&self.trace, &self.settings);
        self.gauges = Some(
            [Algorithm::TokenBucket, Algorithm::SlidingLog]
                .into_iter()
                .filter(|a| self.algorithms.contains(a))
                .filter_map(|a| gauge_series(trace, a, settings, 0))
                .collect(),
        );
        true
    }

    /// Advances the Durable Object's emulation by up to `budget` events; false once there is
    /// nothing left to do (or it was not asked for).
    fn emulate(&mut self, budget: usize) -> bool {
        if !self.durable.enabled || self.durable_report.is_some() {
            return false;
        }
        let simulation = match &mut self.simulation {
            Some(simulation) => simulation,
            None => {
                let config = self.durable.sim_config(&self.settings, self.trace.routes());
                match Simulation::new(config, self.durable.traffic(&self.trace)) {
                    Ok(simulation) => self.simulation.insert(simulation),
                    Err(e) => {
                        self.durable_report = Some(Err(e.to_string()));
                        return true;
                    }
                }
            }
        };
        if !simulation.has_ended() {
            simulation.advance(budget);
            return true;
        }
        // A step of its own: the report's figures, a long piece of work for a large trace.
        self.durable_report = self.simulation.take().map(|s| Ok(s.finish()));
        true
    }

    /// The level strips, and the whole result (anything not yet computed is computed first).
    pub fn finish(mut self) -> LabRun {
        while self.step(usize::MAX) {}
        let Computation {
            settings,
            trace,
            runs,
            refusals,
            durable_report,
            gauges,
            ..
        } = self;
        let horizon = horizon_for(&trace, settings.window);
        let error = (!refusals.is_empty()).then(|| refusals.join(" "));
        let gauges = gauges.unwrap_or_default();
        LabRun {
            trace,
            settings,
            runs,
            durable: durable_report,
            gauges,
            horizon,
            error,
        }
    }
}

/// Past the last request by a tenth of a window, and never less than two windows.
pub fn horizon_for(trace: &Trace, window: Span) -> Time {
    let after_last = trace.end().plus(Span(window.micros() / 10));
    after_last.max(Time(window.micros().saturating_mul(2)))
}

/// The level of `algorithm`'s limiter for `key` just before and just after each of its requests.
/// Only the token bucket and the sliding log draw a level strip.
pub fn gauge_series(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    key: u32,
) -> Option<GaugeSeries> {
    if !matches!(algorithm, Algorithm::TokenBucket | Algorithm::SlidingLog) {
        return None;
    }
    let limiter = algorithm.build(settings).ok()?;
    Some(levels(limiter, trace, algorithm, settings, key))
}

fn levels<L: Limiter>(
    mut limiter: L,
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    key: u32,
) -> GaugeSeries {
    let first = limiter.gauge(Time::ZERO);
    let end = horizon_for(trace, settings.window);
    // Evenly spaced samples between requests show refills and expiries as well as the drops.
    let step = (end.micros() / GAUGE_SAMPLES).max(1);
    let mut next_sample = 0u64;
    let mut points = Vec::new();
    for request in trace
        .requests()
        .iter()
        .filter(|r| r.key == key)
        .take(MAX_GAUGE_REQUESTS)
    {
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
    GaugeSeries {
        algorithm,
        unit: first.unit,
        max: first.max,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::traffic::Pattern;

    #[test]
    fn the_bucket_gauge_falls_with_each_request_and_refills_between() {
        let state = LabState {
            pattern: Pattern::Steady,
            ..LabState::default()
        };
        let lab = LabRun::compute(&state);
        let tokens = lab.gauge(Algorithm::TokenBucket).unwrap();
        assert_eq!(tokens.unit, "tokens");
        // Before and after the request at 0 s: 5 then 4; just before the one at 1 s: 4.5.
        assert_eq!(
            &tokens.points[0..2],
            &[(Time::ZERO, 5.0), (Time::ZERO, 4.0)]
        );
        let before_second = tokens
            .points
            .iter()
            .find(|p| p.0 == Time::from_secs(1))
            .unwrap();
        assert_eq!(before_second.1, 4.5);
        let log = lab.gauge(Algorithm::SlidingLog).unwrap();
        assert_eq!(log.points[1].1, 1.0);
        assert!(
            log.points.windows(2).all(|w| w[0].0 <= w[1].0),
            "in time order"
        );
    }

    #[test]
    fn the_horizon_covers_the_trace_and_two_windows() {
        let lab = LabRun::compute(&LabState::default());
        assert_eq!(lab.horizon, Time::from_secs(20));
        let steady = LabRun::compute(&LabState {
            pattern: Pattern::Steady,
            ..LabState::default()
        });
        assert_eq!(steady.horizon, Time::from_secs(60));
    }

    #[test]
    fn computing_in_slices_gives_the_same_run_as_computing_at_once() {
        let state = crate::core::url::parse_query(
            "pattern=several-keys&algos=fixed,envoy,leaky-bucket,upstash-sliding&window=0.01&do=1",
        )
        .state;
        let whole = LabRun::compute(&state);
        assert!(whole
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("Envoy local rate limit:")));
        for budget in [1, 7, 1000] {
            let mut computation = Computation::new(&state);
            let mut steps = 0;
            while computation.step(budget) {
                let (done, total) = computation.progress();
                assert!(done <= total);
                steps += 1;
            }
            assert_eq!(computation.progress().0, computation.progress().1);
            let sliced = computation.finish();
            // One decision a step: every request of the three rows that run is its own step;
            // then every send and every event of the Durable Object's emulation is one.
            if budget == 1 {
                assert!(steps > whole.trace.len() * 4, "{steps} steps");
            }
            assert_eq!(
                format!("{:?}", sliced.runs),
                format!("{:?}", whole.runs),
                "budget {budget}"
            );
            assert_eq!(sliced.error, whole.error);
            assert_eq!(sliced.gauges, whole.gauges);
            let records = |run: &LabRun| {
                run.durable
                    .as_ref()
                    .map(|d| d.as_ref().map(|r| format!("{:?}", r.records)).ok())
            };
            assert!(records(&whole).is_some_and(|r| r.is_some()));
            assert_eq!(records(&sliced), records(&whole), "budget {budget}");
        }
    }

    #[test]
    fn the_level_strips_are_the_last_step_of_their_own_and_equal_those_computed_at_once() {
        let state = crate::core::url::parse_query(
            "pattern=double&algos=token-bucket,sliding-log,fixed&do=1",
        )
        .state;
        let whole = LabRun::compute(&state);
        assert_eq!(whole.gauges.len(), 2);
        let mut computation = Computation::new(&state);
        let mut heavy_before_last = false;
        loop {
            let heavy = computation.heavy_next();
            if !computation.step(10) {
                break;
            }
            heavy_before_last = heavy;
        }
        // The gauges came in the last step that did work, and it was announced as a long one.
        assert!(heavy_before_last);
        assert!(computation.gauges.is_some());
        assert_eq!(computation.finish().gauges, whole.gauges);
    }

    #[test]
    fn a_given_time_list_becomes_the_trace_in_a_first_step_of_its_own() {
        let state = crate::core::url::parse_query("trace=0.5,0.1,0.3,0.3&algos=fixed").state;
        let mut computation = Computation::new(&state);
        assert!(computation.building());
        assert_eq!(computation.requests(), 4);
        assert!(computation.step(usize::MAX));
        assert!(!computation.building());
        // Nothing was decided in that step: the row starts in the next one.
        assert_eq!(computation.progress().0, 0);
        let run = computation.finish();
        assert_eq!(
            run.trace,
            state
                .pattern
                .generate(state.settings.limit, state.settings.window)
        );
        assert_eq!(run.runs[0].allowed + run.runs[0].rejected, 4);
    }

    #[test]
    fn a_keyed_trace_numbered_a_slice_at_a_time_runs_as_the_trace_built_at_once() {
        use crate::core::traffic::Point;
        let points: Vec<Point> = (0..300u64)
            .map(|i| Point {
                route: (i % 3 == 0).then(|| "POST /login".to_string()),
                ..Point::new(Time::from_millis(i * 37), format!("tenant:{}", i % 7))
            })
            .collect();
        let mut state = crate::core::url::parse_query("algos=fixed,gcra,leaky-bucket&do=1").state;
        state.pattern = Pattern::Keyed(points.into());
        let whole = LabRun::compute(&state);
        assert_eq!(
            whole.trace,
            state
                .pattern
                .generate(state.settings.limit, state.settings.window)
        );
        for budget in [1, 7, 1000] {
            let mut computation = Computation::new(&state);
            assert!(computation.building() && computation.requests() == 300);
            let mut last = 0;
            while computation.step(budget) {
                let (done, total) = computation.progress();
                assert!(
                    done >= last && done <= total,
                    "progress {done} of {total} after {last}"
                );
                last = done;
            }
            let sliced = computation.finish();
            assert_eq!(sliced.trace, whole.trace, "budget {budget}");
            assert_eq!(
                format!("{:?}", sliced.runs),
                format!("{:?}", whole.runs),
                "budget {budget}"
            );
        }
    }

    #[test]
    fn a_row_that_refuses_its_settings_is_named_and_the_other_rows_still_run() {
        let mut state = LabState::default();
        state.settings.capacity = Some(0);
        let lab = LabRun::compute(&state);
        assert_eq!(
            lab.error.as_deref(),
            Some("Token bucket: the bucket capacity must be at least 1 token.")
        );
        assert_eq!(lab.runs.len(), 5);
        assert!(
            lab.run(Algorithm::TokenBucket).is_none()
                && lab.gauge(Algorithm::TokenBucket).is_none()
        );
    }
}
