//! What the simulation returns: one record per request, and the aggregates a person reads.

use crate::core::decision::Decision;
use crate::core::http::{respond, HttpResponse, Policy};
use crate::core::profiles::response::binding_worker;
use crate::core::region::Region;
use crate::core::run::{busiest_window, ServedTimes, Steps};
use crate::core::time::{Span, Time};

use super::config::{SimConfig, Tier};
use super::object::ObjectInfo;
use super::traffic::SimTraffic;

/// How the Worker answered a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Allowed,
    Rejected,
    /// Accepted by a leaky-bucket object, served after a delay.
    Delayed,
    /// The object did not answer in time and the route fails open.
    DegradedAllowed,
    /// The object did not answer in time and the route fails closed.
    FailedClosed,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Outcome::Allowed,
        Outcome::Rejected,
        Outcome::Delayed,
        Outcome::DegradedAllowed,
        Outcome::FailedClosed,
    ];

    pub fn word(self) -> &'static str {
        match self {
            Outcome::Allowed => "allowed",
            Outcome::Rejected => "rejected",
            Outcome::Delayed => "delayed",
            Outcome::DegradedAllowed => "degraded-allowed",
            Outcome::FailedClosed => "failed-closed",
        }
    }

    /// The request reached the application.
    pub fn passes(self) -> bool {
        matches!(
            self,
            Outcome::Allowed | Outcome::Delayed | Outcome::DegradedAllowed
        )
    }
}

/// Everything that happened to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    pub key: u32,
    pub origin: Region,
    pub route: u16,
    /// 0 for a client's first try, then 1, 2, … for its retries.
    pub attempt: u8,
    /// What it asks of the limiter.
    pub cost: u32,
    /// Index into `SimReport::objects`; `None` when answered without the hop.
    pub object: Option<u32>,
    pub sent: Time,
    /// When it reached the object and joined its queue.
    pub arrived: Option<Time>,
    /// Requests the object held (in service or waiting) when this one arrived, itself included.
    pub queue_depth: u32,
    /// When the object decided it (its clock, frozen for the decision).
    pub decided: Option<Time>,
    /// When the Worker answered the client.
    pub answered: Time,
    pub outcome: Outcome,
    /// The limiter's decision, when one was made (even if it arrived too late to be used).
    pub decision: Option<Decision>,
    /// The object decided, but after the Worker had given up: its state changed all the same.
    pub late: bool,
    /// Answered in the Worker's location without calling an object (first-tier cache, binding).
    pub local: bool,
}

impl RequestRecord {
    pub(crate) fn new(
        key: u32,
        origin: Region,
        route: u16,
        attempt: u8,
        cost: u32,
        sent: Time,
    ) -> RequestRecord {
        RequestRecord {
            key,
            origin,
            route,
            attempt,
            cost,
            object: None,
            sent,
            arrived: None,
            queue_depth: 0,
            decided: None,
            answered: sent,
            outcome: Outcome::DegradedAllowed,
            decision: None,
            late: false,
            local: false,
        }
    }

    /// Time from the Worker sending the call to it answering the client.
    pub fn latency(&self) -> Span {
        self.answered.since(self.sent)
    }

    /// When the request counts against the promise: when the object let it through (its own
    /// clock, so the network's jitter does not blur the limit it enforced), after the delay for a
    /// delayed one, and when the Worker let it through for one that was not decided in time.
    pub fn served_at(&self) -> Time {
        match (self.outcome, self.decided, self.decision) {
            (Outcome::Allowed, Some(decided), _) => decided,
            (
                Outcome::Delayed,
                Some(decided),
                Some(Decision {
                    verdict: crate::core::decision::Verdict::Delayed { by },
                    ..
                }),
            ) => decided.plus(by),
            _ => self.answered,
        }
    }
}

