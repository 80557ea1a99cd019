//! Traffic: the requests every algorithm is shown, and the presets that generate them.
//!
//! Presets scale with the limit and window so that each keeps telling its story at any setting;
//! all arithmetic is in integer microseconds, so the same settings always give the same trace.

use std::fmt;

use std::sync::Arc;

use super::region::Region;
use super::rng::SeededRng;
use super::time::{Span, Time, MICROS_PER_SEC};

/// One request: when it arrives, whose it is (an index into the trace's key table), its cost,
/// and, for a person's own traffic, where it came from and which route it asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub at: Time,
    pub key: u32,
    pub cost: u32,
    /// The Cloudflare location it reached, when the traffic says so (CSV's region column).
    pub origin: Option<Region>,
    /// 0 for the lab's own route, else `n` for the trace's route `n - 1` (see `Trace::routes`).
    pub route: u16,
}

impl Request {
    /// A unit-cost request of `key` at `at`, with no origin or route of its own.
    pub fn new(at: Time, key: u32) -> Request {
        Request {
            at,
            key,
            cost: 1,
            origin: None,
            route: 0,
        }
    }
}

/// One request of a person's own traffic, as given (a line of a file, an item of a link).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub at: Time,
    pub key: String,
    pub origin: Option<Region>,
    pub route: Option<String>,
    /// What the request asks for: governor's `n`, redis-cell's quantity, a token bucket's
    /// tokens; 1 unless the traffic says otherwise.
    pub cost: u32,
}

impl Point {
    pub fn new(at: Time, key: impl Into<String>) -> Point {
        Point {
            at,
            key: key.into(),
            origin: None,
            route: None,
            cost: 1,
        }
    }
}

/// Requests in arrival order, with their keys and the routes they name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    keys: Vec<String>,
    requests: Vec<Request>,
    routes: Vec<String>,
}

impl Trace {
    /// A trace of unit-cost requests for a single key, sorted into arrival order.
    pub fn single_key(key: &str, mut times: Vec<Time>) -> Trace {
        // Equal times are interchangeable: an unstable sort is exact here.
        times.sort_unstable();
        let requests = times.into_iter().map(|at| Request::new(at, 0)).collect();
        Trace {
            keys: vec![key.to_string()],
            requests,
            routes: Vec::new(),
        }
    }

    /// A trace from a key table and requests in any order; requests naming a key outside the
    /// table are dropped. Requests are put in arrival order (ties keep their given order).
    pub fn new(keys: Vec<String>, mut requests: Vec<Request>) -> Trace {
        requests.retain(|r| (r.key as usize) < keys.len());
        let mut trace = Trace {
            keys,
            requests,
            routes: Vec::new(),
        };
        trace.sort_into_arrival_order();
        trace
    }

    /// Puts the requests in arrival order; requests at the same time keep their order.
    fn sort_into_arrival_order(&mut self) {
        self.requests.sort_by_key(|r| r.at);
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
        self.requests
            .extend(times.iter().map(|&at| Request::new(at, id)));
        self.sort_into_arrival_order();
    }

    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The routes a person's traffic names, in order of first appearance (`Request::route` - 1).
    pub fn routes(&self) -> &[String] {
        &self.routes
    }

