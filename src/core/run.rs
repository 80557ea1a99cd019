//! Runs one trace through several algorithms, one limiter per key, and measures what each did
//! against the promise "at most `limit` in any window".

use super::config::ConfigError;
use super::decision::{Decision, Limiter, Verdict};
use super::limiter::{Algorithm, AnyLimiter, Settings};
use super::profiles::ProductReply;
use super::time::{Span, Time};
use super::traffic::Trace;

/// What one algorithm did with the whole trace.
#[derive(Clone, Debug)]
pub struct AlgorithmRun {
    pub algorithm: Algorithm,
    /// One decision per request, in the trace's order.
    pub decisions: Vec<Decision>,
    /// Served at once.
    pub allowed: u64,
    /// Accepted but held back (leaky bucket without `nodelay`).
    pub delayed: u64,
    pub rejected: u64,
    /// The most requests any one key had served inside a single window (by the time they were
    /// served, so a delayed request counts when it is released).
    pub max_in_window: u64,
    /// When that busiest window ends (the time of its last served request).
    pub max_window_end: Time,
    /// Which key had it.
    pub max_window_key: u32,
    /// Per key, the times requests were served (sorted; a request of cost `c` appears `c` times).
    pub served: Vec<Vec<Time>>,
}

impl AlgorithmRun {
    /// Requests let through, now or later.
    pub fn passed(&self) -> u64 {
        self.allowed + self.delayed
    }

    /// How many of `key`'s requests were served inside the window `(end - window, end]`.
    pub fn served_in_window(&self, key: u32, end: Time, window: Span) -> u64 {
        self.served.get(key as usize).map(|times| count_in_window(times, end, window)).unwrap_or(0)
    }

    /// The most any one key had served inside the window `(end - window, end]`.
    pub fn busiest_key_in_window(&self, end: Time, window: Span) -> u64 {
        self.served.iter().map(|times| count_in_window(times, end, window)).max().unwrap_or(0)
    }
}

/// How many of the sorted `times` fall in `(end - window, end]`.
pub fn count_in_window(times: &[Time], end: Time, window: Span) -> u64 {
    let upto = times.partition_point(|&t| t <= end);
    let from = match end.micros().checked_sub(window.micros()) {
        Some(cutoff) => times.partition_point(|&t| t.micros() <= cutoff),
        None => 0,
    };
    upto.saturating_sub(from) as u64
}

/// Runs `trace` through every algorithm in `algorithms` under `settings`.
pub fn run_all(trace: &Trace, algorithms: &[Algorithm], settings: &Settings) -> Result<Vec<AlgorithmRun>, ConfigError> {
    algorithms.iter().map(|&a| run_one(trace, a, settings)).collect()
}

/// What the product behind `algorithm` answered to request `index` of `trace`: its key's earlier
/// requests are replayed through a fresh limiter, so the reply is the one the run's decision came
/// with. `None` for the textbook algorithms, which have no product reply, and for an index past
/// the end.
pub fn product_reply(trace: &Trace, algorithm: Algorithm, settings: &Settings, index: usize) -> Option<ProductReply> {
    if !algorithm.is_product() {
        return None;
    }
    let requests = trace.requests();
    let target = requests.get(index)?;
    let mut limiter = algorithm.build(settings).ok()?;
    for earlier in requests[..index].iter().filter(|r| r.key == target.key) {
        limiter.decide(earlier.at, u64::from(earlier.cost));
    }
    limiter.decide_with_reply(target.at, u64::from(target.cost)).1
}

/// Runs `trace` through one algorithm, keeping a separate limiter per key.
pub fn run_one(trace: &Trace, algorithm: Algorithm, settings: &Settings) -> Result<AlgorithmRun, ConfigError> {
    let mut builder = RunBuilder::new(trace, algorithm, settings)?;
    builder.advance(trace, usize::MAX);
    Ok(builder.finish(settings.window))
}

/// One algorithm's run, built a slice of requests at a time so that a large trace can be run
/// between frames; the result is the same as running it at once.
pub struct RunBuilder {
    algorithm: Algorithm,
    template: AnyLimiter,
    per_key: Vec<Option<AnyLimiter>>,
    decisions: Vec<Decision>,
    counts: (u64, u64, u64),
    served: Vec<Vec<Time>>,
}

impl RunBuilder {
    pub fn new(trace: &Trace, algorithm: Algorithm, settings: &Settings) -> Result<RunBuilder, ConfigError> {
        Ok(RunBuilder {
            algorithm,
            template: algorithm.build(settings)?,
            per_key: vec![None; trace.keys().len()],
            // Grown as decided, not reserved at once: a million decisions reserved in one go is a
            // single allocation long enough to stall a frame.
            decisions: Vec::new(),
            counts: (0, 0, 0),
            served: vec![Vec::new(); trace.keys().len()],
        })
    }

    /// Requests decided so far.
    pub fn done(&self) -> usize {
        self.decisions.len()
    }

    /// Decides up to `budget` more requests of `trace` (the trace this builder was made for).
    pub fn advance(&mut self, trace: &Trace, budget: usize) {
        let from = self.decisions.len();
        let to = from.saturating_add(budget).min(trace.len());
        for request in &trace.requests()[from..to] {
            let slot = self.per_key.get_mut(request.key as usize);
            let decision = match slot {
                Some(slot) => slot.get_or_insert_with(|| self.template.clone()).decide(request.at, u64::from(request.cost)),
                None => self.template.clone().decide(request.at, u64::from(request.cost)),
            };
            let served_at = match decision.verdict {
                Verdict::Allowed => {
                    self.counts.0 += 1;
                    Some(request.at)
                }
                Verdict::Delayed { by } => {
                    self.counts.1 += 1;
                    Some(request.at.plus(by))
                }
                Verdict::Rejected => {
                    self.counts.2 += 1;
                    None
                }
            };
            if let (Some(at), Some(times)) = (served_at, self.served.get_mut(request.key as usize)) {
                times.extend(std::iter::repeat_n(at, request.cost as usize));
            }
            self.decisions.push(decision);
        }
    }

