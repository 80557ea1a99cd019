//! Everything the page shows for one state, computed in one place: the trace, every algorithm's
//! run, the Durable Object's run, and the levels drawn under the rows. The UI only draws this.

use super::decision::Limiter;
use super::durable::{DurableParams, SimReport, Simulation};
use super::job::{run_to_end, Job, Progress, Step};
use super::lab_state::LabState;
use super::limiter::{Algorithm, Complete, Parts, Settings, TextbookOnly};
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

/// How long playback shows before the first request: long enough to see the rows empty, short
/// enough that nothing waits for the traffic.
pub const PLAYBACK_LEAD: Span = Span::from_secs(1);

impl LabRun {
    /// Where playback starts, and Rewind goes back to: [`PLAYBACK_LEAD`] before the first request
    /// (the start of the trace when that is sooner).
    pub fn playback_start(&self) -> Time {
        self.trace.requests().first().map_or(Time::ZERO, |first| {
            Time(first.at.micros().saturating_sub(PLAYBACK_LEAD.micros()))
        })
    }

    /// The run of `state` in a program that links every part.
    pub fn compute(state: &LabState) -> LabRun {
        LabRun::compute_with::<Complete>(state)
    }

    /// The run of `state` in a program that links the parts `C`.
    pub fn compute_with<C: Parts>(state: &LabState) -> LabRun {
        run_to_end(Computation::<C>::new(state))
    }

    pub fn run(&self, algorithm: Algorithm) -> Option<&AlgorithmRun> {
        self.runs.iter().find(|r| r.algorithm == algorithm)
    }

    pub fn gauge(&self, algorithm: Algorithm) -> Option<&GaugeSeries> {
        self.gauges.iter().find(|g| g.algorithm == algorithm)
    }
}

/// From this many requests, a trace is large: building it and running it are tasks of their
/// own, and the long steps (wrapping up a row, the Durable Object's report, the level strips)
/// each start a fresh slice.
pub const LARGE_TRACE: usize = 100_000;

/// Where a [`Computation`] has got to.
enum Phase<C: Parts> {
    /// A person's time list, made into the trace in a step of its own (copying, sorting and
    /// numbering a million times is more than a frame's work).
    SortingTimes(Arc<Vec<Time>>),
    /// A person's keyed requests being numbered into the trace, a slice at a time.
    NumberingKeys(KeyedBuild),
    /// Row `next - 1` of `algorithms` being run (`current`), or none started yet. Boxed: a
    /// builder is several times the size of the other phases.
    Running {
        next: usize,
        current: Option<Box<RunBuilder<C>>>,
    },
    /// The Durable Object's emulation, once every row is run.
    Emulating(Box<Simulation<C>>),
    /// The level strips are left, worked out in a step of their own.
    Levels,
    Done,
}

/// A [`LabRun`] computed a slice at a time, so the page can run a large trace between frames
/// and show how far it has got: every algorithm's row request by request, then the Durable
/// Object's emulation event by event, and the level strips (one key, at most
/// `MAX_GAUGE_REQUESTS` requests) when finished. The result equals `LabRun::compute`'s.
pub struct Computation<C: Parts = Complete> {
    /// What the rows need of the state (not the pattern: a person's trace can be a million
    /// requests, and the trace below holds it already).
    settings: Settings,
    algorithms: Vec<Algorithm>,
    durable: DurableParams,
    phase: Phase<C>,
    /// Keyed requests numbered into the trace, counted as done work once the trace is built.
    built: usize,
    /// The trace; empty while a person's requests are being made into it.
    trace: Trace,
    runs: Vec<AlgorithmRun>,
    refusals: Vec<String>,
    durable_report: Option<Result<SimReport, String>>,
    gauges: Option<Vec<GaugeSeries>>,
    /// More than [`LARGE_TRACE`] requests.
    large: bool,
}

