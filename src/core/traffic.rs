//! Traffic: the requests every algorithm is shown, and the presets that generate them.
//!
//! Presets scale with the limit and window so that each keeps telling its story at any setting;
//! all arithmetic is in integer microseconds, so the same settings always give the same trace.

use std::fmt;

use super::time::{Span, Time, MICROS_PER_SEC};

/// One request: when it arrives, whose it is (an index into the trace's key table), its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub at: Time,
    pub key: u32,
    pub cost: u32,
}

/// Requests in arrival order, with their keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    keys: Vec<String>,
    requests: Vec<Request>,
}

impl Trace {
    /// A trace of unit-cost requests for a single key, sorted into arrival order.
    pub fn single_key(key: &str, mut times: Vec<Time>) -> Trace {
        times.sort();
        let requests = times.into_iter().map(|at| Request { at, key: 0, cost: 1 }).collect();
        Trace { keys: vec![key.to_string()], requests }
    }

    /// A trace from a key table and requests in any order; requests naming a key outside the
    /// table are dropped. Requests are put in arrival order (ties keep their given order).
    pub fn new(keys: Vec<String>, mut requests: Vec<Request>) -> Trace {
        requests.retain(|r| (r.key as usize) < keys.len());
        requests.sort_by_key(|r| r.at);
        Trace { keys, requests }
    }

    /// Adds the unit-cost requests of another key and keeps the trace in arrival order (requests
    /// at the same time keep the order they were added in).
    pub fn push_key_requests(&mut self, key: &str, times: &[Time]) {
        let id = match self.keys.iter().position(|k| k == key) {
            Some(i) => i as u32,
            None => {
                self.keys.push(key.to_string());
                (self.keys.len() - 1) as u32
            }
        };
        self.requests.extend(times.iter().map(|&at| Request { at, key: id, cost: 1 }));
        self.requests.sort_by_key(|r| r.at);
    }

    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    pub fn key_name(&self, key: u32) -> &str {
        self.keys.get(key as usize).map(String::as_str).unwrap_or("?")
    }

    pub fn len(&self) -> usize {
        self.requests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The time of the last request, or zero for an empty trace.
    pub fn end(&self) -> Time {
        self.requests.last().map(|r| r.at).unwrap_or(Time::ZERO)
    }
}

/// The key the presets use.
pub const DEFAULT_KEY: &str = "tenant:demo";

/// A traffic preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// The explainer's burst at the window edge: `limit` requests in the last fifth of the first
    /// window and `limit` at the start of the second.
    Edge,
    /// One request a second for 60 s.
    Steady,
    /// Twice the allowed rate, evenly spaced, for six windows.
    Double,
    /// A burst of twice the limit, then a trickle at exactly the allowed rate.
    BurstTrickle,
    /// Request times given by a person, in seconds.
    Trace(Vec<Time>),
}

impl Pattern {
    /// The name used in URLs (`pattern=`).
    pub fn slug(&self) -> &'static str {
        match self {
            Pattern::Edge => "edge",
            Pattern::Steady => "steady",
            Pattern::Double => "double",
            Pattern::BurstTrickle => "burst-trickle",
            Pattern::Trace(_) => "trace",
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Pattern::Edge => "Burst at the window edge",
            Pattern::Steady => "Steady, one a second",
            Pattern::Double => "Double the allowed rate",
            Pattern::BurstTrickle => "Burst, then a trickle",
            Pattern::Trace(_) => "Your own request times",
        }
    }

    /// Generates the requests for `limit` per `window`.
    pub fn generate(&self, limit: u64, window: Span) -> Trace {
        Trace::single_key(DEFAULT_KEY, self.times(limit, window))
    }

    fn times(&self, limit: u64, window: Span) -> Vec<Time> {
        let w = u128::from(window.micros());
        let l = u128::from(limit.max(1));
        // Presets are for watching: cap them so a huge limit cannot build a huge trace.
        let n = limit.clamp(1, 10_000);
        let at = |micros: u128| Time(u64::try_from(micros).unwrap_or(u64::MAX));
        match self {
            Pattern::Edge => {
                // The explainer's spread(8, 9.99, 5) and spread(10, 11.99, 5), scaled by window / 10 s:
                // request i of each half sits 0.199·window·i/limit after 0.8·window and 1.0·window.
                let mut times = Vec::with_capacity(2 * n as usize);
                for start in [8 * w / 10, w] {
                    for i in 0..u128::from(n) {
                        times.push(at(start + 199 * w * i / (1000 * l)));
                    }
                }
                times
            }
            Pattern::Steady => (0..60).map(|s| Time(s * MICROS_PER_SEC)).collect(),
            Pattern::Double => {
                let count = (12 * n).min(20_000);
                (0..u128::from(count)).map(|i| at(w * i / (2 * l))).collect()
            }
            Pattern::BurstTrickle => {
                let burst = (2 * n).min(20_000);
                let mut times: Vec<Time> = (0..u128::from(burst)).map(|i| at(w * i / (10 * u128::from(burst)))).collect();
                // Then one request per window/limit, from half a window to four windows.
                let mut k: u128 = 0;
                loop {
                    let t = w / 2 + w * k / l;
                    if t > 4 * w || k > 40_000 {
                        break;
                    }
                    times.push(at(t));
                    k += 1;
                }
                times
            }
            Pattern::Trace(times) => times.clone(),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edge_preset_at_five_per_ten_seconds_is_the_explainers_ten_requests() {
        let trace = Pattern::Edge.generate(5, Span::from_secs(10));
        let ms: Vec<u64> = trace.requests().iter().map(|r| r.at.micros() / 1000).collect();
        assert_eq!(ms, [8000, 8398, 8796, 9194, 9592, 10000, 10398, 10796, 11194, 11592]);
        assert!(trace.requests().iter().all(|r| r.at.micros() % 1000 == 0), "exact to the microsecond");
    }

    #[test]
    fn the_edge_preset_scales_with_limit_and_window() {
        let trace = Pattern::Edge.generate(3, Span::from_secs(60));
        assert_eq!(trace.len(), 6);
        assert_eq!(trace.requests()[0].at, Time::from_secs(48));
        assert_eq!(trace.requests()[3].at, Time::from_secs(60));
    }

    #[test]
    fn steady_is_one_request_a_second_for_a_minute() {
        let trace = Pattern::Steady.generate(5, Span::from_secs(10));
        assert_eq!(trace.len(), 60);
        assert_eq!(trace.end(), Time::from_secs(59));
    }

    #[test]
    fn a_given_trace_is_put_in_arrival_order() {
        let trace = Pattern::Trace(vec![Time(3), Time(1), Time(2)]).generate(5, Span::from_secs(1));
        let times: Vec<u64> = trace.requests().iter().map(|r| r.at.micros()).collect();
        assert_eq!(times, [1, 2, 3]);
    }

    #[test]
    fn a_huge_limit_does_not_build_a_huge_preset() {
        assert!(Pattern::Double.generate(1_000_000, Span::from_secs(1)).len() <= 20_000);
        assert!(Pattern::BurstTrickle.generate(1_000_000, Span::from_secs(1)).len() <= 70_000);
    }
}