    /// The run, with each key's busiest window under `window`.
    pub fn finish(mut self, window: Span) -> AlgorithmRun {
        let mut best = (0u64, Time::ZERO, 0u32);
        for (key, times) in self.served.iter_mut().enumerate() {
            // Already in order unless delays reordered them; the sort is then nearly free.
            times.sort_unstable();
            let (count, end) = busiest_window(times, window);
            if count > best.0 || (count == best.0 && count > 0 && end < best.1) {
                best = (count, end, key as u32);
            }
        }
        let (max_in_window, max_window_end, max_window_key) = best;
        let (allowed, delayed, rejected) = self.counts;
        AlgorithmRun {
            algorithm: self.algorithm,
            decisions: self.decisions,
            allowed,
            delayed,
            rejected,
            max_in_window,
            max_window_end,
            max_window_key,
            served: self.served,
        }
    }
}

/// The most sorted `times` that fall in one window `(end - window, end]`, and the earliest such
/// `end`. Half-open like the sliding log: a request exactly one window older has left it.
pub fn busiest_window(times: &[Time], window: Span) -> (u64, Time) {
    let mut best = (0u64, Time::ZERO);
    let mut first = 0usize;
    for (last, &end) in times.iter().enumerate() {
        while end.micros().checked_sub(window.micros()).is_some_and(|cutoff| times[first].micros() <= cutoff) {
            first += 1;
        }
        let count = (last - first + 1) as u64;
        if count > best.0 {
            best = (count, end);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::traffic::Pattern;

    fn counts(pattern: Pattern) -> Vec<(Algorithm, u64)> {
        let settings = Settings::default();
        let trace = pattern.generate(settings.limit, settings.window);
        run_all(&trace, &Algorithm::ALL, &settings).unwrap().iter().map(|r| (r.algorithm, r.passed())).collect()
    }

    #[test]
    fn the_explainers_window_edge_run_gives_fixed_10_sliding_5_bucket_6() {
        let c = counts(Pattern::Edge);
        assert_eq!(c[0], (Algorithm::FixedWindow, 10));
        assert_eq!(c[1], (Algorithm::SlidingLog, 5));
        assert_eq!(c[3], (Algorithm::TokenBucket, 6));
    }

    #[test]
    fn the_explainers_steady_run_gives_fixed_30_sliding_30_bucket_34() {
        let c = counts(Pattern::Steady);
        assert_eq!(c[0], (Algorithm::FixedWindow, 30));
        assert_eq!(c[1], (Algorithm::SlidingLog, 30));
        assert_eq!(c[3], (Algorithm::TokenBucket, 34));
    }

    #[test]
    fn the_fixed_window_lets_twice_the_limit_into_one_window_at_the_edge() {
        let settings = Settings::default();
        let trace = Pattern::Edge.generate(5, settings.window);
        let run = run_one(&trace, Algorithm::FixedWindow, &settings).unwrap();
        assert_eq!(run.max_in_window, 10);
        let sliding = run_one(&trace, Algorithm::SlidingLog, &settings).unwrap();
        assert_eq!(sliding.max_in_window, 5);
    }

    #[test]
    fn served_in_window_counts_the_half_open_window_ending_at_a_time() {
        let settings = Settings::default();
        let trace = Pattern::Edge.generate(5, settings.window);
        let fixed = run_one(&trace, Algorithm::FixedWindow, &settings).unwrap();
        assert_eq!(fixed.served_in_window(0, Time::from_millis(11_592), settings.window), 10);
        assert_eq!(fixed.served_in_window(0, Time::from_millis(9_999), settings.window), 5);
        assert_eq!(fixed.served_in_window(0, Time::from_secs(18), settings.window), 9, "(8, 18] leaves out the one at 8");
        assert_eq!(fixed.served_in_window(7, Time::from_secs(18), settings.window), 0, "an unknown key");
        assert_eq!((fixed.max_window_end, fixed.max_window_key), (Time::from_millis(11_592), 0));
    }

    #[test]
    fn the_busiest_window_is_half_open() {
        let times = [Time::ZERO, Time::from_secs(10), Time::from_secs(10)];
        assert_eq!(busiest_window(&times, Span::from_secs(10)), (2, Time::from_secs(10)));
        assert_eq!(busiest_window(&times, Span(10_000_001)), (3, Time::from_secs(10)));
        assert_eq!(busiest_window(&[], Span::from_secs(1)), (0, Time::ZERO));
    }

    #[test]
    fn a_second_key_is_never_affected_by_the_first() {
        let settings = Settings::default();
        let mut trace_a = Pattern::Edge.generate(5, settings.window);
        let alone = run_one(&trace_a, Algorithm::SlidingLog, &settings).unwrap().passed();
        // Same requests, plus a heavy second key interleaved.
        trace_a = crate::core::traffic::Trace::single_key("a", trace_a.requests().iter().map(|r| r.at).collect());
        let mut both = trace_a.clone();
        both.push_key_requests("b", &(0..50).map(|i| Time::from_millis(8_000 + i * 10)).collect::<Vec<_>>());
        let runs = run_one(&both, Algorithm::SlidingLog, &settings).unwrap();
        let a_passed = both
            .requests()
            .iter()
            .zip(&runs.decisions)
            .filter(|(r, d)| r.key == 0 && d.allowed())
            .count() as u64;
        assert_eq!(a_passed, alone);
    }
}