    pub fn key_name(&self, key: u32) -> &str {
        self.keys
            .get(key as usize)
            .map(String::as_str)
            .unwrap_or("?")
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

/// Gives each distinct name a number, in the order names are first seen: an open-addressing
/// table of indices into `names`, hashed with FNV-1a. A million requests over ten thousand keys
/// take one hash and usually one comparison each (a sorted table took ten times as long, its
/// insertions shifting thousands of entries per new key). A `HashMap` from name to number would
/// keep a second copy of every name beside `names`; this table holds only the numbers. Its hash
/// is FNV-1a because a word-at-a-time hash measured slower in the browser.
#[derive(Default)]
struct Interner {
    names: Vec<String>,
    /// Indices into `names`, or `EMPTY` for a free slot (a `u32` rather than an `Option<u32>`,
    /// which would double the table); its length is zero or a power of two above twice the
    /// number of names.
    slots: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl Interner {
    /// FNV-1a over the bytes.
    fn hash(name: &str) -> usize {
        name.bytes().fold(0x811c_9dc5u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        }) as usize
    }

    /// The number of `name`, adding it if new.
    fn id(&mut self, name: &str) -> usize {
        if (self.names.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = Interner::hash(name) & mask;
        loop {
            match self.slots[i] {
                EMPTY => {
                    self.slots[i] = self.names.len() as u32;
                    self.names.push(name.to_string());
                    return self.names.len() - 1;
                }
                id if self.names[id as usize] == name => return id as usize,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        self.slots = vec![EMPTY; size];
        for (id, name) in self.names.iter().enumerate() {
            let mut i = Interner::hash(name) & (size - 1);
            while self.slots[i] != EMPTY {
                i = (i + 1) & (size - 1);
            }
            self.slots[i] = id as u32;
        }
    }
}

/// A person's keyed requests turned into a trace a slice of points at a time: numbering a
/// million requests' keys takes longer than a frame. [`Pattern::generate`] builds one at once.
pub struct KeyedBuild {
    points: Arc<Vec<Point>>,
    next: usize,
    keys: Interner,
    routes: Interner,
    requests: Vec<Request>,
}

impl KeyedBuild {
    pub fn new(points: Arc<Vec<Point>>) -> KeyedBuild {
        let requests = Vec::with_capacity(points.len());
        KeyedBuild {
            points,
            next: 0,
            keys: Interner::default(),
            routes: Interner::default(),
            requests,
        }
    }

    /// Points taken so far, and how many there are.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.points.len())
    }

    /// Takes up to `budget` more points; false once every point is taken.
    pub fn advance(&mut self, budget: usize) -> bool {
        let to = self
            .next
            .saturating_add(budget.max(1))
            .min(self.points.len());
        for point in &self.points[self.next..to] {
            let key = self.keys.id(&point.key) as u32;
            // Routes past u16 share the last index: no real service has that many.
            let route = match &point.route {
                Some(name) => (self.routes.id(name) + 1).min(usize::from(u16::MAX)) as u16,
                None => 0,
            };
            self.requests.push(Request {
                origin: point.origin,
                route,
                cost: point.cost,
                ..Request::new(point.at, key)
            });
        }
        self.next = to;
        self.next < self.points.len()
    }

    /// The trace, in arrival order (points not yet taken are taken first).
    pub fn finish(mut self) -> Trace {
        while self.advance(usize::MAX) {}
        let mut trace = Trace::new(self.keys.names, self.requests);
        trace.routes = self.routes.names;
        trace
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
    /// Twice the allowed rate, evenly spaced, for six windows (at most [`MAX_DOUBLE_REQUESTS`]
    /// requests: fewer windows for a limit above 20,000, and at least a whole one up to 120,000).
    Double,
    /// A burst of twice the limit, then a trickle at exactly the allowed rate.
    BurstTrickle,
    /// A retry storm: a burst of twice the limit, then every refused client retrying every
    /// 1/25 of a window for two windows, whatever it is told.
    RetryStorm,
    /// Seeded Poisson arrivals at 1.5 times the allowed rate for six windows.
    Poisson { seed: u64 },
    /// Three keys at once: `tenant:a` bursts at the window edge, `tenant:b` sends steadily at
    /// half the rate, `ip:203.0.113.7` bursts early. Each key has its own limiter.
    SeveralKeys,
    /// Request times given by a person (a pasted list, or their clicks), in seconds. Shared, like
    /// `Keyed`: a million times copied and compared on every change would stall the page.
    Trace(Arc<Vec<Time>>),
    /// Requests with their keys (and origins and routes, when given), for traffic of several
    /// keys given by a person. Shared: the page copies its state on every change, and a million
    /// named points copied each time would stall it.
    Keyed(Arc<Vec<Point>>),
}

/// The longest key a request may name.
pub const MAX_KEY_LEN: usize = 100;

/// The most requests of the `double` pattern: twice a limit of 20,000 for six windows, so that the
/// hot key of the Durable Object lab (20,000 a second) really comes at twice its rate.
pub const MAX_DOUBLE_REQUESTS: u128 = 240_000;

/// The most a request of a person's traffic may cost: as large as the largest limit the lab
/// takes (`lab_state::MAX_LAB_LIMIT`).
pub const MAX_COST: u32 = 1_000_000;

/// A request's cost as a trace item or a CSV line gives it: a whole number, 1 to [`MAX_COST`].
pub fn parse_cost(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|c| (1..=MAX_COST).contains(c))
        .ok_or_else(|| {
            format!(
                "a request's cost must be a whole number from 1 to {MAX_COST}, not {}",
                crate::core::quote::quoted(text.trim())
            )
        })
}

/// Keys of the several-keys preset, in key-table order.
pub const SEVERAL_KEYS: [&str; 3] = ["tenant:a", "tenant:b", "ip:203.0.113.7"];

impl Pattern {
    /// The name used in URLs (`pattern=`).
    pub fn slug(&self) -> &'static str {
        match self {
            Pattern::Edge => "edge",
            Pattern::Steady => "steady",
            Pattern::Double => "double",
            Pattern::BurstTrickle => "burst-trickle",
            Pattern::RetryStorm => "retry-storm",
            Pattern::Poisson { .. } => "poisson",
            Pattern::SeveralKeys => "several-keys",
            Pattern::Trace(times) if times.is_empty() => "clicks",
            Pattern::Trace(_) | Pattern::Keyed(_) => "trace",
        }
    }

    /// The presets a person can pick, in menu order (`Trace` stands for "my clicks").
    pub fn presets(seed: u64) -> [Pattern; 8] {
        [
            Pattern::Edge,
            Pattern::Double,
            Pattern::BurstTrickle,
            Pattern::Steady,
            Pattern::RetryStorm,
            Pattern::Poisson { seed },
            Pattern::SeveralKeys,
            Pattern::Trace(Arc::default()),
        ]
    }

    pub fn label(&self) -> &'static str {
        match self {
            Pattern::Edge => "Burst at the window edge",
            Pattern::Steady => "Steady, one a second",
            Pattern::Double => "Double the allowed rate",
            Pattern::BurstTrickle => "Burst, then a trickle",
            Pattern::RetryStorm => "Retry storm",
            Pattern::Poisson { .. } => "Random (Poisson) at 1.5× the rate",
            Pattern::SeveralKeys => "Several keys at once",
            Pattern::Trace(times) if times.is_empty() => "My clicks",
            Pattern::Trace(_) | Pattern::Keyed(_) => "Your own request times",
        }
    }

    /// How many requests a person gave (a pasted or uploaded trace, or their clicks); 0 for a
    /// preset, whose size follows the limit and window.
    pub fn given_len(&self) -> usize {
        match self {
            Pattern::Trace(times) => times.len(),
            Pattern::Keyed(points) => points.len(),
            _ => 0,
        }
    }

    /// The same requests as an explicit list of points: what "Send a request" extends.
    pub fn to_keyed(trace: &Trace) -> Pattern {
        Pattern::from_points(Pattern::points_of(trace))
    }

    /// A trace's requests as points, in its order.
    pub fn points_of(trace: &Trace) -> Vec<Point> {
        trace
            .requests()
            .iter()
            .map(|r| Point {
                at: r.at,
                key: trace.key_name(r.key).to_string(),
                origin: r.origin,
                route: usize::from(r.route)
                    .checked_sub(1)
                    .and_then(|i| trace.routes().get(i))
                    .cloned(),
                cost: r.cost,
            })
            .collect()
    }

    /// A person's requests: a plain time list when they all belong to the default key.
    pub fn from_points(points: Vec<Point>) -> Pattern {
        if points
            .iter()
            .all(|p| p.key == DEFAULT_KEY && p.origin.is_none() && p.route.is_none() && p.cost == 1)
        {
            Pattern::Trace(Arc::new(points.into_iter().map(|p| p.at).collect()))
        } else {
            Pattern::Keyed(Arc::new(points))
        }
    }

    /// Generates the requests for `limit` per `window`.
    pub fn generate(&self, limit: u64, window: Span) -> Trace {
        match self {
            Pattern::SeveralKeys => {
                let w = u128::from(window.micros());
                let n = u128::from(limit.clamp(1, 10_000));
                let at = |micros: u128| Time(u64::try_from(micros).unwrap_or(u64::MAX));
                let a = Pattern::Edge.times(limit, window);
                // Half the allowed rate for four windows: one request every 2·window/limit.
                let b: Vec<Time> = (0..2 * n).map(|i| at(2 * w * i / n)).collect();
                // A burst of twice the limit within the first fifth of a window, from 0.3 windows.
                let c: Vec<Time> = (0..2 * n)
                    .map(|i| at(3 * w / 10 + w * i / (10 * n)))
                    .collect();
                let mut trace = Trace::single_key(SEVERAL_KEYS[0], a);
                trace.push_key_requests(SEVERAL_KEYS[1], &b);
                trace.push_key_requests(SEVERAL_KEYS[2], &c);
                trace
            }
            Pattern::Keyed(points) => KeyedBuild::new(points.clone()).finish(),
            _ => Trace::single_key(DEFAULT_KEY, self.times(limit, window)),
        }
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
                let count = (12 * l).min(MAX_DOUBLE_REQUESTS);
                (0..count).map(|i| at(w * i / (2 * l))).collect()
            }
            Pattern::BurstTrickle => {
                let burst = (2 * n).min(20_000);
                let mut times: Vec<Time> = (0..u128::from(burst))
                    .map(|i| at(w * i / (10 * u128::from(burst))))
                    .collect();
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
            Pattern::RetryStorm => {
                let clients = n.min(50);
                let mut times: Vec<Time> = (0..u128::from(2 * clients))
                    .map(|i| at(w / 10 + w * i / (100 * u128::from(clients))))
                    .collect();
                // The clients turned away (all but `limit` of them, at most 50) hammer on.
                for client in 0..u128::from(clients) {
                    for k in 1..=50u128 {
                        times.push(at(w / 5
                            + client * w / (1000 * u128::from(clients))
                            + k * w / 25));
                    }
                }
                times
            }
            Pattern::Poisson { seed } => {
                let mut rng = SeededRng::new(*seed);
                // Mean gap: window / (1.5 · limit).
                let mean = u64::try_from(2 * w / (3 * l)).unwrap_or(u64::MAX).max(1);
                let end = 6 * w;
                let mut t: u128 = 0;
                let mut times = Vec::new();
                while times.len() < 20_000 {
                    t += u128::from(rng.exponential_micros(mean));
                    if t >= end {
                        break;
                    }
                    times.push(at(t));
                }
                times
            }
            Pattern::SeveralKeys => Pattern::Edge.times(limit, window),
            Pattern::Trace(times) => times.to_vec(),
            Pattern::Keyed(points) => points.iter().map(|p| p.at).collect(),
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
    fn keys_that_differ_only_in_their_last_letters_spread_over_the_table() {
        // Ten thousand `tenant:N` keys: every probe sequence stays short.
        let mut interner = Interner::default();
        for i in 0..10_000 {
            interner.id(&format!("tenant:{i}"));
        }
        let mask = interner.slots.len() - 1;
        let longest_probe = interner
            .names
            .iter()
            .enumerate()
            .map(|(id, name)| {
                let mut i = Interner::hash(name) & mask;
                let mut probes = 1;
                while interner.slots[i] != id as u32 {
                    i = (i + 1) & mask;
                    probes += 1;
                }
                probes
            })
            .max()
            .unwrap_or(0);
        assert!(longest_probe < 40, "a probe sequence of {longest_probe}");
    }

    #[test]
    fn the_interner_numbers_names_in_the_order_first_seen_through_every_growth() {
        let mut interner = Interner::default();
        let names: Vec<String> = (0..5_000)
            .map(|i| format!("tenant:{}", (i * 7919) % 3_000))
            .collect();
        let ids: Vec<usize> = names.iter().map(|n| interner.id(n)).collect();
        assert_eq!(interner.names.len(), 3_000);
        for (name, &id) in names.iter().zip(&ids) {
            assert_eq!(&interner.names[id], name);
        }
        // First seen, first numbered: the ids appear in increasing order of first appearance.
        let mut next = 0;
        for &id in &ids {
            assert!(id <= next);
            if id == next {
                next += 1;
            }
        }
        assert_eq!(interner.id(""), 3_000, "an empty name is a name");
        assert_eq!(interner.id("tenant:0"), 0);
    }

    #[test]
    fn the_edge_preset_at_five_per_ten_seconds_is_the_explainers_ten_requests() {
        let trace = Pattern::Edge.generate(5, Span::from_secs(10));
        let ms: Vec<u64> = trace
            .requests()
            .iter()
            .map(|r| r.at.micros() / 1000)
            .collect();
        assert_eq!(
            ms,
            [8000, 8398, 8796, 9194, 9592, 10000, 10398, 10796, 11194, 11592]
        );
        assert!(
            trace.requests().iter().all(|r| r.at.micros() % 1000 == 0),
            "exact to the microsecond"
        );
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
        let trace =
            Pattern::Trace(vec![Time(3), Time(1), Time(2)].into()).generate(5, Span::from_secs(1));
        let times: Vec<u64> = trace.requests().iter().map(|r| r.at.micros()).collect();
        assert_eq!(times, [1, 2, 3]);
    }

    #[test]
    fn the_several_keys_preset_has_three_keys_each_with_its_own_traffic() {
        let trace = Pattern::SeveralKeys.generate(5, Span::from_secs(10));
        assert_eq!(trace.keys(), SEVERAL_KEYS);
        for key in 0..3u32 {
            assert_eq!(trace.requests().iter().filter(|r| r.key == key).count(), 10);
        }
        assert!(trace.requests().windows(2).all(|p| p[0].at <= p[1].at));
    }

    #[test]
    fn poisson_traffic_is_seeded_and_near_one_and_a_half_times_the_rate() {
        let a = Pattern::Poisson { seed: 3 }.generate(50, Span::from_secs(10));
        assert_eq!(
            a,
            Pattern::Poisson { seed: 3 }.generate(50, Span::from_secs(10))
        );
        assert_ne!(
            a,
            Pattern::Poisson { seed: 4 }.generate(50, Span::from_secs(10))
        );
        // 1.5 × 50 per 10 s for 60 s: 450 expected.
        assert!((400..500).contains(&a.len()), "{}", a.len());
    }

    #[test]
    fn the_retry_storm_hammers_after_its_burst() {
        let trace = Pattern::RetryStorm.generate(5, Span::from_secs(10));
        assert_eq!(trace.len(), 10 + 5 * 50);
        assert!(trace.end() <= Time::from_secs(23));
    }

    #[test]
    fn a_keyed_list_gives_one_limiter_key_per_name_in_order_of_first_use() {
        let pattern = Pattern::Keyed(
            vec![
                Point::new(Time(3), "b"),
                Point::new(Time(1), "a"),
                Point::new(Time(2), "b"),
            ]
            .into(),
        );
        let trace = pattern.generate(5, Span::from_secs(1));
        assert_eq!(trace.keys(), ["b", "a"]);
        let order: Vec<(u64, &str)> = trace
            .requests()
            .iter()
            .map(|r| (r.at.micros(), trace.key_name(r.key)))
            .collect();
        assert_eq!(order, [(1, "a"), (2, "b"), (3, "b")]);
        assert_eq!(Pattern::to_keyed(&trace), pattern_sorted());
    }

    fn pattern_sorted() -> Pattern {
        Pattern::Keyed(
            vec![
                Point::new(Time(1), "a"),
                Point::new(Time(2), "b"),
                Point::new(Time(3), "b"),
            ]
            .into(),
        )
    }

    #[test]
    fn a_list_of_only_the_default_key_stays_a_plain_time_list() {
        let trace = Pattern::Edge.generate(5, Span::from_secs(10));
        assert!(matches!(Pattern::to_keyed(&trace), Pattern::Trace(times) if times.len() == 10));
    }

    #[test]
    fn a_huge_limit_does_not_build_a_huge_preset() {
        assert!(
            Pattern::RetryStorm
                .generate(1_000_000, Span::from_secs(1))
                .len()
                <= 3_000
        );
        assert!(
            Pattern::Poisson { seed: 1 }
                .generate(1_000_000, Span::from_secs(1))
                .len()
                <= 20_000
        );
        assert!(
            Pattern::Double
                .generate(1_000_000, Span::from_secs(1))
                .len()
                <= 240_000
        );
        assert!(
            Pattern::BurstTrickle
                .generate(1_000_000, Span::from_secs(1))
                .len()
                <= 70_000
        );
    }

    #[test]
    fn double_the_allowed_rate_is_twice_the_limit_in_every_whole_window_up_to_a_large_limit() {
        for (limit, windows) in [(5, 6), (20_000, 6), (120_000, 1)] {
            let window = Span::from_secs(1);
            let trace = Pattern::Double.generate(limit, window);
            for w in 0..windows {
                let from = Time::from_secs(w);
                let to = Time::from_secs(w + 1);
                let inside = trace
                    .requests()
                    .iter()
                    .filter(|r| r.at >= from && r.at < to)
                    .count() as u64;
                assert_eq!(inside, 2 * limit, "limit {limit}, window {w}");
            }
        }
    }

    #[test]
    fn requests_at_the_same_time_keep_their_given_order() {
        let keys = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let at = |t, key| Request::new(Time(t), key);
        let mut trace = Trace::new(keys, vec![at(2, 0), at(1, 1), at(2, 2), at(1, 0), at(2, 1)]);
        assert_eq!(
            trace.requests(),
            [at(1, 1), at(1, 0), at(2, 0), at(2, 2), at(2, 1)]
        );
        trace.push_key_requests("d", &[Time(1), Time(0)]);
        let order: Vec<(u64, u32)> = trace
            .requests()
            .iter()
            .map(|r| (r.at.micros(), r.key))
            .collect();
        assert_eq!(
            order,
            [(0, 3), (1, 1), (1, 0), (1, 3), (2, 0), (2, 2), (2, 1)]
        );
    }
}