impl<C: Parts> Computation<C> {
    pub fn new(state: &LabState) -> Computation<C> {
        let (phase, trace) = match &state.traffic() {
            Pattern::Keyed(points) => (
                Phase::NumberingKeys(KeyedBuild::new(points.clone())),
                Trace::default(),
            ),
            Pattern::Trace(times) => (Phase::SortingTimes(times.clone()), Trace::default()),
            pattern => (
                Phase::Running {
                    next: 0,
                    current: None,
                },
                pattern.generate(state.settings.limit, state.settings.window),
            ),
        };
        let mut computation = Computation {
            settings: state.settings.clone(),
            algorithms: state.algorithms.clone(),
            durable: state.durable.clone(),
            phase,
            built: 0,
            trace,
            runs: Vec::new(),
            refusals: Vec::new(),
            durable_report: None,
            gauges: None,
            large: false,
        };
        computation.large = computation.requests() > LARGE_TRACE;
        computation
    }

    /// How many requests the trace holds (or will, while it is being built).
    pub fn requests(&self) -> usize {
        match &self.phase {
            Phase::NumberingKeys(build) => build.progress().1,
            Phase::SortingTimes(times) => times.len(),
            _ => self.trace.len(),
        }
    }

    /// True for a trace of more than [`LARGE_TRACE`] requests.
    pub fn large(&self) -> bool {
        self.large
    }

    /// True while a person's requests are being made into the trace.
    pub fn building(&self) -> bool {
        matches!(self.phase, Phase::SortingTimes(_) | Phase::NumberingKeys(_))
    }

    /// True once the rows are run and the Durable Object's emulation is under way.
    pub fn emulating(&self) -> bool {
        matches!(self.phase, Phase::Emulating(_))
    }

    /// Work done so far, and the work in all: one unit per decision of each row, and one per
    /// request the Durable Object's emulation has sent.
    pub fn done_of_total(&self) -> (usize, usize) {
        if let Phase::NumberingKeys(build) = &self.phase {
            // Numbering the keys counts as one more row's work.
            let (taken, total) = build.progress();
            let rows = self.algorithms.len() + 1 + usize::from(self.durable.enabled);
            return (taken, rows * total);
        }
        let per_row = self.trace.len();
        let current = match &self.phase {
            Phase::Running {
                current: Some(builder),
                ..
            } => builder.done(),
            _ => 0,
        };
        let mut done = (self.runs.len() + self.refusals.len()) * per_row + current;
        let mut total = self.algorithms.len() * per_row;
        if self.durable.enabled {
            done += match (&self.phase, &self.durable_report) {
                (Phase::Emulating(simulation), _) => simulation.progress().0,
                (_, Some(_)) => per_row,
                _ => 0,
            };
            total += per_row;
        }
        (done + self.built, total + self.built)
    }

    /// True when the next step starts with long work (wrapping up a row, making the Durable
    /// Object's report, or the level strips), whatever the trace's size.
    pub fn long_step_next(&self) -> bool {
        match &self.phase {
            Phase::Running {
                current: Some(builder),
                ..
            } => builder.done() == self.trace.len(),
            Phase::Emulating(simulation) => simulation.heavy_next(),
            Phase::Levels => true,
            _ => false,
        }
    }