/// Per-key figures: the limit each key really got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyStats {
    pub key: String,
    pub requests: u64,
    pub passed: u64,
    /// The most requests that reached the application inside one window: the limit this key was
    /// effectively held to.
    pub effective_limit: u64,
}

/// The whole run.
#[derive(Clone, Debug)]
pub struct SimReport {
    pub records: Vec<RequestRecord>,
    pub objects: Vec<ObjectInfo>,
    pub counts: [u64; 5],
    pub late: u64,
    pub local: u64,
    pub p50: Span,
    pub p95: Span,
    pub p99: Span,
    /// The longest latency of any answer.
    pub slowest: Span,
    pub longest_queue: u32,
    /// (time, stored keys) at every change.
    pub stored_keys: Vec<(Time, u32)>,
    pub max_stored_keys: u32,
    pub keys: Vec<KeyStats>,
    /// The most requests any one key got through inside one window: the limit it was held to.
    pub most_in_window: u64,
    /// When that busiest window grew to each count (`core::so_far`).
    pub busiest_by: Steps,
    /// The most any key got through one window beyond the promised limit (0 if none).
    pub excess_over_limit: u64,
    /// Per key, when its requests reached the application (sorted).
    pub served: ServedTimes,
    limit: u64,
    window: Span,
    tier: Tier,
}

/// A report made in three parts, so that a page can give each its own task: a walk over the
/// records, a slice at a time (a million records of about 130 bytes are long to walk); grouping
/// the served times by key (a million writes scattered over every key's list); then the
/// figures worked out from what the walk gathered.
pub(crate) struct ReportWalk {
    next: usize,
    /// Per key, when its requests reached the application: filled in by [`ReportWalk::group`].
    served: Option<ServedTimes>,
    counts: [u64; 5],
    late: u64,
    local: u64,
    latencies: Vec<u64>,
    served_at: Vec<(u32, Time)>,
    requests_per_key: Vec<u64>,
}

impl ReportWalk {
    pub(crate) fn new(keys: usize, records: usize) -> ReportWalk {
        ReportWalk {
            next: 0,
            served: None,
            counts: [0; 5],
            late: 0,
            local: 0,
            latencies: Vec::with_capacity(records),
            served_at: Vec::with_capacity(records),
            requests_per_key: vec![0; keys],
        }
    }

    /// Walks up to `budget` more of `records`; false once every record is walked.
    pub(crate) fn walk(&mut self, records: &[RequestRecord], budget: usize) -> bool {
        let to = self.next.saturating_add(budget.max(1)).min(records.len());
        for r in &records[self.next..to] {
            self.counts[Outcome::ALL
                .iter()
                .position(|&o| o == r.outcome)
                .unwrap_or(0)] += 1;
            self.late += u64::from(r.late);
            self.local += u64::from(r.local);
            self.latencies.push(r.latency().micros());
            if let Some(n) = self.requests_per_key.get_mut(r.key as usize) {
                *n += 1;
            }
            if r.outcome.passes() {
                self.served_at.push((r.key, r.served_at()));
            }
        }
        self.next = to;
        self.next < records.len()
    }

    /// Groups the served times by key, once the walk is over; false if that is already done.
    pub(crate) fn group(&mut self) -> bool {
        if self.served.is_some() {
            return false;
        }
        let served_at = std::mem::take(&mut self.served_at);
        self.served = Some(ServedTimes::group(self.requests_per_key.len(), &served_at));
        true
    }

    /// True once the walk and the grouping are done: what is left is working out the figures.
    pub(crate) fn grouped(&self) -> bool {
        self.served.is_some()
    }
}

/// The latencies at the nearest ranks of `percents` (ascending): for each, the smallest value
/// with at least that share of `latencies` at or below it. Selecting each rank's element is
/// linear, where sorting a million latencies stalled the page; and each selection after the
/// first looks only above the last rank found, since the ranks ascend.
fn percentiles<const N: usize>(latencies: &mut [u64], percents: [u64; N]) -> [Span; N] {
    let len = latencies.len();
    let mut from = 0;
    percents.map(|p| {
        if len == 0 {
            return Span::ZERO;
        }
        let rank = ((p * len as u64).div_ceil(100).max(1) as usize).min(len) - 1;
        let rank = rank.max(from);
        let (_, &mut value, _) = latencies[from..].select_nth_unstable(rank - from);
        from = rank;
        Span(value)
    })
}

impl SimReport {
    /// The report from a finished walk over `records`.
    pub(crate) fn from_walk(
        mut walk: ReportWalk,
        config: &SimConfig,
        traffic: &SimTraffic,
        records: Vec<RequestRecord>,
        objects: Vec<ObjectInfo>,
        stored_keys: Vec<(Time, u32)>,
    ) -> SimReport {
        walk.walk(&records, usize::MAX);
        walk.group();
        let ReportWalk {
            counts,
            late,
            local,
            mut latencies,
            served,
            requests_per_key,
            ..
        } = walk;
        let served = served.unwrap_or_else(|| ServedTimes::group(traffic.keys.len(), &[]));
        let slowest = Span(latencies.iter().copied().max().unwrap_or(0));
        let [p50, p95, p99] = percentiles(&mut latencies, [50, 95, 99]);
        let limit = config.settings.limit;
        let window = config.settings.window;
        let keys: Vec<KeyStats> = served
            .per_key()
            .enumerate()
            .map(|(i, times)| KeyStats {
                key: traffic.key_name(i as u32).to_string(),
                requests: requests_per_key[i],
                passed: times.len() as u64,
                effective_limit: busiest_window(times, window).0,
            })
            .collect();
        let (busiest_by, (most_in_window, _, _)) = Steps::with_busiest(&served, window);
        SimReport {
            counts,
            late,
            local,
            p50,
            p95,
            p99,
            slowest,
            longest_queue: objects.iter().map(|o| o.max_queue).max().unwrap_or(0),
            max_stored_keys: stored_keys.iter().map(|&(_, n)| n).max().unwrap_or(0),
            stored_keys,
            keys,
            most_in_window,
            busiest_by,
            excess_over_limit: most_in_window.saturating_sub(limit),
            served,
            records,
            objects,
            limit,
            window,
            tier: config.tier,
        }
    }

    /// The 95th percentile of the answers the object gave in time (allowed, refused or delayed
    /// by it, or answered in the Worker's location), leaving out the calls the Worker gave up on:
    /// those each took the whole timeout, which says nothing of the distance.
    pub fn p95_answered_in_time(&self) -> Span {
        let mut latencies: Vec<u64> = self
            .records
            .iter()
            .filter(|r| !matches!(r.outcome, Outcome::DegradedAllowed | Outcome::FailedClosed))
            .map(|r| r.latency().micros())
            .collect();
        let [p95] = percentiles(&mut latencies, [95]);
        p95
    }

    /// Calls the Worker gave up on (the object did not answer in time): let through degraded or
    /// refused with 503, by the route's fail mode.
    pub fn timed_out(&self) -> u64 {
        self.count(Outcome::DegradedAllowed) + self.count(Outcome::FailedClosed)
    }

    pub fn count(&self, outcome: Outcome) -> u64 {
        self.counts[Outcome::ALL.iter().position(|&o| o == outcome).unwrap_or(0)]
    }

    /// Requests that reached the application (allowed, delayed or let through degraded).
    pub fn passed(&self) -> u64 {
        Outcome::ALL
            .iter()
            .filter(|o| o.passes())
            .map(|&o| self.count(o))
            .sum()
    }

    /// Stored keys at time `at`.
    pub fn stored_keys_at(&self, at: Time) -> u32 {
        self.stored_keys
            .iter()
            .take_while(|&&(t, _)| t <= at)
            .last()
            .map(|&(_, n)| n)
            .unwrap_or(0)
    }