    /// Makes up to `budget` more decisions (or emulation events).
    fn advance(&mut self, budget: usize) -> Step {
        let budget = budget.max(1);
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::SortingTimes(times) => {
                self.trace =
                    Pattern::Trace(times).generate(self.settings.limit, self.settings.window);
                self.phase = Phase::Running {
                    next: 0,
                    current: None,
                };
                Step::More
            }
            Phase::NumberingKeys(mut build) => {
                self.phase = if build.advance(budget) {
                    Phase::NumberingKeys(build)
                } else {
                    self.trace = build.finish();
                    self.built = self.trace.len();
                    Phase::Running {
                        next: 0,
                        current: None,
                    }
                };
                Step::More
            }
            Phase::Running { next, current } => self.run_rows(next, current, budget),
            Phase::Emulating(mut simulation) => {
                if simulation.has_ended() {
                    // A step of its own: the report's figures, long work for a large trace.
                    self.durable_report = Some(Ok((*simulation).finish()));
                    self.phase = Phase::Levels;
                } else {
                    simulation.step(budget);
                    self.phase = Phase::Emulating(simulation);
                }
                Step::More
            }
            Phase::Levels => {
                self.level_strips();
                Step::Done
            }
            Phase::Done => Step::Done,
        }
    }

    /// Runs the rows from row `next` (with `current` under way) for up to `budget` decisions;
    /// once every row is run, starts the Durable Object's emulation (or the level strips).
    fn run_rows(
        &mut self,
        mut next: usize,
        mut current: Option<Box<RunBuilder<C>>>,
        budget: usize,
    ) -> Step {
        loop {
            let Some(builder) = current.as_mut() else {
                let Some(&algorithm) = self.algorithms.get(next) else {
                    return self.start_emulation(budget);
                };
                next += 1;
                // Each row stands alone: a product refusing these settings (Envoy's 50 ms
                // floor) is named, and every other row is still computed.
                match RunBuilder::new(&self.trace, algorithm, &self.settings) {
                    Ok(builder) => current = Some(Box::new(builder)),
                    Err(e) => self.refusals.push(format!("{}: {e}.", algorithm.label())),
                }
                continue;
            };
            if builder.done() == self.trace.len() {
                // Every request decided in an earlier step: finishing the row (grouping what
                // each key had served, finding its busiest window) is this step's first work.
                if let Some(builder) = current.take() {
                    self.runs
                        .push(builder.finish(&self.trace, self.settings.window));
                }
                continue;
            }
            builder.advance(&self.trace, budget);
            // Done or not, the step ends here: a finished row is wrapped up in the next one.
            self.phase = Phase::Running { next, current };
            return Step::More;
        }
    }

    /// Starts the Durable Object's emulation and runs it for `budget` events; without one, works
    /// out the level strips instead.
    /// A program that does not emulate the Durable Object (`Linking::DURABLE`) has none to start
    /// (the page's first module hands a view with it to the Durable Object's).
    fn start_emulation(&mut self, budget: usize) -> Step {
        if !(C::DURABLE && self.durable.enabled) {
            self.level_strips();
            return Step::Done;
        }
        let config = self.durable.sim_config(&self.settings, self.trace.routes());
        match Simulation::new(config, self.durable.traffic(&self.trace)) {
            Ok(mut simulation) => {
                simulation.step(budget);
                self.phase = Phase::Emulating(Box::new(simulation));
            }
            Err(e) => {
                self.durable_report = Some(Err(e.to_string()));
                self.phase = Phase::Levels;
            }
        }
        Step::More
    }

    /// Works out the level strips: the last work there is.
    fn level_strips(&mut self) {
        let (trace, settings) = (&self.trace, &self.settings);
        // A strip replays the trace alone; obeying clients add retries of their own to each
        // row, which the strip would leave out, so it is not drawn rather than drawn wrong.
        if settings.obeying_clients() {
            self.gauges = Some(Vec::new());
            self.phase = Phase::Done;
            return;
        }
        self.gauges = Some(
            [Algorithm::TokenBucket, Algorithm::SlidingLog]
                .into_iter()
                .filter(|a| self.algorithms.contains(a))
                .filter_map(|a| gauge_series::<C>(trace, a, settings, 0))
                .collect(),
        );
        self.phase = Phase::Done;
    }
}

impl<C: Parts> Job for Computation<C> {
    type Output = LabRun;
    /// Decisions made between two looks at the clock.
    const BUDGET: usize = 4_096;

    fn step(&mut self, budget: usize) -> Step {
        self.advance(budget)
    }

    fn progress(&self) -> Progress {
        let (done, total) = self.done_of_total();
        let what = if self.building() {
            "Reading your traffic"
        } else if self.emulating() {
            "Emulating the Durable Object"
        } else {
            "Running the limiters"
        };
        Progress { what, done, total }
    }

    /// Only for a large trace: a small one's long steps are short.
    fn heavy_next(&self) -> bool {
        self.large && self.long_step_next()
    }

    /// The whole result (anything not yet computed is computed first).
    fn finish(mut self) -> LabRun {
        while self.advance(usize::MAX) == Step::More {}
        let Computation {
            settings,
            trace,
            runs,
            refusals,
            durable_report,
            gauges,
            ..
        } = self;
        // Retries may come after the trace's last request: the time axis reaches the last.
        let last_retry = runs
            .iter()
            .filter_map(|r| {
                r.clients
                    .as_ref()?
                    .retries
                    .iter()
                    .map(|retry| retry.at)
                    .max()
            })
            .max();
        let horizon = match last_retry {
            Some(last) => horizon_for(&trace, settings.window)
                .max(last.plus(Span(settings.window.micros() / 10))),
            None => horizon_for(&trace, settings.window),
        };
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

/// The Durable Object's emulation as a job of its own: every send and event, then the walk over
/// the records for the report; the report's figures are worked out in `finish`.
impl<C: Parts> Job for Simulation<C> {
    type Output = SimReport;
    /// Sends and events handled between two looks at the clock.
    const BUDGET: usize = 4_096;

    fn step(&mut self, budget: usize) -> Step {
        self.advance(budget);
        if self.has_ended() {
            Step::Done
        } else {
            Step::More
        }
    }

    fn progress(&self) -> Progress {
        let (done, total) = Simulation::<C>::progress(self);
        Progress {
            what: "Emulating the Durable Object",
            done,
            total,
        }
    }

    fn heavy_next(&self) -> bool {
        Simulation::<C>::heavy_next(self)
    }

    fn finish(self) -> SimReport {
        Simulation::<C>::finish(self)
    }
}

/// Past the last request by a tenth of a window, and never less than two windows.
pub fn horizon_for(trace: &Trace, window: Span) -> Time {
    let after_last = trace.end().plus(Span(window.micros() / 10));
    after_last.max(Time(window.micros().saturating_mul(2)))
}

/// The level of `algorithm`'s limiter for `key` just before and just after each of its requests
/// (of its first copy, for a row run as several).
/// Only the rows whose descriptor says so draw a level strip (the token bucket and the sliding
/// log).
pub fn gauge_series<C: Parts>(
    trace: &Trace,
    algorithm: Algorithm,
    settings: &Settings,
    key: u32,
) -> Option<GaugeSeries> {
    if !algorithm.draws_level() {
        return None;
    }
    // Only textbook rows draw one: their limiters are built without the products.
    let limiter = algorithm.build_with::<TextbookOnly>(settings).ok()?;
    Some(levels::<C, _>(limiter, trace, algorithm, settings, key))
}

fn levels<C: Parts, L: Limiter>(
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
    // A row run as several copies draws the first copy's level: the one it holds for itself.
    let placement = settings.deployment.placement::<C>(trace);
    for (_, request) in trace
        .requests()
        .iter()
        .enumerate()
        .filter(|(i, r)| r.key == key && placement.instance(*i, key) == 0)
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
    use crate::core::job::tests::run_in_steps;
    use crate::core::traffic::Pattern;

    #[test]
    fn playback_starts_a_second_before_the_first_request_and_never_before_zero() {
        // The edge pattern's first request is at 8 s.
        let edge = LabRun::compute(&LabState {
            pattern: Pattern::Edge,
            ..LabState::default()
        });
        assert_eq!(edge.trace.requests()[0].at, Time::from_secs(8));
        assert_eq!(edge.playback_start(), Time::from_secs(7));
        // The steady pattern's is at 0 s.
        let steady = LabRun::compute(&LabState {
            pattern: Pattern::Steady,
            ..LabState::default()
        });
        assert_eq!(steady.trace.requests()[0].at, Time::ZERO);
        assert_eq!(steady.playback_start(), Time::ZERO);
    }

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
            let (sliced, steps) = run_in_steps(Computation::<Complete>::new(&state), budget);
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
        let mut computation = Computation::<Complete>::new(&state);
        let mut heavy_before_last;
        loop {
            heavy_before_last = computation.long_step_next();
            if computation.step(10) == Step::Done {
                break;
            }
        }
        // The gauges came in the last step that did work, and it was announced as a long one.
        assert!(heavy_before_last);
        assert!(computation.gauges.is_some());
        assert_eq!(computation.finish().gauges, whole.gauges);
    }

    #[test]
    fn a_given_time_list_becomes_the_trace_in_a_first_step_of_its_own() {
        let state = crate::core::url::parse_query("trace=0.5,0.1,0.3,0.3&algos=fixed").state;
        let mut computation = Computation::<Complete>::new(&state);
        assert!(computation.building());
        assert_eq!(computation.requests(), 4);
        assert_eq!(computation.step(usize::MAX), Step::More);
        assert!(!computation.building());
        // Nothing was decided in that step: the row starts in the next one.
        assert_eq!(computation.progress().done, 0);
        assert_eq!(computation.progress().what, "Running the limiters");
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
            let computation = Computation::<Complete>::new(&state);
            assert!(computation.building() && computation.requests() == 300);
            assert_eq!(computation.progress().what, "Reading your traffic");
            let (sliced, _) = run_in_steps(computation, budget);
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

    #[test]
    fn the_durable_objects_emulation_stepped_in_tiny_budgets_reports_as_run_at_once() {
        let state = crate::core::url::parse_query("pattern=several-keys&algos=fixed&do=1").state;
        let trace = state
            .pattern
            .generate(state.settings.limit, state.settings.window);
        let simulation = || {
            let config = state.durable.sim_config(&state.settings, trace.routes());
            Simulation::<Complete>::new(config, state.durable.traffic(&trace)).unwrap()
        };
        let whole = run_to_end(simulation());
        for budget in [1, 3, 50] {
            let (sliced, steps) = run_in_steps(simulation(), budget);
            assert_eq!(
                format!("{:?}", sliced.records),
                format!("{:?}", whole.records)
            );
            assert_eq!(sliced.most_in_window, whole.most_in_window);
            if budget == 1 {
                assert!(steps > trace.len(), "{steps} steps");
            }
        }
        let job = simulation();
        assert_eq!(Job::progress(&job).what, "Emulating the Durable Object");
        assert_eq!(Job::progress(&job).done, 0);
    }

    #[test]
    fn the_run_names_what_it_is_doing_and_only_a_large_trace_asks_for_fresh_slices() {
        let state = crate::core::url::parse_query("algos=fixed&do=1").state;
        let mut computation = Computation::<Complete>::new(&state);
        assert!(!computation.large());
        let mut seen = Vec::new();
        loop {
            assert!(!computation.heavy_next(), "a small trace never waits");
            let what = computation.progress().what;
            if seen.last() != Some(&what) {
                seen.push(what);
            }
            if computation.step(1) == Step::Done {
                break;
            }
        }
        assert_eq!(
            seen,
            [
                "Running the limiters",
                "Emulating the Durable Object",
                "Running the limiters"
            ]
        );
        let times: Vec<Time> = (0..=LARGE_TRACE as u64).map(Time::from_millis).collect();
        let mut large = Computation::<Complete>::new(&LabState {
            pattern: Pattern::Trace(Arc::new(times)),
            ..state
        });
        assert!(large.large());
        while large.step(Computation::<Complete>::BUDGET) == Step::More && !large.long_step_next() {
        }
        assert!(
            large.heavy_next(),
            "a large row's wrap-up waits for a fresh slice"
        );
    }
}