    /// The most any one key had reach the application inside `(end - window, end]`.
    pub fn busiest_key_in_window(&self, end: Time, window: Span) -> u64 {
        self.served
            .per_key()
            .map(|times| crate::core::run::count_in_window(times, end, window))
            .max()
            .unwrap_or(0)
    }

    pub fn key_stats(&self, key: &str) -> Option<&KeyStats> {
        self.keys.iter().find(|k| k.key == key)
    }

    /// The HTTP response the client received for `record`.
    pub fn response(&self, record: &RequestRecord) -> HttpResponse {
        let policy = Policy::new("default", self.limit, self.window);
        let mut response = match (record.outcome, record.decision) {
            (Outcome::DegradedAllowed, _) => HttpResponse {
                status: 200,
                reason: "OK",
                headers: vec![("x-ratelimit-mode".into(), "degraded".into())],
            },
            (Outcome::FailedClosed, _) => HttpResponse {
                status: 503,
                reason: "Service Unavailable",
                headers: vec![
                    ("Retry-After".into(), "1".into()),
                    ("Cache-Control".into(), "no-store".into()),
                    ("x-ratelimit-mode".into(), "unavailable".into()),
                ],
            },
            (_, Some(decision)) => match self.tier {
                // The binding answers only `success`: the seed's Worker sends its period.
                Tier::Binding { period_secs } => binding_worker(&decision, period_secs),
                Tier::DurableObject => respond(&policy, &decision),
            },
            (_, None) => respond(
                &policy,
                &Decision {
                    verdict: crate::core::decision::Verdict::Rejected,
                    limit: self.limit,
                    remaining: 0,
                    reset_after: Span::ZERO,
                    retry_after: Some(Span::from_secs(1)),
                },
            ),
        };
        if record.outcome == Outcome::Rejected && record.local && self.tier == Tier::DurableObject {
            response
                .headers
                .push(("x-ratelimit-tier".into(), "cache".into()));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest rank found by sorting: the smallest value with at least `p`% at or below it.
    fn by_sorting(latencies: &[u64], p: u64) -> Span {
        let mut sorted = latencies.to_vec();
        sorted.sort_unstable();
        let rank = (p * sorted.len() as u64).div_ceil(100).max(1) as usize;
        Span(sorted[rank - 1])
    }

    #[test]
    fn each_percentile_is_the_nearest_rank_found_by_sorting_whatever_the_count_and_repeats() {
        let mut seed = 7u64;
        for len in [1usize, 2, 3, 19, 20, 21, 99, 100, 101, 1_000, 4_099] {
            // Few distinct values, so ranks fall among repeats.
            let latencies: Vec<u64> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) % 37
                })
                .collect();
            let expected = [50, 95, 99, 100].map(|p| by_sorting(&latencies, p));
            assert_eq!(
                percentiles(&mut latencies.clone(), [50, 95, 99, 100]),
                expected,
                "{len} latencies"
            );
        }
    }

    #[test]
    fn no_latencies_give_zero_percentiles() {
        assert_eq!(percentiles(&mut [], [50, 99]), [Span::ZERO; 2]);
    }

    #[test]
    fn every_percentile_is_found_among_values_as_far_apart_as_a_u64_allows() {
        let with_zero = vec![
            u64::MAX,
            0,
            1,
            u64::MAX - 1,
            1 << 63,
            255,
            256,
            1 << 40,
            (1 << 40) + 1,
            u64::MAX,
        ];
        let without_zero = vec![u64::MAX, 1, u64::MAX - 1, 2, u64::MAX];
        for values in [with_zero, without_zero] {
            let percents: [u64; 100] = std::array::from_fn(|i| i as u64 + 1);
            let expected = percents.map(|p| by_sorting(&values, p));
            assert_eq!(
                percentiles(&mut values.clone(), percents),
                expected,
                "{values:?}"
            );
        }
    }
}
